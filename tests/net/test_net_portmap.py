"""Port mapping against small PCP and NAT-PMP gateways run on loopback UDP."""

from __future__ import annotations

import ipaddress
import struct

import pytest
import trio

from truc_p2p.net import map_port
from truc_p2p.net._portmap import default_gateway

PUBLIC = "198.51.100.7"


class FakeGateway:
    """Answers PCP MAP (unless ``pcp`` is False: then like a NAT-PMP-only router,
    "unsupported version") and NAT-PMP; records the mappings it holds."""

    def __init__(self, *, pcp: bool) -> None:
        self.pcp = pcp
        self.mappings: dict[int, int] = {}
        self.requests: list[bytes] = []

    def answer(self, data: bytes) -> bytes | None:
        self.requests.append(data)
        if data[0] == 2:
            if not self.pcp:
                return struct.pack("!BBHIHH", 0, 0x80 | data[1], 1, 0, 0, 0)  # NAT-PMP "version"
            lifetime = struct.unpack("!I", data[4:8])[0]
            nonce, internal = data[24:36], struct.unpack("!H", data[40:42])[0]
            external = 40000 + internal % 1000 if lifetime else 0
            self._record(internal, lifetime, external)
            mapped = ipaddress.IPv6Address("::ffff:" + PUBLIC).packed
            header = struct.pack("!BBBBII", 2, 0x81, 0, 0, lifetime, 1) + bytes(12)
            body = nonce + struct.pack("!B3xHH", 6, internal, external) + mapped
            return header + body
        if data == b"\x00\x00":
            return struct.pack("!BBHI", 0, 128, 0, 1) + ipaddress.IPv4Address(PUBLIC).packed
        if data[:2] == b"\x00\x02":
            _, _, _, internal, _, lifetime = struct.unpack("!BBHHHI", data[:12])
            external = 50000 + internal % 1000 if lifetime else 0
            self._record(internal, lifetime, external)
            return struct.pack("!BBHIHHI", 0, 130, 0, 1, internal, external, lifetime)
        return None

    def _record(self, internal: int, lifetime: int, external: int) -> None:
        if lifetime:
            self.mappings[internal] = external
        else:
            self.mappings.pop(internal, None)

    async def serve(self, sock: trio.socket.SocketType) -> None:
        while True:
            data, peer = await sock.recvfrom(2048)
            reply = self.answer(data)
            if reply is not None:
                await sock.sendto(reply, peer)


@pytest.mark.parametrize(
    ("pcp", "method", "external"), [(True, "pcp", 40455), (False, "nat-pmp", 50455)]
)
async def test_maps_the_port_and_removes_the_mapping_on_exit(
    pcp: bool, method: str, external: int
) -> None:
    gateway = FakeGateway(pcp=pcp)
    with trio.fail_after(10), trio.socket.socket(type=trio.socket.SOCK_DGRAM) as sock:
        await sock.bind(("127.0.0.1", 0))
        async with trio.open_nursery() as nursery:
            nursery.start_soon(gateway.serve, sock)
            async with map_port(4455, gateway=sock.getsockname(), upnp=False) as mapping:
                assert mapping is not None
                assert (mapping.method, mapping.external_ip, mapping.external_port) == (
                    method,
                    PUBLIC,
                    external,
                )
                assert gateway.mappings == {4455: external}
            assert gateway.mappings == {}
            nursery.cancel_scope.cancel()


async def test_no_gateway_degrades_to_none_quickly(autojump_clock: trio.abc.Clock) -> None:
    """Under trio's autojump clock: the bound is the mapping's own timeouts, not how
    fast the machine runs."""
    with trio.socket.socket(type=trio.socket.SOCK_DGRAM) as silent:
        await silent.bind(("127.0.0.1", 0))  # bound, never answers
        start = trio.current_time()
        async with map_port(4455, gateway=silent.getsockname(), upnp=False) as mapping:
            assert mapping is None
        assert trio.current_time() - start < 2.5


def test_default_gateway_is_an_address_or_none() -> None:
    found = default_gateway()
    assert found is None or ipaddress.IPv4Address(found)
