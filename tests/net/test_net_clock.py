"""A resume suspends the turn clock, never restarts it, and the time a peer may be
away in one game is bounded (issue 30 point 6, wire.md 13.4 and 13.5).

The stalling peer keeps each link up a little over :data:`PROBATION` (so the
grace of the next drop starts afresh), drops it before the turn timeout and
resumes at once.  Before the fix every resume gave it a new turn timeout and
the waiting side waited for ever.  Everything runs in process on memory
streams under the autojump clock.
"""

from __future__ import annotations

import math

import trio
import trio.testing
from helpers.net import Silent, bot, new_session

from truc_p2p.net import Clocks, End, GameOutcome, PlayOptions, Strategy, play_game
from truc_p2p.net._reconnect import PROBATION
from truc_p2p.rules import Action, Game, Player

P0, P1 = Player.P0, Player.P1


class _Thinking:
    """A bot that takes ``seconds`` for each move (so links drop during the game)."""

    def __init__(self, seed: int, seconds: float) -> None:
        self._bot, self._seconds = bot(seed), seconds

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        await trio.sleep(self._seconds)
        return await self._bot.choose(game, legal)


class _Wires:
    """New connections on demand: the joiner (P0) dials, the host (P1) takes them."""

    def __init__(self) -> None:
        self.joiner_ends: list[trio.abc.Stream] = []
        self._tx, self._rx = trio.open_memory_channel[trio.abc.Stream](8)
        self.new_link = trio.Event()

    def first(self) -> tuple[trio.abc.Stream, trio.abc.Stream]:
        joiner, host = trio.testing.memory_stream_pair()
        self.joiner_ends.append(joiner)
        self.new_link.set()
        return joiner, host

    async def cut_every(self, up: float) -> None:
        """Drop each connection ``up`` seconds after it was made (the joiner closes it)."""
        while True:
            await self.new_link.wait()
            self.new_link = trio.Event()
            await trio.sleep(up)
            await self.joiner_ends[-1].aclose()

    def dialler(self, away: list[float]) -> _Dial:
        return _Dial(self, away)

    def listener(self) -> _Listen:
        return _Listen(self)


class _Dial:
    def __init__(self, wires: _Wires, away: list[float]) -> None:
        self._wires, self._away = wires, away

    async def next_stream(self) -> tuple[trio.abc.Stream, bytes, bool]:
        if self._away:
            await trio.sleep(self._away.pop(0))  # the staller stays away a while
        joiner, host = self._wires.first()
        await self._wires._tx.send(host)
        return joiner, b"", True


class _Listen:
    def __init__(self, wires: _Wires) -> None:
        self._wires = wires

    async def next_stream(self) -> tuple[trio.abc.Stream, bytes, bool]:
        return await self._wires._rx.receive(), b"", False


async def _stall(
    *,
    up: float,
    away: list[float],
    turn_timeout: float,
    grace: float,
    away_budget: float,
    strategies: dict[Player, Strategy] | None = None,
    kept: list[object] | None = None,
    links: list[int] | None = None,
) -> tuple[dict[Player, GameOutcome], float]:
    """Play until a side ends the game while the link is cut every ``up`` seconds;
    the outcomes and how long the game lasted."""
    wires = _Wires()
    joiner, host = wires.first()
    sessions = {p: new_session(p) for p in (P0, P1)}
    strategies = strategies or {P0: Silent(), P1: Silent()}
    outcomes: dict[Player, GameOutcome] = {}
    start = trio.current_time()

    async def side(me: Player, stream: trio.abc.Stream) -> None:
        reconnector = wires.dialler(list(away)) if me is P0 else wires.listener()
        outcomes[me] = await play_game(
            stream,
            sessions[me],
            strategies[me],
            PlayOptions(
                clocks=Clocks(
                    turn_timeout=turn_timeout,
                    grace=grace,
                    away_budget=away_budget,
                    heartbeat=math.inf,
                    dead_after=math.inf,
                ),
                reconnector=reconnector,
                linger=0.0,
                on_evidence=(kept if kept is not None else []).append,
            ),
        )

    async with trio.open_nursery() as nursery:
        nursery.start_soon(wires.cut_every, up)
        async with trio.open_nursery() as players:
            players.start_soon(side, P1, host)
            players.start_soon(side, P0, joiner)
        nursery.cancel_scope.cancel()
    if links is not None:
        links.append(len(wires.joiner_ends))
    return outcomes, trio.current_time() - start


async def test_a_peer_that_drops_and_resumes_on_every_turn_is_timed_out(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # Each link lasts longer than the probation (a fresh grace at every drop) and
    # less than the turn timeout: before the fix, each resume restarted the clock.
    up = PROBATION + 1
    with trio.fail_after(20 * up):
        outcomes, lasted = await _stall(up=up, away=[], turn_timeout=50, grace=20, away_budget=1e6)
    ends = {p: o.end for p, o in outcomes.items()}
    assert End.OPPONENT_TIMEOUT in ends.values(), ends
    # The player to act had 50 s of connected time; the resumes cost almost nothing.
    assert lasted < 50 + 2 * up, lasted


async def test_the_time_away_in_a_game_is_bounded(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # 31 s up, then 18 s away (within the 20 s grace) again and again: the turn
    # clock (100 s of connected time) would end it only after three absences;
    # the away budget (50 s) ends it in the third, as abandoned.
    up = PROBATION + 1
    with trio.fail_after(400):
        outcomes, lasted = await _stall(
            up=up, away=[18.0] * 10, turn_timeout=100, grace=20, away_budget=50
        )
    waiting = [o for o in outcomes.values() if o.end is End.OPPONENT_ABANDONED]
    assert waiting, {p: o.end for p, o in outcomes.items()}
    assert "50 s it may be away" in (waiting[0].abort_detail or "")
    # Connected for 3 x 31 s, away 18 + 18 + the 14 s left of the budget.
    assert lasted <= 3 * up + 50 + 1, lasted


async def test_an_honest_game_with_drops_still_finishes(
    autojump_clock: trio.testing.MockClock,
) -> None:
    kept: list[object] = []
    links: list[int] = []
    with trio.fail_after(3000):
        outcomes, _ = await _stall(
            kept=kept,
            links=links,
            up=7,
            away=[1.0] * 200,
            turn_timeout=50,
            grace=20,
            away_budget=600,
            strategies={P0: _Thinking(1, 3.0), P1: _Thinking(2, 3.0)},
        )
    assert {o.end for o in outcomes.values()} == {End.FINISHED}, outcomes
    assert kept == []  # an honest resume is never evidence (wire.md 13.8)
    assert links[0] >= 5  # it was cut and resumed, mid-game, several times
