"""Pieces several vector files share, each as the spec states it."""

from __future__ import annotations

import base64
import hashlib
import json
import struct
from typing import Any
from urllib.parse import quote_plus

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

# connect.md §2: the relay protocol
MAGIC = b"TRUCRLY1"
REGISTER, REGISTERED, PING, LIST, LOBBY, GAME, END = 0x01, 0x81, 0x05, 0x06, 0x07, 0x87, 0x88


def dump(value: Any, indent: int, ascii_only: bool = False) -> str:
    """A vector file's text: JSON with ``indent``, non-ASCII kept as UTF-8 or escaped
    (``ascii_only``), one newline at the end (protocol_spec/README.md)."""
    return json.dumps(value, indent=indent, ensure_ascii=ascii_only) + "\n"


def message(kind: int, body: bytes = b"") -> bytes:
    """connect.md §2: type (1 byte) || length (2 bytes, big-endian) || body."""
    return bytes([kind]) + struct.pack("!H", len(body)) + body


def addr(host: str, port: int) -> bytes:
    """connect.md §2: family (4 or 6) || address || port."""
    if ":" in host:
        import ipaddress

        return b"\x06" + ipaddress.IPv6Address(host).packed + struct.pack("!H", port)
    return b"\x04" + bytes(int(part) for part in host.split(".")) + struct.pack("!H", port)


def addrs(items: list[tuple[str, int]]) -> bytes:
    return bytes([len(items)]) + b"".join(addr(h, p) for h, p in items)


def code_for_claim(claim: bytes) -> str:
    """connect.md §2.1: lower(base32(SHA-256("truc-p2p relay code v1" || claim)[0..10]))."""
    digest = hashlib.sha256(b"truc-p2p relay code v1" + claim).digest()[:10]
    return base64.b32encode(digest).decode().lower()


def fingerprint(public: bytes) -> str:
    """wire.md §4: hex(SHA-256("truc-p2p/v1/fingerprint" || raw public key))."""
    return hashlib.sha256(b"truc-p2p/v1/fingerprint" + public).hexdigest()


class Ed25519:
    """An Ed25519 key from its 32-byte seed (signatures are deterministic)."""

    def __init__(self, seed: bytes) -> None:
        self.seed = seed
        self._key = Ed25519PrivateKey.from_private_bytes(seed)
        self.public = self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    def sign(self, data: bytes) -> bytes:
        return self._key.sign(data)


def form(pairs: list[tuple[str, str]]) -> str:
    """application/x-www-form-urlencoded, spaces as ``+`` (connect.md §2.2)."""
    return "&".join(f"{quote_plus(k)}={quote_plus(v)}" for k, v in pairs)


def envelope(
    signer: Ed25519,
    game_id: bytes,
    seq: int,
    prev: bytes,
    sender: int,
    kind: str,
    payload: dict[str, Any],
) -> bytes:
    """wire.md §2: body || Ed25519(sender, body), the body in canonical msgpack."""
    import msgpack

    body: bytes = msgpack.packb([1, game_id, seq, prev, sender, kind, payload], use_bin_type=True)
    return body + signer.sign(body)


def sha256(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def local(secret: bytes, label: bytes) -> bytes:
    """wire.md §9: HMAC-SHA256(secret, "truc-p2p/v1/local/" || label)."""
    import hmac

    return hmac.new(secret, b"truc-p2p/v1/local/" + label, hashlib.sha256).digest()


def hello_nonce(secret: bytes, mask: int) -> bytes:
    """wire.md §8.1: 24 bytes of the derived nonce, "trc" 0x01, the feature mask; the
    derived nonce whole when no feature is announced (§9)."""
    if not mask:
        return local(secret, b"nonce")
    return local(secret, b"nonce")[:24] + b"trc\x01" + struct.pack("!I", mask)


RULESET = {"target": 12, "ladder": "literal", "rest_refused": "game"}


def handshake(
    keys: tuple[Ed25519, Ed25519],
    names: tuple[str, str],
    secrets: tuple[bytes, bytes],
    options: dict[str, Any],
    masks: tuple[int, int],
    ruleset: dict[str, Any] = RULESET,
) -> dict[str, Any]:
    """wire.md §4: both hellos, the initiator's coin, the game id and the coins' dealer."""
    c0, c1 = local(secrets[0], b"coin"), local(secrets[1], b"coin")
    hellos: list[bytes] = []
    prev = bytes(32)
    for p in (0, 1):
        payload = {
            "name": names[p],
            "key": keys[p].public,
            "nonce": hello_nonce(secrets[p], masks[p]),
            "ruleset": ruleset,
            "options": options,
            "coin": sha256(b"truc-p2p/v1/coin", c0) if p == 0 else c1,
        }
        hellos.append(envelope(keys[p], b"", p, prev, p, "hello", payload))
        prev = sha256(hellos[-1])
    game_id = sha256(b"truc-p2p/v1/game", hellos[0], hellos[1])
    coin = envelope(keys[0], game_id, 2, prev, 0, "coin", {"coin": c0})
    return {
        "hellos": hellos,
        "coin": coin,
        "game_id": game_id,
        "coin_dealer": sha256(b"truc-p2p/v1/coin/draw", c0, c1)[0] & 1,
    }
