"""Two processes play N games back to back over loopback TCP; median wall time per game and hand.

    python benchmarks/net_loopback.py [--games 10] [--no-fsync] [--json]

The script starts a host process and a joiner process (each a copy of this
script).  The host listens on 127.0.0.1 and prints its invite; the joiner
connects once per game, checks the host's key, and both play heuristic bots
through the full protocol (keys, signatures, mental-poker deck, audit,
co-signed result), writing fsync'ed transcripts like ``truc-p2p host/join``.
The joiner times each game from ``connect`` to the co-signed result.  Any
game that does not finish with the same result on both sides is a failure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from truc_p2p.bench._game import CpuFloor
from truc_p2p.bots import make_bot
from truc_p2p.crypto import SigningKey
from truc_p2p.net import (
    BotStrategy,
    Clocks,
    Invite,
    PlayOptions,
    Storage,
    open_game,
    play_game,
    prepare_game,
    serve_game,
    transcript_path,
)
from truc_p2p.protocol import SessionOptions, decode_envelope, fingerprint
from truc_p2p.rules import Player
from truc_p2p.transcript import read_transcript


async def host(games: int, out: Path, fsync: bool) -> None:
    key = SigningKey.generate()
    async with serve_game(bind="127.0.0.1", port=0) as listener:
        print(listener.invite(fingerprint(key.public_key())), flush=True)
        for g in range(games):
            async with await listener.accept() as stream:
                cpu0 = time.process_time()
                local = prepare_game(
                    identity=key,
                    role=Player.P1,
                    transcript=transcript_path(out, f"host-{g}"),
                    storage=Storage(fsync=fsync),
                    options=SessionOptions(name="host"),
                )
                outcome = await play_game(
                    stream,
                    local.session,
                    BotStrategy(make_bot("heuristic", 2 * g + 1)),
                    PlayOptions(clocks=Clocks(turn_timeout=30)),
                )
                local.close()
                cpu = time.process_time() - cpu0
            print(
                json.dumps(
                    {
                        "game": g,
                        "game_id": outcome.to_json()["game_id"],
                        "valid": outcome.valid,
                        "cpu": cpu,
                    }
                ),
                flush=True,
            )


async def join(invite: Invite, games: int, out: Path, fsync: bool) -> None:
    key = SigningKey.generate()
    for g in range(games):
        start, cpu0 = time.perf_counter(), time.process_time()
        async with open_game(invite) as stream:
            path = transcript_path(out, f"join-{g}")
            local = prepare_game(
                identity=key,
                role=Player.P0,
                transcript=path,
                storage=Storage(fsync=fsync),
                options=SessionOptions(name="joiner"),
            )
            outcome = await play_game(
                stream,
                local.session,
                BotStrategy(make_bot("heuristic", 2 * g)),
                PlayOptions(
                    clocks=Clocks(turn_timeout=30), expected_fingerprint=invite.fingerprint
                ),
            )
            local.close()
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu0
        data = outcome.to_json()
        # Deals include the last hand's pre-deal, never opened when the game ends.
        deals = sum(1 for raw in read_transcript(path) if decode_envelope(raw).type == "v2deck1")
        print(
            json.dumps(
                {
                    "game": g,
                    "game_id": data["game_id"],
                    "valid": outcome.valid,
                    "hands": outcome.hands,
                    "messages": outcome.messages,
                    "bytes": outcome.nbytes,
                    "wall": wall,
                    "cpu": cpu,
                    "deals": deals,
                    "outcome": data["outcome"],
                }
            ),
            flush=True,
        )


def _child(role: str, *args: str) -> list[str]:
    return [sys.executable, __file__, "--role", role, *args]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--no-fsync", action="store_true", help="do not fsync transcripts")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--role", choices=["host", "join"], help=argparse.SUPPRESS)
    parser.add_argument("--invite", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    fsync = not args.no_fsync
    if args.role == "host":
        trio.run(host, args.games, Path(args.out), fsync)
        return 0
    if args.role == "join":
        trio.run(join, Invite.parse(args.invite), args.games, Path(args.out), fsync)
        return 0

    flags = ["--games", str(args.games)] + (["--no-fsync"] if args.no_fsync else [])
    with tempfile.TemporaryDirectory(prefix="truc-bench-") as tmp:
        began = time.perf_counter()
        hoster = subprocess.Popen(
            _child("host", *flags, "--out", f"{tmp}/host"), stdout=subprocess.PIPE, text=True
        )
        assert hoster.stdout is not None
        invite = hoster.stdout.readline().strip()
        joiner = subprocess.run(
            _child("join", *flags, "--out", f"{tmp}/join", "--invite", invite),
            capture_output=True,
            text=True,
            timeout=600,
        )
        host_out, _ = hoster.communicate(timeout=60)
        total = time.perf_counter() - began
    joined = [json.loads(x) for x in joiner.stdout.splitlines()]
    hosted = [json.loads(x) for x in host_out.splitlines()]
    failures = [
        j["game"]
        for j, h in zip(joined, hosted, strict=False)
        if not (j["valid"] and h["valid"] and j["game_id"] == h["game_id"])
    ] + list(range(min(len(joined), len(hosted)), args.games))
    floor = CpuFloor()  # timed here, in the same run, while the children are done
    # Both peers' floors for each game: a game is a chain of turns, so the two
    # processes mostly take turns on the CPU rather than overlapping.
    floors = [
        2 * j["hands"] * floor.per_hand_per_peer_ms(j["messages"] / j["hands"]) / 1000
        for j in joined
        if j["hands"]
    ]
    cpus = [j["cpu"] + h["cpu"] for j, h in zip(joined, hosted, strict=False) if j["hands"]]
    hands = sum(j["hands"] for j in joined)
    deals = sum(j["deals"] for j in joined)
    walls = [j["wall"] for j in joined]
    per_hand = [j["wall"] / j["hands"] for j in joined if j["hands"]]
    report: dict[str, Any] = {
        "games": args.games,
        "failures": failures,
        "fsync": fsync,
        "median_game_s": statistics.median(walls) if walls else None,
        "median_hand_s": statistics.median(per_hand) if per_hand else None,
        "median_hands_per_game": statistics.median(j["hands"] for j in joined) if joined else None,
        "median_messages_per_game": (
            statistics.median(j["messages"] for j in joined) if joined else None
        ),
        "total_s_with_process_start": total,
        "wall_to_floor": (
            statistics.median(w / f for w, f in zip(walls, floors, strict=False))
            if floors
            else None
        ),
        "deals_per_hand": deals / hands if hands else None,
        "cpu_to_floor": (
            statistics.median(c / f for c, f in zip(cpus, floors, strict=False)) if floors else None
        ),
    }
    if args.json:
        print(json.dumps(report))
    else:
        print(
            f"{args.games} games over loopback TCP between two processes "
            f"(transcripts {'fsync' if fsync else 'no fsync'}); failures: {len(failures)}"
        )
        if walls:
            print(
                f"median wall time per game: {report['median_game_s'] * 1000:.1f} ms "
                f"({report['median_hands_per_game']:g} hands, "
                f"{report['median_messages_per_game']:g} messages)"
            )
            print(f"median wall time per hand: {report['median_hand_s'] * 1000:.1f} ms")
            print(
                f"wall time per game / CPU floor of both peers: {report['wall_to_floor']:.2f}x "
                f"(CPU both processes spent / that floor: {report['cpu_to_floor']:.2f}x); "
                f"{report['deals_per_hand']:.2f} deals per hand played (the last hand's "
                "pre-deal is never opened)"
            )
        print(f"total including process start: {total:.2f} s")
    if joiner.returncode or hoster.returncode:
        print(joiner.stderr, file=sys.stderr)
    return 1 if failures or joiner.returncode or hoster.returncode else 0


if __name__ == "__main__":
    sys.exit(main())
