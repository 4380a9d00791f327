"""A TCP relay between the runner and the peer under test that sees every frame.

Frames are the 4-byte big-endian length and the envelope of wire.md section 1;
a frame of length 0 is a heartbeat (wire.md 13.6).  The relay hands every
envelope to a hook that may pass it on, change it (a damaged frame, a forged
proof) or cut the connection, and it counts connections and the heartbeats
each side sends, which is how the runner judges ``resume``, ``slow``,
``bad-frame`` and ``cheat`` (``protocol_spec/interop.md``).  It buffers at most
one frame of the protocol's maximum size (``MAX_ENVELOPE``, wire.md §1) per
direction: a header announcing more closes the connection.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

import trio

from truc_p2p.protocol import MAX_ENVELOPE

__all__ = ["CUT", "FrameHook", "FrameProxy", "ProxyStats", "Raw"]

#: What a hook returns to close both sides of the connection instead of passing the frame.
CUT = None


@dataclass(frozen=True)
class Raw:
    """Bytes the relay writes as they are, in place of a frame."""

    data: bytes


#: ``hook(from_runner, connection_no, frame_no, envelope)`` -> the envelope to send on,
#: or :data:`CUT`, or a list of what to send instead: envelopes (framed by the relay)
#: and :class:`Raw` bytes (written as they are: a bad frame header).  Frame and
#: connection numbers count from 1; heartbeats are not counted.
FrameHook = Callable[[bool, int, int, bytes], bytes | list[bytes | Raw] | None]


_HEADER = 4


@dataclass
class ProxyStats:
    """What the relay saw."""

    connections: int = 0
    #: ``trio.current_time()`` at which each connection was accepted
    opened: list[float] = field(default_factory=list)
    cuts: int = 0
    #: envelopes relayed in each direction, all connections together
    from_runner: int = 0
    from_peer: int = 0
    #: ``trio.current_time()`` of every heartbeat each side sent
    runner_heartbeats: list[float] = field(default_factory=list)
    peer_heartbeats: list[float] = field(default_factory=list)
    #: frame headers announcing more than the protocol's maximum frame
    #: (``MAX_ENVELOPE``): the connection was closed instead of buffering them
    oversize: int = 0
    #: the connections the peer's side closed (end of stream or a broken link)
    peer_closed: list[int] = field(default_factory=list)


def _passthrough(from_runner: bool, conn: int, n: int, envelope: bytes) -> bytes | None:
    return envelope


class FrameProxy:
    """Listen on 127.0.0.1 and relay each connection to ``(host, port)``.

    ``client_is_runner`` says which side dials the relay: the runner when it
    joins (the peer hosts), the peer when it joins.  ``port`` may be changed
    between connections (a host that listens again for the next game).
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        client_is_runner: bool,
        hook: FrameHook | None = None,
        listen_port: int = 0,
    ) -> None:
        self.host = host
        self.port = port
        self.client_is_runner = client_is_runner
        self.hook: FrameHook = hook or _passthrough
        self.stats = ProxyStats()
        #: the port to listen on (0: any); after :meth:`serve` started, the port it got
        self.listen_port = listen_port

    async def serve(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(self.listen_port, host="127.0.0.1")
        self.listen_port = listeners[0].socket.getsockname()[1]
        task_status.started(self.listen_port)
        await trio.serve_listeners(self._handle, listeners)

    async def _handle(self, client: trio.SocketStream) -> None:
        self.stats.connections += 1
        self.stats.opened.append(trio.current_time())
        conn = self.stats.connections
        async with client:  # closed however this ends, a cancellation included
            try:
                upstream = await trio.open_tcp_stream(self.host, self.port)
            except OSError:
                # nobody listens (yet): hold the connection a moment, so that a dialer
                # that redials at once does not spin
                await trio.sleep(0.2)
                return
            async with upstream, trio.open_nursery() as nursery:
                runner, peer = (client, upstream) if self.client_is_runner else (upstream, client)
                nursery.start_soon(self._pump, runner, peer, True, conn, nursery.cancel_scope)
                nursery.start_soon(self._pump, peer, runner, False, conn, nursery.cancel_scope)

    async def _pump(
        self,
        src: trio.SocketStream,
        dst: trio.SocketStream,
        from_runner: bool,
        conn: int,
        scope: trio.CancelScope,
    ) -> None:
        buf = bytearray()
        count = 0
        try:
            while True:
                data = await src.receive_some(65536)
                if not data:
                    if not from_runner:
                        self.stats.peer_closed.append(conn)
                    break
                buf += data
                out = bytearray()
                while len(buf) >= _HEADER:
                    length = int.from_bytes(buf[:_HEADER], "big")
                    if length > MAX_ENVELOPE:
                        # wire.md §1: no frame is longer; a receiver drops the link.
                        # Never buffer towards what such a header announces.
                        self.stats.oversize += 1
                        if out:
                            await dst.send_all(bytes(out))
                        scope.cancel()
                        return
                    if len(buf) < _HEADER + length:
                        break
                    envelope = bytes(buf[_HEADER : _HEADER + length])
                    del buf[: _HEADER + length]
                    if length == 0:
                        beats = (
                            self.stats.runner_heartbeats
                            if from_runner
                            else self.stats.peer_heartbeats
                        )
                        beats.append(trio.current_time())
                        out += bytes(_HEADER)
                        continue
                    count += 1
                    if from_runner:
                        self.stats.from_runner += 1
                    else:
                        self.stats.from_peer += 1
                    changed = self.hook(from_runner, conn, count, envelope)
                    if changed is CUT:
                        self.stats.cuts += 1
                        if out:
                            await dst.send_all(bytes(out))
                        scope.cancel()
                        return
                    for part in changed if isinstance(changed, list) else [changed]:
                        if isinstance(part, Raw):
                            out += part.data
                        else:
                            out += len(part).to_bytes(_HEADER, "big") + part
                if out:
                    await dst.send_all(bytes(out))
        except trio.BrokenResourceError:
            if not from_runner:
                self.stats.peer_closed.append(conn)
        except trio.ClosedResourceError:
            pass
        # one side closed: close the other too (the connection is over)
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await dst.send_eof()
        scope.cancel()
