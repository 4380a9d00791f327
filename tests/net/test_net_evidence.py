"""Evidence kept outside the chain (issue 21 point 9, wire.md 13.8): a peer's signed
``resume`` that lies about the chain is written beside the transcript before the
abort it backs, and :func:`check_evidence` names the liar."""

from __future__ import annotations

import hashlib
import math
import secrets
from pathlib import Path

import pytest
import trio
import trio.testing
from helpers.net import Silent, new_session

from truc_p2p.bots import make_bot
from truc_p2p.cli import main
from truc_p2p.crypto import SigningKey
from truc_p2p.evidence import check_evidence, evidence_path_for, keep_evidence
from truc_p2p.net import Clocks, GameOutcome, PlayOptions, play_game
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    ChainError,
    RemoteProtocolError,
    ResumeLieError,
    ResumeRefusedError,
    SequenceError,
    Session,
    YourTurn,
    decode_envelope,
    fingerprint,
    frame,
)
from truc_p2p.protocol._wire import envelope_hash, sign_envelope
from truc_p2p.rules import Player
from truc_p2p.transcript import TranscriptWriter, read_transcript

P0, P1 = Player.P0, Player.P1


def _key(role: Player) -> SigningKey:
    """The key :func:`new_session` derives for ``role`` (seed 0)."""
    return SigningKey.from_bytes(hashlib.sha256(f"net-tests/0/{int(role)}/key".encode()).digest())


def _play_some(messages: int) -> tuple[dict[Player, Session], dict[Player, list[bytes]]]:
    """Two sessions back to back until P1's transcript holds ``messages`` envelopes."""
    records: dict[Player, list[bytes]] = {P0: [], P1: []}
    sessions = {p: new_session(p, record=records[p]) for p in (P0, P1)}
    bots = {p: make_bot("random", int(p)) for p in (P0, P1)}
    while len(records[P1]) < messages:
        for p in (P0, P1):
            s, other = sessions[p], sessions[p.other]
            while True:
                event = s.next_event()
                if event is NEED_DATA or event is CLOSED:
                    break
                if isinstance(event, YourTurn):
                    other.receive_data(s.send(bots[p].choose(s.game)))
            other.receive_data(s.data_to_send())
    return sessions, records


def _resume(
    liar: Player, victim: Session, chain: list[bytes], have: int, *, echo: bytes = b""
) -> bytes:
    return sign_envelope(
        _key(liar),
        game_id=victim.game_id,
        seq=have,
        prev=envelope_hash(chain[have - 1]),
        sender=int(liar),
        type="resume",
        payload={"nonce": secrets.token_bytes(16), "echo": echo},
    )


def _judged(victim: Session, error: RemoteProtocolError) -> None:
    """What the game loop does next: our signed abort cheat, citing the claim."""
    victim.abort("cheat", f"{error.code}: {error}")


def test_an_answer_claiming_to_lack_its_own_message_is_kept_and_names_the_liar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions, records = _play_some(8)
    victim, chain = sessions[P0], list(records[P0])
    own = max(i for i, raw in enumerate(chain) if decode_envelope(raw).sender == int(P1))
    nonce = secrets.token_bytes(16)
    victim.reconnect(nonce, dialer=True)
    victim.data_to_send()
    # The answer to our fresh nonce: "I lack message `own`" -- which it signed.
    lie = _resume(P1, victim, chain, own, echo=nonce)
    victim.receive_data(frame(lie))
    with pytest.raises(SequenceError) as caught:
        victim.next_event()
    assert isinstance(caught.value, ResumeLieError)
    transcript = tmp_path / "game.truc"
    assert keep_evidence(transcript, caught.value) == 1
    _judged(victim, caught.value)
    final = records[P0]  # ends with our abort cheat at position len(chain)
    assert decode_envelope(final[-1]).payload["reason"] == "cheat"
    kept = read_transcript(evidence_path_for(transcript))
    assert kept == [lie]
    (finding,) = check_evidence(final, kept)
    assert finding.player == 1 and finding.message_no == own
    assert finding.fingerprint == fingerprint(_key(P1).public_key())
    assert "which it signed itself" in str(finding) and "player 1" in str(finding)
    # Without the abort that cites it, the same resume proves nothing.
    with pytest.raises(ValueError, match="does not end with"):
        check_evidence(chain, kept)
    # ``truc-p2p verify`` on the victim's transcript names the liar.
    writer = TranscriptWriter(transcript, sync="never")
    for raw in final:
        writer.append(raw)
    writer.close()
    assert main(["verify", str(transcript)]) == 3  # an unfinished game (exit 3, not a cheat)
    out = capsys.readouterr().out
    # A claim to lack one's own message is the accuser's word (wire.md 13.8): the answer
    # may be an old one, which nobody but the accuser can tell.
    assert not finding.proof
    assert (
        "evidence (game.truc.evidence): the other player's word, not a proof: "
        f"player 1 (key {finding.fingerprint[:16]}"
    ) in out


def test_a_dialers_resume_naming_another_message_is_a_cheat(tmp_path: Path) -> None:
    sessions, records = _play_some(8)
    victim, chain = sessions[P1], list(records[P1])
    have = len(chain) - 2
    lie = sign_envelope(
        _key(P0),
        game_id=victim.game_id,
        seq=have,
        prev=hashlib.sha256(b"another chain").digest(),
        sender=0,
        type="resume",
        payload={"nonce": secrets.token_bytes(16), "echo": b""},
    )
    victim.reconnect(secrets.token_bytes(16), dialer=False)
    victim.receive_data(frame(lie))
    with pytest.raises(ChainError) as caught:
        victim.next_event()
    assert isinstance(caught.value, ResumeLieError)
    transcript = tmp_path / "game.truc"
    assert keep_evidence(transcript, caught.value) == 1
    _judged(victim, caught.value)
    (finding,) = check_evidence(records[P1], read_transcript(evidence_path_for(transcript)))
    assert finding.player == 0 and "names another message" in str(finding)


def test_a_stale_resume_of_the_dialer_is_refused_not_judged(tmp_path: Path) -> None:
    """An honest joiner's resume that waited (a queued connection, a slow path) while
    it redialled and played on says it lacks what it signed later: the host refuses
    that connection and keeps no evidence (the cause of issue 30 point 7)."""
    sessions, records = _play_some(8)
    victim, chain = sessions[P1], list(records[P1])
    own = max(i for i, raw in enumerate(chain) if decode_envelope(raw).sender == int(P0))
    stale = _resume(P0, victim, chain, own)  # signed when it held `own` messages
    victim.reconnect(secrets.token_bytes(16), dialer=False)
    victim.receive_data(frame(stale))
    with pytest.raises(ResumeRefusedError, match="stale") as caught:
        victim.next_event()
    assert keep_evidence(tmp_path / "game.truc", caught.value) == 0
    assert not evidence_path_for(tmp_path / "game.truc").exists()
    assert victim.resumable  # the game goes on with the next connection
    # Even if such a resume were kept, it would prove nothing against its sender.
    victim.abort("cheat", "bad-sequence: forged accusation")
    with pytest.raises(ValueError, match="may be older"):
        check_evidence(records[P1], [stale])


def test_an_honest_resume_proves_nothing_against_the_final_transcript() -> None:
    """The resume of an honest mid-game reconnection, checked against everything the
    game went on to record (its sender signed those envelopes after it)."""
    sessions, records = _play_some(8)
    victim, chain = sessions[P1], list(records[P1])
    honest = _resume(P0, victim, chain, len(chain))
    _, records2 = _play_some(16)  # the same game, played on further
    assert records2[P1][: len(chain)] == chain
    with pytest.raises(ValueError, match="proves nothing"):
        check_evidence(records2[P1], [honest])


def test_evidence_that_proves_nothing_is_refused() -> None:
    sessions, records = _play_some(8)
    victim, chain = sessions[P1], list(records[P1])
    honest = _resume(P0, victim, chain, len(chain))  # holds everything: no lie
    victim.abort("cheat", "bad-sequence: a false accusation")
    with pytest.raises(ValueError, match="proves nothing"):
        check_evidence(records[P1], [honest])
    own = max(i for i, raw in enumerate(chain) if decode_envelope(raw).sender == int(P0))
    lie = _resume(P0, victim, chain, own, echo=secrets.token_bytes(16))
    forged = lie[:-1] + bytes([lie[-1] ^ 1])  # not the liar's signature any more
    with pytest.raises(ValueError, match="not signed"):
        check_evidence(records[P1], [forged])


def test_only_lying_resumes_are_kept() -> None:
    sessions, records = _play_some(4)
    chained = RemoteProtocolError("a chain message", evidence=(records[P1][-1],))
    assert keep_evidence(Path("/nonexistent/dir/x.truc"), chained) == 0  # nothing to write
    honest = _resume(P0, sessions[P1], records[P1], len(records[P1]))
    unexpected = RemoteProtocolError("a resume where a move is due", evidence=(honest,))
    assert keep_evidence(Path("/nonexistent/dir/x.truc"), unexpected) == 0


async def test_a_lying_resume_over_the_network_ends_as_cheat_with_evidence(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    """The host's game loop, given a signed resume that names another chain: it keeps
    the resume, signs ``abort`` ``cheat`` (not ``error``) and the evidence names the
    joiner."""
    records: dict[Player, list[bytes]] = {P0: [], P1: []}
    sessions = {p: new_session(p, record=records[p]) for p in (P0, P1)}
    joiner_end, host_end = trio.testing.memory_stream_pair()
    new_links = trio.testing.memory_stream_pair()
    transcript = tmp_path / "host.truc"
    outcomes: dict[Player, object] = {}

    class Liar:  # the joiner's reconnector: a lying resume on a new link
        async def next_stream(self) -> tuple[trio.abc.Stream, bytes, bool]:
            s = sessions[P0]
            lie = sign_envelope(
                _key(P0),
                game_id=s.game_id,
                seq=len(records[P0]) - 1,
                prev=hashlib.sha256(b"another chain").digest(),
                sender=0,
                type="resume",
                payload={"nonce": secrets.token_bytes(16), "echo": b""},
            )
            await new_links[0].send_all(frame(lie))
            await trio.sleep_forever()
            raise AssertionError("unreachable")

    class Host:
        async def next_stream(self) -> tuple[trio.abc.Stream, bytes, bool]:
            return new_links[1], b"", False

    async def side(me: Player, stream: trio.abc.Stream, reconnector: object) -> None:
        outcomes[me] = await play_game(
            stream,
            sessions[me],
            Silent(),
            PlayOptions(
                clocks=Clocks(heartbeat=math.inf, dead_after=math.inf),
                reconnector=reconnector,
                linger=0.0,
                on_evidence=lambda exc: keep_evidence(transcript, exc),
            ),
        )

    async with trio.open_nursery() as nursery:
        nursery.start_soon(side, P1, host_end, Host())
        nursery.start_soon(side, P0, joiner_end, Liar())
        await trio.sleep(5)  # the game started; the player to act thinks
        await joiner_end.aclose()
        while P1 not in outcomes:
            await trio.sleep(1)
        # wire.md 13.8: the listener neither answers the resume it convicts nor
        # sends its abort there (the dialer would read it as a refused resume)
        sent = b""
        with trio.move_on_after(5):
            while chunk := await new_links[0].receive_some():
                sent += chunk
        nursery.cancel_scope.cancel()
    assert sent == b""
    host = outcomes[P1]
    assert isinstance(host, GameOutcome)
    assert host.abort_reason == "cheat", host.message
    assert host.error_code == "broken-chain"
    (finding,) = check_evidence(records[P1], read_transcript(evidence_path_for(transcript)))
    assert finding.player == 0
