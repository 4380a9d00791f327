"""``wire_v2_cases.json``: the cases no scripted game covers, checked against wire.md.

An action carrying both redeal ``shares`` and the pipelined ``open`` (valid),
and transcripts that a receiver and the verifier must reject: a pipelined
deal message without ``hand``, a short frame, an equivocating envelope.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import msgpack
import pytest

from truc_p2p.crypto import SigningKey
from truc_p2p.protocol import (
    CLOSED,
    RemoteProtocolError,
    Session,
    decode_envelope,
    frame,
    verify_transcript,
)
from truc_p2p.protocol._transcript import scan_transcript
from truc_p2p.rules import Player

SPEC = Path(__file__).resolve().parents[2] / "protocol_spec"
VECTOR: dict[str, Any] = json.loads((SPEC / "vectors" / "wire_v2_cases.json").read_text())
GAME: dict[str, Any] = VECTOR["game"]
CASES = {case["case"]: case for case in VECTOR["rejected"]}


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("truc_spec_generate", SPEC / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_cases_vector_is_reproduced_byte_for_byte() -> None:
    assert _generator().cases_vector() == VECTOR


def test_an_action_with_both_shares_and_open_is_valid_in_the_canonical_order() -> None:
    raws = [bytes.fromhex(e["hex"]) for e in GAME["envelopes"]]
    report = verify_transcript(raws)
    assert report.valid, report.summary()
    assert report.hands == GAME["result"]["hands"]
    n = GAME["both_shares_and_open"]
    # An independent decoding keeps the map's key order as sent (wire.md section 2).
    body = msgpack.unpackb(raws[n][:-64], raw=False)
    _, _, seq, _, sender, mtype, payload = body
    assert (seq, mtype) == (n, "v2action")
    assert list(payload) == ["act", "shares", "open"] and payload["act"] == "fold"
    assert len(payload["shares"]) == len(payload["open"]) == 3
    # ... the fold of the non-dealer right after its redeal was accepted, and both
    # pre-deal messages of the next hand are on the chain before it (wire.md 6b, 3).
    envs = [decode_envelope(raw) for raw in raws]
    before = [(e.type, e.payload.get("hand")) for e in envs[:n]]
    assert ("v2deck1", 1) in before and ("v2deck2", 1) in before
    assert envs[n - 2].payload.get("act") == "accept-redeal"
    # The next message is the next non-dealer's v2deck3 of hand 1: nothing in between.
    assert (envs[n + 1].type, envs[n + 1].payload["hand"], envs[n + 1].sender) == (
        "v2deck3",
        1,
        1 - sender,
    )


def _receiver(envelopes: list[bytes], receiver: int) -> Session:
    """The receiving player's session, rebuilt from the transcript before the bad message."""
    return Session.restore(
        envelopes,
        identity=SigningKey.from_bytes(bytes.fromhex(GAME["identities"][receiver])),
        role=Player(receiver),
        secret=bytes.fromhex(GAME["secrets"][receiver]),
    )


def _live_error(envelopes: list[bytes], bad: bytes, receiver: int) -> RemoteProtocolError:
    session = _receiver(envelopes, receiver)
    session.receive_data(bad)
    with pytest.raises(RemoteProtocolError) as info:
        for _ in range(8):
            session.next_event()
    return info.value


@pytest.mark.parametrize("name", ["missing-hand", "equivocation"])
def test_rejected_transcripts(name: str) -> None:
    case = CASES[name]
    raws = [bytes.fromhex(h) for h in case["envelopes"]]
    report = verify_transcript(raws)
    assert not report.valid
    assert (report.error_code, report.error_message_no) == (
        case["error"]["code"],
        case["error"]["message_no"],
    )
    # The receiving player rejects the last envelope live with the same code.
    bad = raws[-1]
    receiver = 1 - decode_envelope(bad).sender
    error = _live_error(raws[:-1], frame(bad), receiver)
    assert error.code == case["error"]["code"]
    assert error.message_no == case["error"]["message_no"]


def test_missing_hand_is_the_only_difference() -> None:
    raws = [bytes.fromhex(h) for h in CASES["missing-hand"]["envelopes"]]
    bad = decode_envelope(raws[-1])
    good = decode_envelope(bytes.fromhex(GAME["envelopes"][bad.seq]["hex"]))
    assert bad.type == "v2deck1" and "hand" not in bad.payload
    assert good.payload == {"hand": good.payload["hand"], **bad.payload}
    assert good.payload["hand"] > 0  # a pre-dealt hand


def test_a_short_frame_is_whole_in_a_file_and_oversize() -> None:
    case = CASES["short-frame"]
    data = bytes.fromhex(case["file_hex"])
    scan = scan_transcript(data)
    assert scan.damage is None  # neither torn nor corrupt (wire.md section 1)
    n = case["error"]["message_no"]
    assert len(scan.envelopes) == n + 1 and len(scan.envelopes[n]) == 10
    report = verify_transcript(scan.envelopes)
    assert (report.error_code, report.error_message_no) == ("oversize", n)
    # On a connection the header alone is refused.
    session = _receiver(scan.envelopes[:n], 1)
    session.receive_data(frame(scan.envelopes[n])[:4])
    with pytest.raises(RemoteProtocolError) as info:
        session.next_event()
    assert info.value.code == "oversize"


def test_wire_md_names_the_cases_vector_and_the_v2_action_key_order() -> None:
    text = " ".join((SPEC / "wire.md").read_text().split())
    assert "wire_v2_cases.json" in text
    assert "**`act`, `shares`, `pos`, `share`, `open`**" in text


def test_a_receiver_accepts_any_key_order() -> None:
    """Receivers never re-encode (wire.md section 2): the last result with its payload keys
    reversed, signed again, still verifies."""
    from truc_p2p.protocol._wire import sign_envelope

    raws = [bytes.fromhex(e["hex"]) for e in GAME["envelopes"]]
    last = decode_envelope(raws[-1])
    reordered = dict(reversed(list(last.payload.items())))
    key = SigningKey.from_bytes(bytes.fromhex(GAME["identities"][last.sender]))
    raw = sign_envelope(
        key,
        game_id=last.game_id,
        seq=last.seq,
        prev=last.prev,
        sender=last.sender,
        type=last.type,
        payload=reordered,
    )
    assert raw != raws[-1] and decode_envelope(raw).payload == last.payload
    report = verify_transcript([*raws[:-1], raw])
    assert report.valid, report.summary()


def _first(envs: list[Any], mtype: str, act: str) -> int:
    return next(
        e.seq
        for e in envs
        if e.type == mtype and (e.payload.get("action") or e.payload).get("act") == act
    )


def _forged(n: int, mtype: str, payload: dict[str, Any]) -> list[bytes]:
    """The cases game up to message ``n``, replaced by ``mtype``/``payload`` signed again."""
    from truc_p2p.protocol._wire import sign_envelope

    raws = [bytes.fromhex(e["hex"]) for e in GAME["envelopes"]]
    env = decode_envelope(raws[n])
    key = SigningKey.from_bytes(bytes.fromhex(GAME["identities"][env.sender]))
    raw = sign_envelope(
        key,
        game_id=env.game_id,
        seq=env.seq,
        prev=env.prev,
        sender=env.sender,
        type=mtype,
        payload=payload,
    )
    return [*raws[:n], raw]


@pytest.mark.parametrize("forgery", ["v1-action", "play-without-share", "fold-with-pos", "illegal"])
def test_deck_v2_receiver_checks(forgery: str) -> None:
    """wire.md sections 3, 5, 6a on a deck v2 game: a deck v1 message is
    ``unexpected-message``; a play needs ``pos`` and ``share`` and nothing else carries
    them (``malformed``); an action the rules do not allow is ``illegal-move``."""
    envs = [decode_envelope(bytes.fromhex(e["hex"])) for e in GAME["envelopes"]]
    play = next(e for e in envs if e.type == "v2action" and e.payload["act"] == "play")
    if forgery == "v1-action":
        raws = _forged(play.seq, "action", {"act": "play", "pos": play.payload["pos"],
                                             "key": bytes(32)})  # fmt: skip
        code = "unexpected-message"
    elif forgery == "play-without-share":
        raws = _forged(play.seq, "v2action", {"act": "play", "pos": play.payload["pos"]})
        code = "malformed"
    elif forgery == "fold-with-pos":
        payload = {"act": "fold", "pos": play.payload["pos"], "share": play.payload["share"]}
        raws = _forged(play.seq, "v2action", payload)
        code = "malformed"
    else:  # the first action of the game, 'redeal' in v2deck3, becomes an 'accept'
        n = _first(envs, "v2deck3", "redeal")
        payload = {**envs[n].payload, "action": {"act": "accept"}}
        raws = _forged(n, "v2deck3", payload)
        code = "illegal-move"
    report = verify_transcript(raws)
    assert (report.error_code, report.error_message_no) == (code, len(raws) - 1), report.error


RESIGN: dict[str, Any] = json.loads((SPEC / "vectors" / "wire_v2_resign.json").read_text())


@pytest.mark.parametrize("name", ["second-resignation", "resignation-after-quit"])
def test_a_game_has_one_ending(name: str) -> None:
    """wire.md section 8: after an abort or a resignation, another ending is
    ``unexpected-message`` for the verifier, and a session will not restore from such
    a transcript; live, a receiver drops what arrives after the end (never recorded)."""
    case = CASES[name]
    raws = [bytes.fromhex(h) for h in case["envelopes"]]
    code, n = case["error"]["code"], case["error"]["message_no"]
    report = verify_transcript(raws)
    assert (report.status, report.error_code, report.error_message_no) == ("violation", code, n)
    assert "second ending" in (report.error or "")
    # The transcript without the second ending verifies (or stops) with one ending.
    first = verify_transcript(raws[:-1])
    assert first.status in ("complete", "unfinished") and first.resigned_by in (1, None)
    identities = RESIGN["identities"]
    for role in (0, 1):
        with pytest.raises(RemoteProtocolError) as info:
            Session.restore(
                raws,
                identity=SigningKey.from_bytes(bytes.fromhex(identities[role])),
                role=Player(role),
                secret=bytes.fromhex(RESIGN["secrets"][role]),
            )
        assert (info.value.code, info.value.message_no) == (code, n)
    # Live, bob's session has ended at his own abort: alice's ending is dropped.
    recorded: list[bytes] = []
    bob = Session.restore(
        raws[:-1],
        identity=SigningKey.from_bytes(bytes.fromhex(identities[1])),
        role=Player.P1,
        secret=bytes.fromhex(RESIGN["secrets"][1]),
        record=recorded.append,
    )
    bob.receive_data(frame(raws[-1]))
    assert bob.next_event() is CLOSED and not recorded
