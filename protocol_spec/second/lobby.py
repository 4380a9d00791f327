"""vectors/lobby_v1.json: the relay's lobby (connect.md §2.2)."""

from __future__ import annotations

import hashlib
import struct
from typing import Any

from common import (
    END,
    GAME,
    LIST,
    LOBBY,
    MAGIC,
    Ed25519,
    addr,
    code_for_claim,
    fingerprint,
    form,
    message,
)

FILE = "lobby_v1.json"
INDENT = 2
RELAY = ("relay.example.org", 4456)
CONTEXT = b"truc-p2p lobby listing v1"
#: connect.md §2.2 (the order of §1.1): the settings an invite carries
SETTINGS = ("target", "ladder", "rest", "audit", "deck", "pipeline", "match")


def key(label: str) -> Ed25519:
    return Ed25519(hashlib.sha256(b"truc-p2p lobby vector " + label.encode()).digest())


def unsigned(public: bytes, host: tuple[str, int], fields: dict[str, str]) -> bytes:
    """key || addr || length || fields, the fields form-encoded with sorted keys."""
    text = form(sorted(fields.items())).encode()
    return public + addr(*host) + struct.pack("!H", len(text)) + text


def sign(signer: Ed25519, host: tuple[str, int], fields: dict[str, str], code: str) -> bytes:
    body = unsigned(signer.public, host, fields)
    return body + signer.sign(CONTEXT + bytes([len(code)]) + code.encode() + body)


def invite(host: tuple[str, int], fp: str, relay: str, code: str, fields: dict[str, str]) -> str:
    shown = f"[{host[0]}]" if ":" in host[0] else host[0]
    settings = "".join(
        f"&{k}={fields[k]}"
        for k in SETTINGS
        if k in fields and not (k == "match" and fields[k] == "1")
    )
    return f"truc://{shown}:{host[1]}/?fp={fp}&relay={relay}&code={code}{settings}"


def game(code: str, waiting: int, listing: bytes) -> bytes:
    return message(GAME, bytes([len(code)]) + code.encode() + struct.pack("!I", waiting) + listing)


def _case(
    label: str, key_label: str, host: tuple[str, int], fields: dict[str, str], code: str
) -> dict[str, Any]:
    signer = key(key_label)
    listing = sign(signer, host, fields, code)
    body = listing[:-64]
    fp = fingerprint(signer.public)
    return {
        "label": label,
        "key_label": key_label,
        "key_seed": signer.seed.hex(),
        "public_key": signer.public.hex(),
        "code": code,
        "addr": list(host),
        "fields": fields,
        "fields_text": form(sorted(fields.items())),
        "signed_bytes": (CONTEXT + bytes([len(code)]) + code.encode() + body).hex(),
        "signature": listing[-64:].hex(),
        "list_message": message(LIST, listing).hex(),
        "game_message": game(code, 42, listing).hex(),
        "waiting": 42,
        "fingerprint": fp,
        "invite": invite(host, fp, f"{RELAY[0]}:{RELAY[1]}", code, fields),
    }


def _bad(label: str, why: str, code: str, listing: bytes) -> dict[str, Any]:
    return {"label": label, "why": why, "code": code, "game_message": game(code, 42, listing).hex()}


def build() -> dict[str, Any]:
    code = code_for_claim(bytes(16))
    fields = {
        "name": "Ana Soler",
        "target": "12",
        "ladder": "literal",
        "rest": "game",
        "audit": "game",
        "deck": "v2",
        "match": "3",
    }
    good = _case("ipv4, a match of 3", "host", ("192.0.2.7", 4455), fields, code)
    v6_fields = {**fields, "name": "Bèa & co", "target": "6", "match": "1", "pipeline": "0"}
    v6 = _case(
        "ipv6, a single game, no pipelining",
        "other host",
        ("2001:db8::7", 4455),
        v6_fields,
        code_for_claim(bytes(range(16))),
    )
    signed = bytes.fromhex(good["list_message"])[3:]
    host = key("host")
    dropped = [
        _bad("renamed", "the relay changed the name", code,
             signed.replace(b"Ana+Soler", b"Eve+Soler")),
        _bad("retargeted", "the relay changed a rule", code,
             signed.replace(b"target=12", b"target=11")),
        _bad("readdressed", "the relay changed the game address", code,
             signed[:33] + bytes([192, 0, 2, 8]) + signed[37:]),
        _bad("moved", "listed under another code", code_for_claim(b"\x01" * 16), signed),
        _bad("rekeyed", "another key over the host's signature", code,
             key("impostor").public + signed[32:]),
        _bad("cut", "the signature cut short", code, signed[:-1]),
        _bad("escape", "signed by the host, but a name with a terminal escape sequence", code,
             sign(host, ("192.0.2.7", 4455), {**fields, "name": "\x1b[2Jana"}, code)),
    ]  # fmt: skip
    name, fp = "ana", good["fingerprint"][:8]
    return {
        "schema": "schemas/lobby_v1.schema.json",
        "description": "Relay lobby listings (connect.md section 2.2), lobby_vectors.py; "
        "'filtered': a LOBBY with a filter (name and fingerprint prefix), which listed "
        "games it matches, and the END of an answer to it (held, then matching)",
        "relay": list(RELAY),
        "lobby_request": (MAGIC + message(LOBBY)).hex(),
        "end_message": message(END, struct.pack("!H", 2)).hex(),
        "unlist_message": message(LIST).hex(),
        "listed": [good, v6],
        "filtered": {
            "name": name,
            "fp": fp,
            "lobby_request": (
                MAGIC + message(LOBBY, form([("name", name), ("fp", fp)]).encode())
            ).hex(),
            "matches": {
                case["label"]: name.casefold() in case["fields"]["name"].casefold()
                and case["fingerprint"].startswith(fp)
                for case in (good, v6)
            },
            "end_message": message(END, struct.pack("!HH", 2, 1)).hex(),
        },
        "dropped": dropped,
    }
