"""play_game over memory streams: whole games and every way a game can end early."""

from __future__ import annotations

import hashlib
import re

import trio
from helpers.net import Illegal, Silent, bot, forward, new_session, run_game

from truc_p2p.crypto import SigningKey
from truc_p2p.net import End, QuitGame, Strategy
from truc_p2p.protocol import (
    MAX_ENVELOPE,
    CardsDealt,
    GameStarted,
    YourTurn,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.protocol._wire import sign_envelope
from truc_p2p.rules import Action, Game, Player, Ruleset

P0, P1 = Player.P0, Player.P1


def _last(record: list[bytes]) -> tuple[int, str, dict[str, object]]:
    env = decode_envelope(record[-1])
    return env.sender, env.type, env.payload


async def test_whole_game_both_sides_agree(autojump_clock: trio.abc.Clock) -> None:
    run = await run_game()
    a, b = run.outcomes[P0], run.outcomes[P1]
    assert a.end is End.FINISHED and b.end is End.FINISHED
    assert a.valid and b.valid and a.exit_code == b.exit_code == 0
    assert a.result == b.result and a.result is not None
    assert a.game_id == b.game_id == a.result.game_id
    assert a.names == b.names == ("joiner", "host")
    assert a.messages == b.messages == len(run.records[P0]) == len(run.records[P1])
    assert a.nbytes == b.nbytes > 0
    for p in (P0, P1):
        assert verify_transcript(run.records[p]).valid
    data = a.to_json()
    for key in ("game_id", "winner", "winner_name", "score", "hands", "reason", "valid"):
        assert key in data
    assert data["game_id"] == a.result.game_id.hex()
    assert data["score"] == list(a.result.scores) and data["outcome"] == "finished"
    assert data["reason"] == a.result.reason and data["players"] == ["joiner", "host"]


async def test_wrong_fingerprint_is_refused_before_anything_is_played(
    autojump_clock: trio.abc.Clock,
) -> None:
    run = await run_game(expected_fingerprint="ab" * 32)
    a, b = run.outcomes[P0], run.outcomes[P1]
    assert a.end is End.FINGERPRINT_MISMATCH and a.exit_code == 3
    assert "ab" * 32 in a.message and b.peer_fingerprint is not None
    assert a.peer_fingerprint is not None and a.peer_fingerprint in a.message
    # The host saw the joiner's hello and nothing else: no coin, no card.
    assert b.end is End.CONNECTION_LOST
    assert [decode_envelope(e).type for e in run.records[P1]] == ["hello", "hello"]
    assert not any(isinstance(e, CardsDealt | GameStarted) for e in run.events[P0])


async def test_right_fingerprint_in_other_case_is_accepted(autojump_clock: trio.abc.Clock) -> None:
    sessions = {p: new_session(p) for p in (P0, P1)}
    run = await run_game(sessions=sessions, expected_fingerprint=sessions[P1].fingerprint.upper())
    assert run.outcomes[P0].end is End.FINISHED


async def test_silent_opponent_times_out_and_the_transcript_says_so(
    autojump_clock: trio.abc.Clock,
) -> None:
    start = trio.current_time()
    run = await run_game({P0: bot(1), P1: Silent()}, turn_timeout=120)
    a, b = run.outcomes[P0], run.outcomes[P1]
    assert a.end is End.OPPONENT_TIMEOUT and a.abort_reason == "timeout"
    assert "timed out" in a.message and "120 s" in a.message
    assert 120 <= trio.current_time() - start < 130
    # Our signed abort is the last envelope of both transcripts.
    assert _last(run.records[P0])[:2] == (0, "abort")
    assert _last(run.records[P0])[2]["reason"] == "timeout"
    assert run.records[P1][-1] == run.records[P0][-1]
    report = verify_transcript(run.records[P0])
    assert not report.valid and report.ended_by is not None
    assert "player 0 aborted" in report.ended_by and "timeout" in report.ended_by
    # The silent side learns why, even though its player was still "thinking".
    assert b.end is End.OPPONENT_ABORTED and b.abort_reason == "timeout"
    assert "took too long" in b.message


async def test_peer_that_never_says_hello_times_out(autojump_clock: trio.abc.Clock) -> None:
    async def swallow(n: int, envelope: bytes, joiner: trio.abc.Stream) -> bool:
        await trio.sleep_forever()
        return False

    run = await run_game(tamper=swallow)
    a = run.outcomes[P0]
    assert a.end is End.OPPONENT_TIMEOUT and "no hello" in a.message
    assert a.peer_fingerprint is None


async def _midgame(n: int) -> bool:
    """Frames 0..5 from the host are hello, deck steps...: misbehave at frame 4."""
    return n >= 4


async def test_garbage_mid_hand_ends_the_link_not_the_game(
    autojump_clock: trio.abc.Clock,
) -> None:
    """Unsigned bytes prove nothing about the peer (wire.md 13.4): without a
    reconnector the connection is lost, no abort is signed, nothing is recorded."""

    async def garbage(n: int, envelope: bytes, joiner: trio.abc.Stream) -> bool:
        if not await _midgame(n):
            return await forward(n, envelope, joiner)
        await joiner.send_all(b"\x00\x00\x00\x80" + bytes(range(128)))
        await trio.sleep_forever()
        return False

    run = await run_game(tamper=garbage)
    a = run.outcomes[P0]
    assert a.end is End.CONNECTION_LOST and "damaged data on the link" in a.message
    assert a.abort_reason is None and _last(run.records[P0])[1] != "abort"
    assert bytes(range(128)) not in b"".join(run.records[P0])
    assert run.outcomes[P1].end is End.CONNECTION_LOST


async def test_oversize_frame_ends_the_link_not_the_game(autojump_clock: trio.abc.Clock) -> None:
    async def oversize(n: int, envelope: bytes, joiner: trio.abc.Stream) -> bool:
        if not await _midgame(n):
            return await forward(n, envelope, joiner)
        await joiner.send_all((MAX_ENVELOPE + 1).to_bytes(4, "big") + b"x" * 100)
        await trio.sleep_forever()
        return False

    run = await run_game(tamper=oversize)
    a = run.outcomes[P0]
    assert a.end is End.CONNECTION_LOST and str(MAX_ENVELOPE + 1) in a.message
    assert a.abort_reason is None
    assert run.outcomes[P1].end is End.CONNECTION_LOST


async def test_signed_malformed_message_is_still_a_cheat(autojump_clock: trio.abc.Clock) -> None:
    """A message the host's key really signed, with a payload the catalogue refuses:
    signed misbehaviour stays a protocol error, with the evidence kept."""
    host_key = SigningKey.from_bytes(hashlib.sha256(b"net-tests/0/1/key").digest())
    forged: list[bytes] = []

    async def resign(n: int, envelope: bytes, joiner: trio.abc.Stream) -> bool:
        if n == 4:
            env = decode_envelope(envelope)
            envelope = sign_envelope(
                host_key,
                game_id=env.game_id,
                seq=env.seq,
                prev=env.prev,
                sender=env.sender,
                type=env.type,
                payload={**env.payload, "bogus": 1},
            )
            forged.append(envelope)
        return await forward(n, envelope, joiner)

    run = await run_game(tamper=resign)
    a = run.outcomes[P0]
    assert a.end is End.PROTOCOL_ERROR and a.error_code == "malformed"
    assert a.error_message_no == decode_envelope(forged[0]).seq
    assert forged[0] in run.records[P0]  # the evidence is in the transcript
    assert run.outcomes[P1].end is End.OPPONENT_ABORTED


async def test_connection_closed_mid_hand(autojump_clock: trio.abc.Clock) -> None:
    async def close(n: int, envelope: bytes, joiner: trio.abc.Stream) -> bool:
        if not await _midgame(n):
            return await forward(n, envelope, joiner)
        await joiner.aclose()
        return False

    run = await run_game(tamper=close)
    a = run.outcomes[P0]
    assert a.end is End.CONNECTION_LOST and a.exit_code == 1
    assert re.search(r"during hand \d+: the peer closed the connection", a.message)
    # No abort is written: the transcript and secret can still resume the game.
    assert _last(run.records[P0])[1] != "abort"


async def test_flipped_signature_bit_is_a_link_fault_not_a_cheat(
    autojump_clock: trio.abc.Clock,
) -> None:
    flipped: list[bytes] = []

    async def flip(n: int, envelope: bytes, joiner: trio.abc.Stream) -> bool:
        if n == 4:
            envelope = envelope[:-1] + bytes([envelope[-1] ^ 1])
            flipped.append(envelope)
        return await forward(n, envelope, joiner)

    run = await run_game(tamper=flip)
    a = run.outcomes[P0]
    assert a.end is End.CONNECTION_LOST and "signature does not verify" in a.message
    assert a.abort_reason is None and a.error_code is None
    assert flipped[0] not in run.records[P0]  # never recorded: it proves nothing


async def test_ruleset_mismatch_is_refused_before_any_card(autojump_clock: trio.abc.Clock) -> None:
    sessions = {
        P0: new_session(P0, ruleset=Ruleset(target=6)),
        P1: new_session(P1),
    }
    run = await run_game(sessions=sessions)
    for p in (P0, P1):
        o = run.outcomes[p]
        assert o.end is End.INCOMPATIBLE and o.error_code == "ruleset-mismatch"
        assert "target" in o.message and o.hands == 0
        assert not any(isinstance(e, CardsDealt) for e in run.events[p])


class _StopOnFirstTurn:
    """A player who thinks forever, and whose owner leaves (sets ``stop``) at once."""

    def __init__(self, stop: trio.Event) -> None:
        self.stop = stop

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        self.stop.set()
        await trio.sleep_forever()
        raise AssertionError


async def test_stop_while_the_opponent_thinks_resigns(autojump_clock: trio.abc.Clock) -> None:
    """Leaving while the opponent is to act is a signed resignation: the opponent wins,
    both transcripts verify as complete, and only the winner's command exits 0."""
    stop = trio.Event()
    # P1 thinks forever; P0's owner leaves: P1 is told at once.
    strategies: dict[Player, Strategy] = {P0: bot(1), P1: _StopOnFirstTurn(stop)}
    run = await run_game(strategies, stops={P0: stop})
    a, b = run.outcomes[P0], run.outcomes[P1]
    assert a.end is End.RESIGNED and a.abort_reason == "resign" and a.exit_code == 1
    assert b.end is End.OPPONENT_RESIGNED and b.exit_code == 0
    assert a.complete and b.complete and not (a.valid or b.valid)  # not co-signed
    assert a.winner is b.winner is P1
    assert a.resigned_by is b.resigned_by is P0 and a.scores == b.scores
    assert "you resigned in hand 1" in a.message and "joiner resigned" in b.message
    assert b.to_json()["reason"] == "resigned" and b.to_json()["resigned_by_name"] == "joiner"
    for p in (P0, P1):
        report = verify_transcript(run.records[p])
        assert report.valid and report.status == "complete" and report.reason == "resigned"
        assert report.headline().startswith("joiner resigned in hand 1; host wins")


async def test_stop_against_an_old_peer_sends_a_signed_quit(
    autojump_clock: trio.abc.Clock,
) -> None:
    """A peer of the older spec (no resignation in its hello) gets today's quit."""
    stop = trio.Event()
    record: list[bytes] = []
    sessions = {P0: new_session(P0), P1: new_session(P1, resign=False, record=record)}
    strategies: dict[Player, Strategy] = {P0: bot(1), P1: _StopOnFirstTurn(stop)}
    run = await run_game(strategies, sessions=sessions, stops={P0: stop})
    a, b = run.outcomes[P0], run.outcomes[P1]
    assert a.end is End.QUIT and a.abort_reason == "quit" and not a.complete
    assert b.end is End.OPPONENT_ABORTED and b.abort_reason == "quit"
    assert "left the game" in b.message
    report = verify_transcript(record)
    assert report.status == "unfinished" and (report.aborted_by, report.abort_reason) == (0, "quit")
    assert report.headline().startswith("Unfinished: joiner ended the game in hand 1")


async def test_quitgame_from_the_player_resigns(autojump_clock: trio.abc.Clock) -> None:
    class Quitter:
        async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
            raise QuitGame("bored")

    run = await run_game({P0: Quitter(), P1: bot(2)})
    assert {o.end for o in run.outcomes.values()} == {End.RESIGNED, End.OPPONENT_RESIGNED}
    quitter = next(o for o in run.outcomes.values() if o.end is End.RESIGNED)
    assert quitter.me is P0 and run.outcomes[P1].abort_reason == "resign"
    assert run.outcomes[P1].winner is P1 and run.outcomes[P1].exit_code == 0


async def test_illegal_choice_is_a_local_error(autojump_clock: trio.abc.Clock) -> None:
    run = await run_game({P0: Illegal(), P1: Illegal()})
    ends = {o.end for o in run.outcomes.values()}
    assert End.LOCAL_ERROR in ends
    other = next(o for o in run.outcomes.values() if o.end is not End.LOCAL_ERROR)
    assert other.end is End.OPPONENT_ABORTED and other.abort_reason == "error"


async def test_event_hook_sees_every_turn(autojump_clock: trio.abc.Clock) -> None:
    run = await run_game()
    turns = [e for e in run.events[P0] if isinstance(e, YourTurn)]
    assert turns and isinstance(run.events[P0][0], GameStarted)
