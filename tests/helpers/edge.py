"""A user-space TCP proxy that damages a game's link the way the edge of a network does.

The proxy sits between the joiner and the host (the invite names the proxy).
It forwards bytes both ways and, on plan:

* **flips one byte** in flight inside the first frame of a marked message
  type, in one direction (``"down"``: host to joiner, ``"up"``: joiner to
  host), once per marker;
* makes a connection **half-open**: at the first frame of a marked type it
  closes one side's socket and keeps the other open and silent (it reads
  and drops what comes), like a NAT that forgot the connection or a Wi-Fi
  roam;
* or does so **after a byte count** (``cut_at_byte``): the first connection
  passes that many bytes in one direction, then the proxy closes its side to
  the host and keeps the joiner's open and silent -- wherever the count falls,
  inside a frame or between a message and the heartbeat that rides behind it.

Later connections (the joiner's redials) are forwarded faithfully unless
more faults are planned.  :func:`play_via_proxy` plays one bot game through
it and returns both outcomes and the transport events each side saw.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from pathlib import Path

import trio

from helpers.net import dial_target
from truc_p2p.bots import make_bot
from truc_p2p.identity import Identity
from truc_p2p.net import (
    BotStrategy,
    Clocks,
    GameOutcome,
    GameSettings,
    Invite,
    Listen,
    Reporting,
    Storage,
    host_game,
    join_game,
)
from truc_p2p.protocol import SessionOptions, fingerprint
from truc_p2p.rules import Ruleset


def marker(message_type: str) -> bytes:
    """How a message type appears in an envelope's msgpack body (a fixstr)."""
    return bytes([0xA0 | len(message_type)]) + message_type.encode()


@dataclass
class FaultyProxy:
    """See the module docstring.  ``half_open`` is ``(closed side, direction, type)``:
    closed side ``"joiner"`` or ``"host"``, the frame's direction and type."""

    target_port: int
    flips: dict[str, list[str]] = field(default_factory=dict)
    half_open: tuple[str, str, str] | None = None
    #: Keep flipping the marked frames on every connection (a link that never heals).
    sticky: bool = False
    #: ``(direction, n)``: the first connection passes ``n`` bytes in ``direction``
    #: (``"up"`` or ``"down"``), then the host's side is closed and the joiner's kept.
    cut_at_byte: tuple[str, int] | None = None
    flipped: list[tuple[str, str]] = field(default_factory=list)
    connections: int = 0
    port: int = 0
    #: ``trio.current_time()`` when the half-open cut happened.
    cut_at: float = math.nan
    _held: list[trio.SocketStream] = field(default_factory=list)

    async def serve(self, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started(self.port)
            await trio.serve_listeners(self._handle, listeners)

    def _flip(self, direction: str, data: bytearray) -> None:
        for kind in list(self.flips.get(direction, [])):
            i = data.find(marker(kind))
            if i >= 0:
                data[i + 1] ^= 0x20  # one bit of the type name: the signature fails
                if not self.sticky:
                    self.flips[direction].remove(kind)
                self.flipped.append((direction, kind))

    async def _drain(self, stream: trio.SocketStream) -> None:
        """Keep ``stream`` open and silent: read and drop whatever comes."""
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            while await stream.receive_some(65536):
                pass

    async def _handle(self, client: trio.SocketStream) -> None:
        self.connections += 1
        server = await dial_target(client, self.target_port)
        if server is None:
            return
        ends = {"joiner": client, "host": server}
        kept: list[trio.SocketStream] = []
        count = self.cut_at_byte
        self.cut_at_byte = None  # the first connection only
        passed = {"up": 0, "down": 0}
        async with trio.open_nursery() as nursery:

            async def pump(src: trio.SocketStream, dst: trio.SocketStream, way: str) -> None:
                try:
                    while not kept:
                        data = bytearray(await src.receive_some(65536))
                        if kept:
                            return  # cut: nothing more goes through, not even EOF
                        if not data:
                            await dst.send_eof()
                            return
                        plan = self.half_open
                        if plan is not None and plan[1] == way and marker(plan[2]) in data:
                            self.half_open = None
                            self.cut_at = trio.current_time()
                            kept.append(ends["host" if plan[0] == "joiner" else "joiner"])
                            nursery.cancel_scope.cancel()
                            return
                        if count is not None and count[0] == way:
                            room = count[1] - passed[way]
                            if len(data) >= room:
                                if room > 0:
                                    await dst.send_all(bytes(data[:room]))
                                self.cut_at = trio.current_time()
                                kept.append(ends["joiner"])
                                nursery.cancel_scope.cancel()
                                return
                            passed[way] += len(data)
                        self._flip(way, data)
                        await dst.send_all(bytes(data))
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    nursery.cancel_scope.cancel()

            nursery.start_soon(pump, client, server, "up")
            nursery.start_soon(pump, server, client, "down")
        for stream in (client, server):
            if stream not in kept:
                with contextlib.suppress(Exception):
                    await trio.aclose_forcefully(stream)
        for stream in kept:  # here, not in a task: trio closes ``client`` when we return
            self._held.append(stream)
            await self._drain(stream)

    async def aclose(self) -> None:
        for stream in self._held:
            with contextlib.suppress(Exception):
                await trio.aclose_forcefully(stream)


@dataclass
class ProxiedGame:
    """What :func:`play_via_proxy` returns."""

    host: GameOutcome
    join: GameOutcome
    proxy: FaultyProxy
    host_events: list[object]
    join_events: list[object]
    #: ``trio.current_time()`` of each event, in the same order.
    host_times: list[float]
    join_times: list[float]


async def play_via_proxy(
    tmp: Path,
    *,
    flips: dict[str, list[str]] | None = None,
    half_open: tuple[str, str, str] | None = None,
    host_settings: GameSettings | None = None,
    join_settings: GameSettings | None = None,
    sticky: bool = False,
    seed: int = 1,
    cut_at_byte: tuple[str, int] | None = None,
) -> ProxiedGame:
    """One heuristic-bot game, host and joiner in this process, through a :class:`FaultyProxy`."""
    base = GameSettings(
        session=SessionOptions(ruleset=Ruleset(target=2)), clocks=Clocks(turn_timeout=30, grace=20)
    )
    host_id, join_id = Identity.ephemeral().key, Identity.ephemeral().key
    outcomes: dict[str, GameOutcome] = {}
    events: dict[str, tuple[list[object], list[float]]] = {"host": ([], []), "join": ([], [])}

    def hook(side: str) -> Reporting:
        def on_event(event: object) -> None:
            events[side][0].append(event)
            events[side][1].append(trio.current_time())

        return Reporting(on_event=on_event)

    ports: list[int] = []
    ready = trio.Event()

    def on_invite(invite: Invite) -> None:
        ports.append(invite.port)
        ready.set()

    async with trio.open_nursery() as nursery:

        async def host() -> None:
            outcomes["host"] = await host_game(
                BotStrategy(make_bot("heuristic", seed)),
                identity=host_id,
                settings=host_settings or base,
                listen=Listen(bind="127.0.0.1", port=0),
                storage=Storage(out_dir=tmp / "host", fsync=False),
                report=Reporting(on_invite=on_invite, on_event=hook("host").on_event),
            )

        nursery.start_soon(host)
        await ready.wait()
        proxy = FaultyProxy(
            ports[0],
            flips=flips or {},
            half_open=half_open,
            sticky=sticky,
            cut_at_byte=cut_at_byte,
        )
        await nursery.start(proxy.serve)
        outcomes["join"] = await join_game(
            Invite("127.0.0.1", proxy.port, fingerprint(host_id.public_key())),
            BotStrategy(make_bot("heuristic", seed + 1)),
            identity=join_id,
            settings=join_settings or base,
            storage=Storage(out_dir=tmp / "join", fsync=False),
            report=hook("join"),
        )
        while "host" not in outcomes:
            await trio.sleep(0.02)
        await proxy.aclose()
        nursery.cancel_scope.cancel()
    return ProxiedGame(
        host=outcomes["host"],
        join=outcomes["join"],
        proxy=proxy,
        host_events=events["host"][0],
        join_events=events["join"][0],
        host_times=events["host"][1],
        join_times=events["join"][1],
    )
