"""The links a benchmark game is played over: in memory with a one-way delay, over
loopback TCP, or many games at once, two peers (trio loops) in one process.
Part of ``truc-p2p bench game`` (:mod:`truc_p2p.bench._game`).
"""

from __future__ import annotations

import time

import trio
import trio.testing

from truc_p2p.bench._game_flights import analyse
from truc_p2p.bots import make_bot
from truc_p2p.memory_pair import make_pair
from truc_p2p.net import BotStrategy, Clocks, PlayOptions, play_game
from truc_p2p.protocol import (
    Session,
    SessionOptions,
)
from truc_p2p.rules import Player, Ruleset

__all__ = ["concurrent", "loopback_game", "process_cpu", "wall_game"]


def process_cpu() -> float:
    """Process CPU time, in seconds."""
    return time.process_time()


class _DelayedStream(trio.abc.HalfCloseableStream):
    """One end of an in-process link whose bytes arrive ``delay`` seconds after sending."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.peer: _DelayedStream | None = None
        self._tx, self._rx = trio.open_memory_channel[tuple[float, bytes]](1 << 16)
        self._buffer = b""
        self._eof = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        assert self.peer is not None
        await self.peer._tx.send((trio.current_time() + self.delay, bytes(data)))

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def send_eof(self) -> None:
        assert self.peer is not None
        await self.peer._tx.send((trio.current_time() + self.delay, b""))

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if not self._buffer and not self._eof:
            due, data = await self._rx.receive()
            await trio.sleep_until(due)
            if data:
                self._buffer = data
            else:
                self._eof = True
        if self._eof and not self._buffer:
            return b""
        n = len(self._buffer) if max_bytes is None else max_bytes
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


def _delayed_pair(delay: float) -> tuple[_DelayedStream, _DelayedStream]:
    a, b = _DelayedStream(delay), _DelayedStream(delay)
    a.peer, b.peer = b, a
    return a, b


def _session_pair(target: int, pipeline: bool = True) -> tuple[dict[Player, Session], list[bytes]]:
    records: list[bytes] = []
    sessions = make_pair(
        SessionOptions(ruleset=Ruleset(target=target), pipeline=pipeline),
        records=(records.append, None),
    )
    return sessions, records


async def _play_pair(
    sessions: dict[Player, Session],
    streams: tuple[trio.abc.Stream, trio.abc.Stream],
    seed: int,
) -> None:
    async def side(p: Player) -> None:
        await play_game(
            streams[p],
            sessions[p],
            BotStrategy(make_bot("heuristic", seed * 2 + int(p))),
            PlayOptions(clocks=Clocks(turn_timeout=600), linger=0),
        )

    async with trio.open_nursery() as nursery:
        for p in (Player.P0, Player.P1):
            nursery.start_soon(side, p)


async def wall_game(seed: int, target: int, one_way: float, pipeline: bool) -> dict[str, float]:
    sessions, records = _session_pair(target, pipeline)
    start_cpu, start = process_cpu(), trio.current_time()
    await _play_pair(sessions, _delayed_pair(one_way), seed)
    wall, cpu = trio.current_time() - start, process_cpu() - start_cpu
    facts = analyse(records)
    model = cpu + facts["flights"] * one_way
    return {"wall": wall, "cpu": cpu, "model": model, "hands": facts["hands"]}


async def loopback_game(seed: int, target: int, pipeline: bool) -> dict[str, float]:
    """One game between two peers in this process over real TCP on 127.0.0.1."""
    sessions, records = _session_pair(target, pipeline)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    start = trio.current_time()
    async with trio.open_nursery() as nursery:
        accepted: list[trio.abc.Stream] = []
        ready = trio.Event()

        async def accept() -> None:
            accepted.append(await listeners[0].accept())
            ready.set()

        nursery.start_soon(accept)
        dialled = await trio.open_tcp_stream("127.0.0.1", port)
        await ready.wait()
        await _play_pair(sessions, (dialled, accepted[0]), seed)
        await dialled.aclose()
        await accepted[0].aclose()
    await listeners[0].aclose()
    return {"wall": trio.current_time() - start, "hands": analyse(records)["hands"]}


async def concurrent(n: int, target: int) -> dict[str, float]:
    start_cpu, start = process_cpu(), time.perf_counter()
    transcripts: list[list[bytes]] = []
    async with trio.open_nursery() as nursery:
        for g in range(n):
            sessions, records = _session_pair(target)
            transcripts.append(records)
            a, b = trio.testing.memory_stream_pair()
            nursery.start_soon(_play_pair, sessions, (a, b), 1000 + g)
    wall, cpu = time.perf_counter() - start, process_cpu() - start_cpu
    hands = sum(analyse(t)["hands"] for t in transcripts)
    return {
        "games": n,
        "games_per_s": n / wall,
        "cpu_ms_per_game": cpu / n * 1000,
        # games differ in length: per hand is the figure that compares across rows
        "cpu_ms_per_hand": cpu / hands * 1000,
        "cpu_share": cpu / wall,
    }
