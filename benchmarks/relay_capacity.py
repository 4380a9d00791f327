"""How many concurrent games one ``truc-p2p relay`` and one coturn carry on this machine.

    .venv/bin/python benchmarks/relay_capacity.py [--games 10,50,100,200,300] [--seconds 10]

Each relay runs as its own process on loopback: ``truc-p2p relay`` and Debian's
coturn (``turnserver``, TCP allocations, connect.md §11).  One load process (this
one, trio) plays N games at once through it.  A game is two connections joined
the way the real paths join them: for the relay, REGISTER / JOIN / ATTACH / SPLICE
(connect.md §2, each game from its own 127.0.x.y addresses so the relay's
per-address limits do not bind); for coturn, an Allocate, a CreatePermission, the
joiner's connection to the relayed address and a ConnectionBind
(``truc_p2p/net/_turn.py``).  Then both sides take turns sending a game's
messages: sizes cycle through those of a deck v2 game (a few 2–6 kB deck messages,
then 200–600 B moves; about 50 kB a game), one message every ``--interval``
seconds per game (default 0.05 s: a fast bot game; people are ~20 times slower).

For each N it reports what the relay process used (CPU over the run, from
``/proc/PID/stat``, as cores; resident memory over its idle size, per game), the
bytes it carried per second, and the delivery time of each message (send to last
byte received, one clock) as p50 and p99, with the same load on direct loopback
connections as the baseline: "added p99" is the relay's p99 minus the direct one.
"games/core" is N divided by the cores used at this pace.  A step where games fail
to connect, or the added p99 passes 50 ms, is where it breaks.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from truc_p2p.net._relay_wire import (
    MAGIC,
    Meet,
    Msg,
    RelayProtocolError,
    encode,
    encode_addrs,
    read_exactly,
    read_message,
)
from truc_p2p.net._turn import TurnServer, allocate

#: A deck v2 game's message sizes, roughly: the deal's deck messages, then moves.
SIZES = [5800, 5800, 2400, 2400, 900, 900, 400, 300, 300, 450, 250, 250, 600, 200, 200, 300]
HEADER = 12  # 4-byte length, 8-byte send time (ns)
CLK = time.perf_counter_ns


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def _connect_from(src: str, host: str, port: int) -> trio.SocketStream:
    sock = trio.socket.socket()
    await sock.bind((src, 0))
    await sock.connect((host, port))
    return trio.SocketStream(sock)


# --------------------------------------------------------------------------- pairs


async def relay_pair(port: int, k: int) -> tuple[trio.SocketStream, trio.SocketStream, list[Any]]:
    """A host and a joiner spliced by the relay (connect.md §2); the game's two ends."""
    host_ip, join_ip = f"127.1.{k // 250}.{k % 250 + 1}", f"127.2.{k // 250}.{k % 250 + 1}"
    claim = hashlib.sha256(f"capacity {k} {os.getpid()}".encode()).digest()[:16]
    control = await _connect_from(host_ip, "127.0.0.1", port)
    await control.send_all(MAGIC + encode(Msg.REGISTER, encode_addrs([]) + claim))
    kind, body = await read_message(control)
    if kind != Msg.REGISTERED:
        raise OSError(f"not registered: {body[:60]!r}")
    code = body[1 : 1 + body[0]]
    joiner = await _connect_from(join_ip, "127.0.0.1", port)
    await joiner.send_all(MAGIC + encode(Msg.JOIN, bytes([len(code)]) + code + encode_addrs([])))
    kind, body = await read_message(joiner)
    if kind != Msg.MEET:
        raise OSError(f"no meeting: {body[:60]!r}")
    kind, mbody = await read_message(control)
    session = Meet.decode(mbody).session
    attach = await _connect_from(host_ip, "127.0.0.1", port)
    await attach.send_all(MAGIC + encode(Msg.ATTACH, session))
    await joiner.send_all(encode(Msg.SPLICE))
    for stream in (joiner, attach):
        kind, _ = await read_message(stream)
        if kind != Msg.SPLICED:
            raise OSError("not spliced")
    return attach, joiner, [control]


async def turn_pair(
    server: TurnServer, k: int
) -> tuple[trio.SocketStream, trio.SocketStream, list[Any]]:
    """A host with a TCP allocation and a joiner connected to its relayed address."""
    allocation = await allocate(server, timeout=10)
    runner = trio.CancelScope()

    async def run() -> None:
        with runner:
            await allocation.run()

    _nursery.start_soon(run)
    await allocation.permit("127.0.0.1")
    joiner = await trio.open_tcp_stream(*allocation.relayed)
    cid, _ = await allocation.attempts.receive()
    data = await allocation.bind(cid)
    return data, joiner, [allocation, runner]


async def direct_pair(k: int) -> tuple[trio.SocketStream, trio.SocketStream, list[Any]]:
    """Two ends of one loopback connection (a listener of its own: no mix-ups)."""
    (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
    async with listener:
        port = listener.socket.getsockname()[1]
        joiner = await trio.open_tcp_stream("127.0.0.1", port)
        host = await listener.accept()
    return host, joiner, []


# --------------------------------------------------------------------------- a game


async def play(
    a: trio.SocketStream, b: trio.SocketStream, interval: float, until: float, lat: list[float]
) -> int:
    """Alternate messages from ``a`` and ``b`` every ``interval`` s until ``until``."""
    sent = 0
    i = 0
    ends = (a, b)
    while trio.current_time() < until:
        src, dst = ends[i % 2], ends[(i + 1) % 2]
        size = SIZES[i % len(SIZES)]
        payload = size.to_bytes(4, "big") + CLK().to_bytes(8, "big") + bytes(size - HEADER)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(src.send_all, payload)
            head = await read_exactly(dst, HEADER)
            await read_exactly(dst, int.from_bytes(head[:4], "big") - HEADER)
        lat.append((CLK() - int.from_bytes(head[4:12], "big")) / 1e6)
        sent += size
        i += 1
        await trio.sleep(interval)
    return sent


_nursery: trio.Nursery


async def run_step(
    n: int,
    make: Callable[[int], Awaitable[tuple[trio.SocketStream, trio.SocketStream, list[Any]]]],
    pid: int | None,
    seconds: float,
    interval: float,
) -> dict[str, Any]:
    global _nursery
    lat: list[float] = []
    pairs: list[tuple[trio.SocketStream, trio.SocketStream, list[Any]]] = []
    failed = 0
    async with trio.open_nursery() as nursery:
        _nursery = nursery
        rss0 = _rss_kb(pid) if pid else 0
        limiter = trio.CapacityLimiter(32)

        async def one(k: int) -> None:
            nonlocal failed
            async with limiter:
                try:
                    with trio.fail_after(20):
                        pairs.append(await make(k))
                except (
                    OSError,
                    trio.TooSlowError,
                    trio.BrokenResourceError,
                    RelayProtocolError,
                ) as exc:
                    failed += 1
                    if failed == 1:
                        print(f"  ({type(exc).__name__}: {exc})", file=sys.stderr)

        async with trio.open_nursery() as connecting:
            for k in range(n):
                connecting.start_soon(one, k)
        ticks0, t0 = (_cpu_ticks(pid) if pid else 0), time.monotonic()
        rss1 = _rss_kb(pid) if pid else 0
        sent = 0
        until = trio.current_time() + seconds

        async def game(pair: tuple[trio.SocketStream, trio.SocketStream, list[Any]]) -> None:
            nonlocal sent
            try:
                got = await play(pair[0], pair[1], interval, until, lat)
                sent += got  # not `sent += await`: that reads `sent` before the await
            except (
                OSError,
                trio.BrokenResourceError,
                trio.ClosedResourceError,
                RelayProtocolError,
            ):
                pass

        async with trio.open_nursery() as games:
            for pair in pairs:
                games.start_soon(game, pair)
        elapsed = time.monotonic() - t0
        cpu = ((_cpu_ticks(pid) - ticks0) / os.sysconf("SC_CLK_TCK") / elapsed) if pid else 0.0
        for host, joiner, extra in pairs:
            await trio.aclose_forcefully(host)
            await trio.aclose_forcefully(joiner)
            for thing in extra:
                if isinstance(thing, trio.CancelScope):
                    thing.cancel()
                elif hasattr(thing, "aclose"):
                    await thing.aclose()
        nursery.cancel_scope.cancel()
    lat.sort()
    return {
        "games": n,
        "connected": len(pairs),
        "failed": failed,
        "cores": round(cpu, 3),
        "rss_per_game_kb": round((rss1 - rss0) / max(1, len(pairs)), 1) if pid else None,
        "bytes_per_s": round(sent / elapsed),
        "messages": len(lat),
        "elapsed": round(elapsed, 2),
        "p50_ms": round(lat[len(lat) // 2], 2) if lat else None,
        "p99_ms": round(lat[int(len(lat) * 0.99)], 2) if lat else None,
    }


def _coturn(tmp: Path, port: int) -> subprocess.Popen[bytes]:
    conf = tmp / "turnserver.conf"
    conf.write_text(
        f"listening-ip=127.0.0.1\nrelay-ip=127.0.0.1\nlistening-port={port}\nno-tls\nno-dtls\n"
        "no-udp\nno-cli\nlt-cred-mech\nuser=bench:bench\nrealm=bench\nallow-loopback-peers\n"
        f"allowed-peer-ip=127.0.0.1\nmin-port=20000\nmax-port=40000\nuserdb={tmp / 'db'}\n"
        f"pidfile={tmp / 'pid'}\nlog-file=/dev/null\nno-stdout-log\n"
    )
    return subprocess.Popen(
        ["turnserver", "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def _relay(port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "truc_p2p.cli", "relay", "--bind", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _main(args: argparse.Namespace) -> list[dict[str, Any]]:
    steps = [int(x) for x in args.games.split(",")]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="turn44-capacity") as tmp:
        relay_port, turn_port = _free_port(), _free_port()
        procs = {"truc-p2p relay": _relay(relay_port)}
        if shutil.which("turnserver"):
            procs["coturn"] = _coturn(Path(tmp), turn_port)
        else:
            print("relay_capacity: no turnserver (apt-get install coturn): coturn left out")
        await trio.sleep(1.5)
        server = TurnServer("127.0.0.1", turn_port, "bench", "bench")
        makers: dict[str, Callable[[int], Awaitable[Any]]] = {
            "direct": direct_pair,
            "truc-p2p relay": lambda k: relay_pair(relay_port, k),
            "coturn": lambda k: turn_pair(server, k),
        }
        try:
            for n in steps:
                base: dict[str, Any] | None = None
                for name, make in makers.items():
                    if name != "direct" and name not in procs:
                        continue
                    pid = procs[name].pid if name in procs else None
                    row = {"via": name, **await run_step(n, make, pid, args.seconds, args.interval)}
                    if name == "direct":
                        base = row
                    elif base is not None and row["p99_ms"] is not None:
                        row["added_p99_ms"] = round(row["p99_ms"] - base["p99_ms"], 2)
                        row["games_per_core"] = (
                            round(row["connected"] / row["cores"]) if row["cores"] else None
                        )
                    rows.append(row)
                    print(json.dumps(row) if args.json else _line(row), flush=True)
                    await trio.sleep(1)
        finally:
            for proc in procs.values():
                proc.terminate()
                proc.wait(10)
    return rows


def _line(r: dict[str, Any]) -> str:
    extra = (
        f" cores {r['cores']:5.2f}  games/core {r.get('games_per_core') or '-':>6}"
        f"  mem/game {r['rss_per_game_kb']:6.1f} kB  added p99 {r.get('added_p99_ms', 0):6.2f} ms"
        if r["via"] != "direct"
        else ""
    )
    return (
        f"{r['via']:15} N={r['games']:4} ok {r['connected']:4} fail {r['failed']:3}"
        f"  {r['bytes_per_s'] / 1e6:6.2f} MB/s  p50 {r['p50_ms']} ms  p99 {r['p99_ms']} ms{extra}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="10,50,100,200,300", help="N at each step")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per step")
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between messages")
    parser.add_argument("--json", action="store_true", help="one JSON object per step")
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the relays inherit it too
    trio.run(_main, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
