"""Ask the home router to forward the host's port: PCP, NAT-PMP, then UPnP-IGD.

PCP (RFC 6887, ``MAP``) and NAT-PMP (RFC 6886) are small UDP protocols on the
default gateway's port 5351, implemented here directly.  UPnP-IGD needs HTTP,
SOAP and SSDP; it is used through ``miniupnpc`` (the reference client, a
binary wheel: ``pip install '.[upnp]'`` from a checkout) when that is installed.
Everything degrades to "no mapping" quickly (about a second) and quietly; a
mapping is renewed at half its lifetime and deleted when the block exits.
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
import struct
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

__all__ = ["PortMapping", "default_gateway", "map_port"]

PMP_PORT = 5351
_TRIES = (0.25, 0.5)


@dataclass(frozen=True)
class PortMapping:
    """A port forwarded by the router: ``external_ip:external_port`` reaches us."""

    method: str
    external_ip: str
    external_port: int
    internal_port: int
    lifetime: int


def default_gateway() -> str | None:
    """The IPv4 default gateway from ``/proc/net/route`` (Linux), else ``None``."""
    try:
        lines = Path("/proc/net/route").read_text().splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if len(fields) > 3 and fields[1] == "00000000" and int(fields[3], 16) & 2:
            return str(ipaddress.IPv4Address(struct.pack("<I", int(fields[2], 16))))
    return None


async def _exchange(
    gateway: tuple[str, int], request: bytes, accept: Callable[[bytes], bool]
) -> bytes | None:
    """Send ``request`` with RFC-style retransmission; the first answer ``accept`` likes."""
    sock = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    with sock:
        try:
            await sock.connect(gateway)
        except OSError:
            return None
        for wait in _TRIES:
            try:
                await sock.send(request)
            except OSError:
                return None
            with trio.move_on_after(wait):
                while True:
                    try:
                        data = await sock.recv(1100)
                    except OSError:  # ICMP port unreachable: nobody speaks it
                        return None
                    if accept(data):
                        return data
    return None


def _local_ip(gateway: tuple[str, int]) -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(gateway)
        return str(probe.getsockname()[0])


async def _pcp(
    gateway: tuple[str, int], port: int, lifetime: int, nonce: bytes
) -> PortMapping | None:
    try:
        client = ipaddress.IPv6Address("::ffff:" + _local_ip(gateway)).packed
    except OSError:
        return None
    request = (
        struct.pack("!BBHI", 2, 1, 0, lifetime)
        + client
        + nonce
        + struct.pack("!B3xHH", 6, port, port if lifetime else 0)
        + bytes(16)
    )
    # Any answer to opcode MAP counts: a NAT-PMP-only router answers version 0,
    # "unsupported version", in 8 bytes, and then NAT-PMP is tried at once.
    data = await _exchange(
        gateway, request, lambda d: len(d) >= 4 and d[1] == 0x81 and d[24:36] in (nonce, b"")
    )
    if data is None or len(data) < 60 or data[0] != 2 or data[3] != 0:
        return None
    granted = struct.unpack("!I", data[4:8])[0]
    external_port = struct.unpack("!H", data[42:44])[0]
    external_ip = ipaddress.IPv6Address(data[44:60])
    mapped = external_ip.ipv4_mapped
    return PortMapping("pcp", str(mapped or external_ip), external_port, port, granted)


async def _nat_pmp(gateway: tuple[str, int], port: int, lifetime: int) -> PortMapping | None:
    public = await _exchange(gateway, b"\x00\x00", lambda d: len(d) >= 12 and d[:2] == b"\x00\x80")
    if public is None or struct.unpack("!H", public[2:4])[0] != 0:
        return None
    request = struct.pack("!BBHHHI", 0, 2, 0, port, port if lifetime else 0, lifetime)
    data = await _exchange(gateway, request, lambda d: len(d) >= 16 and d[:2] == b"\x00\x82")
    if data is None:
        return None
    result, _, internal, external, granted = struct.unpack("!HIHHI", data[2:16])
    if result != 0 or internal != port:
        return None
    return PortMapping("nat-pmp", str(ipaddress.IPv4Address(public[8:12])), external, port, granted)


def _upnp_map(port: int, lifetime: int) -> tuple[PortMapping, Any] | None:
    try:
        import miniupnpc  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    try:
        upnp = miniupnpc.UPnP()
        upnp.discoverdelay = 800
        if upnp.discover() == 0:
            return None
        upnp.selectigd()
        external = str(upnp.externalipaddress())
        ok = upnp.addportmapping(port, "TCP", upnp.lanaddr, port, "truc-p2p", "", lifetime)
    except Exception:  # miniupnpc raises plain Exception for every failure
        return None
    if not ok:
        return None
    return PortMapping("upnp", external, port, port, lifetime), upnp


async def _map_once(
    gateway: tuple[str, int] | None, port: int, lifetime: int, nonce: bytes, upnp: bool
) -> tuple[PortMapping, Any] | None:
    if gateway is not None:
        mapping = await _pcp(gateway, port, lifetime, nonce)
        if mapping is None:
            mapping = await _nat_pmp(gateway, port, lifetime)
        if mapping is not None:
            return mapping, None
    if upnp:
        return await trio.to_thread.run_sync(_upnp_map, port, lifetime, abandon_on_cancel=True)
    return None


async def _unmap(
    gateway: tuple[str, int] | None, mapping: PortMapping, nonce: bytes, handle: Any
) -> None:
    with trio.CancelScope(shield=True), trio.move_on_after(2), suppress(Exception):
        if mapping.method == "pcp" and gateway is not None:
            await _pcp(gateway, mapping.internal_port, 0, nonce)
        elif mapping.method == "nat-pmp" and gateway is not None:
            await _nat_pmp(gateway, mapping.internal_port, 0)
        elif handle is not None:
            await trio.to_thread.run_sync(
                handle.deleteportmapping, mapping.external_port, "TCP", abandon_on_cancel=True
            )


@asynccontextmanager
async def map_port(
    port: int,
    *,
    gateway: tuple[str, int] | None = None,
    lifetime: int = 3600,
    upnp: bool = True,
) -> AsyncIterator[PortMapping | None]:
    """Map TCP ``port`` on the router for the duration of the block.

    Yields the mapping, or ``None`` when no method worked.  ``gateway``
    defaults to the default gateway's port 5351.
    """
    if gateway is None:
        found = default_gateway()
        gateway = (found, PMP_PORT) if found is not None else None
    nonce = secrets.token_bytes(12)
    first = await _map_once(gateway, port, lifetime, nonce, upnp)
    if first is None:
        yield None
        return
    mapping, handle = first
    async with trio.open_nursery() as nursery:

        async def renew() -> None:
            current = mapping
            while True:
                await trio.sleep(max(current.lifetime / 2, 30))
                again = await _map_once(gateway, port, lifetime, nonce, upnp)
                if again is not None:
                    current = again[0]

        nursery.start_soon(renew)
        try:
            yield mapping
        finally:
            nursery.cancel_scope.cancel()
            await _unmap(gateway, mapping, nonce, handle)
