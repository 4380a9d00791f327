"""The session and the verifier judge a hello's options alike (issue 33).

The same crafted ``options`` (a map of any keys and values: ``nil``, ``1``,
strings, floats where a flag belongs, unknown keys, linked-game keys) go into
the initiator's hello read by a live responder, or into the responder's hello
read by a live initiator, and into the two-hello transcript the verifier
reads.  Both must reach the same verdict: accepted, or rejected with the same
error code (``malformed`` before ``ruleset-mismatch``: one function judges,
:mod:`truc_p2p.protocol._judge`).
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers.examples import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from truc_p2p.crypto import SigningKey
from truc_p2p.protocol import (
    NEED_DATA,
    RemoteProtocolError,
    Session,
    SessionOptions,
    decode_envelope,
    frame,
    verify_transcript,
)
from truc_p2p.protocol._wire import GENESIS, envelope_hash, sign_envelope
from truc_p2p.rules import Player, Ruleset

KEYS = (
    SigningKey.from_bytes(bytes(range(32))),
    SigningKey.from_bytes(bytes(range(1, 33))),
)
SECRETS = (bytes([7]) * 32, bytes([9]) * 32)
#: (deck, pipeline, early) a session may be made with.
CONFIGS = [
    ("v1", False, False),
    ("v2", False, False),
    ("v2", True, False),
    ("v2", False, True),
    ("v2", True, True),
]
VALUES = st.one_of(
    st.sampled_from([None, True, False, 0, 1, 2, 1.0, "game", "hand", "v1", "v2", "true", 99]),
    st.sampled_from([b"", bytes(32), [], {}]),
)
KEYS_OF_OPTIONS = st.sampled_from(
    ["audit", "deck", "pipeline", "early", "match", "prev", "dealer", "extra"]
)


@st.composite
def options(draw: st.DrawFn) -> dict[str, Any]:
    """Well-formed options of some config, with a few keys set to anything or removed."""
    deck, pipeline, early = draw(st.sampled_from(CONFIGS))
    base: dict[str, Any] = {"audit": draw(st.sampled_from(["game", "hand"]))}
    if deck == "v2":
        base["deck"] = "v2"
        if pipeline:
            base["pipeline"] = True
        if early:
            base["early"] = True
    for key, value in draw(st.dictionaries(KEYS_OF_OPTIONS, VALUES, max_size=3)).items():
        base[key] = value
    for key in draw(st.lists(KEYS_OF_OPTIONS, max_size=2)):
        base.pop(key, None)
    return base


def _session(role: Player, config: tuple[str, bool, bool]) -> Session:
    deck, pipeline, early = config
    return Session(
        identity=KEYS[role],
        role=role,
        secret=SECRETS[role],
        options=SessionOptions(
            ruleset=Ruleset(target=6),
            name=("ana", "bob")[role],
            deck=deck,
            pipeline=pipeline,
            early=early,
        ),
    )


def _with_options(raw: bytes, options: dict[str, Any], prev: bytes) -> bytes:
    env = decode_envelope(raw)
    return sign_envelope(
        KEYS[env.sender],
        game_id=b"",
        seq=env.seq,
        prev=prev,
        sender=env.sender,
        type=env.type,
        payload={**env.payload, "options": options},
    )


def _live(session: Session, raw: bytes) -> tuple[str | None, bytes]:
    """What ``session`` makes of ``raw``: the error code (None: accepted), and what it sent."""
    session.receive_data(frame(raw))
    try:
        while session.next_event() is not NEED_DATA:
            pass
    except RemoteProtocolError as exc:
        return exc.code, session.data_to_send()
    return None, session.data_to_send()


def _verdict(raws: list[bytes]) -> str | None:
    report = verify_transcript(raws)
    assert report.status in ("unfinished", "violation"), report.summary()
    return report.error_code if report.status == "violation" else None


def _unframe(data: bytes) -> list[bytes]:
    out = []
    while data:
        size = int.from_bytes(data[:4], "big")
        out.append(data[4 : 4 + size])
        data = data[4 + size :]
    return out


@pytest.mark.slow
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mine=st.sampled_from(CONFIGS), theirs=options())
@example(mine=("v2", False, True), theirs={"audit": "game", "deck": "v2", "early": None})
@example(mine=("v2", True, False), theirs={"audit": "game", "deck": "v2", "pipeline": 1})
def test_the_initiators_options_are_judged_alike(
    mine: tuple[str, bool, bool], theirs: dict[str, Any]
) -> None:
    initiator = _session(Player.P0, CONFIGS[1])
    hello0 = _with_options(_unframe(initiator.data_to_send())[0], theirs, GENESIS)
    responder = _session(Player.P1, mine)
    code, sent = _live(responder, hello0)
    transcript = [hello0, *_unframe(sent)[:1]]  # the responder's hello, if it answered
    assert _verdict(transcript) == code, (theirs, mine)


@pytest.mark.slow
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mine=st.sampled_from(CONFIGS), theirs=options())
@example(mine=("v2", False, True), theirs={"audit": "game", "deck": "v2", "early": None})
@example(mine=("v2", False, False), theirs={"audit": "game", "deck": "v2", "early": 1})
def test_the_responders_options_are_judged_alike(
    mine: tuple[str, bool, bool], theirs: dict[str, Any]
) -> None:
    initiator = _session(Player.P0, mine)
    (hello0,) = _unframe(initiator.data_to_send())
    responder = _session(Player.P1, mine)
    responder.receive_data(frame(hello0))
    assert responder.next_event() is NEED_DATA
    hello1 = _with_options(_unframe(responder.data_to_send())[0], theirs, envelope_hash(hello0))
    code, _ = _live(initiator, hello1)
    assert _verdict([hello0, hello1]) == code, (theirs, mine)


def test_nil_and_non_boolean_flags_are_malformed_for_both() -> None:
    """``"early": nil`` (issue 33) and every other non-boolean flag: ``malformed``."""
    for flag in ("early", "pipeline"):
        for value in (None, 1, 0, "true", 1.0):
            theirs = {"audit": "game", "deck": "v2", flag: value}
            initiator = _session(Player.P0, CONFIGS[1])
            hello0 = _with_options(_unframe(initiator.data_to_send())[0], theirs, GENESIS)
            code, sent = _live(_session(Player.P1, ("v2", False, True)), hello0)
            assert (code, sent) == ("malformed", b""), (flag, value)
            assert _verdict([hello0]) == "malformed"
