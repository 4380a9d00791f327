"""A malicious peer tampering with envelopes: framing, signature, chain, strict decoding.

Every forged envelope replaces the one an honest session was about to send, at
every stage of a game (hellos, coin, the four deck steps, actions, reveal,
result).  The receiver must raise exactly the right remote error with the
forged envelope as evidence and die; the offline verifier must reject the
receiver's transcript at that very message, since all of these faults are
visible without any game state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack
import pytest
from helpers.protocol import (
    P0,
    P1,
    PLAYER,
    Pair,
    body_fields,
    deliver_and_expect,
    digest,
    drain,
    identity,
    is_type,
    pack_body,
    resign,
    sign_body,
)

from truc_p2p.protocol import (
    MAX_ENVELOPE,
    BadSignatureError,
    ChainError,
    LocalProtocolError,
    MalformedMessageError,
    OutOfTurnError,
    OversizeMessageError,
    RemoteProtocolError,
    SequenceError,
    Stage,
    UnexpectedMessageError,
    VersionMismatchError,
    WrongGameError,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.rules import Action, Player, Ruleset

#: stop points: the first envelope of each kind (hellos by sender)
TARGETS: dict[str, tuple[str, Player | None]] = {
    "hello-P0": ("hello", P0),
    "hello-P1": ("hello", P1),
    "coin": ("coin", None),
    "deck1": ("deck1", None),
    "deck2": ("deck2", None),
    "deck3": ("deck3", None),
    "deck4": ("deck4", None),
    "action": ("action", None),
    "reveal": ("reveal", None),
    "result": ("result", None),
}

INTRUDER = identity("intruder")

Forge = Callable[[Pair, Player, bytes], bytes]


def play_to(target: str, tag: str = "envelopes") -> tuple[Pair, Player, bytes]:
    """A one-hand game (both players play cards) stopped before ``target`` is delivered."""
    pair = Pair(ruleset=Ruleset(target=1), tag=tag, bots={P0: PLAYER, P1: PLAYER})
    mtype, sender = TARGETS[target]
    got_sender, raw = pair.run(until=is_type(mtype, sender))
    assert decode_envelope(raw).type == mtype
    return pair, got_sender, raw


def field_changed(index: int, value: Callable[[Any], Any]) -> Forge:
    """Change body field ``index`` (0 version .. 6 payload) and sign the new body."""

    def forge(pair: Pair, sender: Player, raw: bytes) -> bytes:
        fields = body_fields(raw)
        fields[index] = value(fields[index])
        return sign_body(pair.keys[sender], pack_body(fields))

    return forge


def payload_changed(edit: Callable[[dict[str, Any]], Any]) -> Forge:
    def forge(pair: Pair, sender: Player, raw: bytes) -> bytes:
        fields = body_fields(raw)
        edit(fields[6])
        return sign_body(pair.keys[sender], pack_body(fields))

    return forge


def first_field(value: Any) -> Forge:
    """Replace the value of the payload's first field."""
    return payload_changed(lambda p: p.update({_first_key(p): value}))


def body_bytes(make: Callable[[bytes, list[Any]], bytes]) -> Forge:
    """Sign arbitrary body bytes built from the honest body and its fields."""

    def forge(pair: Pair, sender: Player, raw: bytes) -> bytes:
        return sign_body(pair.keys[sender], make(raw[:-64], body_fields(raw)))

    return forge


def _first_key(payload: dict[str, Any]) -> str:
    return next(iter(payload))


def _duplicate_key_body(body: bytes, fields: list[Any]) -> bytes:
    payload = fields[6]
    key = _first_key(payload)
    pair = msgpack.packb(key) + msgpack.packb(payload[key], use_bin_type=True)
    rest = b"".join(
        msgpack.packb(k) + msgpack.packb(v, use_bin_type=True) for k, v in payload.items()
    )
    head = b"\x97" + b"".join(msgpack.packb(f, use_bin_type=True) for f in fields[:6])
    count = len(payload) + 1
    assert count < 16
    return head + bytes([0x80 | count]) + rest + pair


def _nested(depth: int) -> bytes:
    return b"\x91" * depth + b"\xc0"


ENVELOPE_ATTACKS: dict[str, tuple[Forge, type[RemoteProtocolError], set[str]]] = {
    # signature
    "flipped-signature": (
        lambda pair, s, raw: raw[:-1] + bytes([raw[-1] ^ 0x01]),
        BadSignatureError,
        {"bad-signature"},
    ),
    "flipped-body-bit": (
        # the body is re-encoded identically but for one bit of the last payload byte
        lambda pair, s, raw: raw[:-65] + bytes([raw[-65] ^ 0x01]) + raw[-64:],
        BadSignatureError,
        {"bad-signature"},
    ),
    "foreign-key": (
        lambda pair, s, raw: resign(INTRUDER, raw),
        BadSignatureError,
        {"bad-signature"},
    ),
    "claims-other-sender": (
        lambda pair, s, raw: resign(pair.keys[s], raw, sender=int(s.other)),
        OutOfTurnError,
        # the verifier checks the signature against the claimed sender's key
        {"bad-signature", "unexpected-message"},
    ),
    # game id, sequence, chain
    "wrong-game-id": (
        lambda pair, s, raw: resign(pair.keys[s], raw, game_id=digest("another game")),
        WrongGameError,
        {"wrong-game"},
    ),
    "sequence-ahead": (
        lambda pair, s, raw: resign(pair.keys[s], raw, seq=decode_envelope(raw).seq + 1),
        SequenceError,
        {"bad-sequence"},
    ),
    "sequence-far": (
        lambda pair, s, raw: resign(pair.keys[s], raw, seq=decode_envelope(raw).seq + 2**40),
        SequenceError,
        {"bad-sequence"},
    ),
    "broken-chain": (
        lambda pair, s, raw: resign(pair.keys[s], raw, prev=digest("elsewhere")),
        ChainError,
        {"broken-chain"},
    ),
    # versioning
    "version-2": (field_changed(0, lambda v: 2), VersionMismatchError, {"version-mismatch"}),
}


@pytest.mark.parametrize("attack", list(ENVELOPE_ATTACKS))
@pytest.mark.parametrize("target", list(TARGETS))
def test_envelope_attack(target: str, attack: str) -> None:
    forge, cls, codes = ENVELOPE_ATTACKS[attack]
    pair, sender, raw = play_to(target)
    forged = forge(pair, sender, raw)
    assert forged != raw
    caught = deliver_and_expect(pair, sender, forged, cls)
    assert caught.report.error_message_no == caught.index
    assert caught.report.error_code in codes, caught.report.summary()


@pytest.mark.parametrize("target", ["deck3", "deck4", "action", "reveal", "result"])
def test_replayed_envelope_is_a_sequence_error(target: str) -> None:
    """An earlier genuine envelope of the same sender and game, replayed verbatim."""
    pair, sender, _raw = play_to(target)
    victim = sender.other
    earlier = [
        r
        for r in pair.records[victim]
        if decode_envelope(r).sender == sender and decode_envelope(r).type != "hello"
    ]
    caught = deliver_and_expect(pair, sender, earlier[-1], SequenceError)
    assert caught.report.error_code == "bad-sequence"
    assert caught.report.error_message_no == caught.index


#: name -> (forgery, a word the error must name)
MALFORMED: dict[str, tuple[Forge, str]] = {
    # bytes that are not one well-formed msgpack object
    "not-msgpack": (body_bytes(lambda body, f: b"\xc1" + body[1:]), "msgpack"),
    "truncated-body": (body_bytes(lambda body, f: body[:-1]), "msgpack"),
    "trailing-byte": (body_bytes(lambda body, f: body + b"\xc0"), "msgpack"),
    "nested-too-deep": (body_bytes(lambda body, f: _nested(5000)), "msgpack"),
    "duplicate-key": (body_bytes(_duplicate_key_body), "duplicate"),
    # the envelope's fixed shape
    "not-an-array": (body_bytes(lambda body, f: msgpack.packb({"version": 1})), "7-element"),
    "six-fields": (body_bytes(lambda body, f: pack_body(f[:6])), "7-element"),
    "eight-fields": (body_bytes(lambda body, f: pack_body([*f, 0])), "7-element"),
    "version-as-str": (field_changed(0, lambda v: "1"), "version"),
    "game-id-16-bytes": (field_changed(1, lambda v: bytes(16)), "game_id"),
    "game-id-as-str": (field_changed(1, lambda v: "g" * 32), "game_id"),
    "seq-negative": (field_changed(2, lambda v: -1), "seq"),
    "seq-as-bool": (field_changed(2, lambda v: True), "seq"),
    "seq-as-float": (field_changed(2, lambda v: float(v)), "seq"),
    "prev-31-bytes": (field_changed(3, lambda v: v[:31]), "prev"),
    "sender-2": (field_changed(4, lambda v: 2), "sender"),
    "type-empty": (field_changed(5, lambda v: ""), "type"),
    "type-as-bin": (field_changed(5, lambda v: v.encode()), "type"),
    "payload-as-list": (field_changed(6, lambda v: list(v)), "payload"),
    # the payload against the catalogue
    "unknown-type": (field_changed(5, lambda v: "bogus"), "bogus"),
    "extra-field": (payload_changed(lambda p: p.update(zzz=1)), "unknown field 'zzz'"),
    "missing-field": (payload_changed(lambda p: p.pop(_first_key(p))), "missing field"),
    "field-wrong-type": (first_field([]), "is not"),
    "field-as-float": (first_field(1.5), "is not"),
    "ext-type": (
        first_field(msgpack.ExtType(5, b"x")),
        "ext",
    ),
    "timestamp": (
        first_field(msgpack.Timestamp(0)),
        "ext",
    ),
    "int-map-key": (payload_changed(lambda p: p.update({7: 1})), "map key"),
    "too-many-items": (first_field([0] * 65), "65"),
    "string-too-long": (first_field("x" * 2000), "2000"),
    "bin-too-long": (first_field(bytes(1000)), "is not"),
}


@pytest.mark.parametrize("attack", list(MALFORMED))
@pytest.mark.parametrize("target", ["hello-P1", "deck3", "action", "reveal"])
def test_malformed_envelope(target: str, attack: str) -> None:
    """Well signed, badly formed: a clean ``malformed`` remote error, found by both."""
    pair, sender, raw = play_to(target)
    forge, word = MALFORMED[attack]
    forged = forge(pair, sender, raw)
    expected: type[RemoteProtocolError] = MalformedMessageError
    codes = {"malformed"}
    if target == "hello-P1" and attack == "unknown-type":
        # before the peer's hello, anything but a hello is out of place
        expected, codes = UnexpectedMessageError, {"unexpected-message"}
    caught = deliver_and_expect(pair, sender, forged, expected)
    assert word in str(caught.error)
    assert caught.report.error_message_no == caught.index, caught.report.summary()
    assert caught.report.error_code in codes, caught.report.summary()


@pytest.mark.parametrize(
    "header",
    [
        (MAX_ENVELOPE + 1).to_bytes(4, "big"),
        b"\xff\xff\xff\xff",
        (64).to_bytes(4, "big"),
        bytes(4),
    ],
    ids=["max-plus-one", "4GiB", "signature-only", "empty"],
)
@pytest.mark.parametrize("target", ["hello-P0", "deck2", "action"])
def test_oversize_or_empty_frame_is_refused_from_its_header(target: str, header: bytes) -> None:
    """The length prefix alone condemns the frame: no body is awaited or buffered."""
    pair, sender, _raw = play_to(target)
    victim = pair.sessions[sender.other]
    recorded = list(pair.records[sender.other])
    victim.receive_data(header)
    with pytest.raises(OversizeMessageError) as info:
        drain(victim)
    exc = info.value
    assert exc.code == "oversize"
    assert exc.evidence == ()  # nothing signed arrived, nothing to prove
    assert victim.stage is Stage.ERROR and victim.error is exc
    with pytest.raises(OversizeMessageError):
        victim.next_event()
    with pytest.raises(LocalProtocolError):
        victim.send(Action.FOLD)
    assert pair.records[sender.other] == recorded  # the bad frame is not in the transcript
    assert not verify_transcript(pair.records[sender.other]).valid


def test_signed_envelope_above_the_size_limit_is_refused() -> None:
    """A genuine signature does not make an envelope of MAX_ENVELOPE + 1 bytes acceptable."""
    pair, sender, raw = play_to("deck3")
    fields = body_fields(raw)
    size = MAX_ENVELOPE + 1 - 64 - len(pack_body(fields))
    while True:  # the bin header grows with the padding
        fields[6]["pad"] = bytes(size)
        forged = sign_body(pair.keys[sender], pack_body(fields))
        if len(forged) <= MAX_ENVELOPE + 1:
            break
        size -= len(forged) - MAX_ENVELOPE - 1
    assert len(forged) == MAX_ENVELOPE + 1
    victim = pair.sessions[sender.other]
    recorded = list(pair.records[sender.other])
    pair.deliver(sender, forged)
    with pytest.raises(OversizeMessageError) as info:
        drain(victim)
    assert info.value.evidence == ()
    assert victim.stage is Stage.ERROR
    assert pair.records[sender.other] == recorded
