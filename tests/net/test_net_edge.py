"""No game lost at the edge: half-open links and damaged frames (wire.md 13.3, 13.4).

Games run through :class:`helpers.edge.FaultyProxy` on loopback, host and
joiner in this process.  Every game must finish with a co-signed result and
two transcripts that verify.
"""

from __future__ import annotations

import contextlib
from functools import partial
from pathlib import Path

import pytest
import trio
from helpers.edge import ProxiedGame, play_via_proxy
from helpers.net import bot, hosting

from truc_p2p.crypto import SigningKey
from truc_p2p.net import (
    Clocks,
    End,
    GameSettings,
    Listen,
    PeerDisconnected,
    PeerReconnected,
    Reporting,
    Storage,
    join_game,
    restore_game,
    resume_game,
)
from truc_p2p.net import _games as net_games
from truc_p2p.net import _reconnect as net_reconnect
from truc_p2p.protocol import GameStarted, SessionOptions, verify_transcript
from truc_p2p.rules import Player, Ruleset
from truc_p2p.transcript import read_transcript

P1 = Player.P1


def _both_finish_and_verify(game: ProxiedGame) -> None:
    for outcome in (game.host, game.join):
        assert outcome.end is End.FINISHED, outcome.message
        assert outcome.transcript is not None
        report = verify_transcript(read_transcript(outcome.transcript))
        assert report.valid, report
    assert game.host.result == game.join.result


#: A hello timeout longer than any test's ``fail_after``: waiting it out fails the test.
LONG_HELLO = 600.0


def _settings(**changes: float) -> GameSettings:
    clocks = Clocks(**{"turn_timeout": 30, "grace": 20, **changes})
    return GameSettings(session=SessionOptions(ruleset=Ruleset(target=2)), clocks=clocks)


async def test_half_open_joiner_side_the_resume_replaces_the_link_the_host_holds(
    tmp_path: Path,
) -> None:
    """The joiner's socket is closed, the host's is left open and silent.  The host
    would notice only after 60 s: the joiner's resume must take the game over."""
    with trio.fail_after(60):
        game = await play_via_proxy(
            tmp_path,
            half_open=("joiner", "down", "v2action"),
            host_settings=_settings(heartbeat=5, dead_after=60),
            join_settings=_settings(heartbeat=0.2, dead_after=1),
        )
    _both_finish_and_verify(game)
    back = [
        t
        for e, t in zip(game.host_events, game.host_times, strict=True)
        if isinstance(e, PeerReconnected)
    ]
    assert back, "the host never resumed"
    assert back[0] - game.proxy.cut_at < 10  # not the 60 s of silence
    assert any(
        isinstance(e, PeerDisconnected) and "reconnected on a new connection" in e.reason
        for e in game.host_events
    )


async def test_half_open_host_side_the_joiner_notices_the_silence(tmp_path: Path) -> None:
    """The host's socket is closed, the joiner's is left open and silent: the
    joiner's liveness check gives the link up and redials."""
    with trio.fail_after(60):
        game = await play_via_proxy(
            tmp_path,
            half_open=("host", "down", "v2action"),
            join_settings=_settings(heartbeat=0.2, dead_after=1),
        )
    _both_finish_and_verify(game)
    noticed = [
        t
        for e, t in zip(game.join_events, game.join_times, strict=True)
        if isinstance(e, PeerDisconnected) and "no sign of life" in e.reason
    ]
    assert noticed, game.join_events
    assert 0 < noticed[0] - game.proxy.cut_at < 5  # dead_after 1 s: not the turn timeout


KINDS = ["hello", "coin", "v2deck1", "v2action", "result"]


@pytest.mark.parametrize("direction", ["down", "up"])
async def test_a_byte_flipped_in_flight_costs_the_link_not_the_game(
    tmp_path: Path, direction: str
) -> None:
    with trio.fail_after(90):
        game = await play_via_proxy(tmp_path, flips={direction: list(KINDS)})
    assert len(game.proxy.flipped) == len(KINDS), game.proxy.flipped
    _both_finish_and_verify(game)
    assert game.proxy.connections >= 3  # damaged frames cost connections (some share one)


@pytest.mark.slow  # seconds of CPU: CI only (docs/developing.md)
async def test_a_link_that_damages_every_frame_is_abandoned_not_accused(tmp_path: Path) -> None:
    """Every ``v2action`` from the host arrives damaged, on every connection: each
    resume makes no progress, so the grace runs out; nobody is called a cheat."""
    quick = _settings(grace=3)
    with trio.fail_after(60):
        game = await play_via_proxy(
            tmp_path,
            flips={"down": ["v2action"]},
            sticky=True,
            host_settings=quick,
            join_settings=quick,
        )
    assert game.join.end is End.OPPONENT_ABANDONED, game.join.message
    assert game.join.abort_reason == "abandoned"
    assert game.host.end in (End.OPPONENT_ABANDONED, End.OPPONENT_ABORTED), game.host.message
    assert game.host.abort_reason == "abandoned"
    assert len(game.proxy.flipped) >= 3  # it kept trying
    for outcome in (game.host, game.join):
        assert outcome.transcript is not None
        report = verify_transcript(read_transcript(outcome.transcript))
        assert report.ended_by is not None and "abandoned" in report.ended_by
        assert "cheat" not in report.ended_by


async def _flood(
    port: int, n: int, source: str, opened: list[int], task_status: trio.TaskStatus[None]
) -> None:
    """Keep ``n`` silent connections from ``source`` open, re-opening each as it drops."""

    async def one() -> None:
        while True:
            try:
                stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=source)
            except OSError:
                await trio.sleep(0.05)
                continue
            opened[0] += 1
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                async with stream:
                    while await stream.receive_some(4096):
                        pass

    async with trio.open_nursery() as nursery:
        for _ in range(n):
            nursery.start_soon(one)
        while opened[0] < n:
            await trio.sleep(0.01)
        task_status.started()


@pytest.mark.parametrize("silent", [64, 500])
async def test_one_address_flooding_the_host_does_not_keep_a_joiner_out(
    tmp_path: Path, silent: int
) -> None:
    """``silent`` connections from 127.0.0.2, re-opened as they drop: a joiner from
    127.0.0.1 plays its game without waiting for them to time out. No clock is read:
    the hello timeout (:data:`LONG_HELLO`) is longer than the test's own limit, so a host
    that made the joiner wait it out fails the test, however busy the machine."""
    opened = [0]
    started: list[GameStarted] = []
    with trio.fail_after(60):
        async with (
            hosting(
                strategy=bot(1),
                identity=SigningKey.generate(),
                settings=_settings(hello_timeout=LONG_HELLO),
                storage=Storage(out_dir=tmp_path / "host"),
            ) as (invite, results),
            trio.open_nursery() as flood,
        ):
            await flood.start(_flood, invite.port, silent, "127.0.0.2", opened)
            await trio.sleep(0.5)  # the flood is in full swing
            joined = await join_game(
                invite,
                bot(2),
                identity=SigningKey.generate(),
                settings=_settings(),
                storage=Storage(out_dir=tmp_path / "join", fsync=False),
                report=Reporting(
                    on_event=lambda e: started.append(e) if isinstance(e, GameStarted) else None
                ),
            )
            flood.cancel_scope.cancel()
    assert joined.end is End.FINISHED, joined.message
    assert results["host"].end is End.FINISHED
    assert opened[0] > silent  # the host did close flooders, and they came back
    assert len(started) == 1


async def test_resuming_a_finished_game_whose_opponent_is_gone_signs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 point 7: no 120 s of redialling and no claim of an abort never written."""
    # the bye window (15 s in production) cut to 2 s so the test does not wait it out
    monkeypatch.setattr(net_games, "BYE_WINDOW", 2.0)
    monkeypatch.setattr(net_reconnect, "BYE_WINDOW", 2.0)
    host_key = SigningKey.generate()
    ruleset = Ruleset(target=2)
    with trio.fail_after(60):
        async with hosting(
            strategy=bot(1),
            identity=host_key,
            settings=GameSettings(session=SessionOptions(ruleset=ruleset, name="h")),
            storage=Storage(out_dir=tmp_path / "host"),
        ) as (invite, results):
            await join_game(
                invite,
                bot(2),
                identity=SigningKey.generate(),
                settings=GameSettings(session=SessionOptions(ruleset=ruleset)),
                storage=Storage(out_dir=tmp_path / "join", fsync=False),
            )
    played = results["host"]
    assert played.end is End.FINISHED and played.transcript is not None
    before = played.transcript.read_bytes()
    restored = restore_game(
        played.transcript,
        identity=host_key,
        role=P1,
        settings=GameSettings(clocks=Clocks(grace=600)),
    )
    # the grace (600 s) is longer than this limit: a resume that redialled for it fails
    with trio.fail_after(60):
        again = await resume_game(
            restored,
            bot(1),
            identity=host_key,
            listen=Listen(bind="127.0.0.1", port=0),
        )
    assert again.end is End.FINISHED and again.result == played.result, again.message
    assert "nothing more was signed" in again.message
    assert played.transcript.read_bytes() == before


async def test_a_host_that_cannot_write_a_transcript_tells_the_joiner_why(
    tmp_path: Path,
) -> None:
    """Issue 21 point 8: not "the connection dropped during the handshake 5 times"."""
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    with trio.fail_after(30):
        async with hosting(
            strategy=bot(1),
            identity=SigningKey.generate(),
            storage=Storage(out_dir=blocker / "games"),
            stop=(stop := trio.Event()),
        ) as (invite, _):
            joined = await join_game(
                invite,
                bot(2),
                identity=SigningKey.generate(),
                storage=Storage(out_dir=tmp_path / "join", fsync=False),
            )
            stop.set()
    assert joined.end is End.REFUSED and joined.exit_code == 5, joined.message
    assert "cannot write a transcript" in joined.message


#: Where a middlebox may cut the first link, in bytes one way.  From the joiner to the
#: host ("up") a hello is 338 bytes, then the coin (185), the first ``v2deck1`` and,
#: behind it, the first heartbeat: inside the hello, after it, inside the coin, inside
#: the deck message, between the deck message and its heartbeat, after that heartbeat.
#: From the host ("down"): inside its hello (337 bytes), after it, inside its deck
#: message, and after it (its answer to our first heartbeat then follows).
CUTS = [("up", n) for n in (200, 338, 400, 3000, 7300, 7304)] + [
    ("down", n) for n in (100, 337, 4000, 8507)
]
#: The cuts of the fast loop: inside the hello and inside the deck message, both ways
#: (CI makes every cut).
FAST_CUTS = [("up", 200), ("up", 3000), ("down", 100), ("down", 4000)]


@pytest.mark.parametrize(
    ("way", "at"),
    [c if c in FAST_CUTS else pytest.param(*c, marks=pytest.mark.slow) for c in CUTS],
)
async def test_a_half_open_cut_at_any_byte_is_noticed_and_resumed(
    tmp_path: Path, way: str, at: int
) -> None:
    """A middlebox closes its side to the host after ``at`` bytes and keeps the
    joiner's socket open and silent; later connections pass.  Both hellos announced
    heartbeats, so the joiner counts the silence even though no heartbeat ever
    came back on that link: it notices within ``dead_after`` (or, before the
    host's hello, the hello timeout), redials, and both sides finish one game
    that verifies (wire.md 13.5, 13.6)."""
    quick = _settings(heartbeat=0.2, dead_after=1, hello_timeout=3)
    with trio.fail_after(40):
        game = await play_via_proxy(
            tmp_path, cut_at_byte=(way, at), host_settings=quick, join_settings=quick
        )
    _both_finish_and_verify(game)
    assert game.host.game_id == game.join.game_id
    assert game.proxy.connections >= 2  # the joiner dialled again


@pytest.mark.slow  # the spec's own clocks: about 20 s of real time
async def test_a_half_open_cut_is_noticed_within_the_specs_20_s(tmp_path: Path) -> None:
    """The same cut with the default heartbeat (5 s) and dead link (20 s) clocks: the
    joiner's first heartbeat, riding behind its first deck message, is swallowed;
    the joiner gives the link up within 20 s of the cut and the game finishes."""
    plain = _settings(turn_timeout=120, grace=60)
    with trio.fail_after(90):
        game = await play_via_proxy(
            tmp_path, cut_at_byte=("up", 7300), host_settings=plain, join_settings=plain
        )
    _both_finish_and_verify(game)
    noticed = [
        t
        for e, t in zip(game.join_events, game.join_times, strict=True)
        if isinstance(e, PeerDisconnected) and "no sign of life" in e.reason
    ]
    assert noticed, game.join_events
    assert noticed[0] - game.proxy.cut_at <= 20 + 1  # wire.md 13.6, with a second of slack


def _exchanges_within(seconds: float) -> int:
    """How many resume exchanges the throttle allows in ``seconds`` of a storm in
    which the game never moves (the first at once, then storm_delay apart)."""
    n, t = 0, 0.0
    while t < seconds:
        n += 1
        t += net_reconnect.storm_delay(n)
    return n


async def test_a_link_that_damages_every_frame_gets_a_throttled_dialer(tmp_path: Path) -> None:
    """Every ``v2action`` from the host is damaged on every connection, so no resume
    ever moves the game: the joiner's redials back off (0.25 s doubling to 4 s,
    wire.md 13.4) instead of resuming dozens of times a second until the grace ends."""
    quick = _settings(grace=3)
    with trio.fail_after(60):
        game = await play_via_proxy(
            tmp_path,
            flips={"down": ["v2action"]},
            sticky=True,
            host_settings=quick,
            join_settings=quick,
        )
    assert game.join.end is End.OPPONENT_ABANDONED, game.join.message
    bound = 1 + _exchanges_within(3) + 1  # the first connection, and a late one
    assert 2 <= game.proxy.connections <= bound, game.proxy.connections


async def test_a_peer_that_resumes_without_pause_gets_throttled_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The joiner ignores the throttle (an adversary that redials at once after every
    drop); the host still answers at most the throttle's rate of resumes (each costs
    it a signature check, a synced away-file write and lines on the screen)."""
    throttle = net_reconnect.LinkKeeper._throttle

    async def reckless(self: net_reconnect.LinkKeeper) -> None:
        if self.session.me is not P1:
            return  # the joiner dials again at once
        await throttle(self)

    monkeypatch.setattr(net_reconnect.LinkKeeper, "_throttle", reckless)
    quick = _settings(grace=3)
    with trio.fail_after(60):
        game = await play_via_proxy(
            tmp_path,
            flips={"down": ["v2action"]},
            sticky=True,
            host_settings=quick,
            join_settings=quick,
        )
    answered = sum(isinstance(e, PeerReconnected) for e in game.host_events)
    assert 1 <= answered <= _exchanges_within(3), answered


async def test_a_host_that_never_says_hello_is_tried_twice_then_timed_out(
    autojump_clock: trio.abc.Clock, tmp_path: Path
) -> None:
    """No hello within the hello timeout may be a link cut on the way (the test above):
    the joiner starts over once; a host silent twice ends the attempt with the
    timeout, and no transcript of a game that never began is kept (wire.md 13.5)."""
    accepted: list[float] = []

    async def silent(stream: trio.SocketStream) -> None:
        accepted.append(trio.current_time())
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            while await stream.receive_some(65536):
                pass

    async with trio.open_nursery() as nursery:
        [listener] = await nursery.start(partial(trio.serve_tcp, silent, 0, host="127.0.0.1"))
        port = listener.socket.getsockname()[1]
        joined = await join_game(
            f"truc://127.0.0.1:{port}/?fp={'0' * 64}",
            bot(2),
            identity=SigningKey.generate(),
            settings=_settings(hello_timeout=3),
            storage=Storage(out_dir=tmp_path / "join", fsync=False),
        )
        nursery.cancel_scope.cancel()
    assert joined.end is End.OPPONENT_TIMEOUT and joined.kind == "hello-timeout", joined.message
    assert len(accepted) == 2 and accepted[1] - accepted[0] >= 3
    assert not list((tmp_path / "join").glob("*.truc"))
