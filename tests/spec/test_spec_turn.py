"""``protocol_spec/vectors/turn_v1.json`` (connect.md §11): the STUN messages of the
host's TURN allocation are what the code writes, read back the same, and carry a
MESSAGE-INTEGRITY made with the long-term key; RFC 5769's published response reads
and checks; malformed bytes are a :class:`StunError` and nothing else."""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from truc_p2p.net._saslprep import SaslprepError, saslprep
from truc_p2p.net._stun import (
    HEADER,
    Attr,
    Message,
    StunError,
    long_term_key,
    message_length,
)
from truc_p2p.net._turn import TurnServer, parse_turn_url

SPEC_DIR = Path(__file__).resolve().parents[2] / "protocol_spec"
VECTORS: dict[str, Any] = json.loads((SPEC_DIR / "vectors" / "turn_v1.json").read_text())
SPEC = (SPEC_DIR / "connect.md").read_text()
BY_LABEL = {m["label"]: m for m in VECTORS["messages"]}


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("turn_vectors", SPEC_DIR / "turn_vectors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_vectors_are_what_the_generator_writes() -> None:
    assert _generator().main(["--check"]) == 0


def test_the_long_term_key_is_md5_of_user_realm_password() -> None:
    cred = VECTORS["credential"]
    text = f"{cred['username']}:{cred['realm']}:{cred['password']}".encode()
    assert hashlib.md5(text).hexdigest() == cred["key"]
    assert long_term_key(cred["username"], cred["realm"], cred["password"]).hex() == cred["key"]


@pytest.mark.parametrize("label", list(BY_LABEL))
def test_each_message_reads_back_and_its_integrity_checks(label: str) -> None:
    vector = BY_LABEL[label]
    raw = bytes.fromhex(vector["hex"])
    assert message_length(raw[:HEADER]) == len(raw)
    msg = Message.decode(raw)
    assert (msg.method, msg.cls, msg.txid.hex()) == (
        vector["method"],
        vector["class"],
        vector["transaction_id"],
    )
    key = bytes.fromhex(VECTORS["credential"]["key"])
    assert msg.check_integrity(raw, key) is vector["signed"]
    if vector["signed"]:
        # the HMAC-SHA1 by hand: the message up to MESSAGE-INTEGRITY, its length counting it
        body = raw[:-24]
        mac = hmac.new(key, body[:2] + (len(raw) - HEADER).to_bytes(2, "big") + body[4:], "sha1")
        assert raw[-20:] == mac.digest()
        if vector["from"] == "host":
            assert msg.text(Attr.USERNAME) == "alice" and msg.text(Attr.REALM) == "truc.test"
        tampered = raw[:-1] + bytes([raw[-1] ^ 1])
        assert not Message.decode(tampered).check_integrity(tampered, key)
    # encoding the decoded attributes again (without the MAC) gives the same bytes
    attrs = tuple(a for a in msg.attrs if a[0] != Attr.MESSAGE_INTEGRITY)
    again = Message(msg.method, msg.cls, msg.txid, attrs).encode(key if vector["signed"] else None)
    assert again == raw


def test_the_answers_carry_the_addresses_and_the_connection_id() -> None:
    success = Message.decode(bytes.fromhex(BY_LABEL["allocate-success"]["hex"]))
    assert list(success.address(Attr.XOR_RELAYED_ADDRESS) or ()) == VECTORS["relayed"]
    assert list(success.address(Attr.XOR_MAPPED_ADDRESS) or ()) == VECTORS["mapped"]
    assert success.uint32(Attr.LIFETIME) == 600
    challenge = Message.decode(bytes.fromhex(BY_LABEL["allocate-401"]["hex"]))
    assert challenge.error() == (401, "Unauthorized")
    assert Message.decode(bytes.fromhex(BY_LABEL["permission-438"]["hex"])).error()[0] == 438
    attempt = Message.decode(bytes.fromhex(BY_LABEL["connection-attempt"]["hex"]))
    assert list(attempt.address(Attr.XOR_PEER_ADDRESS) or ()) == VECTORS["joiner"]
    assert attempt.get(Attr.CONNECTION_ID) == bytes.fromhex("0000beef")
    request = Message.decode(bytes.fromhex(BY_LABEL["allocate"]["hex"]))
    assert request.get(Attr.REQUESTED_TRANSPORT) == bytes([6, 0, 0, 0])  # TCP


def test_rfc5769_s2_2_response_reads_and_checks() -> None:
    published = VECTORS["rfc5769_response"]
    raw = bytes.fromhex(published["hex"])
    msg = Message.decode(raw)
    assert list(msg.address(Attr.XOR_MAPPED_ADDRESS) or ()) == published["xor_mapped_address"]
    assert msg.text(Attr.SOFTWARE) == "test vector"  # 11 bytes, padded with a space
    assert msg.check_integrity(raw, published["password"].encode())
    assert not msg.check_integrity(raw, b"another password")


def test_the_spec_names_every_message_and_the_vector_file() -> None:
    assert "turn_v1.json" in SPEC
    for word in ("Allocate", "CreatePermission", "ConnectionAttempt", "ConnectionBind", "438"):
        assert word in SPEC


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        bytes(19),
        bytes.fromhex("0003000021120000") + bytes(12),  # a wrong magic cookie
        bytes.fromhex("000300052112a442") + bytes(12),  # a length not a multiple of 4
        bytes.fromhex("000300082112a442") + bytes(12) + bytes.fromhex("00060009") + b"abcd",
        bytes.fromhex("c00300002112a442") + bytes(12),  # the top bits of the type set
    ],
)
def test_malformed_messages_are_stun_errors(raw: bytes) -> None:
    with pytest.raises(StunError):
        Message.decode(raw)


@given(st.binary(max_size=120))
def test_any_bytes_decode_or_raise_stun_error(raw: bytes) -> None:
    try:
        msg = Message.decode(raw)
    except StunError:
        return
    for kind, _ in msg.attrs:
        try:
            msg.address(kind)
            msg.uint32(kind)
        except StunError:
            pass


@pytest.mark.parametrize(
    ("url", "want"),
    [
        ("turn:coturn.example:3478", ("coturn.example", 3478)),
        ("turn:coturn.example", ("coturn.example", 3478)),
        ("turn:198.51.100.7:5349?transport=tcp", ("198.51.100.7", 5349)),
        ("turn:[2001:db8::1]:3478", ("2001:db8::1", 3478)),
    ],
)
def test_turn_urls(url: str, want: tuple[str, int]) -> None:
    assert parse_turn_url(url) == want


@pytest.mark.parametrize(
    "url",
    ["coturn.example:3478", "turn::3478", "turn:host:0", "turn:host:x", "turn:h?transport=udp"],
)
def test_bad_turn_urls_are_value_errors(url: str) -> None:
    with pytest.raises(ValueError):
        parse_turn_url(url)


@pytest.mark.parametrize("case", VECTORS["saslprep"], ids=lambda c: ascii(c["input"]))
def test_saslprep_gives_each_cases_output_or_error(case: dict[str, str]) -> None:
    assert ("output" in case) != ("error" in case), case
    if "output" in case:
        assert saslprep(case["input"]) == case["output"]
    else:
        with pytest.raises(SaslprepError) as caught:
            saslprep(case["input"])
        assert caught.value.reason == case["error"]


def test_the_saslprep_cases_hold_rfc_4013_s_examples() -> None:
    """RFC 4013 §3, as the RFC prints them (so the vectors cannot drift from it)."""
    got = {c["input"]: c.get("output", c.get("error")) for c in VECTORS["saslprep"]}
    rfc = {"I\u00adX": "IX", "user": "user", "USER": "USER", "\u00aa": "a", "\u2168": "IX"}
    assert {k: got[k] for k in rfc} == rfc
    assert (got["\u0007"], got["\u0627\u0031"]) == ("prohibited", "bidi")


def test_rfc_5769_s_long_term_request_checks_only_through_saslprep() -> None:
    vector = VECTORS["rfc5769_long_term_request"]
    raw = bytes.fromhex(vector["hex"])
    msg = Message.decode(raw)
    assert msg.text(Attr.USERNAME) == vector["username"]
    assert (msg.text(Attr.REALM), msg.text(Attr.NONCE)) == (vector["realm"], vector["nonce"])
    server = TurnServer("turn.test", 3478, vector["username"], vector["password"])
    user, password = server.credential()
    assert password == "TheMatrIX"
    assert msg.check_integrity(raw, long_term_key(user, vector["realm"], password))
    raw_key = long_term_key(vector["username"], vector["realm"], vector["password"])
    assert not msg.check_integrity(raw, raw_key)  # without SASLprep: a wrong key


def test_a_credential_saslprep_refuses_is_a_value_error_that_hides_the_password() -> None:
    with pytest.raises(ValueError, match=r"user name is refused by SASLprep.*U\+0007"):
        TurnServer("turn.test", 3478, "al\u0007ice", "pw")
    with pytest.raises(ValueError) as caught:
        TurnServer("turn.test", 3478, "alice", "s3cr\u0007t")
    assert str(caught.value) == (
        "the TURN password is refused by SASLprep (RFC 4013): an ASCII control character"
    )
