"""Nobody can bury the lobby (issue 33, ``connect.md`` §2.2): the relay stores only
listings whose shape and signature hold, at most 4 per address group (an IPv6 /56
is one), and answers round by round over the groups, so a flood from many
loopback addresses (127.0.0.2 … 127.0.0.41, loopback only) leaves a real host
visible to ``truc-p2p lobby``; a filter by name or fingerprint finds it alone."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest
import trio
from helpers.net import bot
from helpers.relay import lobby_relay, raw_key, register_host

from truc_p2p.cli import main as cli_main
from truc_p2p.identity import Identity
from truc_p2p.net import (
    Clocks,
    GameSettings,
    Listen,
    LobbyFilter,
    LobbyListing,
    RelayLimits,
    RelayServer,
    Storage,
    fetch_lobby_answer,
    host_game,
)
from truc_p2p.net._host import address_block, address_key
from truc_p2p.net._relay_wire import Msg, RelayProtocolError, encode, read_message
from truc_p2p.protocol import SessionOptions

#: The flooding addresses: 40 loopback addresses, never any other.
FLOODERS = [f"127.0.0.{i}" for i in range(2, 42)]


async def _list_raw(stream: trio.SocketStream, body: bytes) -> str:
    await stream.send_all(encode(Msg.LIST, body))
    kind, answer = await read_message(stream)
    assert kind == Msg.LISTED
    return answer.decode()


def _signed(code: str, name: str) -> bytes:
    key = Identity.ephemeral().key
    return LobbyListing(key=raw_key(key), addr=("127.0.0.1", 9), fields={"name": name}).sign(
        key, code
    )


async def _flood(port: int, streams: list[trio.SocketStream]) -> dict[str, int]:
    """From each flooding address: 2 junk listings (garbage, and a valid listing signed
    for another code), then validly signed junk under fresh keys, 6 (2 beyond the cap)
    and 10 from the first address; the relay's answers, counted."""
    answers = {"stored": 0, "refused": 0, "capped": 0}
    for n, source in enumerate(FLOODERS):
        for i in range(10 if n == 0 else 8):
            claim = bytes([n, i]) * 8
            stream, code = await register_host(port, claim, source)
            streams.append(stream)
            if i == 0:
                body = b"\x00" * 120  # not a listing at all
            elif i == 1:
                body = _signed("aaaaaaaaaaaaaaaa", f"junk {source}")  # another code
            else:
                body = _signed(code, f"junk {source} {i}")
            answer = await _list_raw(stream, body)
            if not answer:
                answers["stored"] += 1
            elif answer.startswith("listing refused"):
                answers["refused"] += 1
            else:
                assert "from your address" in answer, answer
                answers["capped"] += 1
    return answers


async def test_a_flood_from_40_addresses_leaves_a_real_host_visible(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    streams: list[trio.SocketStream] = []
    stop = trio.Event()
    identity = Identity.ephemeral().key
    fingerprint = Identity(identity, None).fingerprint
    with trio.fail_after(120):
        async with lobby_relay() as (server, port), trio.open_nursery() as nursery:
            answers = await _flood(port, streams)
            # 4 stored per address; the 41st address's real host comes last (the youngest).
            assert answers == {"stored": 160, "refused": 80, "capped": 82}
            assert server.stats["invalid_listings"] == 80

            async def host() -> None:
                await host_game(
                    bot(3),
                    identity=identity,
                    settings=GameSettings(
                        session=SessionOptions(name="real ana"), clocks=Clocks(turn_timeout=30)
                    ),
                    listen=Listen(bind="127.0.0.1", port=0, relay=("127.0.0.1", port), public=True),
                    storage=Storage(out_dir=tmp_path / "ana", fsync=False),
                    stop=stop,
                )

            started = time.monotonic()
            nursery.start_soon(host)
            while True:
                answer = await fetch_lobby_answer(("127.0.0.1", port))
                if any(g.listing.name == "real ana" for g in answer.games):
                    break
                await trio.sleep(0.02)
            appeared = time.monotonic() - started
            assert not answer.notes
            assert (answer.held, answer.matching, answer.shown) == (161, 161, 64)
            print(f"FIGURES held={answer.held} shown={answer.shown} appeared={appeared:.3f}s")
            # What `truc-p2p lobby --json` says, and the filters, by name and key.
            for extra, shown in (
                ((), 64),
                (("--name", "REAL"), 1),
                (("--fingerprint", fingerprint[:12].upper()), 1),
            ):
                capsys.readouterr()
                argv = ["lobby", f"127.0.0.1:{port}", "--json", *extra]
                status = await trio.to_thread.run_sync(cli_main, argv)
                captured = capsys.readouterr()
                assert status == 0, captured.err
                out = json.loads(captured.out)
                assert out["listings_held"] == 161 and out["listings_shown"] == shown
                assert "real ana" in [g["name"] for g in out["games"]]
                assert len(out["games"]) == shown
            capsys.readouterr()
            argv = ["lobby", f"127.0.0.1:{port}"]
            assert await trio.to_thread.run_sync(cli_main, argv) == 0
            captured = capsys.readouterr()
            assert len(captured.out.splitlines()) == 64 and "real ana  " in captured.out
            assert "the relay holds 161 games and showed 64" in captured.err
            # Every address has its first game in the answer: no address is left out.
            groups = {g.listing.name.split()[1] for g in answer.games if "junk" in g.listing.name}
            assert groups == set(FLOODERS)
            stop.set()
            for stream in streams:
                await stream.aclose()
    with capsys.disabled():
        print(f"\nlobby flood: held 161, shown 64, real host visible after {appeared:.3f} s")


def test_an_ipv6_56_counts_as_one_address_and_a_48_as_one_block() -> None:
    """Unit level, fabricated address strings: every per-address limit groups a /56
    (a home's usual delegation: 256 /64s), the lobby's ranking a /48."""
    a = address_key("2001:db8:1:200::1")
    assert a == address_key("2001:db8:1:2ff:ffff:ffff:ffff:ffff") == "2001:db8:1:200::/56"
    assert a != address_key("2001:db8:1:300::1")
    assert address_key("::ffff:192.0.2.7") == address_key("192.0.2.7") == "192.0.2.7"
    assert address_key("fe80::1%eth0") == "fe80::/56"
    assert address_block("2001:db8:1:200::1") == address_block("2001:db8:1:ff00::1")
    assert address_block("2001:db8:1::1") == "2001:db8:1::/48" != address_block("2001:db8:2::1")
    assert address_block("192.0.2.7") == "192.0.2.7"


class _Reg:
    """Just what the relay's listing bookkeeping reads of a registration."""

    def __init__(self, code: str, peer: str, at: float) -> None:
        self.code, self.listed_at = code, at
        self.ip, self.block = address_key(peer), address_block(peer)  # as handle() derives
        self.listing: bytes | None = None
        self.parsed: LobbyListing | None = None
        self.renewed = 0.0


def _list_fake(server: RelayServer, peer: str, i: int, name: str) -> tuple[_Reg, str]:
    code = f"{i:016x}"[-16:]
    reg = _Reg(code, peer, float(i))
    server._registrations[code] = reg  # type: ignore[assignment]
    return reg, server.lobby.list_game(reg, _signed(code, name))  # type: ignore[arg-type]


async def test_listings_from_one_ipv6_56_are_capped_as_one_address() -> None:
    """256 hosts at 256 addresses of one /64 take 4 places of the lobby, not 256; a
    host of another /56 still lists and is shown first-round."""
    server = RelayServer(RelayLimits(max_lobby_games=8), rng=random.Random(1))
    stored = [
        _list_fake(server, f"2001:db8:0:700::{i:x}", i, f"flood {i}")[1] == "" for i in range(256)
    ]
    assert sum(stored) == 4 and stored[:4] == [True] * 4
    other, answer = _list_fake(server, "2001:db8:1:800::1", 300, "real bea")
    assert answer == ""
    ranked, held, matching = server.lobby.ranked(LobbyFilter())
    assert (held, matching) == (5, 5)
    assert {r.ip for r in ranked[:2]} == {"2001:db8:0:700::/56", "2001:db8:1:800::/56"}
    ranked, _, matching = server.lobby.ranked(LobbyFilter(name="bea"))
    assert matching == 1 and ranked == [other]  # type: ignore[comparison-overlap]


async def test_one_household_56_cannot_fill_the_lobby_from_its_256_64s() -> None:
    """Issue 46: one game from each of the 256 /64s of one /56 (a usual ISP
    delegation) filled the lobby, and every new host was refused "lobby full"."""
    server = RelayServer(rng=random.Random(2))
    answers = [
        _list_fake(server, f"2001:db8:5:42{i:02x}::7", i, f"home {i}")[1] for i in range(256)
    ]
    assert sum(a == "" for a in answers) == 4
    assert all("too many games listed from your address" in a for a in answers[4:])
    for n in range(20):  # other homes still list
        _, answer = _list_fake(server, f"2001:db8:6:{n:x}00::1", 1000 + n, f"host {n}")
        assert answer == ""


async def test_one_48_of_256_groups_cannot_fill_the_lobby_nor_an_answer() -> None:
    """A /48 (a business, a tunnel broker's user) lists one game from each of its 256
    /56s and fills the lobby: a newcomer from elsewhere takes the oldest of them, and
    the answer ranks the /48 as one block, so the newcomer is in the first round."""
    server = RelayServer(RelayLimits(max_lobby_games=8), rng=random.Random(3))
    answers = [_list_fake(server, f"2001:db8:9:{i:02x}00::1", i, f"f {i}")[1] for i in range(256)]
    assert all(a == "" for a in answers)  # 256 groups of one each: the lobby is full
    real, answer = _list_fake(server, "2001:db8:77::1", 500, "real cai")
    assert answer == ""
    assert server.stats["evicted_listings"] == 1
    ranked, held, _ = server.lobby.ranked(LobbyFilter())
    assert held == 256
    assert real in ranked[:2]  # type: ignore[comparison-overlap]


class _Unfiltering(RelayServer):
    """A relay that predates filters: a non-empty LOBBY closes the connection, and END
    carries only the count held."""

    async def _lobby(self, stream: trio.SocketStream, body: bytes) -> None:
        if body:
            raise RelayProtocolError("trailing bytes in LOBBY")
        ranked, held, _ = self.lobby.ranked(LobbyFilter())
        out = bytearray()
        for reg in ranked:
            assert reg.listing is not None
            out += encode(
                Msg.GAME, bytes([len(reg.code)]) + reg.code.encode() + bytes(4) + reg.listing
            )
        await stream.send_all(bytes(out) + encode(Msg.END, held.to_bytes(2, "big")))


async def test_a_filter_works_with_a_relay_that_predates_filters() -> None:
    """connect.md 2.2: the joiner asks again without the filter and filters itself."""
    async with lobby_relay(server=_Unfiltering()) as (_, port):
        streams = []
        for i, name in enumerate(("ana", "bea", "Anabel")):
            stream, code = await register_host(port, bytes([i]) * 16)
            streams.append(stream)
            assert await _list_raw(stream, _signed(code, name)) == ""
        answer = await fetch_lobby_answer(("127.0.0.1", port), wanted=LobbyFilter(name="ANA"))
        assert sorted(g.listing.name for g in answer.games) == ["Anabel", "ana"]
        assert (answer.held, answer.matching, answer.shown) == (3, 3, 3)
        for stream in streams:
            await stream.aclose()
