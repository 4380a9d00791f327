"""Games survive a network that cuts them: a fault-injecting TCP proxy between peers.

The proxy sits between the joiner and the host (the invite names the proxy)
and kills both sides of the connection after a random number of bytes --
mid-frame, during the deal, the audit or the result -- several times per
game.  The joiner redials, the host's accept loop routes the ``resume`` to
the waiting game, and the game goes on.  Every game must finish with one
co-signed result and two transcripts that verify.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import trio
from helpers.net import dial_target

from truc_p2p.bots import make_bot
from truc_p2p.identity import Identity
from truc_p2p.net import (
    BotStrategy,
    Clocks,
    End,
    GameOutcome,
    GameSettings,
    Invite,
    Listen,
    PeerDisconnected,
    PeerReconnected,
    Reporting,
    Storage,
    host_game,
    join_game,
)
from truc_p2p.protocol import SessionOptions, verify_transcript
from truc_p2p.rules import Ruleset
from truc_p2p.transcript import read_transcript

#: Message types the proxy also cuts inside, once each: the dealer's deck v2 deal message
#: (the largest; net games play the default deck v2, which has no audit), the result, the bye.
MARKERS = (b"\xa7v2deck2", b"\xa6result", b"\xa3bye")


class CuttingProxy:
    """Forwards TCP both ways; cuts every connection pair at planned byte counts and
    inside the first frame of each marked message type (mid-frame)."""

    def __init__(
        self,
        target_port: int,
        cuts: list[int],
        *,
        stall: float = 0.0,
        markers: tuple[bytes, ...] = MARKERS,
    ) -> None:
        self.target_port = target_port
        self.plan = sorted(cuts)  # total forwarded bytes at which to cut
        self.markers = list(markers)
        self.cut_markers: list[bytes] = []
        self.forwarded = 0
        self.cuts_done = 0
        self.connections = 0
        self.stall = stall
        self.port = 0

    async def serve(self, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        await trio.serve_listeners(self._handle, listeners)

    async def _handle(self, client: trio.SocketStream) -> None:
        self.connections += 1
        server = await dial_target(client, self.target_port)
        if server is None:
            return
        async with client, server, trio.open_nursery() as nursery:

            async def pump(src: trio.SocketStream, dst: trio.SocketStream) -> None:
                try:
                    while True:
                        data = await src.receive_some(4096)
                        if not data:
                            await dst.send_eof()
                            return
                        if self.stall and random.random() < 0.02:
                            await trio.sleep(self.stall)  # a stalled link
                        hit = next((m for m in self.markers if m in data), None)
                        if hit is not None:  # cut inside that message's frame
                            self.markers.remove(hit)
                            self.cut_markers.append(hit)
                            self.plan.insert(0, self.forwarded + data.index(hit) + 1)
                        if self.plan and self.forwarded + len(data) >= self.plan[0]:
                            keep = max(0, self.plan.pop(0) - self.forwarded)
                            if keep:
                                await dst.send_all(data[:keep])  # cut mid-frame
                            self.forwarded += keep
                            self.cuts_done += 1
                            nursery.cancel_scope.cancel()
                            return
                        await dst.send_all(data)
                        self.forwarded += len(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    nursery.cancel_scope.cancel()

            nursery.start_soon(pump, client, server)
            nursery.start_soon(pump, server, client)


async def play_through_proxy(
    seed: int, tmp: Path, *, n_cuts: int = 3, stall: float = 0.0
) -> tuple[GameOutcome, GameOutcome, CuttingProxy, list[object]]:
    rng = random.Random(seed)
    host_id, join_id = Identity.ephemeral().key, Identity.ephemeral().key
    ruleset = Ruleset(target=2)
    # Random cuts over the first ~6 kB (handshake, deals, play); the markers add
    # one cut inside the audit, one inside the result and one inside the bye.
    cuts = sorted(rng.sample(range(40, 6_000), n_cuts))
    outcomes: dict[str, GameOutcome] = {}
    seen: list[object] = []
    async with trio.open_nursery() as nursery:
        invite_port: list[int] = []
        ready = trio.Event()

        def on_invite(invite: Invite) -> None:
            invite_port.append(invite.port)
            ready.set()

        async def host() -> None:
            outcomes["host"] = await host_game(
                BotStrategy(make_bot("random", seed)),
                identity=host_id,
                settings=GameSettings(
                    session=SessionOptions(ruleset=ruleset),
                    clocks=Clocks(turn_timeout=30, grace=20),
                ),
                listen=Listen(bind="127.0.0.1", port=0),
                storage=Storage(out_dir=tmp / "host", fsync=False),
                report=Reporting(on_invite=on_invite),
            )

        nursery.start_soon(host)
        await ready.wait()
        proxy = CuttingProxy(invite_port[0], cuts, stall=stall)
        proxy_port = await nursery.start(proxy.serve)
        outcomes["join"] = await join_game(
            Invite("127.0.0.1", proxy_port, Identity(host_id, None).fingerprint),
            BotStrategy(make_bot("random", seed + 1)),
            identity=join_id,
            settings=GameSettings(
                session=SessionOptions(ruleset=ruleset), clocks=Clocks(turn_timeout=30, grace=20)
            ),
            storage=Storage(out_dir=tmp / "join", fsync=False),
            report=Reporting(on_event=seen.append),
        )
        with trio.fail_after(30):
            while "host" not in outcomes:
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    return outcomes["host"], outcomes["join"], proxy, seen


def check_finished(outcome: GameOutcome) -> None:
    assert outcome.end is End.FINISHED, outcome.message
    assert outcome.transcript is not None
    envelopes = read_transcript(outcome.transcript)
    report = verify_transcript(envelopes)
    assert report.valid, report.error
    # The counters are the game's, across every cut and resume (not the links' traffic).
    assert outcome.messages == report.messages == len(envelopes)
    assert outcome.nbytes == sum(4 + len(e) for e in envelopes)


async def test_one_game_survives_three_cuts(tmp_path: Path) -> None:
    host, join, proxy, seen = await play_through_proxy(1, tmp_path)
    assert proxy.cuts_done >= 3 and proxy.connections >= 4
    check_finished(host)
    check_finished(join)
    assert host.result == join.result
    assert any(isinstance(e, PeerDisconnected) for e in seen)
    assert sum(isinstance(e, PeerReconnected) for e in seen) >= 1


GAMES = 200
BATCH = 20


@pytest.mark.slow
@pytest.mark.parametrize("batch", range(GAMES // BATCH))
async def test_many_games_with_cuts_all_finish_and_verify(batch: int, tmp_path: Path) -> None:
    results: list[tuple[GameOutcome, GameOutcome, CuttingProxy]] = []

    async def one(seed: int) -> None:
        host, join, proxy, _ = await play_through_proxy(
            seed, tmp_path / str(seed), stall=0.05 if seed % 5 == 0 else 0.0
        )
        results.append((host, join, proxy))

    async with trio.open_nursery() as nursery:
        for k in range(BATCH):
            nursery.start_soon(one, 100 + batch * BATCH + k)
    assert len(results) == BATCH
    for host, join, proxy in results:
        check_finished(host)
        check_finished(join)
        assert host.result == join.result
        assert proxy.cuts_done >= 3
    # Over the batch, the v2 deal, the result and the bye were each cut into.
    cut_inside = {m for _, _, proxy in results for m in proxy.cut_markers}
    assert cut_inside == set(MARKERS)
