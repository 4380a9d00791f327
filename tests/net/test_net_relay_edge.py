"""A relay that is fair at the edge: leaked codes, shared addresses, a full relay,
and a relay out of file descriptors (issue 21, points 4-6)."""

from __future__ import annotations

import errno
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio
from helpers.relay import FP, raw_stream, running_relay

from truc_p2p.net import Invite, RelayLimits, RelayServer, connect, open_rendezvous
from truc_p2p.net._host import address_key
from truc_p2p.net._relay_state import _Meeting, _Registration, meeting_to_evict
from truc_p2p.net._relay_wire import MAGIC, Msg, encode, read_message


def _join_message(code: str) -> bytes:
    return MAGIC + encode(Msg.JOIN, bytes([len(code)]) + code.encode() + b"\x00")


@asynccontextmanager
async def _serving_host(port: int) -> AsyncIterator[tuple[Invite, list[str]]]:
    """A registered host that takes every committed connection; yields its invite
    and the paths of the connections it got."""
    async with open_rendezvous(("127.0.0.1", port)) as rendezvous:
        got: list[str] = []

        async def host() -> None:
            while True:
                incoming = await rendezvous.accept()
                got.append(incoming.path)
                await incoming.stream.aclose()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            yield rendezvous.invite(Invite("127.0.0.1", 4455, FP)), got
            nursery.cancel_scope.cancel()


async def test_a_leaked_code_cannot_keep_the_real_joiner_out() -> None:
    """Someone with the code holds 20 JOINs from one address (never splicing):
    the real joiner, from another address, still gets its relayed path."""
    with trio.fail_after(20):
        async with running_relay() as (server, port, _), _serving_host(port) as (invite, got):
            assert invite.code is not None
            hoard = []
            for _ in range(20):
                stream = await raw_stream(port, _join_message(invite.code), "127.0.0.2")
                hoard.append(stream)
            await trio.sleep(0.3)
            stream, path = await connect(invite, paths=frozenset({"relayed"}), direct_window=0.1)
            await stream.aclose()
            assert path == "relayed"
            with trio.fail_after(5):
                while "relayed" not in got:
                    await trio.sleep(0.05)
            assert server.stats["evicted_meetings"] >= 18  # the hoarder kept 2 at most
            for stream in hoard:
                await stream.aclose()


async def test_a_code_leaked_to_16_addresses_cannot_keep_the_real_joiner_out() -> None:
    """Issue 46: 16 addresses each hold one meeting of a registration (never
    splicing), so all 16 places are taken: the real joiner still meets the host,
    takes the oldest place, and the 16 joining again cannot take it back."""
    leakers = [f"127.0.0.{i}" for i in range(2, 18)]
    with trio.fail_after(20):
        async with running_relay() as (server, port, _), _serving_host(port) as (invite, _):
            assert invite.code is not None
            held = []
            for source in leakers:
                stream = await raw_stream(port, _join_message(invite.code), source)
                assert (await read_message(stream))[0] == Msg.MEET
                held.append(stream)
            real = await raw_stream(port, _join_message(invite.code))
            kind, body = await read_message(real)
            assert kind == Msg.MEET, body
            again = []
            for source in leakers * 2:
                stream = await raw_stream(port, _join_message(invite.code), source)
                again.append(stream)
                assert (await read_message(stream))[0] == Msg.ERROR
            await real.send_all(encode(Msg.SPLICE))
            assert (await read_message(real))[0] == Msg.SPLICED  # its place was kept
            assert server.stats["evicted_meetings"] == 1
            for stream in (real, *held, *again):
                await stream.aclose()


async def test_an_address_holds_only_its_share_of_a_registration() -> None:
    limits = RelayLimits(max_sessions_per_registration=4, max_sessions_per_joiner_ip=2)
    with trio.fail_after(20):
        async with running_relay(limits) as (_srv, port, _), _serving_host(port) as (invite, _):
            assert invite.code is not None
            first = [
                await raw_stream(port, _join_message(invite.code), "127.0.0.2") for _ in range(2)
            ]
            for stream in first:
                assert (await read_message(stream))[0] == Msg.MEET
            third = await raw_stream(port, _join_message(invite.code), "127.0.0.2")
            assert (await read_message(third))[0] == Msg.MEET  # took its own oldest place
            kind, body = await read_message(first[0])
            assert kind == Msg.ERROR and b"another joiner took this place" in body
            for stream in (*first, third):
                await stream.aclose()


async def test_a_shared_address_registers_beyond_the_old_limit_but_not_without_bound() -> None:
    """Ten hosts behind one carrier-grade NAT register (the old limit was 4); one
    address flooding registrations gets its share, and a real host still registers."""
    limits = RelayLimits()
    with trio.fail_after(30):
        async with running_relay(limits) as (server, port, _):
            neighbours = []
            for _ in range(10):
                stream = await raw_stream(port, MAGIC + encode(Msg.REGISTER, b"\x00"))
                assert (await read_message(stream))[0] == Msg.REGISTERED
                neighbours.append(stream)
            flood = []
            for _ in range(limits.max_registrations_per_ip + 5):
                flood.append(
                    await raw_stream(port, MAGIC + encode(Msg.REGISTER, b"\x00"), "127.0.0.2")
                )
            await trio.sleep(0.3)
            assert server.stats["refused_registrations"] >= 5
            async with open_rendezvous(("127.0.0.1", port)) as rendezvous:  # 127.0.0.1 too
                assert rendezvous.registrations == 1
            for stream in (*neighbours, *flood):
                await stream.aclose()


async def test_a_host_waits_for_a_full_relay_instead_of_failing_at_once() -> None:
    """The relay is at its connection limit; the silent connections holding it time
    out after 1 s: the host's registration is retried and succeeds."""
    limits = RelayLimits(max_connections=3, first_message_timeout=1.0)
    notices: list[str] = []
    with trio.fail_after(20):
        async with running_relay(limits) as (server, port, _):
            squatters = [await raw_stream(port, b"", "127.0.0.2") for _ in range(3)]
            await trio.sleep(0.1)
            started = trio.current_time()
            async with open_rendezvous(("127.0.0.1", port), on_notice=notices.append) as r:
                assert r.registrations == 1
            assert trio.current_time() - started >= 0.5  # it had to wait
            assert any("trying again" in n for n in notices), notices
            assert server.stats["refused_connections"] >= 1
            for stream in squatters:
                await stream.aclose()


class _Exhausted:
    """A listener whose accept() fails with EMFILE ``times`` times, then blocks."""

    def __init__(self, times: int) -> None:
        self.left = times

    async def accept(self) -> trio.SocketStream:
        await trio.lowlevel.checkpoint()
        if self.left:
            self.left -= 1
            raise OSError(errno.EMFILE, "Too many open files")
        await trio.sleep_forever()
        raise AssertionError


async def test_out_of_file_descriptors_is_one_line_now_and_then_not_a_traceback(
    autojump_clock: trio.abc.Clock,
) -> None:
    server = RelayServer()
    notices: list[str] = []
    with trio.move_on_after(25):
        await server.serve([_Exhausted(150)], on_notice=notices.append)  # type: ignore[list-item]
    assert server.stats["accept_shortages"] == 150
    assert 1 <= len(notices) <= 3  # 150 failures in 15 s: a line per 10 s at most
    assert "Too many open files" in notices[0] and "\n" not in notices[0]


@pytest.mark.parametrize("error", [errno.ECONNABORTED])
async def test_other_accept_errors_are_not_swallowed(error: int) -> None:
    class Broken:
        async def accept(self) -> trio.SocketStream:
            await trio.lowlevel.checkpoint()
            raise OSError(error, "boom")

    with pytest.raises(BaseExceptionGroup):
        await RelayServer().serve([Broken()])  # type: ignore[list-item]


async def test_a_host_listener_waits_out_a_shortage_of_file_descriptors(
    autojump_clock: trio.abc.Clock,
) -> None:
    from truc_p2p.net._tcp import accept_patiently

    class Recovering(_Exhausted):
        async def accept(self) -> trio.SocketStream:
            if self.left:
                return await super().accept()
            return "a connection"  # type: ignore[return-value]

    assert await accept_patiently(Recovering(5)) == "a connection"  # type: ignore[arg-type]


async def test_a_household_joining_from_16_of_its_64s_holds_two_places() -> None:
    """Unit level, fabricated addresses: a leaked code used from 16 /64s of one /56
    is one address group, so it holds 2 of the registration's places, never 16."""
    limits = RelayLimits()
    reg = _Registration("c" * 16, None, ("2001:db8:1::1", 9), [], address_key("2001:db8:1::1"))  # type: ignore[arg-type]
    taken = 0

    def join(peer: str) -> bool:
        nonlocal taken
        ip = address_key(peer)
        room, victim = meeting_to_evict(reg, ip, limits, 0.0)
        if victim is not None:
            victim.scope.cancel()
            taken += 1
        if room:
            reg.meetings.append(_Meeting(bytes(16), reg, 0.0, joiner_ip=ip))
        return room

    assert all(join(f"2001:db8:5:42{i:02x}::9") for i in range(16))  # each takes its own
    live = [m for m in reg.meetings if not m.scope.cancel_called]
    assert len(live) == 2 and taken == 14
    assert join("2001:db8:6:100::1")  # the real joiner, from another home
