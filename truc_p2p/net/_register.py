"""A host's ``REGISTER`` with a relay (``protocol_spec/connect.md`` §2): one control
connection, the listener on its local port, and the code the relay gives for the
host's claim; the first registration tried again with backoff while the relay is
full or restarting.  :class:`~._rendezvous.Rendezvous` keeps registrations going.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass, field

import trio

from truc_p2p.net._connect import (
    _NET_ERRORS,
    ConnectError,
    _expect,
    _open_relay,
    _reusable,
    lan_addresses,
)
from truc_p2p.net._invite import host_port
from truc_p2p.net._notice import Notice
from truc_p2p.net._relay_wire import (
    MAGIC,
    MAX_ADDRS,
    Addr,
    Msg,
    RelayProtocolError,
    code_for_claim,
    decode_addr,
    encode,
    encode_addrs,
    relay_text,
)

__all__ = [
    "FIRST_REGISTRATION_PATIENCE",
    "OtherCode",
    "Registration",
    "register",
    "register_patiently",
]


@dataclass(eq=False)
class Registration:
    """One control connection and the listener on its local port."""

    control: trio.SocketStream
    listener: trio.SocketListener
    observed: Addr
    #: The addresses registered after the LAN ones (the TURN relayed address).
    extra: list[Addr] = field(default_factory=list)

    @property
    def port(self) -> int:
        return int(self.control.socket.getsockname()[1])


class OtherCode(ConnectError):
    """The relay registered us under another code than our claim's."""


async def register(
    relay: tuple[str, int], claim: bytes, timeout: float, extra: list[Addr] | None = None
) -> Registration:
    """Connect to the relay, listen on the same local port and ``REGISTER`` with
    ``claim``; :class:`ConnectError` when the relay cannot be reached or refuses.
    ``extra`` (the TURN relayed address) ends the address list (connect.md §11)."""
    try:
        control = await _open_relay(relay, timeout)
    except OSError as exc:
        if isinstance(exc, ConnectError):
            raise
        raise ConnectError(f"cannot reach the relay {host_port(*relay)}: {exc}") from None
    listener: trio.SocketListener | None = None
    try:
        port = int(control.socket.getsockname()[1])
        sock = _reusable(control.socket.family)
        try:
            await sock.bind(("::" if control.socket.family == socket.AF_INET6 else "0.0.0.0", port))
            sock.listen(16)
        except BaseException:
            sock.close()
            raise
        listener = trio.SocketListener(sock)
        try:
            extra = extra or []
            addrs = lan_addresses(port)[: MAX_ADDRS - len(extra)] + extra
            await control.send_all(MAGIC + encode(Msg.REGISTER, encode_addrs(addrs) + claim))
            body = await _expect(control, Msg.REGISTERED, timeout)
        except (*_NET_ERRORS, trio.TooSlowError) as exc:
            if isinstance(exc, ConnectError):
                raise
            raise ConnectError(f"the relay did not register us: {exc}") from None
        if not body or len(body) < 1 + body[0]:
            raise ConnectError("bad REGISTERED from the relay")
        code = relay_text(body[1 : 1 + body[0]])
        if code != code_for_claim(claim):
            raise OtherCode(f"the relay gave the code {code!r}, not the one of our claim")
        try:
            observed, _ = decode_addr(body, 1 + body[0])
        except RelayProtocolError as exc:
            raise ConnectError(f"bad REGISTERED from the relay: {exc}") from None
    except BaseException:
        if listener is not None:
            await trio.aclose_forcefully(listener)
        await trio.aclose_forcefully(control)
        raise
    return Registration(control, listener, observed, list(extra or []))


#: Seconds a host that needs the relay keeps trying to register before giving up
#: (a relay at its connection limit, or restarting, frees places within seconds).
FIRST_REGISTRATION_PATIENCE = 30.0


async def register_patiently(
    relay: tuple[str, int],
    claim: bytes,
    timeout: float,
    extra: list[Addr],
    notice: Callable[[str], None],
    *,
    required: bool,
) -> Registration:
    """The first registration (``extra``: :func:`register`'s); when ``required``, a
    relay that is full, draining or not answering is tried again with backoff (0.5 s
    doubling to 8 s) for :data:`FIRST_REGISTRATION_PATIENCE` seconds, saying so
    through ``notice``."""
    if not required:
        return await register(relay, claim, timeout, extra)
    give_up = trio.current_time() + FIRST_REGISTRATION_PATIENCE
    delay = 0.5
    while True:
        try:
            return await register(relay, claim, timeout, extra)
        except OtherCode:
            raise
        except OSError as exc:
            if trio.current_time() + delay > give_up:
                raise
            notice(
                Notice(
                    "relay-retry",
                    relay=host_port(*relay),
                    error=str(exc),
                    seconds=f"{delay:g}",
                )
            )
        await trio.sleep(delay)
        delay = min(delay * 2, 8.0)
