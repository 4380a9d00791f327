"""The clock and the away budget survive a restart (issue 30, wire.md 13.1, 13.4, 13.5).

A joiner thinks 100 s of its 300 s move and its process dies; the host, which
stopped its clock at the drop with 200 s left, waits.  The joiner's session is
rebuilt from its transcript (as ``truc-p2p resume`` does) and resumes: the host's
``resume`` answer carries the time it left the joiner (the clock in resume, nonce
bit 4), so the joiner's screen shows about 200 s, not a fresh 300 s.  The away time
the joiner's side had counted is kept beside its transcript, and the host takes the
larger count from the joiner's ``resume``: when the joiner drops again for good, the
host ends the game when the budget runs out, long before the 120 s grace.  A
redialing joiner whose host is gone says so in one line within seconds.  In process
on memory streams under the autojump clock (the last test on a real socket).
"""

from __future__ import annotations

import errno
import hashlib
import json
import math
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from helpers.net import bot, free_port, new_session

from truc_p2p.crypto import SigningKey
from truc_p2p.net import Clocks, End, GameOutcome, Notice, PlayOptions, TurnClock, play_game
from truc_p2p.net._away import away_path_for, read_away, write_away
from truc_p2p.net._join_game import Redialer
from truc_p2p.protocol import Session
from truc_p2p.rules import Action, Game, Player
from truc_p2p.ui._table import TableModel

P0, P1 = Player.P0, Player.P1
MOVE = 300.0


class _Wires:
    """The joiner dials (a new memory pair each time), the host takes the other end."""

    def __init__(self) -> None:
        self._tx, self._rx = trio.open_memory_channel[trio.abc.Stream](8)

    def pair(self) -> tuple[trio.abc.Stream, trio.abc.Stream]:
        return trio.testing.memory_stream_pair()

    async def next_stream(self) -> tuple[trio.abc.Stream, bytes, bool]:  # the joiner's
        joiner, host = self.pair()
        await self._tx.send(host)
        return joiner, b"", True

    def listener(self) -> _Listen:
        return _Listen(self._rx)


class _Listen:
    def __init__(self, rx: trio.MemoryReceiveChannel[trio.abc.Stream]) -> None:
        self._rx = rx

    async def next_stream(self) -> tuple[trio.abc.Stream, bytes, bool]:
        return await self._rx.receive(), b"", False


class _DiesThinking:
    """A bot that, at its ``turn``-th move, thinks ``seconds`` and then its process dies."""

    def __init__(self, turn: int, seconds: float) -> None:
        self._bot, self._turn, self._seconds = bot(3), turn, seconds
        self.turns = 0
        self.dead = trio.Event()

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        self.turns += 1
        if self.turns == self._turn:
            await trio.sleep(self._seconds)
            self.dead.set()
            await trio.sleep_forever()
        return await self._bot.choose(game, legal)


class _Screen(_DiesThinking):
    """The restarted joiner: a table model fed the game's events shows each move's clock."""

    def __init__(self, turn: int, seconds: float) -> None:
        super().__init__(turn, seconds)
        self.model = TableModel("joiner", move_seconds=MOVE, now=trio.current_time)
        self.clocks: list[float | None] = []
        self.told: list[TurnClock] = []

    def on_event(self, event: object) -> None:
        if isinstance(event, TurnClock):  # as the terminal and web players take it
            self.told.append(event)
            self.model.resumed(event.seconds_left)

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        self.model.begin_turn(game, legal)
        self.clocks.append(self.model.seconds_left())
        return await super().choose(game, legal)


def _joiner_keys() -> tuple[SigningKey, bytes]:
    def derive(label: str) -> bytes:  # as helpers.net.new_session(P0) derives them
        return hashlib.sha256(f"net-tests/0/0/{label}".encode()).digest()

    return SigningKey.from_bytes(derive("key")), derive("secret")


async def _play(
    stream: trio.abc.Stream, session: Session, strategy: object, **knobs: Any
) -> GameOutcome:
    clocks = Clocks(
        turn_timeout=MOVE, grace=120.0, away_budget=600.0, heartbeat=math.inf, dead_after=math.inf
    )
    return await play_game(
        stream,
        session,
        strategy,  # type: ignore[arg-type]
        PlayOptions(clocks=clocks, linger=0.0, **knobs),
    )


async def test_a_restarted_joiner_shows_the_time_left_and_its_away_budget_goes_on(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    wires = _Wires()
    record: list[bytes] = []
    joiner = new_session(P0, record=record, resume_clock=True)
    host = new_session(P1, resume_clock=True)
    outcome: dict[Player, GameOutcome] = {}
    first = _DiesThinking(turn=3, seconds=100.0)
    away = away_path_for(tmp_path / "game.truc")
    away.write_text('{"away_ms": 550000}')  # what the joiner's side had counted before
    assert read_away(away) == 550.0
    second = _Screen(turn=2, seconds=5.0)
    times: dict[str, float] = {}

    async def host_side(stream: trio.abc.Stream) -> None:
        outcome[P1] = await _play(stream, host, bot(4), reconnector=wires.listener())
        times["host-ended"] = trio.current_time()

    async with trio.open_nursery() as nursery:
        j_end, h_end = wires.pair()
        nursery.start_soon(host_side, h_end)
        with trio.CancelScope() as life:

            async def joiner_side() -> None:
                await _play(j_end, joiner, first, reconnector=wires)

            async with trio.open_nursery() as process:
                process.start_soon(joiner_side)
                await first.dead.wait()  # 100 s into its third move ...
                life.cancel()  # ... the process dies: nothing more is sent
        await j_end.aclose()
        await trio.sleep(10.0)  # until the player runs `truc-p2p resume`
        key, secret = _joiner_keys()
        restored = Session.restore(
            record,
            identity=key,
            role=P0,
            secret=secret,
        )
        assert restored.resume_clock_agreed  # the features come from the hellos
        j2, h2 = wires.pair()
        await wires._tx.send(h2)
        with trio.CancelScope() as life2:

            async def watch() -> None:
                await second.dead.wait()  # it dies again, for good, on its second move
                times["second-drop"] = trio.current_time()
                life2.cancel()

            async with trio.open_nursery() as process:
                process.start_soon(watch)
                await _play(
                    j2,
                    restored,
                    second,
                    reconnector=wires,
                    resuming=True,
                    away_file=away,
                    on_event=second.on_event,
                )
        await j2.aclose()
    # The host's clock had 200 s of the joiner's move left: the screen shows that.
    assert len(second.told) == 1
    shown = second.clocks[0]
    assert shown is not None and 195.0 <= shown <= 200.5, shown
    assert second.clocks[1] is not None and second.clocks[1] > 295.0  # the next move: whole
    # The away time goes on from the kept count, here (written again at the resume)
    # and on the host, which takes the larger count from the joiner's resume.
    kept = json.loads(away.read_text())
    assert kept["format"] == 1 and kept["away_ms"] >= 550_000
    write_away(away, 12.3456)
    assert read_away(away) == 12.346
    ended = outcome[P1]
    assert ended.end is End.OPPONENT_ABANDONED
    waited = times["host-ended"] - times["second-drop"]
    assert waited < 60.0, waited  # the budget's rest (about 40 s), not the 120 s grace


async def test_without_the_bit_a_restarted_joiner_is_told_nothing(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """An older host (no bit 4): the resume is {nonce, echo}, no clock reaches the screen,
    and the game goes on (the whole move time is shown, as before)."""
    wires = _Wires()
    record: list[bytes] = []
    joiner = new_session(P0, record=record, resume_clock=True)
    host = new_session(P1, resume_clock=False)
    first = _DiesThinking(turn=2, seconds=50.0)
    second = _Screen(turn=99, seconds=0.0)
    outcome: dict[Player, GameOutcome] = {}

    async def host_side(stream: trio.abc.Stream) -> None:
        outcome[P1] = await _play(stream, host, bot(4), reconnector=wires.listener())

    async with trio.open_nursery() as nursery:
        j_end, h_end = wires.pair()
        nursery.start_soon(host_side, h_end)
        with trio.CancelScope() as life:
            async with trio.open_nursery() as process:
                process.start_soon(partial(_play, j_end, joiner, first, reconnector=wires))
                await first.dead.wait()
                life.cancel()
        await j_end.aclose()
        key, secret = _joiner_keys()
        restored = Session.restore(
            record,
            identity=key,
            role=P0,
            secret=secret,
        )
        assert not restored.resume_clock_agreed
        j2, h2 = wires.pair()
        await wires._tx.send(h2)
        ended = await _play(
            j2, restored, second, reconnector=wires, resuming=True, on_event=second.on_event
        )
    assert ended.end is End.FINISHED and outcome[P1].end is End.FINISHED
    assert second.told == []
    assert second.clocks[0] is not None and second.clocks[0] > 295.0


async def _redial_until(redialer: Redialer, done: Callable[[], bool], limit: float) -> None:
    """Let ``redialer`` redial until ``done()`` holds, for at most ``limit`` seconds."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(redialer.next_stream)
        with trio.move_on_after(limit):
            while not done():
                await trio.sleep(0.05)
        nursery.cancel_scope.cancel()


async def _a_dead_host_is_said_at_once(tmp_path: Path) -> None:
    """Connection refused on every redial: one line within a few seconds, with the
    grace left, Ctrl-C and the command to resume later; then the redials go on."""
    notices: list[str] = []
    when: list[float] = []

    def hear(text: str) -> None:
        notices.append(text)
        when.append(trio.current_time())

    transcript = tmp_path / "game.truc"
    redialer = Redialer("127.0.0.1", free_port(), on_notice=hear, transcript=transcript)
    start = trio.current_time()
    redialer.waiting_until(start + 120.0)
    await _redial_until(redialer, lambda: bool(notices) and redialer.attempts > 3, 6.0)
    assert len(notices) == 1, notices
    assert when[0] - start < 3.0  # at once, not after the grace
    (notice,) = notices
    assert isinstance(notice, Notice) and notice.kind == "host-not-answering"
    assert f"truc-p2p resume {transcript}" in notice and "Ctrl-C" in notice
    assert 115 <= int(notice.facts["seconds"]) <= 120
    assert redialer.attempts > 3  # it kept trying after saying so
    unsaved: list[str] = []
    quiet = Redialer("127.0.0.1", free_port(), on_notice=unsaved.append)
    await _redial_until(quiet, lambda: bool(unsaved), 3.0)
    assert [n.kind for n in unsaved] == ["host-not-answering-unsaved"]  # type: ignore[attr-defined]


async def test_a_dead_host_is_said_at_once(
    autojump_clock: trio.testing.MockClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every redial refused at once (as a closed port on this machine answers), in
    trio's time: the seconds counted are the redialer's own, however busy the machine."""

    async def refused(_self: Redialer) -> trio.abc.Stream:
        raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")

    monkeypatch.setattr(Redialer, "_dial", refused)
    await _a_dead_host_is_said_at_once(tmp_path)


@pytest.mark.slow  # real sockets and real seconds: the bounds need an idle machine
async def test_a_dead_host_on_a_real_socket_is_said_at_once(tmp_path: Path) -> None:
    await _a_dead_host_is_said_at_once(tmp_path)
