"""The resume vectors (wire.md section 13) say what the code does, checked independently.

``resume_v1.json`` cuts a deck-v1 game (the responder's ``deck2`` is lost);
``resume_v2.json`` cuts a pipelined deck-v2 game in the middle of a pipelined
deal (wire.md section 6b): the next hand is pre-dealt but not opened yet.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import msgpack
import pytest

from truc_p2p.crypto import SigningKey
from truc_p2p.protocol import SessionOptions, verify_transcript
from truc_p2p.rules import Player

SPEC = Path(__file__).resolve().parents[2] / "protocol_spec"
VECTORS: dict[str, dict[str, Any]] = {
    name: json.loads((SPEC / "vectors" / f"{name}.json").read_text())
    for name in ("resume_v1", "resume_v2")
}
VECTOR = VECTORS["resume_v1"]
VECTOR_V2 = VECTORS["resume_v2"]


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("truc_resume_vectors", SPEC / "resume_vectors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_vector_is_reproduced_byte_for_byte() -> None:
    assert _generator().resume_vector() == VECTOR


def test_the_v2_vector_is_reproduced_byte_for_byte() -> None:
    assert _generator().resume_vector_v2() == VECTOR_V2


@pytest.mark.parametrize("name", VECTORS)
def test_the_resumed_transcript_is_one_valid_chain(name: str) -> None:
    vector = VECTORS[name]
    envelopes = [bytes.fromhex(h) for h in vector["transcript"]]
    report = verify_transcript(envelopes)
    assert report.valid, report.summary()
    assert report.game_id == vector["game_id"]
    assert report.deck == vector.get("deck", "v1")


def _body(raw: bytes) -> list[Any]:
    """An independent decoding of an envelope body (wire.md section 2)."""
    body: list[Any] = msgpack.unpackb(raw[:-64], raw=False)
    return body


@pytest.mark.parametrize("name", VECTORS)
def test_resume_messages_follow_section_13(name: str) -> None:
    vector = VECTORS[name]
    transcript = [bytes.fromhex(h) for h in vector["transcript"]]
    keys = [SigningKey.from_bytes(bytes.fromhex(k)) for k in vector["identities"]]
    nonces = [bytes.fromhex(n) for n in vector["nonces"]]
    dialer, answer = (bytes.fromhex(m["hex"]) for m in vector["resume_messages"])
    for raw, sender, echo in ((dialer, 0, b""), (answer, 1, nonces[0])):
        version, game_id, seq, prev, who, mtype, payload = _body(raw)
        assert (version, who, mtype) == (1, sender, "resume")
        assert game_id.hex() == vector["game_id"]
        keys[sender].public_key().verify(raw[-64:], raw[:-64])  # signed, raises if not
        assert payload == {"nonce": nonces[sender], "echo": echo}
        # seq = how many chain envelopes the sender holds; prev = the last of them.
        assert 0 < seq < len(transcript)
        assert prev == hashlib.sha256(transcript[seq - 1]).digest()
    # Each side sends exactly its own envelopes at positions >= the peer's have
    # (13.1, 6), the listener right after its resume, then the dialer.
    have = {0: _body(dialer)[2], 1: _body(answer)[2]}
    owed = [
        transcript[p]
        for me in (1, 0)
        for p in range(have[1 - me], have[me])
        if _body(transcript[p])[4] == me
    ]
    assert owed, "the cut lost nothing"
    assert [bytes.fromhex(h) for h in vector["resent"]] == owed
    # Resume messages are outside the chain: never in the transcript.
    assert dialer not in transcript and answer not in transcript


def test_v1_the_responders_lost_deck2_is_sent_again() -> None:
    transcript = [bytes.fromhex(h) for h in VECTOR["transcript"]]
    dialer = bytes.fromhex(VECTOR["resume_messages"][0]["hex"])
    # The dialer lacked the responder's lost message: exactly that one is sent again.
    have = _body(dialer)[2]
    assert [bytes.fromhex(h) for h in VECTOR["resent"]] == [transcript[have]]
    assert _body(transcript[have])[5] == "deck2"


def test_v2_the_cut_is_inside_a_pipelined_deal() -> None:
    """Recompute the cut point of resume_v2.json from the raw bytes (wire.md 6b, 13)."""
    transcript = [bytes.fromhex(h) for h in VECTOR_V2["transcript"]]
    bodies = [_body(raw) for raw in transcript]
    assert VECTOR_V2["deck"] == "v2" and VECTOR_V2["pipeline"] is True
    hello = bodies[0][6]
    assert hello["options"] == {"audit": "game", "deck": "v2", "pipeline": True}
    dialer, answer = (_body(bytes.fromhex(m["hex"])) for m in VECTOR_V2["resume_messages"])
    # The initiator (the dialer) holds one envelope the responder lacks: its own.
    lost = list(range(answer[2], dialer[2]))
    assert lost == VECTOR_V2["cut"]["lost"] and len(lost) == 1
    (cut,) = lost
    resent = [bytes.fromhex(h) for h in VECTOR_V2["resent"]]
    assert resent == [transcript[cut]]
    _, _, seq, _, sender, mtype, payload = bodies[cut]
    # The lost envelope is the initiator's action that ends hand n and opens hand n + 1.
    assert (seq, sender, mtype) == (cut, 0, "v2action")
    assert payload["act"] == "play" and len(payload["open"]) == 3
    # Hand n + 1 is pre-dealt: its v2deck1 (from the responder) and its v2deck2 without
    # shares (from the initiator) are on both chains before the cut, nothing opened it.
    hand = VECTOR_V2["cut"]["hand"]
    predeal = [
        i
        for i, b in enumerate(bodies)
        if b[5] in ("v2deck1", "v2deck2") and b[6].get("hand") == hand
    ]
    assert predeal == VECTOR_V2["cut"]["predeal"]
    d1, d2 = predeal
    assert d1 < d2 < cut
    assert (bodies[d1][4], bodies[d1][5]) == (1, "v2deck1")
    assert (bodies[d2][4], bodies[d2][5]) == (0, "v2deck2") and "shares" not in bodies[d2][6]
    # hand n was still being played between the pre-deal and the cut
    assert all(b[5] == "v2action" and "open" not in b[6] for b in bodies[d2 + 1 : cut])
    assert not any(b[5] in ("v2open", "v2deck3") and b[6].get("hand") == hand for b in bodies[:cut])
    # After the resume the deal goes on: the responder's v2deck3 answers the open ...
    assert (bodies[cut + 1][4], bodies[cut + 1][5]) == (1, "v2deck3")
    assert bodies[cut + 1][6]["hand"] == hand
    # ... and the game is played to its co-signed result, after more hands.
    assert [b[5] for b in bodies[-2:]] == ["result", "result"]
    assert bodies[-1][6]["hands"] > hand + 1
    # wire.md section 13.1 names this cut point
    text = " ".join((SPEC / "wire.md").read_text().split())
    assert f"hand {hand}'s `v2deck1` (envelope {d1}," in text
    assert f"`v2action` {cut} —" in text and f"*have* {cut + 1}" in text


@pytest.mark.parametrize("name", VECTORS)
def test_the_action_list_is_the_transcripts(name: str) -> None:
    """Each vector lists the script's actions, [player, action], as the wire vectors do;
    they are the actions the transcript carries, in chain order."""
    vector = VECTORS[name]
    carried = []
    for raw in (bytes.fromhex(h) for h in vector["transcript"]):
        _, _, _, _, sender, mtype, payload = _body(raw)
        if mtype in ("deck4", "v2deck3"):
            payload = payload["action"]
        elif mtype not in ("action", "v2action"):
            continue
        carried.append([sender, payload["act"]])
    assert [[p, a.split()[0]] for p, a in vector["actions"]] == carried


@pytest.mark.parametrize(
    ("claim", "code"),
    [
        ("another-prev", "broken-chain"),
        ("lacks-its-own", "bad-sequence"),
        ("stale-lacks-its-own", "stale"),
    ],
)
def test_a_resume_that_contradicts_the_chain_ends_the_game(claim: str, code: str) -> None:
    """Section 13.1, 5 and 13.8: a fresh, signed resume whose prev is not ours, or an
    answer to our nonce that says its sender lacks its own signed envelope, is a
    signed lie that ends the game (``abort`` ``cheat``); a dialer's resume that lacks
    its sender's envelopes may be an old one and only costs its connection."""
    from truc_p2p.protocol import (
        RemoteProtocolError,
        ResumeLieError,
        ResumeRefusedError,
        Session,
        frame,
    )
    from truc_p2p.protocol._wire import sign_envelope

    transcript = [bytes.fromhex(h) for h in VECTOR["transcript"]]
    keys = [SigningKey.from_bytes(bytes.fromhex(k)) for k in VECTOR["identities"]]
    listener = Session.restore(
        transcript,
        identity=keys[1],
        role=Player.P1,
        secret=bytes.fromhex(VECTOR["secrets"][1]),
    )
    # have = the position of one of player 0's own envelopes
    have = next(i for i in range(3, len(transcript)) if _body(transcript[i])[4] == 0)
    prev = hashlib.sha256(transcript[have - 1]).digest()
    if claim == "another-prev":
        prev = hashlib.sha256(b"another chain").digest()
    answer = claim == "lacks-its-own"  # player 1 dialled: the resume answers its nonce
    resume = sign_envelope(
        keys[0],
        game_id=bytes.fromhex(VECTOR["game_id"]),
        seq=have,
        prev=prev,
        sender=0,
        type="resume",
        payload={"nonce": bytes(16), "echo": b"\x01" * 16 if answer else b""},
    )
    listener.reconnect(b"\x01" * 16, dialer=answer)
    listener.data_to_send()
    listener.receive_data(frame(resume))
    if code == "stale":
        with pytest.raises(ResumeRefusedError, match="stale"):
            listener.next_event()
        assert listener.resumable
        return
    with pytest.raises(RemoteProtocolError) as info:
        listener.next_event()
    assert info.value.code == code
    assert isinstance(info.value, ResumeLieError)


EVIDENCE = json.loads((SPEC / "vectors" / "evidence_v1.json").read_text())


def test_the_evidence_vector_is_reproduced_byte_for_byte() -> None:
    assert _generator().evidence_vector() == EVIDENCE


def _evidence_transcript(case: dict[str, Any]) -> list[bytes]:
    if "transcript" in case:
        return [bytes.fromhex(h) for h in case["transcript"]]
    full = [bytes.fromhex(h) for h in VECTOR["transcript"]]
    if case["abort"] is None:
        return full
    return [*full[: EVIDENCE["held"]], bytes.fromhex(case["abort"])]


@pytest.mark.parametrize("case", EVIDENCE["cases"], ids=lambda c: c["name"])
def test_evidence_is_judged_against_the_chain_before_the_abort_it_backs(
    case: dict[str, Any],
) -> None:
    """Section 13.8: a kept resume proves misbehaviour only against the chain its
    receiver held when it signed the ``abort`` ``cheat`` that cites it, and only
    where its signer's own signatures contradict it; otherwise it is the accuser's
    word (the case's verdict)."""
    from truc_p2p.evidence import check_evidence

    transcript = _evidence_transcript(case)
    evidence = [bytes.fromhex(h) for h in case["evidence"]]
    expected = case["finding"]
    verdict = EVIDENCE["verdicts"][case["name"]]
    if expected is None:
        assert verdict == "nothing"
        with pytest.raises(ValueError, match=case["why"]):
            check_evidence(transcript, evidence)
        return
    (finding,) = check_evidence(transcript, evidence)
    assert finding.player == expected["player"]
    assert finding.message_no == expected["message_no"]
    assert finding.code == expected["code"]
    word = {"bad-sequence": "which it signed itself", "broken-chain": "names another"}
    assert word[expected["code"]] in finding.what
    assert finding.weight == verdict
    assert ("the other player's word" in str(finding)) == (verdict == "word")


def test_every_evidence_case_has_a_verdict() -> None:
    assert [c["name"] for c in EVIDENCE["cases"]] == list(EVIDENCE["verdicts"])
    assert set(EVIDENCE["verdicts"].values()) == {"proof", "word", "nothing"}


def test_the_equivocated_chain_is_a_clean_transcript_on_its_own() -> None:
    """The accuser's file of the equivocation case checks by itself (another legal
    move at the position, then an abort): only the honest side's own transcript,
    which a verifier does not have, would show the two moves."""
    (case,) = [c for c in EVIDENCE["cases"] if c["name"] == "equivocated-chain"]
    transcript = _evidence_transcript(case)
    at = case["finding"]["message_no"]
    original = bytes.fromhex(VECTOR["transcript"][at])
    assert transcript[:at] == [bytes.fromhex(h) for h in VECTOR["transcript"][:at]]
    assert transcript[at] != original and _body(transcript[at])[4] == 0
    report = verify_transcript(transcript)
    assert report.status == "unfinished" and report.culprit is None, report.summary()
    (answer,) = case["evidence"]
    assert _body(bytes.fromhex(answer))[3] == hashlib.sha256(original).digest()


CLOCK = json.loads((SPEC / "vectors" / "resume_clock_v1.json").read_text())


def test_the_clock_vector_is_reproduced_byte_for_byte() -> None:
    assert _generator().resume_clock_vector() == CLOCK


def test_the_clock_vector_is_one_valid_chain_whose_hellos_announce_bit_4() -> None:
    transcript = [bytes.fromhex(h) for h in CLOCK["transcript"]]
    report = verify_transcript(transcript)
    assert report.valid, report.summary()
    for raw in transcript[:2]:
        nonce = _body(raw)[6]["nonce"]
        assert nonce[24:28] == b"trc\x01"
        assert int.from_bytes(nonce[28:], "big") & 16  # wire.md 11.1: bit 4


def test_resumes_with_the_clock_carry_left_and_away_after_nonce_and_echo() -> None:
    """wire.md 13.1: with the clock in resume agreed the payload is {nonce, echo,
    left, away}, in that order, the values each side's clock gave (independent
    msgpack decoding); a receiver takes the peer's left as its own time only when
    the peer lacks none of its envelopes."""
    nonces = [bytes.fromhex(n) for n in CLOCK["nonces"]]
    keys = [SigningKey.from_bytes(bytes.fromhex(k)) for k in CLOCK["identities"]]
    messages = [bytes.fromhex(m["hex"]) for m in CLOCK["resume_messages"]]
    for raw, sender, echo in zip(messages, (0, 1), (b"", nonces[0]), strict=True):
        _, _, _, _, who, mtype, payload = _body(raw)
        assert (who, mtype) == (sender, "resume")
        keys[sender].public_key().verify(raw[-64:], raw[:-64])
        assert list(payload) == ["nonce", "echo", "left", "away"]
        given = CLOCK["clock"][sender]
        assert payload == {"nonce": nonces[sender], "echo": echo, **given}
    have = {sender: _body(raw)[2] for sender, raw in enumerate(messages)}
    assert have[0] != have[1]  # both time the other: one of the two views is moot
    for seen in CLOCK["resumed"]:
        me = seen["player"]
        peer = 1 - me
        assert (seen["peer_has"], seen["we_have"]) == (have[peer], have[me])
        assert seen["peer_left"] == CLOCK["clock"][peer]["left"]
        assert seen["peer_away"] == CLOCK["clock"][peer]["away"]
        holds = have[peer] >= have[me]
        assert seen["time_left_ms"] == (seen["peer_left"] if holds else None)
    assert [s["time_left_ms"] is not None for s in CLOCK["resumed"]] == [False, True]


def _clock_listener() -> Any:
    from truc_p2p.protocol import Session

    keys = [SigningKey.from_bytes(bytes.fromhex(k)) for k in CLOCK["identities"]]
    held = _body(bytes.fromhex(CLOCK["resume_messages"][1]["hex"]))[2]  # at the cut
    listener = Session.restore(
        [bytes.fromhex(h) for h in CLOCK["transcript"][:held]],
        identity=keys[1],
        role=Player.P1,
        secret=bytes.fromhex(CLOCK["secrets"][1]),
    )
    assert listener.resume_clock_agreed  # read from its own hello, like every feature
    listener.reconnect(b"\x05" * 16, dialer=False)
    return listener


@pytest.mark.parametrize("case", CLOCK["refused"], ids=lambda c: c["name"])
def test_a_clock_out_of_range_is_a_malformed_resume_refused_not_judged(
    case: dict[str, Any],
) -> None:
    """wire.md 13.1 step 2 and 4: a resume whose clock is out of range (or missing,
    or of another type) is refused like any bad first frame: the connection, never
    the game; the same listener then accepts the honest resume of the vector."""
    from truc_p2p.protocol import Resumed, ResumeRefusedError, frame

    listener = _clock_listener()
    listener.receive_data(frame(bytes.fromhex(case["hex"])))
    with pytest.raises(ResumeRefusedError, match="resume: "):
        listener.next_event()
    assert listener.resumable
    listener.reconnect(b"\x06" * 16, dialer=False)
    listener.receive_data(frame(bytes.fromhex(CLOCK["resume_messages"][0]["hex"])))
    event = listener.next_event()
    assert isinstance(event, Resumed)
    assert (event.peer_left, event.peer_away) == (251_500, 12_250)


def test_without_both_bits_the_resume_stays_nonce_and_echo() -> None:
    """wire.md 11.1: the clock goes in a resume only when both hellos announce it;
    with a peer that lacks the bit the payload is {nonce, echo} exactly, and a
    resume that carries a clock anyway is malformed there."""
    from truc_p2p.protocol import NEED_DATA, ResumeClock, ResumeRefusedError, Session, frame

    def hashed(label: str) -> bytes:
        return hashlib.sha256(b"clock-compat/" + label.encode()).digest()

    for ours, theirs in ((True, False), (False, True), (True, True)):
        sessions = [
            Session(
                identity=SigningKey.from_bytes(hashed(f"key{p}")),
                role=Player(p),
                secret=hashed(f"secret{p}"),
                options=SessionOptions(resume_clock=(ours, theirs)[p]),
            )
            for p in (0, 1)
        ]
        while not all(s.game_id for s in sessions):
            for p in (0, 1):
                sessions[1 - p].receive_data(sessions[p].data_to_send())
                while sessions[1 - p].next_event() is not NEED_DATA:
                    pass
        clock = ResumeClock(left_ms=5_000, away_ms=1_000)
        sessions[0].reconnect(b"\x07" * 16, dialer=True, clock=clock)
        payload = _body(sessions[0].data_to_send()[4:])[6]
        agreed = ours and theirs
        assert sessions[0].resume_clock_agreed is agreed
        if agreed:
            assert payload == {"nonce": b"\x07" * 16, "echo": b"", "left": 5_000, "away": 1_000}
        else:
            assert payload == {"nonce": b"\x07" * 16, "echo": b""}
        if not theirs and ours:
            # a peer that lacks the bit refuses a resume that carries a clock
            from truc_p2p.protocol._wire import sign_envelope

            forced = sign_envelope(
                SigningKey.from_bytes(hashed("key0")),
                game_id=sessions[1].game_id,
                seq=0,
                prev=bytes(32),
                sender=0,
                type="resume",
                payload={"nonce": b"\x08" * 16, "echo": b"", "left": 5_000, "away": 0},
            )
            sessions[1].reconnect(b"\x09" * 16, dialer=False)
            sessions[1].receive_data(frame(forced))
            with pytest.raises(ResumeRefusedError, match="unknown field 'left'"):
                sessions[1].next_event()
