"""The pre-deal message the turn watcher takes from the session always goes out,
before the move chosen meanwhile (a lost one: the peer's bad-sequence)."""

from __future__ import annotations

import math

import trio
import trio.testing
from helpers.net import bot, new_session

from truc_p2p.net import Clocks, End, PlayOptions, play_game
from truc_p2p.net._play import _GameLoop
from truc_p2p.rules import Action, Game, Player, Ruleset


class _Busy:
    """Plays the first legal action at once, while another sender holds the link's
    send lock a moment: the watcher waits at the lock when the choice is made."""

    def __init__(self) -> None:
        self.loop: _GameLoop | None = None
        self.nursery: trio.Nursery | None = None
        self.turns = 0

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        assert self.loop is not None and self.nursery is not None
        lock = self.loop.keeper.link._send_lock
        held = trio.Event()

        async def hold() -> None:
            async with lock:
                held.set()
                await trio.sleep(0.05)

        self.nursery.start_soon(hold)
        await held.wait()
        await trio.sleep(0.01)  # the watcher took its pre-deal bytes and waits at the lock
        self.turns += 1
        return legal[0]


async def test_a_move_made_while_the_watcher_waits_to_send_keeps_the_order(
    autojump_clock: trio.testing.MockClock,
) -> None:
    ruleset = Ruleset(target=4)
    sessions = {p: new_session(p, ruleset=ruleset, seed=5) for p in Player}
    busy = _Busy()
    streams = trio.testing.memory_stream_pair()
    quiet = PlayOptions(clocks=Clocks(heartbeat=math.inf, dead_after=math.inf), linger=0)
    loop = _GameLoop(streams[0], sessions[Player.P0], busy, quiet)
    busy.loop = loop
    ends: dict[Player, End] = {}

    async def joiner() -> None:
        ends[Player.P0] = (await loop.run()).end

    async def host() -> None:
        outcome = await play_game(
            streams[1],
            sessions[Player.P1],
            bot(3),
            PlayOptions(clocks=Clocks(heartbeat=math.inf, dead_after=math.inf)),
        )
        ends[Player.P1] = outcome.end

    with trio.fail_after(600):
        async with trio.open_nursery() as nursery:
            busy.nursery = nursery
            nursery.start_soon(joiner)
            nursery.start_soon(host)
    assert busy.turns > 0
    assert ends == {Player.P0: End.FINISHED, Player.P1: End.FINISHED}
