"""Browsers at the relay: WebSocket clients beside TCP ones (connect.md §9), on loopback.

The browser is played by :mod:`helpers.ws` (wsproto over trio, speaking what the
page speaks); the TCP side is the real net API.  Whole games go through the
splice in every pairing: browser host and TCP joiner, TCP host and browser
joiner, two browsers.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
import trio
from helpers.examples import examples
from helpers.net import bot, new_session
from helpers.netns import Proc
from helpers.ws import (
    Refused,
    expect,
    open_ws,
    running_relay,
    upgrade_request,
    ws_attach,
    ws_join,
    ws_register,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from truc_p2p.identity import Identity
from truc_p2p.net import (
    Invite,
    LobbyListing,
    PlayOptions,
    RelayLimits,
    connect,
    fetch_lobby,
    open_rendezvous,
    play_game,
)
from truc_p2p.net._relay_wire import MAGIC, Msg, decode_addr, encode, encode_addrs
from truc_p2p.net._ws_stream import MAX_WS_MESSAGE, CloseCode, WebSocketStream
from truc_p2p.protocol import Session, verify_transcript
from truc_p2p.rules import Player
from truc_p2p.transcript import read_transcript


def _sessions() -> tuple[dict[Player, Session], dict[Player, list[bytes]]]:
    records: dict[Player, list[bytes]] = {Player.P0: [], Player.P1: []}
    return {p: new_session(p, record=records[p], seed=11) for p in records}, records


def _verified(records: dict[Player, list[bytes]]) -> None:
    for p, record in records.items():
        assert verify_transcript(record).valid, p


async def _play_both(
    host: trio.abc.Stream, joiner: trio.abc.Stream, sessions: dict[Player, Session]
) -> None:
    outcomes = {}

    async def side(me: Player, stream: trio.abc.Stream) -> None:
        async with stream:
            outcomes[me] = await play_game(
                stream,
                sessions[me],
                bot(int(me) + 1),
                PlayOptions(
                    expected_fingerprint=None
                    if me is Player.P1
                    else sessions[Player.P1].fingerprint
                ),
            )

    async with trio.open_nursery() as nursery:
        nursery.start_soon(side, Player.P1, host)
        nursery.start_soon(side, Player.P0, joiner)
    assert outcomes[Player.P0].valid and outcomes[Player.P1].valid


async def test_a_browser_host_plays_a_whole_game_with_a_tcp_joiner() -> None:
    sessions, records = _sessions()
    with trio.fail_after(60):
        async with running_relay() as (server, port, reports):
            control, code = await ws_register(port)
            invite = Invite(
                "127.0.0.1", 9, sessions[Player.P1].fingerprint, relay=("127.0.0.1", port),
                code=code,
            )  # fmt: skip
            async with control, trio.open_nursery() as nursery:
                attached: list[WebSocketStream] = []

                async def host() -> None:
                    attached.append(await ws_attach(port, control))

                nursery.start_soon(host)
                stream, path = await connect(invite, direct_window=0.2)
                assert path == "relayed"
            await _play_both(attached[0], stream, sessions)
    _verified(records)
    (report,) = reports
    assert report.spliced and report.bytes > 10_000
    assert server.stats["websockets"] == 2 and server.stats["splices"] == 1


async def test_a_browser_joins_a_tcp_host_and_plays_a_whole_game() -> None:
    sessions, records = _sessions()
    with trio.fail_after(60):
        async with (
            running_relay() as (server, port, reports),
            open_rendezvous(("127.0.0.1", port)) as rendezvous,
        ):
            assert rendezvous.code is not None
            async with trio.open_nursery() as nursery:
                incoming = []

                async def host() -> None:
                    incoming.append(await rendezvous.accept())

                nursery.start_soon(host)
                joiner = await ws_join(port, rendezvous.code)
            assert incoming[0].path == "relayed"
            await _play_both(incoming[0].stream, joiner, sessions)
    _verified(records)
    assert reports[0].spliced and server.stats["websockets"] == 1


async def test_two_browsers_play_a_whole_game_through_the_relay() -> None:
    sessions, records = _sessions()
    with trio.fail_after(60):
        async with running_relay() as (server, port, reports):
            control, code = await ws_register(port)
            async with control, trio.open_nursery() as nursery:
                attached: list[WebSocketStream] = []

                async def host() -> None:
                    attached.append(await ws_attach(port, control))

                nursery.start_soon(host)
                joiner = await ws_join(port, code)
            await _play_both(attached[0], joiner, sessions)
    _verified(records)
    assert reports[0].spliced and server.stats["websockets"] == 3


# -- what a relay refuses, and how it closes ----------------------------------------------


def _frame(opcode: int, payload: bytes, mask: bytes | None, fin: bool = True) -> bytes:
    """One WebSocket frame built by hand (RFC 6455 §5.2)."""
    head = bytes([(0x80 if fin else 0) | opcode])
    bit = 0x80 if mask is not None else 0
    n = len(payload)
    if n < 126:
        head += bytes([bit | n])
    elif n < 1 << 16:
        head += bytes([bit | 126]) + struct.pack("!H", n)
    else:
        head += bytes([bit | 127]) + struct.pack("!Q", n)
    if mask is None:
        return head + payload
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def _closed_with(ws: WebSocketStream) -> int | None:
    """Read until the relay's Close; its code."""
    with trio.fail_after(15):
        try:
            while await ws.receive_some():
                pass
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # a reset, or (in the fuzz test) our own EOF before an answer was due
    return ws.peer_close_code


async def _raw_ws(port: int, data: bytes) -> WebSocketStream:
    ws = await open_ws(port)
    await ws.transport_stream.send_all(data)
    return ws


MASK = b"\x37\xfa\x21\x3d"


def _pings(size: int) -> bytes:
    """A host's REGISTER, then PINGs, cut at ``size`` bytes."""
    start = MAGIC + encode(Msg.REGISTER, encode_addrs([]))
    return (start + encode(Msg.PING) * (size // 3 + 1))[:size]


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (_frame(0x1, b"TRUCRLY1", MASK), CloseCode.UNSUPPORTED_DATA),  # text
        (_frame(0x2, MAGIC, None), CloseCode.PROTOCOL_ERROR),  # a client frame unmasked
        (_frame(0x2, b"TRUCRLYX", MASK), CloseCode.PROTOCOL_ERROR),  # not the magic
        (bytes([0xC2, 0x88]) + MASK + MAGIC, CloseCode.PROTOCOL_ERROR),  # RSV1: no extension
        (_frame(0x9, b"x" * 126, MASK), CloseCode.PROTOCOL_ERROR),  # a ping too long
        # valid relay messages (a host's PINGs), but too many bytes in one message
        (_frame(0x2, _pings(MAX_WS_MESSAGE + 1), MASK), CloseCode.TOO_BIG),
        # a message cut in frames is counted whole
        (
            _frame(0x2, _pings(MAX_WS_MESSAGE)[:-2], MASK, fin=False)
            + _frame(0x0, b"\0\0\x05", MASK),
            CloseCode.TOO_BIG,
        ),
        # a relay ERROR (unknown code) closes as policy
        (
            _frame(0x2, MAGIC + encode(Msg.JOIN, b"\x04nope" + encode_addrs([])), MASK),
            CloseCode.POLICY,
        ),
    ],
)
async def test_bad_input_gets_its_close_code_and_the_relay_goes_on(data: bytes, code: int) -> None:
    with trio.fail_after(30):
        async with running_relay() as (server, port, _):
            ws = await _raw_ws(port, data)
            assert await _closed_with(ws) == code
            await ws.aclose()
            # the relay is still there for the next browser
            control, code_text = await ws_register(port)
            assert len(code_text) == 16
            await control.aclose()
        assert server.stats["websockets"] == 2


async def test_a_relay_message_cut_anywhere_is_read_whole_and_a_ping_is_answered() -> None:
    with trio.fail_after(10):
        async with running_relay() as (_, port, _):
            ws = await open_ws(port)
            message = MAGIC + encode(Msg.REGISTER, encode_addrs([]))
            await ws.transport_stream.send_all(_frame(0x9, b"hi", MASK))
            for i in range(len(message)):  # one byte per message
                await ws.send_all(message[i : i + 1])
            body = await expect(ws, Msg.REGISTERED)
            assert len(body) > 16
            # the pong came before REGISTERED: the reader saw it and went on
            raw = await open_ws(port)
            await raw.transport_stream.send_all(_frame(0x9, b"hi", MASK))
            pong = await raw.transport_stream.receive_some(100)
            assert pong == b"\x8a\x02hi"
            await ws.aclose()
            await raw.aclose()


async def test_a_splice_over_its_byte_budget_closes_the_browser_as_policy() -> None:
    limits = RelayLimits(max_session_bytes=4000)
    with trio.fail_after(20):
        async with running_relay(limits) as (_, port, reports):
            control, code = await ws_register(port)
            async with control, trio.open_nursery() as nursery:
                attached: list[WebSocketStream] = []

                async def host() -> None:
                    attached.append(await ws_attach(port, control))

                nursery.start_soon(host)
                joiner = await ws_join(port, code)
            async with joiner, attached[0]:
                for _ in range(10):
                    await joiner.send_all(b"x" * 1000)
                assert await _closed_with(joiner) == CloseCode.POLICY
                assert await _closed_with(attached[0]) == CloseCode.POLICY
    assert reports[0].end == "byte limit"


@pytest.mark.parametrize(
    ("drop", "add", "status"),
    [
        ("Sec-WebSocket-Protocol", None, 400),
        (None, ("Sec-WebSocket-Protocol", "chat"), 400),
        ("Sec-WebSocket-Key", None, 400),
        (None, ("Sec-WebSocket-Key", "c2hvcnQ="), 400),  # not 16 bytes
        ("Upgrade", None, 400),
        (None, ("Sec-WebSocket-Version", "8"), 426),
    ],
)
async def test_a_bad_handshake_gets_an_http_status(
    drop: str | None, add: tuple[str, str] | None, status: int
) -> None:
    with trio.fail_after(10):
        async with running_relay() as (server, port, _):
            headers = upgrade_request(port, b"dGhlIHNhbXBsZSBub25jZQ==")
            if add is not None:
                drop = add[0]
            headers = [h for h in headers if h[0] != drop]
            if add is not None:
                headers.append(add)
            with pytest.raises(Refused) as refused:
                await open_ws(port, headers=headers)
            assert refused.value.status == status
            assert server.stats["websockets"] == 0


async def test_an_upgrade_that_never_finishes_is_dropped_in_time() -> None:
    from truc_p2p.net._relay_http import WebLimits

    async with running_relay() as (server, port, _):
        server.web = WebLimits(request_timeout=0.3)
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(b"GET /ws HTTP/1.1\r\nHost: x\r\n")
        with trio.fail_after(5):
            assert await stream.receive_some(100) == b""
        await stream.aclose()


@pytest.mark.slow
def test_a_browser_joins_truc_p2p_host_through_a_relay_process(tmp_path: Path) -> None:
    """The processes a user runs: ``truc-p2p relay`` and ``truc-p2p host --relay``; the
    browser joins with the invite's code, pins the invite's key and plays to the end."""
    relay = Proc(None, None, tmp_path, "relay", "--bind", "127.0.0.1", "--port", "0", "--json")
    host: Proc | None = None
    try:
        _, line = relay.wait_for(lambda text: '"listening"' in text, 20)
        port = json.loads(line)["addresses"][0][1]
        host = Proc(
            None, None, tmp_path, "host", "--relay", f"127.0.0.1:{port}", "--bind", "127.0.0.1",
            "--port", "0", "--bot", "random", "--seed", "1", "--timeout", "30",
            "--identity", "h.key", "--out", "h",
        )  # fmt: skip
        _, text = host.wait_for(lambda text: text.startswith("truc://"), 20)
        invite = Invite.parse(text)
        assert invite.code is not None
        records: list[bytes] = []
        session = new_session(Player.P0, record=records, seed=5)

        async def browser() -> None:
            assert invite.code is not None
            with trio.fail_after(60):
                async with await ws_join(port, invite.code) as ws:
                    outcome = await play_game(
                        ws, session, bot(5), PlayOptions(expected_fingerprint=invite.fingerprint)
                    )
            assert outcome.valid

        trio.run(browser)
        assert host.finish() == 0, host.text()
        assert "(relayed path)" in host.text()
    finally:
        if host is not None and host.proc.poll() is None:
            host.proc.kill()
        relay.stop()
    assert verify_transcript(records).valid
    (file,) = (tmp_path / "h").glob("*.truc")
    assert verify_transcript(read_transcript(file)).valid
    assert '"spliced": true' in relay.text() and "Traceback" not in relay.text()


async def _ws_from(port: int, forwarded: str | None) -> WebSocketStream:
    headers = upgrade_request(port, b"dGhlIHNhbXBsZSBub25jZQ==")
    if forwarded is not None:
        headers.append(("X-Forwarded-For", forwarded))
    ws = await open_ws(port, headers=headers)
    await ws.send_all(MAGIC + encode(Msg.REGISTER, encode_addrs([])))
    return ws


async def _seen_as(ws: WebSocketStream) -> str:
    """The address the relay saw, from its REGISTERED."""
    body = await expect(ws, Msg.REGISTERED)
    return decode_addr(body, 1 + body[0])[0][0]


async def test_a_trusted_proxy_names_the_browser_for_the_limits_and_meet() -> None:
    limits = RelayLimits(max_per_ip=2)
    with trio.fail_after(10):
        async with running_relay(limits) as (server, port, _):
            # untrusted: X-Forwarded-For is ignored, the browser is the TCP peer
            async with await _ws_from(port, "198.51.100.4") as ws:
                assert await _seen_as(ws) == "127.0.0.1"
            server.trusted_proxies = frozenset({"127.0.0.1"})
            held = []
            for n in range(4):  # 4 browsers behind one proxy address, 2 allowed per address
                held.append(await _ws_from(port, f"10.0.0.1, 198.51.100.{n + 1}"))
                # the last entry (the proxy's own) counts; the client may forge the others
                assert await _seen_as(held[-1]) == f"198.51.100.{n + 1}"
            # but one browser address is still held to its share
            held.append(await _ws_from(port, "198.51.100.1"))
            assert await _seen_as(held[-1]) == "198.51.100.1"
            async with await _ws_from(port, "198.51.100.1") as third:
                assert await _closed_with(third) == CloseCode.POLICY
            assert server.stats["refused_connections"] == 1
            for ws in held:
                await ws.aclose()


async def test_a_browser_lists_its_game_and_another_browser_reads_the_lobby() -> None:
    key = Identity.ephemeral().key
    raw = key.public_key().to_bytes()
    with trio.fail_after(10):
        async with running_relay() as (server, port, _):
            control, code = await ws_register(port)
            listing = LobbyListing(key=raw, addr=("127.0.0.1", 9), fields={"name": "phone"})
            await control.send_all(encode(Msg.LIST, listing.sign(key, code)))
            assert await expect(control, Msg.LISTED) == b""
            async with control, await open_ws(port) as lobby:
                await lobby.send_all(MAGIC + encode(Msg.LOBBY))
                game = await expect(lobby, Msg.GAME)
                assert game[1 : 1 + game[0]].decode() == code
                await expect(lobby, Msg.END)
                assert await _closed_with(lobby) == CloseCode.NORMAL
                # a TCP client sees the browser's game too
                games, notes = await fetch_lobby(("127.0.0.1", port))
                assert not notes and [g.listing.name for g in games] == ["phone"]
    assert server.stats["lobby_requests"] == 2


@settings(max_examples=examples(40), deadline=None, suppress_health_check=list(HealthCheck))
@given(junk=st.binary(max_size=300), split=st.integers(1, 64))
async def test_any_bytes_after_the_upgrade_end_in_a_close_never_a_traceback(
    junk: bytes, split: int
) -> None:
    async with running_relay(RelayLimits(first_message_timeout=0.5)) as (server, port, _):
        ws = await open_ws(port)
        with trio.fail_after(10):
            try:
                for i in range(0, len(junk), split):
                    await ws.transport_stream.send_all(junk[i : i + split])
                await ws.transport_stream.send_eof()
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
            await _closed_with(ws)
        await ws.aclose()
        # whatever came, the relay still serves
        control, _ = await ws_register(port)
        await control.aclose()
    assert server.stats["websockets"] == 2
