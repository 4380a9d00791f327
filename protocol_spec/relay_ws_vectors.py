"""Generate (or check) the test vectors of the relay's WebSocket transport (connect.md §9).

    python protocol_spec/relay_ws_vectors.py          # rewrite vectors/relay_ws_v1.json
    python protocol_spec/relay_ws_vectors.py --check  # exit 1 if it is out of date

Everything here is computed from RFC 6455 by hand (no WebSocket library), so the
tests can hold a library and the relay against it.  The handshake uses the key of
RFC 6455 §1.3 (``dGhlIHNhbXBsZSBub25jZQ==``, whose accept value the RFC gives)
and a second key, ``SHA-256("truc-p2p ws vector key")[:16]`` in base64.  The
frames carry relay messages: a host's magic and REGISTER (a client frame, masked
with the given mask), the relay's REGISTERED for the code of the all-zero claim
(a server frame, unmasked), a 300-byte chunk of a game's stream (the 16-bit
length form), and the Close frames of §9.3.
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import sys
from pathlib import Path
from typing import Any

from truc_p2p.net._relay_wire import MAGIC, Msg, code_for_claim, encode, encode_addr, encode_addrs

OUT = Path(__file__).resolve().parent / "vectors" / "relay_ws_v1.json"
#: RFC 6455 §1.3: the GUID appended to the key before hashing.
GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
SUBPROTOCOL = "truc-p2p.relay.v1"
MASKS = ["37fa213d", "00000000", "a1b2c3d4"]


def accept(key: str) -> str:
    """``Sec-WebSocket-Accept`` for ``key``: base64(SHA-1(key || GUID))."""
    return base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()


def frame(opcode: int, payload: bytes, mask: bytes | None) -> bytes:
    """One final frame (FIN set, no RSV bits) of RFC 6455 §5.2."""
    bit = 0x80 if mask is not None else 0
    n = len(payload)
    if n < 126:
        head = bytes([0x80 | opcode, bit | n])
    elif n < 1 << 16:
        head = bytes([0x80 | opcode, bit | 126]) + struct.pack("!H", n)
    else:
        head = bytes([0x80 | opcode, bit | 127]) + struct.pack("!Q", n)
    if mask is None:
        return head + payload
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _request(key: str) -> str:
    return (
        "GET /ws HTTP/1.1\r\n"
        "Host: relay.example.org\r\n"
        "Upgrade: websocket\r\n"
        "Connection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n"
        f"Sec-WebSocket-Protocol: {SUBPROTOCOL}\r\n"
        "Origin: https://play.example.org\r\n"
        "\r\n"
    )


def _response(key: str) -> str:
    return (
        "HTTP/1.1 101 Switching Protocols\r\n"
        "Upgrade: websocket\r\n"
        "Connection: Upgrade\r\n"
        f"Sec-WebSocket-Accept: {accept(key)}\r\n"
        f"Sec-WebSocket-Protocol: {SUBPROTOCOL}\r\n"
        "\r\n"
    )


def build() -> dict[str, Any]:
    keys = [
        "dGhlIHNhbXBsZSBub25jZQ==",
        base64.b64encode(hashlib.sha256(b"truc-p2p ws vector key").digest()[:16]).decode(),
    ]
    code = code_for_claim(bytes(16)).encode()
    register = MAGIC + encode(Msg.REGISTER, encode_addrs([("192.168.1.20", 4455)]))
    registered = encode(
        Msg.REGISTERED, bytes([len(code)]) + code + encode_addr(("203.0.113.7", 51000))
    )
    chunk = bytes(i % 251 for i in range(300))
    messages = [
        {
            "label": "a host's magic and REGISTER, browser to relay",
            "payload": register,
            "client": True,
        },
        {"label": "REGISTERED, relay to browser", "payload": registered, "client": False},
        {"label": "PING, browser to relay", "payload": encode(Msg.PING), "client": True},
        {
            "label": "300 bytes of a game's stream (16-bit length), relay to browser",
            "payload": chunk,
            "client": False,
        },
        {
            "label": "300 bytes of a game's stream (16-bit length), browser to relay",
            "payload": chunk,
            "client": True,
        },
    ]
    frames = []
    for number, item in enumerate(messages):
        payload = item["payload"]
        assert isinstance(payload, bytes)
        mask = bytes.fromhex(MASKS[number % len(MASKS)]) if item["client"] else None
        frames.append(
            {
                "label": item["label"],
                "direction": "client to relay" if item["client"] else "relay to client",
                "payload": payload.hex(),
                "mask": None if mask is None else mask.hex(),
                "frame": frame(0x2, payload, mask).hex(),
            }
        )
    closes = {
        1000: "normal: the client or the other side of the splice ended",
        1002: "protocol error: a malformed frame or relay message",
        1003: "a text message (binary only)",
        1008: "policy: after an ERROR, a limit of the splice (bytes, idle time) or a timeout",
        1009: "a message longer than max_message",
        1011: "relay error: a fault in the relay itself",
    }
    return {
        "schema": "schemas/relay_ws_v1.schema.json",
        "description": (
            "The relay's WebSocket transport (connect.md section 9), relay_ws_vectors.py: the "
            "upgrade (request, the reference relay's response byte for byte, the accept "
            "value), binary frames carrying relay messages (client frames masked with the "
            "given mask, server frames unmasked), the Close frames a relay sends, and the "
            "longest message a relay accepts"
        ),
        "path": "/ws",
        "subprotocol": SUBPROTOCOL,
        "max_message": len(MAGIC) + 3 + 512 + 4 + 16 * 1024,
        "handshakes": [
            {
                "key": key,
                "accept": accept(key),
                "request": _request(key),
                "response": _response(key),
            }
            for key in keys
        ],
        "frames": frames,
        "closes": [
            {
                "code": code_value,
                "meaning": meaning,
                "frame": frame(0x8, struct.pack("!H", code_value), None).hex(),
            }
            for code_value, meaning in closes.items()
        ],
    }


def main(argv: list[str]) -> int:
    text = json.dumps(build(), indent=1, ensure_ascii=False) + "\n"
    if argv == ["--check"]:
        if OUT.read_text() != text:
            print(f"{OUT} is out of date: run python {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
