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


def dump(value: Any, indent: int) -> str:
    """A vector file's text: JSON, UTF-8 kept as is, one newline at the end."""
    return json.dumps(value, indent=indent, ensure_ascii=False) + "\n"


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
