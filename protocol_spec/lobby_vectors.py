"""Generate (or check) the test vectors of the relay's lobby (connect.md §2.2).

    python protocol_spec/lobby_vectors.py          # rewrite vectors/lobby_v1.json
    python protocol_spec/lobby_vectors.py --check  # exit 1 if it is out of date

A host with a fixed Ed25519 key registered with the claim of 16 zero bytes
(code ``45sjajpekleh2ojq``) lists its game.  Each key's seed is
``SHA-256("truc-p2p lobby vector " + key label)``, the key label being ``host``,
``other host`` or ``impostor`` (not a case's ``label``); each listed case names
its ``key_label`` and ``key_seed`` (hex), so the signatures can be made again.
The vector holds the vector holds the whole ``LIST`` message, the bytes its signature
covers, the ``GAME`` message a relay sends for it (waiting 42 s), the listing
as a joiner reads it (fields, fingerprint, invite), and listings a joiner must
drop: altered by the relay (a name, a rule, the address), moved to another
code, signed by another key, cut short.  Ed25519 signatures are
deterministic, so every byte is reproducible.
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
from pathlib import Path
from typing import Any

from truc_p2p.crypto import SigningKey
from truc_p2p.net._lobby import LISTING_CONTEXT, LobbyFilter, LobbyListing, listing_fields
from truc_p2p.net._relay_wire import MAGIC, Msg, code_for_claim, encode

OUT = Path(__file__).resolve().parent / "vectors" / "lobby_v1.json"
RELAY = ("relay.example.org", 4456)


def _seed(key_label: str) -> bytes:
    """The Ed25519 seed of the key called ``key_label`` (not a case's label)."""
    return hashlib.sha256(b"truc-p2p lobby vector " + key_label.encode()).digest()


def _key(key_label: str) -> SigningKey:
    return SigningKey.from_bytes(_seed(key_label))


def _raw(key: SigningKey) -> bytes:
    return key.public_key().to_bytes()


def _game(code: str, waiting: int, listing: bytes) -> bytes:
    return encode(
        Msg.GAME, bytes([len(code)]) + code.encode() + struct.pack("!I", waiting) + listing
    )


def _case(
    label: str, key_label: str, addr: tuple[str, int], fields: dict[str, str], code: str
) -> dict[str, Any]:
    key = _key(key_label)
    listing = LobbyListing(key=_raw(key), addr=addr, fields=fields)
    signed = listing.sign(key, code)
    unsigned = signed[:-64]
    read = LobbyListing.verify(signed, code)
    return {
        "label": label,
        "key_label": key_label,
        "key_seed": _seed(key_label).hex(),
        "public_key": _raw(key).hex(),
        "code": code,
        "addr": list(addr),
        "fields": fields,
        "fields_text": _fields_text(unsigned),
        "signed_bytes": (LISTING_CONTEXT + bytes([len(code)]) + code.encode() + unsigned).hex(),
        "signature": signed[-64:].hex(),
        "list_message": encode(Msg.LIST, signed).hex(),
        "game_message": _game(code, 42, signed).hex(),
        "waiting": 42,
        "fingerprint": read.fingerprint,
        "invite": (
            f"truc://{addr[0] if ':' not in addr[0] else '[' + addr[0] + ']'}:{addr[1]}"
            f"/?fp={read.fingerprint}&relay={RELAY[0]}:{RELAY[1]}&code={code}"
            # the host's settings, as its invite carries them (connect.md 1.1):
            # the match length only for a match (a single game's invite names none)
            + "".join(
                f"&{key}={fields[key]}"
                for key in ("target", "ladder", "rest", "audit", "deck", "pipeline", "match")
                if key in fields and not (key == "match" and fields[key] == "1")
            )
        ),
    }


def _fields_text(unsigned: bytes) -> str:
    """The fields text inside an unsigned listing (key, addr, length, text)."""
    at = 32 + (1 + (4 if unsigned[32] == 4 else 16) + 2)
    (size,) = struct.unpack("!H", unsigned[at : at + 2])
    return unsigned[at + 2 : at + 2 + size].decode()


def _bad(label: str, why: str, code: str, listing: bytes) -> dict[str, Any]:
    return {
        "label": label,
        "why": why,
        "code": code,
        "game_message": _game(code, 42, listing).hex(),
    }


def vectors() -> dict[str, Any]:
    code = code_for_claim(bytes(16))
    host = _key("host")
    fields = listing_fields(
        name="Ana Soler",
        ruleset={"target": 12, "ladder": "literal", "rest_refused": "game"},
        audit="game",
        deck="v2",
        pipeline=None,
        early=None,
        match=3,
    )
    good = _case("ipv4, a match of 3", "host", ("192.0.2.7", 4455), fields, code)
    v6_fields = {**fields, "name": "Bèa & co", "target": "6", "pipeline": "0", "match": "1"}
    v6_code = code_for_claim(bytes(range(16)))
    v6 = _case(
        "ipv6, a single game, no pipelining", "other host", ("2001:db8::7", 4455), v6_fields,
        v6_code,
    )  # fmt: skip
    signed = bytes.fromhex(good["list_message"])[3:]
    other = _key("impostor")
    renamed = signed.replace(b"Ana+Soler", b"Eve+Soler")
    retargeted = signed.replace(b"target=12", b"target=11")
    readdressed = signed[:33] + bytes([192, 0, 2, 8]) + signed[37:]
    rekeyed = _raw(other) + signed[32:]
    bad = [
        _bad("renamed", "the relay changed the name", code, renamed),
        _bad("retargeted", "the relay changed a rule", code, retargeted),
        _bad("readdressed", "the relay changed the game address", code, readdressed),
        _bad("moved", "listed under another code", code_for_claim(b"\x01" * 16), signed),
        _bad("rekeyed", "another key over the host's signature", code, rekeyed),
        _bad("cut", "the signature cut short", code, signed[:-1]),
        _bad(
            "escape",
            "signed by the host, but a name with a terminal escape sequence",
            code,
            LobbyListing(
                key=_raw(host), addr=("192.0.2.7", 4455), fields={**fields, "name": "\x1b[2Jana"}
            ).sign(host, code),
        ),
    ]
    assert renamed != signed and retargeted != signed
    wanted = LobbyFilter(name="ana", fingerprint=good["fingerprint"][:8])
    filtered = {
        "name": wanted.name,
        "fp": wanted.fingerprint,
        "lobby_request": (MAGIC + encode(Msg.LOBBY, wanted.encode())).hex(),
        "matches": {
            case["label"]: wanted.matches(
                LobbyListing.verify(bytes.fromhex(case["list_message"])[3:], case["code"])
            )
            for case in (good, v6)
        },
        # 2 listings held, 1 matching the filter: the newer END (a reader that knows
        # only the first count reads it as before).
        "end_message": encode(Msg.END, struct.pack("!HH", 2, 1)).hex(),
    }
    return {
        "schema": "schemas/lobby_v1.schema.json",
        "description": "Relay lobby listings (connect.md section 2.2), lobby_vectors.py; "
        "'filtered': a LOBBY with a filter (name and fingerprint prefix), which listed "
        "games it matches, and the END of an answer to it (held, then matching)",
        "relay": list(RELAY),
        "lobby_request": (MAGIC + encode(Msg.LOBBY)).hex(),
        "end_message": encode(Msg.END, struct.pack("!H", 2)).hex(),
        "unlist_message": encode(Msg.LIST).hex(),
        "listed": [good, v6],
        "filtered": filtered,
        "dropped": bad,
    }


def main(argv: list[str]) -> int:
    text = json.dumps(vectors(), indent=2, ensure_ascii=False) + "\n"
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is out of date: run python {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
