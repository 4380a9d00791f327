"""Evidence that cannot frame an honest player (issue 46, wire.md 13.8).

A kept ``resume`` is judged against a transcript its accuser wrote.  Against its
signer it proves only what the signer's own signatures contradict; anything
else is the accuser's word, and ``verify`` says so in its text and its JSON.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest
from helpers.evidence import accusation, chain_of, game, honest_cut
from helpers.protocol import P0, P1, Pair, split

from truc_p2p.cli import main
from truc_p2p.evidence import (
    check_evidence,
    check_evidence_file,
    evidence_lines,
    evidence_path_for,
)
from truc_p2p.i18n import LANGUAGES, english, use_language
from truc_p2p.protocol import decode_envelope, verify_transcript
from truc_p2p.protocol._wire import sign_envelope
from truc_p2p.rules import Player
from truc_p2p.transcript import TranscriptWriter
from truc_p2p.verdict import evidence_said


def _write(path: Path, envelopes: list[bytes]) -> None:
    writer = TranscriptWriter(path, sync="never")
    for raw in envelopes:
        writer.append(raw)
    writer.close()


def _verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], transcript: list[bytes], kept: list[bytes]
) -> tuple[str, dict[str, object]]:
    """``truc-p2p verify`` (text, then ``--json``) of ``transcript`` with ``kept`` as
    its evidence file."""
    path = tmp_path / "game.truc"
    _write(path, transcript)
    _write(evidence_path_for(path), kept)
    main(["verify", str(path)])
    text = capsys.readouterr().out
    main(["verify", "--json", str(path)])
    return text, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("honest", [P0, P1], ids=["joiner", "host"])
def test_another_games_resume_between_the_same_keys_proves_nothing(honest: Player) -> None:
    """An honest resume of an earlier game (or a rematch) of the same two players,
    filed as broken-chain evidence: it names another game, so it proves nothing.
    (It was taken as proof: the game id was read from the responder's hello, which
    names none.)"""
    accuser = honest.other
    earlier = game("rematch", 0)
    earlier.run(until=lambda _s, _raw: len(earlier.records[P1]) >= 10)
    dial, answer = honest_cut(earlier)
    old = dial if honest is P0 else answer  # the honest side's own resume
    later = game("rematch", 1)
    later.run(until=lambda _s, _raw: len(later.records[accuser]) >= 16)
    for p in (P0, P1):  # the same two players, another game
        assert later.keys[p].public_key() == earlier.keys[p].public_key()
    assert earlier.sessions[P0].game_id != later.sessions[P0].game_id
    chain = chain_of(later.records[accuser])
    assert decode_envelope(old).seq <= len(chain)
    transcript = [*chain, accusation(later, accuser, chain, "broken-chain")]
    with pytest.raises(ValueError, match="names another game"):
        check_evidence(transcript, [old])


def _equivocation(accuser: Player) -> tuple[Pair, Pair, int]:
    """Twin games (same keys, secrets and moves) up to a turn of ``accuser``: in the
    first it plays X, which reaches the honest side, in the second Y.  The turn is one
    after which the honest side has nothing to sign before its next decision, so its
    resume names X as its last message.  Returns both and X's position j."""
    honest = accuser.other
    for turns in range(12):
        twins = [game("equivocation", 0, bots={accuser: None}) for _ in range(2)]
        for pair in twins:
            for _ in range(turns):
                pair.run_to_turn(accuser)
                pair.act(accuser, next(iter(pair.sessions[accuser].game.legal_actions())))
            pair.run_to_turn(accuser)
        played, claimed = twins
        assert played.records == claimed.records
        legal = list(played.sessions[accuser].game.legal_actions())
        if len(legal) < 2 or played.inflight[honest]:
            continue
        played.bots[honest] = None  # the honest side does not move on before the drop
        played.act(accuser, legal[0])  # X, sent
        claimed.act(accuser, legal[1])  # Y, what the accuser's file will show
        j = len(played.records[accuser]) - 1
        while played.inflight[accuser]:
            played.deliver(accuser)
            played.pull(honest)
        if len(played.records[honest]) == j + 1 and len(claimed.records[accuser]) == j + 1:
            return played, claimed, j
    raise AssertionError("no turn fits")  # pragma: no cover


@pytest.mark.parametrize("accuser", [P0, P1], ids=["joiner-accuses", "host-accuses"])
def test_an_equivocating_accuser_gets_only_its_own_word(
    accuser: Player, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The accuser plays X at message j, the link drops, the honest side's resume (its
    dialer resume, or its answer) names X; the accuser's transcript shows another
    legal move Y at j and its abort cheat "broken-chain".  Only the accuser signed
    message j: the finding is its word, never a proof against the honest side."""
    honest = accuser.other
    played, claimed, j = _equivocation(accuser)
    assert played.records[honest][j] != claimed.records[accuser][j]
    if honest is P0:  # the honest joiner dials
        played.sessions[P0].reconnect(secrets.token_bytes(16), dialer=True)
        (resume,) = split(played.sessions[P0].data_to_send())
    else:  # the honest host answers the accuser's (honest-looking) dial
        _dial, resume = honest_cut(played)
    assert decode_envelope(resume).seq == j + 1
    claimed.sessions[accuser].abort("cheat", "broken-chain: the peer's resume names another")
    transcript = claimed.records[accuser]
    report = verify_transcript(transcript)  # the accuser's file alone is consistent
    assert report.status == "unfinished" and report.culprit is None, report.summary()
    (finding,) = check_evidence(transcript, [resume])
    assert (finding.player, finding.code, finding.message_no) == (int(honest), "broken-chain", j)
    assert not finding.proof and finding.weight == "word"
    text, obj = _verify(tmp_path, capsys, transcript, [resume])
    (line,) = [line for line in text.splitlines() if line.startswith("evidence")]
    assert "the other player's word, not a proof" in line
    assert obj["evidence_findings"] == [
        {
            "player": int(honest),
            "fingerprint": finding.fingerprint,
            "code": "broken-chain",
            "message_no": j,
            "accuser": int(accuser),
            "weight": "word",
        }
    ]
    assert obj["evidence"] == [line]


def test_an_old_answer_filed_at_a_later_abort_is_the_accusers_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The host's honest answer of an earlier reconnection, filed much later with an
    abort cheat "bad-sequence": it "lacks" what the host signed after it.  Nobody
    but the accuser knows when its nonce was made: the accuser's word, not a proof."""
    pair = game("old-answer")
    pair.run(until=lambda _s, _raw: len(pair.records[P1]) >= 8)
    _dial, answer = honest_cut(pair)
    pair.run(until=lambda _s, _raw: len(pair.records[P0]) >= 18)
    chain = chain_of(pair.records[P0])
    have = decode_envelope(answer).seq
    assert any(decode_envelope(raw).sender == 1 for raw in chain[have:])
    transcript = [*chain, accusation(pair, P0, chain, "bad-sequence")]
    (finding,) = check_evidence(transcript, [answer])
    assert (finding.player, finding.code) == (1, "bad-sequence")
    assert not finding.proof
    text, obj = _verify(tmp_path, capsys, transcript, [answer])
    (line,) = [line for line in text.splitlines() if line.startswith("evidence")]
    assert "the other player's word, not a proof" in line and "which it signed itself" in line
    findings = obj["evidence_findings"]
    assert isinstance(findings, list) and [f["weight"] for f in findings] == ["word"]


def test_a_resume_that_contradicts_its_signers_own_messages_is_a_proof(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The proof that stays: a resume naming another message at a position its own
    signer signed over (its later envelope chains to the transcript's)."""
    pair = game("proof")
    pair.run(until=lambda _s, _raw: len(pair.records[P1]) >= 12)
    chain = chain_of(pair.records[P1])
    liar = max(i for i, raw in enumerate(chain) if decode_envelope(raw).sender == 0)
    lie = decode_envelope(chain[liar])
    resume = sign_envelope(
        pair.keys[P0],
        game_id=lie.game_id,
        seq=liar,
        prev=bytes(32),
        sender=0,
        type="resume",
        payload={"nonce": bytes(16), "echo": b""},
    )
    transcript = [*chain, accusation(pair, P1, chain, "broken-chain")]
    (finding,) = check_evidence(transcript, [resume])
    assert finding.proof and finding.player == 0 and finding.message_no == liar - 1
    text, obj = _verify(tmp_path, capsys, transcript, [resume])
    (line,) = [line for line in text.splitlines() if line.startswith("evidence")]
    assert "word" not in line and "player 0" in line
    findings = obj["evidence_findings"]
    assert isinstance(findings, list) and [f["weight"] for f in findings] == ["proof"]


@pytest.mark.parametrize(
    "payload",
    [
        {"nonce": bytes(16), "echo": b"", "left": 86_400_001, "away": 0},
        {"nonce": bytes(16), "echo": b"", "left": 1000.0, "away": 0},
        {"nonce": bytes(16), "echo": b"", "left": None, "away": None},
        {"nonce": bytes(16), "echo": b"", "extra": 1},
        {"nonce": bytes(16)},
    ],
    ids=["left-out-of-range", "left-float", "away-nil", "unknown-key", "no-echo"],
)
def test_a_resumes_payload_is_not_judged_as_evidence(payload: dict[str, object]) -> None:
    """wire.md 13.8 step 1: the claim is the signed body's seq and prev; a payload a
    live receiver would refuse as malformed (13.1 step 2) changes nothing, so the
    signer of a malformed resume naming another chain over its own envelopes is
    proven to have lied, as with a well-formed one (a missing echo: a dialer's)."""
    pair = game("proof")
    pair.run(until=lambda _s, _raw: len(pair.records[P1]) >= 12)
    chain = chain_of(pair.records[P1])
    liar = max(i for i, raw in enumerate(chain) if decode_envelope(raw).sender == 0)
    resume = sign_envelope(
        pair.keys[P0],
        game_id=decode_envelope(chain[liar]).game_id,
        seq=liar,
        prev=bytes(32),
        sender=0,
        type="resume",
        payload=payload,
    )
    transcript = [*chain, accusation(pair, P1, chain, "broken-chain")]
    (finding,) = check_evidence(transcript, [resume])
    assert finding.proof and finding.player == 0 and finding.message_no == liar - 1


@pytest.mark.parametrize("kind", ["proof", "word", "old-answer", "nothing"])
def test_verify_says_it_in_english_as_the_library_does_and_in_every_language(
    kind: str, tmp_path: Path
) -> None:
    """The lines ``verify`` prints are :func:`evidence_lines` word for word in English
    (the JSON's ``evidence``), and each catalog words the label of a finding that is
    not a proof."""
    pair = game("words")
    pair.run(until=lambda _s, _raw: len(pair.records[P1]) >= 8)
    _dial, answer = honest_cut(pair)
    pair.run(until=lambda _s, _raw: len(pair.records[P0]) >= 16)
    chain = chain_of(pair.records[P0])
    if kind == "word":  # the chain ends with player 0's own envelopes: its word alone
        chain = chain[
            : max(i for i, raw in enumerate(chain) if decode_envelope(raw).sender == 0) + 1
        ]
    code = "bad-sequence" if kind == "old-answer" else "broken-chain"
    transcript = [*chain, accusation(pair, P0, chain, code)]
    mine = max(i for i, raw in enumerate(chain) if decode_envelope(raw).sender == 1)
    at = {"proof": mine, "word": len(chain), "old-answer": 0, "nothing": 0}[kind]
    kept = (
        [answer]
        if kind in ("old-answer", "nothing")
        else [
            sign_envelope(
                pair.keys[P1],
                game_id=pair.sessions[P0].game_id,
                seq=at,
                prev=bytes(32),
                sender=1,
                type="resume",
                payload={"nonce": bytes(16), "echo": b""},
            )
        ]
    )
    path = tmp_path / "game.truc"
    _write(path, transcript)
    _write(evidence_path_for(path), kept)
    check = check_evidence_file(path, transcript)
    assert check is not None
    with english():
        said = evidence_said(check)
    assert said == evidence_lines(path, transcript) and len(said) == 1
    assert ("the other player's word" in said[0]) == (kind in ("word", "old-answer"))
    assert ("proves nothing" in said[0]) == (kind == "nothing")
    try:
        for code_ in LANGUAGES:
            if code_ == "en":
                continue
            use_language(code_)
            (line,) = evidence_said(check)
            assert line != said[0] and check.name in line, code_
    finally:
        use_language("en")
