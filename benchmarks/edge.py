"""Figures for a game at the edge of the network (issue 21), measured on loopback.

    python benchmarks/edge.py [--rounds 3] [--flood 500] [--quick] [--json]

1. **Time to notice a dead link.**  A user-space proxy between joiner and
   host closes the host's side of the connection and leaves the joiner's
   open and silent (a half-open cut).  Figure: from the cut to the joiner's
   ``PeerDisconnected`` ("no sign of life"), with the default heartbeat
   (5 s) and dead-link time (20 s) unless ``--quick`` (0.2 s and 1 s).
2. **Time to resume after a half-open cut.**  The other way round: the
   joiner's side is closed, the host's left open and silent; the joiner
   redials and its ``resume`` replaces the link the host still holds.
   Figure: from the cut to the host's ``PeerReconnected``.  Also for case 1:
   from the cut to the joiner's ``PeerReconnected``.
3. **Time for a joiner to get in while an address floods the host.**  500
   silent connections from 127.0.0.2, re-opened as the host drops them,
   hello timeout 10 s; a joiner from 127.0.0.1.  Figure: from the joiner's
   start to its ``GameStarted``.

4. **Time to notice a cut that swallows the first heartbeat.**  The proxy
   passes 7,300 bytes from the joiner (its hello, coin and first deck
   message, not the heartbeat behind it), then closes the host's side and
   keeps the joiner's open and silent.  Figure: from the cut to the joiner's
   ``PeerDisconnected`` (the spec's bound: ``dead_after``, 20 s).
5. **A resume storm.**  Every ``v2action`` from the host is damaged on every
   connection (no resume moves the game) for a grace of 6 s.  Figure: resume
   exchanges per second the host answered (wire.md 13.4's throttle: at most 5
   in the first 8 s).

Every game must finish with both transcripts verifying (except the storm's,
which ends abandoned by design); failures are listed.
Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # helpers, then tests/net
sys.path.insert(1, str(Path(__file__).resolve().parents[1] / "tests" / "net"))

from helpers.edge import ProxiedGame, play_via_proxy
from helpers.net import bot, hosting
from test_net_edge import _flood

from truc_p2p.crypto import SigningKey
from truc_p2p.net import (
    DEFAULT_DEAD_AFTER,
    DEFAULT_HEARTBEAT,
    Clocks,
    End,
    GameSettings,
    PeerDisconnected,
    PeerReconnected,
    Reporting,
    Storage,
    join_game,
)
from truc_p2p.protocol import GameStarted, SessionOptions, verify_transcript
from truc_p2p.rules import Ruleset
from truc_p2p.transcript import read_transcript


def _first(game: ProxiedGame, side: str, kind: type, text: str = "") -> float | None:
    events = game.host_events if side == "host" else game.join_events
    times = game.host_times if side == "host" else game.join_times
    for event, at in zip(events, times, strict=True):
        if isinstance(event, kind) and text in getattr(event, "reason", ""):
            return at - game.proxy.cut_at
    return None


def _check(game: ProxiedGame, failures: list[str], what: str) -> None:
    for outcome in (game.host, game.join):
        ok = outcome.end is End.FINISHED and outcome.transcript is not None
        if ok and outcome.transcript is not None:
            ok = verify_transcript(read_transcript(outcome.transcript)).valid
        if not ok:
            failures.append(f"{what}: {outcome.end.value}: {outcome.message}")


async def _run(rounds: int, flood: int, quick: bool) -> dict[str, Any]:
    heartbeat, dead_after = (0.2, 1.0) if quick else (DEFAULT_HEARTBEAT, DEFAULT_DEAD_AFTER)
    settings = GameSettings(
        session=SessionOptions(ruleset=Ruleset(target=2)),
        clocks=Clocks(turn_timeout=60, grace=60, heartbeat=heartbeat, dead_after=dead_after),
    )
    failures: list[str] = []
    noticed: list[float] = []
    resumed_silent: list[float] = []
    resumed_held: list[float] = []
    admitted: list[float] = []
    swallowed: list[float] = []
    storms: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(rounds):
            game = await play_via_proxy(
                Path(tmp) / f"cut{i}",
                cut_at_byte=("up", 7300),
                host_settings=settings,
                join_settings=settings,
                seed=i + 1,
            )
            _check(game, failures, "half-open at byte 7300")
            seen = _first(game, "join", PeerDisconnected, "no sign of life")
            if seen is not None:
                swallowed.append(seen)
            storm_grace = 6.0
            game = await play_via_proxy(
                Path(tmp) / f"storm{i}",
                flips={"down": ["v2action"]},
                sticky=True,
                host_settings=GameSettings(
                    session=SessionOptions(ruleset=Ruleset(target=2)),
                    clocks=Clocks(grace=storm_grace),
                ),
                join_settings=GameSettings(
                    session=SessionOptions(ruleset=Ruleset(target=2)),
                    clocks=Clocks(grace=storm_grace),
                ),
                seed=i + 1,
            )
            answered = sum(isinstance(e, PeerReconnected) for e in game.host_events)
            storms.append(answered / storm_grace)
            game = await play_via_proxy(
                Path(tmp) / f"silent{i}",
                half_open=("host", "down", "v2action"),
                host_settings=settings,
                join_settings=settings,
                seed=i + 1,
            )
            _check(game, failures, "half-open, host side closed")
            seen = _first(game, "join", PeerDisconnected, "no sign of life")
            back = _first(game, "join", PeerReconnected)
            if seen is not None and back is not None:
                noticed.append(seen)
                resumed_silent.append(back)
            game = await play_via_proxy(
                Path(tmp) / f"held{i}",
                half_open=("joiner", "down", "v2action"),
                host_settings=settings,
                join_settings=settings,
                seed=i + 1,
            )
            _check(game, failures, "half-open, joiner side closed")
            back = _first(game, "host", PeerReconnected)
            if back is not None:
                resumed_held.append(back)
            started: list[float] = []
            async with (
                hosting(
                    strategy=bot(1),
                    identity=SigningKey.generate(),
                    settings=GameSettings(session=SessionOptions(ruleset=Ruleset(target=2))),
                    storage=Storage(out_dir=Path(tmp) / f"fh{i}"),
                ) as (invite, _),
                trio.open_nursery() as nursery,
            ):
                await nursery.start(_flood, invite.port, flood, "127.0.0.2", [0])
                await trio.sleep(0.5)
                knocked = trio.current_time()

                def on_event(
                    event: object, knocked: float = knocked, started: list[float] = started
                ) -> None:
                    if isinstance(event, GameStarted) and not started:
                        started.append(trio.current_time() - knocked)

                joined = await join_game(
                    invite,
                    bot(2),
                    identity=SigningKey.generate(),
                    settings=GameSettings(session=SessionOptions(ruleset=Ruleset(target=2))),
                    storage=Storage(out_dir=Path(tmp) / f"fj{i}", fsync=False),
                    report=Reporting(on_event=on_event),
                )
                nursery.cancel_scope.cancel()
            if joined.end is not End.FINISHED:
                failures.append(f"flooded host: {joined.end.value}: {joined.message}")
            admitted.extend(started)

    def stats(values: list[float]) -> dict[str, float | None]:
        if not values:
            return {"median_s": None, "max_s": None}
        return {"median_s": round(statistics.median(values), 3), "max_s": round(max(values), 3)}

    return {
        "rounds": rounds,
        "heartbeat_s": heartbeat,
        "dead_after_s": dead_after,
        "flood_connections": flood,
        "notice_dead_link": stats(noticed),
        "resume_after_silent_cut": stats(resumed_silent),
        "resume_replacing_held_link": stats(resumed_held),
        "join_while_flooded": stats(admitted),
        "notice_cut_first_heartbeat": stats(swallowed),
        "storm_resumes_per_s": stats(storms),
        "failures": failures,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="measurements of each (3)")
    parser.add_argument("--flood", type=int, default=500, help="silent connections (500)")
    parser.add_argument(
        "--quick", action="store_true", help="heartbeat 0.2 s, dead link after 1 s (tests)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    report = trio.run(_run, max(1, args.rounds), max(1, args.flood), args.quick)
    if args.json:
        print(json.dumps(report))
        return 0
    print(
        f"heartbeat {report['heartbeat_s']:g} s, dead link after {report['dead_after_s']:g} s, "
        f"{report['rounds']} round(s)"
    )
    for key, label in (
        ("notice_dead_link", "time to notice a dead (half-open) link"),
        ("resume_after_silent_cut", "time to resume after a half-open cut (silent side)"),
        ("resume_replacing_held_link", "time to resume when the host still holds the link"),
        ("join_while_flooded", f"time to get in while {args.flood} connections flood the host"),
        ("notice_cut_first_heartbeat", "time to notice a cut that swallowed the first heartbeat"),
    ):
        fig = report[key]
        print(f"{label}: median {fig['median_s']} s, max {fig['max_s']} s")
    storm = report["storm_resumes_per_s"]
    print(
        f"resume exchanges per second a link that damages every frame costs the host: "
        f"median {storm['median_s']}, max {storm['max_s']}"
    )
    for failure in report["failures"]:
        print(f"FAILED: {failure}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
