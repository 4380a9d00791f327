"""Generate (or check) the test vectors of the TURN path (connect.md §11).

    python protocol_spec/turn_vectors.py          # rewrite vectors/turn_v1.json
    python protocol_spec/turn_vectors.py --check  # exit 1 if it is out of date

Every STUN message a host sends to its TURN server, in order, and the server's
answers it reads, built by ``truc_p2p/net/_stun.py`` with the user ``alice``,
password ``s3cret`` and realm ``truc.test``.  The transaction id of message
``label`` is the first 12 bytes of ``SHA-256("truc-p2p turn vector " + label)``;
the server's nonces are fixed strings; so every byte is reproducible.  The
addresses are documentation ones (RFC 5737): the TURN server relays on
198.51.100.7, the host's NAT is 203.0.113.5, the joiner's 203.0.113.9.
RFC 5769 §2.2 (a success response with XOR-MAPPED-ADDRESS, a short-term
MESSAGE-INTEGRITY and a FINGERPRINT) is included as published, as a check of
the reader against bytes not made here, and so is §2.4 (a request with a
long-term MESSAGE-INTEGRITY whose password only SASLprep makes right), after
SASLprep's own cases (RFC 4013 §3's examples and a few more).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from truc_p2p.net._saslprep import SaslprepError, saslprep
from truc_p2p.net._stun import (
    ALLOCATE,
    CONNECT,
    CONNECTION_ATTEMPT,
    CONNECTION_BIND,
    CREATE_PERMISSION,
    ERROR,
    INDICATION,
    REFRESH,
    REQUEST,
    SUCCESS,
    TCP,
    Attr,
    Message,
    error_code,
    long_term_key,
    xor_address,
)

OUT = Path(__file__).resolve().parent / "vectors" / "turn_v1.json"
USER, PASSWORD, REALM = "alice", "s3cret", "truc.test"
NONCE, STALE_NONCE = b"nonce-one-0123456789", b"nonce-two-0123456789"
RELAYED, MAPPED = ("198.51.100.7", 49152), ("203.0.113.5", 40000)
JOINER = ("203.0.113.9", 51234)
CONNECTION_ID = bytes.fromhex("0000beef")

#: RFC 5769 §2.2, as published: a Binding success (IPv4), password VOkJxbRl1RmTxUk/WvJxBt.
RFC5769_RESPONSE = (
    "0101003c2112a442b7e7a701bc34d686fa87dfae"
    "8022000b7465737420766563746f7220"
    "002000080001a147e112a643"
    "000800142b91f599fd9e90c38c7489f92af9ba53f06be7d7"
    "80280004c07d4c96"
)


def _txid(label: str) -> bytes:
    return hashlib.sha256(b"truc-p2p turn vector " + label.encode()).digest()[:12]


def _auth(
    attrs: tuple[tuple[int, bytes], ...], nonce: bytes = NONCE
) -> tuple[tuple[int, bytes], ...]:
    return (
        *attrs,
        (Attr.USERNAME, USER.encode()),
        (Attr.REALM, REALM.encode()),
        (Attr.NONCE, nonce),
    )


def vectors() -> dict[str, Any]:
    key = long_term_key(USER, REALM, PASSWORD)
    transport = (Attr.REQUESTED_TRANSPORT, bytes([TCP, 0, 0, 0]))
    lifetime = (Attr.LIFETIME, (600).to_bytes(4, "big"))
    steps: list[tuple[str, str, Message, bytes | None]] = []

    def step(label: str, who: str, method: int, cls: int, attrs: Any, signed: bool) -> None:
        steps.append(
            (label, who, Message(method, cls, _txid(label), tuple(attrs)), key if signed else None)
        )

    step("allocate", "host", ALLOCATE, REQUEST, (transport, lifetime), False)
    steps.append(
        (
            "allocate-401",
            "server",
            Message(
                ALLOCATE,
                ERROR,
                _txid("allocate"),
                (
                    (Attr.ERROR_CODE, error_code(401, "Unauthorized")),
                    (Attr.REALM, REALM.encode()),
                    (Attr.NONCE, NONCE),
                ),
            ),
            None,
        )
    )
    step("allocate-auth", "host", ALLOCATE, REQUEST, _auth((transport, lifetime)), True)
    steps.append(
        (
            "allocate-success",
            "server",
            Message(
                ALLOCATE,
                SUCCESS,
                _txid("allocate-auth"),
                (
                    (Attr.XOR_RELAYED_ADDRESS, xor_address(*RELAYED, _txid("allocate-auth"))),
                    (Attr.LIFETIME, (600).to_bytes(4, "big")),
                    (Attr.XOR_MAPPED_ADDRESS, xor_address(*MAPPED, _txid("allocate-auth"))),
                ),
            ),
            key,
        )
    )
    peer = (Attr.XOR_PEER_ADDRESS, xor_address(JOINER[0], 0, _txid("permission")))
    step("permission", "host", CREATE_PERMISSION, REQUEST, _auth((peer,)), True)
    steps.append(
        (
            "permission-438",
            "server",
            Message(
                CREATE_PERMISSION,
                ERROR,
                _txid("permission"),
                (
                    (Attr.ERROR_CODE, error_code(438, "Stale Nonce")),
                    (Attr.REALM, REALM.encode()),
                    (Attr.NONCE, STALE_NONCE),
                ),
            ),
            None,
        )
    )
    peer2 = (Attr.XOR_PEER_ADDRESS, xor_address(JOINER[0], 0, _txid("permission-again")))
    step(
        "permission-again",
        "host",
        CREATE_PERMISSION,
        REQUEST,
        _auth((peer2,), STALE_NONCE),
        True,
    )
    step(
        "connection-attempt",
        "server",
        CONNECTION_ATTEMPT,
        INDICATION,
        (
            (Attr.CONNECTION_ID, CONNECTION_ID),
            (Attr.XOR_PEER_ADDRESS, xor_address(*JOINER, _txid("connection-attempt"))),
        ),
        False,
    )
    bind = (Attr.CONNECTION_ID, CONNECTION_ID)
    step("connection-bind", "host", CONNECTION_BIND, REQUEST, _auth((bind,), STALE_NONCE), True)
    step("refresh", "host", REFRESH, REQUEST, _auth((lifetime,), STALE_NONCE), True)
    step(
        "connect",
        "host",
        CONNECT,
        REQUEST,
        _auth(
            ((Attr.XOR_PEER_ADDRESS, xor_address(JOINER[0], 4455, _txid("connect"))),),
            STALE_NONCE,
        ),
        True,
    )
    step(
        "delete",
        "host",
        REFRESH,
        REQUEST,
        _auth(((Attr.LIFETIME, bytes(4)),), STALE_NONCE),
        True,
    )
    return {
        "schema": "schemas/turn_v1.schema.json",
        "description": (
            "connect.md §11: the STUN messages of a host's TURN allocation over TCP "
            "(RFC 6062, RFC 8656, RFC 8489); generated by protocol_spec/turn_vectors.py"
        ),
        "credential": {
            "username": USER,
            "realm": REALM,
            "password": PASSWORD,
            "key": key.hex(),
        },
        "relayed": list(RELAYED),
        "mapped": list(MAPPED),
        "joiner": list(JOINER),
        "messages": [
            {
                "label": label,
                "from": who,
                "method": msg.method,
                "class": msg.cls,
                "transaction_id": msg.txid.hex(),
                "signed": signing is not None,
                "hex": msg.encode(signing).hex(),
            }
            for label, who, msg, signing in steps
        ],
        "probe_answer_turn": (b"TRUCPRB1" + bytes(16) + b"T").hex(),
        "rfc5769_response": {
            "hex": RFC5769_RESPONSE,
            "password": "VOkJxbRl1RmTxUk/WvJxBt",
            "xor_mapped_address": ["192.0.2.1", 32853],
        },
        "saslprep": saslprep_cases(),
        "rfc5769_long_term_request": {
            "hex": RFC5769_LONG_TERM_REQUEST,
            "username": "\u30de\u30c8\u30ea\u30c3\u30af\u30b9",
            "password": "The\u00adM\u00aatr\u2168",
            "realm": "example.org",
            "nonce": "f//499k954d6OL34oL9FSTvy64sA",
        },
    }


#: RFC 5769 §2.4, as published: a Binding request with USERNAME, NONCE, REALM and a
#: long-term MESSAGE-INTEGRITY (user マトリックス, password The<U+00AD>M<U+00AA>tr<U+2168>).
RFC5769_LONG_TERM_REQUEST = (
    "000100602112a44278ad3433c6ad72c029da412e"
    "00060012e3839ee38388e383aae38383e382afe382b90000"
    "0015001c662f2f3439396b39353464364f4c33346f4c394653547679363473410014000b"
    "6578616d706c652e6f726700"
    "00080014f67024656dd64a3e02b8e0712e85c9a28ca89666"
)

#: SASLprep's inputs (connect.md §11.3): RFC 4013 §3's examples, then a non-ASCII
#: space, an unassigned code point (in Unicode 3.2), right-to-left text on its own,
#: a private-use character and RFC 5769 §2.4's password.
SASLPREP_INPUTS = (
    "I\u00adX",
    "user",
    "USER",
    "\u00aa",
    "\u2168",
    "\u0007",
    "\u0627\u0031",
    "pass\u00a0word",
    "\u0221",
    "\u0627\u0628",
    "a\ue000",
    "The\u00adM\u00aatr\u2168",
)


def saslprep_cases() -> list[dict[str, str]]:
    cases = []
    for text in SASLPREP_INPUTS:
        try:
            cases.append({"input": text, "output": saslprep(text)})
        except SaslprepError as exc:
            cases.append({"input": text, "error": exc.reason})
    return cases


def render() -> str:
    return json.dumps(vectors(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    text = render()
    if "--check" in (sys.argv[1:] if argv is None else argv):
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT.name} is out of date: run python {Path(__file__).name}")
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
