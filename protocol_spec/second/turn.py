"""vectors/turn_v1.json: the host's STUN messages on the TURN path (connect.md §11.3,
RFC 8489 §5, §9.2, §14; RFC 8656 §18; RFC 6062 §6)."""

from __future__ import annotations

import hashlib
import hmac
import stringprep
import struct
import unicodedata
from typing import Any

FILE = "turn_v1.json"
INDENT = 2
COOKIE = 0x2112A442
USER, PASSWORD, REALM = "alice", "s3cret", "truc.test"
NONCE1, NONCE2 = b"nonce-one-0123456789", b"nonce-two-0123456789"
RELAYED, MAPPED, JOINER = ("198.51.100.7", 49152), ("203.0.113.5", 40000), ("203.0.113.9", 51234)
# attribute types
USERNAME, INTEGRITY, ERROR_CODE, LIFETIME, PEER = 0x0006, 0x0008, 0x0009, 0x000D, 0x0012
REALM_T, NONCE_T, RELAYED_T, TRANSPORT, MAPPED_T, CONN_ID = (
    0x0014,
    0x0015,
    0x0016,
    0x0019,
    0x0020,
    0x002A,
)
RFC5769 = (
    "0101003c2112a442b7e7a701bc34d686fa87dfae8022000b7465737420766563746f7220"
    "002000080001a147e112a643000800142b91f599fd9e90c38c7489f92af9ba53f06be7d7"
    "80280004c07d4c96"
)

RFC5769_LTC = (
    "000100602112a44278ad3433c6ad72c029da412e00060012e3839ee38388e383aae38383e382afe382b9"
    "00000015001c662f2f3439396b39353464364f4c33346f4c394653547679363473410014000b6578616d"
    "706c652e6f72670000080014f67024656dd64a3e02b8e0712e85c9a28ca89666"
)
# connect.md §11.3: SASLprep's inputs, in order
PREP_INPUTS = [
    "I\u00adX", "user", "USER", "\u00aa", "\u2168", "\u0007", "\u0627\u0031",
    "pass\u00a0word", "\u0221", "\u0627\u0628", "a\ue000", "The\u00adM\u00aatr\u2168",
]  # fmt: skip
PROHIBITED = [getattr(stringprep, f"in_table_{t}") for t in
              ("c12", "c21", "c22", "c3", "c4", "c5", "c6", "c7", "c8", "c9")]  # fmt: skip


def prep(text: str) -> dict[str, str]:
    """RFC 4013 for a stored string: the case's output, or its error."""
    kept = [c for c in text if not stringprep.in_table_b1(c)]
    out = unicodedata.ucd_3_2_0.normalize(
        "NFKC", "".join(" " if stringprep.in_table_c12(c) else c for c in kept)
    )
    if any(table(c) for c in out for table in PROHIBITED):
        return {"input": text, "error": "prohibited"}
    if any(stringprep.in_table_a1(c) for c in out):
        return {"input": text, "error": "unassigned"}
    rtl = [stringprep.in_table_d1(c) for c in out]
    if any(rtl) and (any(map(stringprep.in_table_d2, out)) or not (rtl[0] and rtl[-1])):
        return {"input": text, "error": "bidi"}
    return {"input": text, "output": out}


def txid(label: str) -> bytes:
    return hashlib.sha256(b"truc-p2p turn vector " + label.encode()).digest()[:12]


def msg_type(method: int, cls: int) -> int:
    """RFC 8489 §5: the class bits C0 and C1 sit at bits 4 and 8 of the method."""
    m = (method & 0xF) | ((method & 0x70) << 1) | ((method & 0xF80) << 2)
    return m | ((cls & 1) << 4) | ((cls & 2) << 7)


def attr(kind: int, value: bytes) -> bytes:
    return struct.pack("!HH", kind, len(value)) + value + bytes(-len(value) % 4)


def xaddr(ip: str, port: int) -> bytes:
    """XOR-*-ADDRESS of an IPv4 address: family 1, port and address XORed with the cookie."""
    raw = bytes(int(x) for x in ip.split("."))
    cookie = struct.pack("!I", COOKIE)
    return struct.pack("!BBH", 0, 1, port ^ (COOKIE >> 16)) + bytes(
        a ^ b for a, b in zip(raw, cookie, strict=True)
    )


def error(code: int, reason: str) -> bytes:
    return struct.pack("!HBB", 0, code // 100, code % 100) + reason.encode()


def stun(method: int, cls: int, tid: bytes, attrs: list[bytes], key: bytes | None) -> bytes:
    body = b"".join(attrs)
    if key is None:
        return struct.pack("!HHI", msg_type(method, cls), len(body), COOKIE) + tid + body
    head = struct.pack("!HHI", msg_type(method, cls), len(body) + 24, COOKIE) + tid
    return head + body + attr(INTEGRITY, hmac.new(key, head + body, hashlib.sha1).digest())


def build() -> dict[str, Any]:
    key = hashlib.md5(f"{USER}:{REALM}:{PASSWORD}".encode()).digest()
    transport, life = attr(TRANSPORT, bytes([6, 0, 0, 0])), attr(LIFETIME, struct.pack("!I", 600))

    def auth(nonce: bytes) -> list[bytes]:
        return [attr(USERNAME, USER.encode()), attr(REALM_T, REALM.encode()), attr(NONCE_T, nonce)]

    def challenge(code: int, reason: str, nonce: bytes) -> list[bytes]:
        return [
            attr(ERROR_CODE, error(code, reason)),
            attr(REALM_T, REALM.encode()),
            attr(NONCE_T, nonce),
        ]

    peer0 = attr(PEER, xaddr(JOINER[0], 0))
    conn = attr(CONN_ID, bytes.fromhex("0000beef"))
    # label, from, method, class, transaction id label, attributes, signed
    rows: list[tuple[str, str, int, int, str, list[bytes], bool]] = [
        ("allocate", "host", 3, 0, "allocate", [transport, life], False),
        ("allocate-401", "server", 3, 3, "allocate", challenge(401, "Unauthorized", NONCE1), False),
        ("allocate-auth", "host", 3, 0, "allocate-auth", [transport, life, *auth(NONCE1)], True),
        (
            "allocate-success",
            "server",
            3,
            2,
            "allocate-auth",
            [attr(RELAYED_T, xaddr(*RELAYED)), life, attr(MAPPED_T, xaddr(*MAPPED))],
            True,
        ),
        ("permission", "host", 8, 0, "permission", [peer0, *auth(NONCE1)], True),
        (
            "permission-438",
            "server",
            8,
            3,
            "permission",
            challenge(438, "Stale Nonce", NONCE2),
            False,
        ),
        ("permission-again", "host", 8, 0, "permission-again", [peer0, *auth(NONCE2)], True),
        (
            "connection-attempt",
            "server",
            0xC,
            1,
            "connection-attempt",
            [conn, attr(PEER, xaddr(*JOINER))],
            False,
        ),
        ("connection-bind", "host", 0xB, 0, "connection-bind", [conn, *auth(NONCE2)], True),
        ("refresh", "host", 4, 0, "refresh", [life, *auth(NONCE2)], True),
        (
            "connect",
            "host",
            0xA,
            0,
            "connect",
            [attr(PEER, xaddr(JOINER[0], 4455)), *auth(NONCE2)],
            True,
        ),
        ("delete", "host", 4, 0, "delete", [attr(LIFETIME, bytes(4)), *auth(NONCE2)], True),
    ]
    return {
        "schema": "schemas/turn_v1.schema.json",
        "description": (
            "connect.md §11: the STUN messages of a host's TURN allocation over TCP "
            "(RFC 6062, RFC 8656, RFC 8489); generated by protocol_spec/turn_vectors.py"
        ),
        "credential": {"username": USER, "realm": REALM, "password": PASSWORD, "key": key.hex()},
        "relayed": list(RELAYED),
        "mapped": list(MAPPED),
        "joiner": list(JOINER),
        "messages": [
            {
                "label": label,
                "from": who,
                "method": method,
                "class": cls,
                "transaction_id": txid(tlabel).hex(),
                "signed": signed,
                "hex": stun(method, cls, txid(tlabel), attrs, key if signed else None).hex(),
            }
            for label, who, method, cls, tlabel, attrs, signed in rows
        ],
        "probe_answer_turn": (b"TRUCPRB1" + bytes(16) + b"T").hex(),
        "rfc5769_response": {
            "hex": RFC5769,
            "password": "VOkJxbRl1RmTxUk/WvJxBt",
            "xor_mapped_address": ["192.0.2.1", 32853],
        },
        "saslprep": [prep(text) for text in PREP_INPUTS],
        "rfc5769_long_term_request": {
            "hex": RFC5769_LTC,
            "username": "\u30de\u30c8\u30ea\u30c3\u30af\u30b9",
            "password": "The\u00adM\u00aatr\u2168",
            "realm": "example.org",
            "nonce": "f//499k954d6OL34oL9FSTvy64sA",
        },
    }
