"""What the relay's WebSocket transport costs, on loopback (connect.md §9).

    python benchmarks/relay_ws.py [--games 5] [--json]

Whole games between two random bots spliced through one in-process relay, in
each pairing of transports (the host's first): TCP-TCP, a browser host with a
TCP joiner, a TCP host with a browser joiner, two browsers.  The "browser" is
tests/helpers/ws.py (wsproto over trio, as in the tests).  Reported per
pairing: the median wall time of a game from the splice to its end, and the
median bytes the relay copied per game.  Then the median time of a relay round
trip on a new connection (TCP: connect, magic, REGISTER, REGISTERED; WebSocket:
the same after the HTTP upgrade), and how fast ``relay --site`` serves a
10 MB file.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # helpers

from helpers.net import bot, new_session
from helpers.ws import open_ws, running_relay, ws_attach, ws_join, ws_register

from truc_p2p.net import Invite, PlayOptions, connect, open_rendezvous, play_game
from truc_p2p.net._relay_wire import MAGIC, Msg, encode, encode_addrs, read_message
from truc_p2p.rules import Player

PAIRINGS = ("tcp-tcp", "ws-tcp", "tcp-ws", "ws-ws")


async def _game(pairing: str, seed: int) -> tuple[float, int, bool]:
    """One game; (seconds from the splice to the end, relay bytes, both valid)."""
    host_kind, join_kind = pairing.split("-")
    sessions = {p: new_session(p, seed=seed) for p in Player}
    async with running_relay() as (_, port, reports):
        streams: dict[Player, trio.abc.Stream] = {}
        async with AsyncExitStack() as stack:
            if host_kind == "ws":
                control, code = await ws_register(port)
                await stack.enter_async_context(control)
            else:
                rendezvous = await stack.enter_async_context(open_rendezvous(("127.0.0.1", port)))
                assert rendezvous.code is not None
                code = rendezvous.code
            async with trio.open_nursery() as nursery:

                async def host() -> None:
                    if host_kind == "ws":
                        streams[Player.P1] = await ws_attach(port, control)
                    else:
                        streams[Player.P1] = (await rendezvous.accept()).stream

                nursery.start_soon(host)
                if join_kind == "ws":
                    streams[Player.P0] = await ws_join(port, code)
                else:
                    fp = sessions[Player.P1].fingerprint
                    invite = Invite("127.0.0.1", 9, fp, relay=("127.0.0.1", port), code=code)
                    streams[Player.P0], _ = await connect(
                        invite, paths=frozenset({"relayed"}), direct_window=0
                    )
            started = time.perf_counter()
            valid: list[bool] = []

            async def side(me: Player) -> None:
                async with streams[me]:
                    outcome = await play_game(
                        streams[me],
                        sessions[me],
                        bot(seed + int(me), "random"),
                        PlayOptions(
                            expected_fingerprint=None
                            if me is Player.P1
                            else sessions[Player.P1].fingerprint
                        ),
                    )
                valid.append(outcome.valid)

            async with trio.open_nursery() as nursery:
                for p in Player:
                    nursery.start_soon(side, p)
            seconds = time.perf_counter() - started
        await trio.sleep(0.05)  # the relay's report of the session
        return seconds, reports[0].bytes if reports else 0, all(valid) and len(valid) == 2


async def _round_trips(count: int) -> dict[str, float]:
    body = MAGIC + encode(Msg.REGISTER, encode_addrs([]))
    out: dict[str, list[float]] = {"tcp": [], "ws": []}
    async with running_relay() as (_, port, _):
        for _ in range(count):
            started = time.perf_counter()
            tcp = await trio.open_tcp_stream("127.0.0.1", port)
            await tcp.send_all(body)
            await read_message(tcp)
            out["tcp"].append(time.perf_counter() - started)
            await tcp.aclose()
            started = time.perf_counter()
            ws = await open_ws(port)
            await ws.send_all(body)
            await read_message(ws)
            out["ws"].append(time.perf_counter() - started)
            await ws.aclose()
    return {k: round(statistics.median(v) * 1000, 3) for k, v in out.items()}


async def _static(size: int, runs: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        (site / "big.wasm").write_bytes(os.urandom(size))
        best = 0.0
        async with running_relay(site=site) as (_, port, _):
            for _ in range(runs):
                stream = await trio.open_tcp_stream("127.0.0.1", port)
                started = time.perf_counter()
                await stream.send_all(
                    b"GET /big.wasm HTTP/1.1\r\nHost: r\r\nConnection: close\r\n\r\n"
                )
                got = 0
                while chunk := await stream.receive_some(1 << 16):
                    got += len(chunk)
                seconds = time.perf_counter() - started
                await stream.aclose()
                assert got > size
                best = max(best, size / seconds / 1e6)
        return round(best, 1)


async def _main(games: int) -> dict[str, Any]:
    report: dict[str, Any] = {"games": games, "failures": [], "pairings": {}}
    for pairing in PAIRINGS:
        times, sizes = [], []
        for n in range(games):
            seconds, size, valid = await _game(pairing, 100 + n)
            if not valid:
                report["failures"].append(f"{pairing} game {n}: not valid")
            times.append(seconds)
            sizes.append(size)
        report["pairings"][pairing] = {
            "median_game_s": round(statistics.median(times), 3),
            "median_relay_bytes": int(statistics.median(sizes)),
        }
    report["round_trip_ms"] = await _round_trips(max(10, games * 10))
    report["static_mb_per_s"] = await _static(10 << 20, 3)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = trio.run(_main, args.games)
    if args.json:
        print(json.dumps(report))
        return 0
    for pairing, figures in report["pairings"].items():
        print(
            f"{pairing:8} game (splice to end): {figures['median_game_s']:.3f} s, "
            f"relay copied {figures['median_relay_bytes']:,} bytes"
        )
    trips = report["round_trip_ms"]
    print(f"new connection to REGISTERED: TCP {trips['tcp']} ms, WebSocket {trips['ws']} ms")
    print(f"relay --site serves a 10 MB file at {report['static_mb_per_s']} MB/s")
    for failure in report["failures"]:
        print("FAILED:", failure)
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
