"""vectors/relay_ws_v1.json: the relay's WebSocket transport (connect.md §9, RFC 6455)."""

from __future__ import annotations

import base64
import hashlib
import struct
from typing import Any

from common import MAGIC, PING, REGISTER, REGISTERED, addr, addrs, code_for_claim, message

FILE = "relay_ws_v1.json"
INDENT = 1
SUBPROTOCOL = "truc-p2p.relay.v1"
GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def _accept(key: str) -> str:
    return base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()


def _frame(opcode: int, payload: bytes, mask: bytes | None) -> bytes:
    n = len(payload)
    bit = 0x80 if mask is not None else 0
    if n < 126:
        head = bytes([0x80 | opcode, bit | n])
    elif n < 65536:
        head = bytes([0x80 | opcode, bit | 126]) + struct.pack("!H", n)
    else:
        head = bytes([0x80 | opcode, bit | 127]) + struct.pack("!Q", n)
    if mask is None:
        return head + payload
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def build() -> dict[str, Any]:
    keys = [
        "dGhlIHNhbXBsZSBub25jZQ==",
        base64.b64encode(hashlib.sha256(b"truc-p2p ws vector key").digest()[:16]).decode(),
    ]
    code = code_for_claim(bytes(16)).encode()
    chunk = bytes(i % 251 for i in range(300))
    stream = "300 bytes of a game's stream (16-bit length), "
    items: list[tuple[str, bytes, str | None]] = [
        (
            "a host's magic and REGISTER, browser to relay",
            MAGIC + message(REGISTER, addrs([("192.168.1.20", 4455)])),
            "37fa213d",
        ),
        (
            "REGISTERED, relay to browser",
            message(REGISTERED, bytes([len(code)]) + code + addr("203.0.113.7", 51000)),
            None,
        ),
        ("PING, browser to relay", message(PING), "a1b2c3d4"),
        (stream + "relay to browser", chunk, None),
        (stream + "browser to relay", chunk, "00000000"),
    ]
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
        # connect.md §9.4: the magic, a whole control message, the longest game frame
        "max_message": 8 + 3 + 512 + 4 + 16384,
        "handshakes": [
            {
                "key": key,
                "accept": _accept(key),
                "request": (
                    "GET /ws HTTP/1.1\r\nHost: relay.example.org\r\nUpgrade: websocket\r\n"
                    f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                    f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {SUBPROTOCOL}\r\n"
                    "Origin: https://play.example.org\r\n\r\n"
                ),
                "response": (
                    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                    f"Connection: Upgrade\r\nSec-WebSocket-Accept: {_accept(key)}\r\n"
                    f"Sec-WebSocket-Protocol: {SUBPROTOCOL}\r\n\r\n"
                ),
            }
            for key in keys
        ],
        "frames": [
            {
                "label": label,
                "direction": "client to relay" if mask is not None else "relay to client",
                "payload": payload.hex(),
                "mask": mask,
                "frame": _frame(2, payload, None if mask is None else bytes.fromhex(mask)).hex(),
            }
            for label, payload, mask in items
        ],
        "closes": [
            {"code": c, "meaning": m, "frame": _frame(8, struct.pack("!H", c), None).hex()}
            for c, m in closes.items()
        ],
    }
