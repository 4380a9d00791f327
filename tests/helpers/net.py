"""Helpers for the transport tests: honest sessions joined by a relay that can misbehave.

The joiner (P0) and the host (P1) each talk to their own end of a
``trio.testing.memory_stream_pair``; a relay copies the joiner's bytes to the
host unchanged and cuts the host's bytes into frames, handing each one to a
``tamper`` hook that may forward it, alter it, or do something else to the
joiner's stream.  Everything runs under the autojump clock, so timeouts
cost no real time.
"""

from __future__ import annotations

import hashlib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import trio
import trio.testing

from truc_p2p.bots import make_bot
from truc_p2p.crypto import SigningKey
from truc_p2p.net import (
    BotStrategy,
    Clocks,
    GameOutcome,
    Invite,
    Listen,
    PlayOptions,
    Reporting,
    Storage,
    Strategy,
    host_game,
    play_game,
)
from truc_p2p.protocol import Session, SessionOptions, frame
from truc_p2p.rules import Action, Event, Game, Player, Ruleset

#: Called with (frame number from the host, envelope, the joiner-side stream).
#: Return False to stop relaying the host's bytes.
Tamper = Callable[[int, bytes, trio.abc.Stream], Awaitable[bool]]


def new_session(
    role: Player,
    *,
    name: str | None = None,
    ruleset: Ruleset | None = None,
    record: list[bytes] | None = None,
    seed: int = 0,
    resign: bool = True,
    resume_clock: bool = False,
) -> Session:
    """A session with a key and secret derived from ``seed`` (reproducible games)."""

    def derive(label: str) -> bytes:
        return hashlib.sha256(f"net-tests/{seed}/{int(role)}/{label}".encode()).digest()

    return Session(
        identity=SigningKey.from_bytes(derive("key")),
        role=role,
        secret=derive("secret"),
        record=record.append if record is not None else None,
        # a peer of the older spec announces no feature
        options=SessionOptions(
            ruleset=ruleset or Ruleset(),
            name=name or ("joiner" if role is Player.P0 else "host"),
            resign=resign,
            rest_final=resign,
            early_redeal=resign,
            resume_clock=resume_clock,
        ),
    )


def bot(seed: int = 0, name: str = "heuristic") -> BotStrategy:
    return BotStrategy(make_bot(name, seed))


class Silent:
    """A player who never moves (a crashed or absent opponent)."""

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        await trio.sleep_forever()
        raise AssertionError("unreachable")


class Illegal:
    """A buggy player: always answers with an action that is not legal."""

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        await trio.lowlevel.checkpoint()
        return Action.DECLINE_REDEAL if Action.DECLINE_REDEAL not in legal else Action.RAISE


@dataclass
class Run:
    outcomes: dict[Player, GameOutcome]
    records: dict[Player, list[bytes]]
    events: dict[Player, list[Event | object]] = field(default_factory=dict)


async def play_pair(
    sessions: Mapping[Player, Session],
    strategies: Mapping[Player, Strategy],
    on_event: Callable[[Player, object], None],
) -> dict[Player, Any]:
    """Play one game between two sessions over a memory link; each side's end."""
    streams = trio.testing.memory_stream_pair()
    ends: dict[Player, Any] = {}

    async def side(me: Player) -> None:
        outcome = await play_game(
            streams[me],
            sessions[me],
            strategies[me],
            PlayOptions(on_event=lambda event: on_event(me, event), linger=0),
        )
        ends[me] = outcome.end

    with trio.fail_after(3600):
        async with trio.open_nursery() as nursery:
            for p in Player:
                nursery.start_soon(side, p)
    return ends


async def forward(frame_no: int, envelope: bytes, joiner: trio.abc.Stream) -> bool:
    await joiner.send_all(frame(envelope))
    return True


async def _pump(src: trio.abc.Stream, dst: trio.abc.Stream) -> None:
    try:
        while data := await src.receive_some(65536):
            await dst.send_all(data)
        await dst.aclose()
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


async def _pump_frames(src: trio.abc.Stream, dst: trio.abc.Stream, tamper: Tamper) -> None:
    buf = bytearray()
    n = 0
    try:
        while data := await src.receive_some(65536):
            buf += data
            while len(buf) >= 4 and len(buf) >= 4 + (size := int.from_bytes(buf[:4], "big")):
                envelope = bytes(buf[4 : 4 + size])
                del buf[: 4 + size]
                if not size:  # a heartbeat (wire.md 13.3): not a message, passed on
                    await dst.send_all(frame(b""))
                    continue
                if not await tamper(n, envelope, dst):
                    return
                n += 1
        await dst.aclose()
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


async def run_game(
    strategies: dict[Player, Strategy] | None = None,
    *,
    sessions: dict[Player, Session] | None = None,
    tamper: Tamper = forward,
    expected_fingerprint: str | bool | None = True,
    stops: dict[Player, trio.Event] | None = None,
    turn_timeout: float = 300.0,
) -> Run:
    """Play one game joiner (P0) <-> relay <-> host (P1); return both outcomes."""
    records: dict[Player, list[bytes]] = {Player.P0: [], Player.P1: []}
    if sessions is None:
        sessions = {p: new_session(p, record=records[p]) for p in (Player.P0, Player.P1)}
    strategies = strategies or {Player.P0: bot(1), Player.P1: bot(2)}
    stops = stops or {}
    if expected_fingerprint is True:
        expected_fingerprint = sessions[Player.P1].fingerprint
    joiner_end, relay_j = trio.testing.memory_stream_pair()
    relay_h, host_end = trio.testing.memory_stream_pair()
    outcomes: dict[Player, GameOutcome] = {}
    events: dict[Player, list[Event | object]] = {Player.P0: [], Player.P1: []}

    async def side(me: Player, stream: trio.abc.Stream) -> None:
        async with stream:
            outcomes[me] = await play_game(
                stream,
                sessions[me],
                strategies[me],
                PlayOptions(
                    clocks=Clocks(turn_timeout=turn_timeout),
                    expected_fingerprint=expected_fingerprint
                    if me is Player.P0 and isinstance(expected_fingerprint, str)
                    else None,
                    on_event=events[me].append,
                    stop=stops.get(me),
                ),
            )

    async with trio.open_nursery() as nursery:
        nursery.start_soon(_pump, relay_j, relay_h)
        nursery.start_soon(_pump_frames, relay_h, relay_j, tamper)
        async with trio.open_nursery() as players:
            players.start_soon(side, Player.P1, host_end)
            players.start_soon(side, Player.P0, joiner_end)
        nursery.cancel_scope.cancel()
    return Run(outcomes=outcomes, records=records, events=events)


@asynccontextmanager
async def hosting(
    *,
    listen: Listen = Listen(),
    storage: Storage = Storage(),
    report: Reporting = Reporting(),
    **options: Any,
) -> AsyncIterator[tuple[Invite, dict[str, GameOutcome]]]:
    """Run ``host_game(**options)`` on 127.0.0.1 (an ephemeral port, no fsync) in the
    background; yield its invite and a dict that holds the host's outcome (key
    ``"host"``) once it returns.  Leaving the block waits for the host (set its
    ``stop`` to end a forever host)."""
    invites: list[Invite] = []
    ready = trio.Event()
    result: dict[str, GameOutcome] = {}

    def on_invite(invite: Invite) -> None:
        invites.append(invite)
        ready.set()

    async def host() -> None:
        result["host"] = await host_game(
            listen=replace(listen, bind="127.0.0.1", port=0),
            storage=replace(storage, fsync=False),
            report=replace(report, on_invite=on_invite),
            **options,
        )

    async with trio.open_nursery() as nursery:
        nursery.start_soon(host)
        await ready.wait()
        yield invites[0], result


def free_port() -> int:
    """A loopback TCP port nobody listens on (just bound and let go): a host to start
    there, or a host that is gone."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def dial_target(client: trio.SocketStream, port: int) -> trio.SocketStream | None:
    """A test proxy's connection to ``127.0.0.1:port`` for the ``client`` it accepted;
    ``None`` (``client`` closed) when nobody listens there."""
    try:
        return await trio.open_tcp_stream("127.0.0.1", port)
    except OSError:
        await client.aclose()
        return None
