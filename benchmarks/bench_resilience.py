"""Reconnect and durability figures, measured in one run.

    python benchmarks/bench_resilience.py [--games 20] [--cut-games 30] [--json]

1. **Wall time per hand over loopback, new sync rule against the old one.**
   Host and joiner (heuristic bots, in one process over 127.0.0.1) write real
   transcripts in a temporary directory.  ``each`` is the old rule (fsync
   after every envelope, sent or received); ``on-demand`` is the new one
   (fsync only before our own bytes leave, so received envelopes ride along
   with the next sync).  Games of both kinds alternate, so both see the same
   machine load; the figures are medians per hand and their ratio.
2. **Time from a cut to play resuming.**  Games run through the
   fault-injecting proxy of ``tests/net/test_net_reconnect.py``, which kills
   the connection three times per game at random byte counts; the joiner's
   ``PeerReconnected.after`` is the time from noticing the drop to the
   ``resume`` exchange being done (redial, route, verify, resend).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # helpers, then tests/net
sys.path.insert(1, str(Path(__file__).resolve().parents[1] / "tests" / "net"))

from test_net_reconnect import play_through_proxy

from truc_p2p.bots import make_bot
from truc_p2p.crypto import SigningKey
from truc_p2p.net import (
    BotStrategy,
    GameOutcome,
    Invite,
    Listen,
    PeerReconnected,
    Reporting,
    Storage,
    host_game,
    join_game,
)
from truc_p2p.protocol import fingerprint


async def _one_game(tmp: Path, seed: int, *, sync_each: bool) -> tuple[float, int]:
    """Wall seconds and hands of one host/join game over loopback."""
    host_key, join_key = SigningKey.generate(), SigningKey.generate()
    ready = trio.Event()
    port: list[int] = []
    result: dict[str, GameOutcome] = {}

    def on_invite(invite: Invite) -> None:
        port.append(invite.port)
        ready.set()

    async with trio.open_nursery() as nursery:

        async def host() -> None:
            result["host"] = await host_game(
                BotStrategy(make_bot("heuristic", seed)),
                identity=host_key,
                listen=Listen(bind="127.0.0.1", port=0),
                storage=Storage(out_dir=tmp / f"h{seed}", sync_each=sync_each),
                report=Reporting(on_invite=on_invite),
            )

        nursery.start_soon(host)
        await ready.wait()
        start = time.perf_counter()
        joined = await join_game(
            Invite("127.0.0.1", port[0], fingerprint(host_key.public_key())),
            BotStrategy(make_bot("heuristic", seed + 1)),
            identity=join_key,
            storage=Storage(out_dir=tmp / f"j{seed}", sync_each=sync_each),
        )
        wall = time.perf_counter() - start
    if not joined.valid:
        raise RuntimeError(f"game {seed} did not finish: {joined.message}")
    return wall, joined.hands


class _CountingFsync:
    """Counts and times ``os.fsync`` calls (installed for the sync measurement only)."""

    def __init__(self) -> None:
        self.real = os.fsync
        self.calls = 0
        self.seconds = 0.0

    def __call__(self, fd: int) -> None:
        start = time.perf_counter()
        self.real(fd)
        self.seconds += time.perf_counter() - start
        self.calls += 1


async def sync_rules(games: int) -> dict[str, Any]:
    per_hand: dict[str, list[float]] = {"each": [], "on-demand": []}
    fsyncs: dict[str, int] = {"each": 0, "on-demand": 0}
    hands_played: dict[str, int] = {"each": 0, "on-demand": 0}
    counter = _CountingFsync()
    os.fsync = counter
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for g in range(games):
                for rule in ("each", "on-demand") if g % 2 == 0 else ("on-demand", "each"):
                    before = counter.calls
                    wall, hands = await _one_game(Path(tmp) / rule, g, sync_each=rule == "each")
                    per_hand[rule].append(wall / hands)
                    fsyncs[rule] += counter.calls - before
                    hands_played[rule] += hands
    finally:
        os.fsync = counter.real
    each, lazy = statistics.median(per_hand["each"]), statistics.median(per_hand["on-demand"])
    return {
        "games_per_rule": games,
        "wall_ms_per_hand_each": round(each * 1000, 2),
        "wall_ms_per_hand_on_demand": round(lazy * 1000, 2),
        "speedup": round(each / lazy, 2),
        "fsyncs_per_hand_each": round(fsyncs["each"] / hands_played["each"], 1),
        "fsyncs_per_hand_on_demand": round(fsyncs["on-demand"] / hands_played["on-demand"], 1),
        "fsync_ms_mean": round(counter.seconds / max(1, counter.calls) * 1000, 3),
    }


async def cut_to_resume(games: int) -> dict[str, Any]:
    afters: list[float] = []
    cuts = 0
    with tempfile.TemporaryDirectory() as tmp:
        for g in range(games):
            host, join, proxy, seen = await play_through_proxy(7000 + g, Path(tmp) / str(g))
            if not (host.valid and join.valid):
                raise RuntimeError(f"cut game {g} did not finish: {join.message}")
            cuts += proxy.cuts_done
            afters += [e.after for e in seen if isinstance(e, PeerReconnected)]
    afters.sort()
    return {
        "games": games,
        "cuts": cuts,
        "resumes_seen_by_joiner": len(afters),
        "cut_to_resume_ms_median": round(statistics.median(afters) * 1000, 2),
        "cut_to_resume_ms_p95": round(afters[int(0.95 * (len(afters) - 1))] * 1000, 2),
        "cut_to_resume_ms_max": round(afters[-1] * 1000, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per sync rule")
    parser.add_argument("--cut-games", type=int, default=30, help="games through the proxy")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = {
        "sync": trio.run(sync_rules, args.games),
        "reconnect": trio.run(cut_to_resume, args.cut_games),
    }
    if args.json:
        print(json.dumps(report))
        return
    s, r = report["sync"], report["reconnect"]
    print(f"wall time per hand over loopback ({s['games_per_rule']} games per rule, medians):")
    print(f"  fsync every envelope (old)     {s['wall_ms_per_hand_each']:8.2f} ms")
    print(f"  fsync before own sends (new)   {s['wall_ms_per_hand_on_demand']:8.2f} ms")
    print(f"  speed-up                       {s['speedup']:8.2f}x")
    print(
        f"  fsyncs per hand (both peers): old {s['fsyncs_per_hand_each']}, "
        f"new {s['fsyncs_per_hand_on_demand']}; one fsync here costs {s['fsync_ms_mean']} ms"
    )
    print(
        f"cut to play resuming ({r['games']} games, {r['cuts']} cuts, "
        f"{r['resumes_seen_by_joiner']} resumes seen by the joiner):"
    )
    print(
        f"  median {r['cut_to_resume_ms_median']} ms, p95 {r['cut_to_resume_ms_p95']} ms, "
        f"max {r['cut_to_resume_ms_max']} ms"
    )


if __name__ == "__main__":
    main()
