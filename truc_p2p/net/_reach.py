"""Every way a host can be reached, as one source of incoming game connections.

:func:`open_reach` wraps a host's listening sockets with the extras of
``truc-p2p host``: a relay registration (hole punching and relay splices),
a port mapping on the home router, and a LAN announcement.  Its
:meth:`Reach.accept` yields :class:`~truc_p2p.net.Incoming` connections from
all of them, each labelled with its path, and :meth:`Reach.invite` is the
invite that names them.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass

import trio

from truc_p2p.net._connect import Incoming, lan_addresses
from truc_p2p.net._discovery import advertise_game
from truc_p2p.net._invite import HostSettings, Invite, host_port
from truc_p2p.net._notice import Notice
from truc_p2p.net._portmap import PortMapping, map_port
from truc_p2p.net._rendezvous import Rendezvous, open_rendezvous
from truc_p2p.net._tcp import GameListener
from truc_p2p.net._turn import TurnServer

__all__ = ["Reach", "RelaySpot", "open_reach"]


@dataclass(frozen=True, kw_only=True)
class RelaySpot:
    """Where a host registers with a relay: its ``address`` (host, port), the
    ``claim`` that fixes the relay code (``None``: a fresh one), and whether a relay
    that cannot be reached is an error (``required``) or tried again in the
    background."""

    address: tuple[str, int]
    claim: bytes | None = None
    required: bool = True
    #: A TURN server to allocate a relayed address on (connect.md §11).
    turn: TurnServer | None = None


def _is_loopback(bind: str | None) -> bool:
    if bind is None:
        return False
    try:
        return ipaddress.ip_address(bind).is_loopback
    except ValueError:
        return bind == "localhost"


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


class Reach:
    """A host's listener plus its relay registration, port mapping and announcement."""

    def __init__(
        self,
        listener: GameListener,
        fingerprint: str,
        advertise: str | None,
        settings: HostSettings | None = None,
    ) -> None:
        self.listener = listener
        #: what a joiner must agree to, carried by the invite (connect.md 1.1)
        self.settings = settings if settings is not None else HostSettings()
        self.fingerprint = fingerprint
        self.advertise = advertise
        self.rendezvous: Rendezvous | None = None
        self.mapping: PortMapping | None = None
        self._tx, self._rx = trio.open_memory_channel[Incoming](0)
        self._paths: weakref.WeakKeyDictionary[trio.abc.Stream, Incoming] = (
            weakref.WeakKeyDictionary()
        )

    def invite(self) -> Invite:
        """The invite: the mapped public address if the router mapped the port,
        else the advertised or LAN address; plus the relay and code if registered."""
        if self.mapping is not None and not self.advertise:
            base = Invite(self.mapping.external_ip, self.mapping.external_port, self.fingerprint)
        else:
            base = self.listener.invite(self.fingerprint, advertise=self.advertise)
        invite = self.rendezvous.invite(base) if self.rendezvous is not None else base
        return dataclasses.replace(invite, settings=self.settings)

    async def accept_incoming(self) -> Incoming:
        """The next connection from any source (listener: path ``direct``)."""
        incoming = await self._rx.receive()
        self._paths[incoming.stream] = incoming
        return incoming

    async def accept(self) -> trio.SocketStream:
        """Like :meth:`GameListener.accept` (for the host's accept loop); the path
        of each stream is kept for :meth:`path_of`."""
        return (await self.accept_incoming()).stream

    def path_of(self, stream: trio.abc.Stream) -> str:
        """How ``stream`` (from :meth:`accept`) was made: direct, punched, turn or relayed."""
        incoming = self._paths.get(stream)
        return incoming.path if incoming is not None else "direct"

    def peer_of(self, stream: trio.abc.Stream, default: str = "?") -> str:
        """The joiner's address for ``stream`` (not the relay's, for a relayed one)."""
        incoming = self._paths.get(stream)
        return incoming.peer[0] if incoming is not None else default

    async def _from_listener(self) -> None:
        while True:
            stream = await self.listener.accept()
            try:
                name = stream.socket.getpeername()
                peer = (str(name[0]), int(name[1]))
            except OSError:
                peer = ("?", 0)
            try:
                await self._tx.send(Incoming(stream, "direct", peer))
            except BaseException:
                await trio.aclose_forcefully(stream)
                raise

    async def _from_relay(self, rendezvous: Rendezvous) -> None:
        while True:
            incoming = await rendezvous.accept()
            try:
                await self._tx.send(incoming)
            except BaseException:
                await trio.aclose_forcefully(incoming.stream)
                raise


@asynccontextmanager
async def open_reach(
    listener: GameListener,
    *,
    fingerprint: str,
    advertise: str | None = None,
    relay: RelaySpot | None = None,
    portmap: bool = True,
    announce_as: str | None = "host",
    settings: dict[str, str] | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> AsyncIterator[Reach]:
    """Set up the extras (each skipped on a loopback bind) and yield the :class:`Reach`.

    ``relay`` registers with a relay; one that cannot be reached raises
    :class:`~truc_p2p.net.ConnectError` (an ``OSError``) unless not
    ``relay.required`` (then it is tried again in the background); ``relay.claim``
    fixes the relay code (:func:`~truc_p2p.net.open_rendezvous`), and a lost relay
    is registered with again, ``on_notice`` hearing about it.  ``portmap`` asks the
    router to forward the port; ``announce_as`` is the name the game is announced
    under on the LAN (``None``: no announcement).  A router without port mapping or
    a LAN without multicast is skipped (``on_notice`` hears what the router did).
    """
    reach = Reach(listener, fingerprint, advertise, HostSettings.from_fields(settings or {}))
    local_only = _is_loopback(listener.bind)
    async with AsyncExitStack() as stack:
        if relay is not None:
            reach.rendezvous = await stack.enter_async_context(
                open_rendezvous(
                    relay.address,
                    claim=relay.claim,
                    on_notice=on_notice,
                    required=relay.required,
                    turn=relay.turn,
                )
            )
        if portmap and not local_only and not advertise:
            reach.mapping = await stack.enter_async_context(map_port(listener.port))
            if reach.mapping is not None and on_notice is not None:
                m = reach.mapping
                on_notice(
                    Notice(
                        "port-mapped",
                        address=host_port(m.external_ip, m.external_port),
                        method=m.method,
                    )
                )
        if announce_as is not None and not local_only:
            addresses = [
                a for a, _ in listener.addresses if _is_ip(a) and a not in ("::", "0.0.0.0")
            ]
            if not addresses:  # bound to every interface: announce each LAN address
                addresses = [a for a, _ in lan_addresses(listener.port)]
            if addresses:
                await stack.enter_async_context(
                    advertise_game(
                        name=announce_as,
                        port=listener.port,
                        fingerprint=fingerprint,
                        addresses=addresses,
                        settings=settings,
                    )
                )
        async with trio.open_nursery() as nursery:
            nursery.start_soon(reach._from_listener)
            if reach.rendezvous is not None:
                nursery.start_soon(reach._from_relay, reach.rendezvous)
            try:
                yield reach
            finally:
                nursery.cancel_scope.cancel()
                reach._tx.close()
                while True:
                    try:
                        leftover = reach._rx.receive_nowait()
                    except (trio.WouldBlock, trio.EndOfChannel):
                        break
                    with suppress(OSError, trio.BrokenResourceError):
                        await trio.aclose_forcefully(leftover.stream)
