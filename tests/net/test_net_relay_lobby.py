"""The lobby on the relay (``connect.md`` §2.2) over loopback TCP: public hosts
list signed games, a joiner lists them and plays one, the relay's bounds and
expiry hold, and a listing the relay altered is dropped by the joiner."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import trio
from helpers.net import bot, free_port
from helpers.relay import RestartableRelay, lobby_relay, raw_key, register_host

from truc_p2p.identity import Identity
from truc_p2p.net import (
    BotStrategy,
    Clocks,
    End,
    GameOutcome,
    GameSettings,
    Invite,
    Listen,
    ListingError,
    LobbyListing,
    RelayLimits,
    RelayServer,
    Reporting,
    Storage,
    fetch_lobby,
    host_game,
    join_game,
    open_rendezvous,
)
from truc_p2p.net._relay_wire import (
    Msg,
    RelayProtocolError,
    code_for_claim,
    encode,
    read_message,
)
from truc_p2p.protocol import SessionOptions, verify_transcript
from truc_p2p.rules import Action, Game, Ladder, Ruleset
from truc_p2p.transcript import read_transcript


async def _lobby_names(port: int) -> list[str]:
    games, notes = await fetch_lobby(("127.0.0.1", port))
    assert not notes
    return sorted(g.listing.name for g in games)


async def _list(stream: trio.SocketStream, code: str, name: str) -> str:
    """Send a validly signed listing on a raw control connection; the relay's answer."""
    key = Identity.ephemeral().key
    listing = LobbyListing(key=raw_key(key), addr=("127.0.0.1", 9), fields={"name": name})
    await stream.send_all(encode(Msg.LIST, listing.sign(key, code)))
    kind, body = await read_message(stream)
    assert kind == Msg.LISTED
    return body.decode()


async def test_a_joiner_lists_two_public_hosts_and_plays_one(tmp_path: Path) -> None:
    ids = {n: Identity.ephemeral().key for n in ("ana", "bea", "joe")}
    rules = {"ana": Ruleset(target=6), "bea": Ruleset(target=9, ladder=Ladder.EVEN)}
    outcomes: dict[str, GameOutcome] = {}
    stops = {n: trio.Event() for n in ("ana", "bea")}
    with trio.fail_after(60):
        async with lobby_relay() as (server, port), trio.open_nursery() as nursery:
            for n in ("ana", "bea"):

                async def host(n: str = n) -> None:
                    outcomes[n] = await host_game(
                        bot(3),
                        identity=ids[n],
                        settings=GameSettings(
                            session=SessionOptions(ruleset=rules[n], name=n),
                            clocks=Clocks(turn_timeout=30),
                        ),
                        listen=Listen(
                            bind="127.0.0.1", port=0, relay=("127.0.0.1", port), public=True
                        ),
                        storage=Storage(out_dir=tmp_path / n, fsync=False),
                        stop=stops[n],
                    )

                nursery.start_soon(host)
            while await _lobby_names(port) != ["ana", "bea"]:
                await trio.sleep(0.05)
            games, _ = await fetch_lobby(("127.0.0.1", port))
            listed = {g.listing.name: g for g in games}
            ana = listed["ana"]
            assert ana.invite.fingerprint == Identity(ids["ana"], None).fingerprint
            assert ana.invite.relay == ("127.0.0.1", port) and ana.invite.code == ana.code
            assert ana.to_json()["target"] == 6 and ana.to_json()["match"] == 1
            assert listed["bea"].to_json()["ladder"] == "even"
            assert listed["bea"].to_json()["deck"] == "v2"
            outcomes["joe"] = await join_game(
                ana.invite,
                bot(4),
                identity=ids["joe"],
                settings=GameSettings(
                    session=SessionOptions(ruleset=rules["ana"], name="joe"),
                    clocks=Clocks(turn_timeout=30),
                ),
                storage=Storage(out_dir=tmp_path / "joe", fsync=False),
            )
            with trio.fail_after(20):
                while "ana" not in outcomes:
                    await trio.sleep(0.01)
            # ana's host is gone (its one game is over): only bea is left in the lobby.
            assert await _lobby_names(port) == ["bea"]
            stops["bea"].set()
            with trio.fail_after(10):
                while await _lobby_names(port):
                    await trio.sleep(0.05)
    for n in ("ana", "joe"):
        assert outcomes[n].end is End.FINISHED, outcomes[n].message
        transcript = outcomes[n].transcript
        assert transcript is not None and verify_transcript(read_transcript(transcript)).valid
    assert server.stats["listings"] == 2


async def test_a_listing_flood_from_one_address_is_bounded() -> None:
    limits = RelayLimits(max_listings_per_ip=3, max_listings=5)
    async with lobby_relay(limits) as (server, port):
        answers: dict[str, list[str]] = {}
        streams = []
        for source in ("127.0.0.2", "127.0.0.3", "127.0.0.4"):
            answers[source] = []
            for i in range(6):
                stream, code = await register_host(port, bytes([i, ord(source[-1])]) * 8, source)
                streams.append(stream)
                answers[source].append(await _list(stream, code, f"{source}-{i}"))
        assert answers["127.0.0.2"][:3] == ["", "", ""]
        assert all("from your address" in a for a in answers["127.0.0.2"][3:])
        assert answers["127.0.0.3"][:2] == ["", ""]  # the lobby holds 5 in all
        assert all("too many games listed" in a for a in answers["127.0.0.3"][2:])
        # A full lobby makes room for an address holding fewer: the oldest listing of
        # the address holding the most (127.0.0.2, 3 against 0) goes, once.
        assert answers["127.0.0.4"][0] == ""
        assert all("too many games listed" in a for a in answers["127.0.0.4"][1:])
        names = await _lobby_names(port)
        assert len(names) == 5 and "127.0.0.2-0" not in names and "127.0.0.4-0" in names
        assert server.stats["refused_listings"] == 12
        assert server.stats["evicted_listings"] == 1
        # One flooder leaving frees its places for others.
        for stream in streams[:6]:
            await stream.aclose()
        with trio.fail_after(5):
            while len(await _lobby_names(port)) != 3:
                await trio.sleep(0.05)
        stream, code = await register_host(port, b"\x07" * 16, "127.0.0.4")
        assert await _list(stream, code, "late") == ""
        await stream.aclose()
        for stream in streams:
            await stream.aclose()


async def test_a_stale_listing_disappears() -> None:
    """Not renewed within the TTL: gone though the registration lives; renewed by
    PING: stays; the host's connection closed: gone at once."""
    async with lobby_relay(RelayLimits(listing_ttl=0.5)) as (_, port):
        silent, code = await register_host(port, b"\x01" * 16)
        assert await _list(silent, code, "silent") == ""
        pinging, code = await register_host(port, b"\x02" * 16)
        assert await _list(pinging, code, "pinging") == ""
        leaving, code = await register_host(port, b"\x03" * 16)
        assert await _list(leaving, code, "leaving") == ""
        assert await _lobby_names(port) == ["leaving", "pinging", "silent"]
        await leaving.aclose()
        await trio.sleep(0.1)
        assert await _lobby_names(port) == ["pinging", "silent"]
        for _ in range(5):
            await trio.sleep(0.2)
            await pinging.send_all(encode(Msg.PING))
            assert (await read_message(pinging))[0] == Msg.PONG
        assert await _lobby_names(port) == ["pinging"]
        # The silent host is still registered (only its listing expired) and may list again.
        assert await _list(silent, code_for_claim(b"\x01" * 16), "silent") == ""
        assert await _lobby_names(port) == ["pinging", "silent"]
        # An empty LIST takes the game off the lobby.
        await pinging.send_all(encode(Msg.LIST))
        assert await read_message(pinging) == (Msg.LISTED, b"")
        assert await _lobby_names(port) == ["silent"]
        await silent.aclose()
        await pinging.aclose()


class _Tampering(RelayServer):
    """A relay that renames a listed game after it checked it (an honest relay checks
    what it stores; the joiner checks what it is shown)."""

    def _list(self, reg: object, listing: bytes) -> str:
        answer = super()._list(reg, listing)  # type: ignore[arg-type]
        stored = getattr(reg, "listing", None)
        if stored is not None:
            reg.listing = stored.replace(b"name=ana", b"name=eve")  # type: ignore[attr-defined]
        return answer


async def test_a_tampered_listing_is_dropped_with_a_note() -> None:
    async with lobby_relay(server=_Tampering()) as (_, port):
        ana, code = await register_host(port, b"\x01" * 16)
        assert await _list(ana, code, "ana") == ""
        bob, code = await register_host(port, b"\x02" * 16)
        assert await _list(bob, code, "bob") == ""
        games, notes = await fetch_lobby(("127.0.0.1", port))
        assert [g.listing.name for g in games] == ["bob"]
        assert notes == ["dropped a listing: the listing's signature does not hold"]
        await ana.aclose()
        await bob.aclose()


def test_a_listing_is_bound_to_its_code_and_key() -> None:
    key = Identity.ephemeral().key
    listing = LobbyListing(key=raw_key(key), addr=("10.0.0.1", 4455), fields={"name": "ana"})
    signed = listing.sign(key, "abcd2345abcd2345")
    assert LobbyListing.verify(signed, "abcd2345abcd2345") == listing
    with pytest.raises(ListingError):  # another code: a relay replaying it elsewhere
        LobbyListing.verify(signed, "abcd2345abcd2346")
    other = Identity.ephemeral().key  # another key with the same signature
    with pytest.raises(ListingError):
        LobbyListing.verify(raw_key(other) + signed[32:], "abcd2345abcd2345")
    with pytest.raises(ListingError):
        LobbyListing.verify(signed[:-1], "abcd2345abcd2345")
    invite = Invite("10.0.0.1", 4455, listing.fingerprint, relay=("r.example", 1), code="abcd")
    assert invite.fingerprint == listing.fingerprint


class _NoLobby(RelayServer):
    """A relay from before the lobby: a LIST is a protocol error that closes the host."""

    def _list(self, reg: object, listing: bytes) -> str:
        raise RelayProtocolError("a host may only send PING")


async def test_a_relay_without_a_lobby_keeps_the_host_registered_unlisted() -> None:
    notices: list[str] = []
    key = Identity.ephemeral().key
    with trio.fail_after(15):
        async with (
            lobby_relay(server=_NoLobby()) as (server, port),
            open_rendezvous(("127.0.0.1", port), on_notice=notices.append) as rendezvous,
        ):
            listing = LobbyListing(key=raw_key(key), addr=("127.0.0.1", 9), fields={"name": "a"})
            await rendezvous.set_listing(listing.sign(key, rendezvous.code))
            while rendezvous.registrations < 2:
                await trio.sleep(0.05)
            await trio.sleep(0.3)
            assert rendezvous.no_lobby and rendezvous.lost is None
            assert any("without a lobby" in n for n in notices), notices
            await rendezvous.set_listing(listing.sign(key, rendezvous.code))  # not again
            await trio.sleep(0.3)
            assert rendezvous.registrations == 2 and server.stats["registrations"] == 2


async def test_a_host_is_listed_again_after_the_relay_restarts() -> None:
    """The listing is part of the registration: a restarted relay gets it back
    with the code (same claim), without the host doing anything."""
    key = Identity.ephemeral().key
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            relay = RestartableRelay(nursery, free_port())
            await relay.start()
            async with open_rendezvous(("127.0.0.1", relay.port)) as rendezvous:
                listing = LobbyListing(
                    key=raw_key(key), addr=("127.0.0.1", 9), fields={"name": "ana"}
                )
                await rendezvous.set_listing(listing.sign(key, rendezvous.code))
                while await _lobby_names(relay.port) != ["ana"]:
                    await trio.sleep(0.05)
                relay.kill()
                await trio.sleep(0.2)
                await relay.start()
                assert await _lobby_names(relay.port) == []
                while await _lobby_names(relay.port) != ["ana"]:
                    await trio.sleep(0.1)
                games, _ = await fetch_lobby(("127.0.0.1", relay.port))
                assert games[0].code == rendezvous.code
                await rendezvous.set_listing(None)
                assert await _lobby_names(relay.port) == []
            nursery.cancel_scope.cancel()


class _Peek:
    """The joiner's bot, which looks at the lobby at its first move (for up to 5 s,
    its opponent waiting: the host is listed all along unless it took its game off)."""

    def __init__(self, inner: BotStrategy, port: int) -> None:
        self.inner, self.port = inner, port
        self.seen: list[str] | None = None

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        if self.seen is None:  # the host's empty LIST may still be on its way
            with trio.move_on_after(5):
                while self.seen != []:
                    self.seen = await _lobby_names(self.port)
                    await trio.sleep(0.05)
        return await self.inner.choose(game, legal)


async def test_a_host_playing_its_game_is_off_the_lobby(tmp_path: Path) -> None:
    key, joe = Identity.ephemeral().key, Identity.ephemeral().key
    outcome: list[GameOutcome] = []
    with trio.fail_after(60):
        async with lobby_relay() as (_, port), trio.open_nursery() as nursery:

            async def host() -> None:
                outcome.append(
                    await host_game(
                        bot(3),
                        identity=key,
                        settings=GameSettings(
                            session=SessionOptions(name="ana"), clocks=Clocks(turn_timeout=30)
                        ),
                        listen=Listen(
                            bind="127.0.0.1", port=0, relay=("127.0.0.1", port), public=True
                        ),
                        storage=Storage(out_dir=None),
                    )
                )

            nursery.start_soon(host)
            while await _lobby_names(port) != ["ana"]:
                await trio.sleep(0.05)
            games, _ = await fetch_lobby(("127.0.0.1", port))
            peek = _Peek(bot(4), port)
            mine = await join_game(
                games[0].invite, peek, identity=joe, storage=Storage(out_dir=None)
            )
            assert mine.end is End.FINISHED, mine.message
            assert peek.seen == []


async def test_a_forever_host_is_listed_again_after_each_game() -> None:
    key, joe = Identity.ephemeral().key, Identity.ephemeral().key
    stop = trio.Event()
    outcomes: list[GameOutcome] = []
    with trio.fail_after(60):
        async with lobby_relay() as (server, port), trio.open_nursery() as nursery:

            async def host() -> None:
                await host_game(
                    bot(3),
                    identity=key,
                    settings=GameSettings(
                        session=SessionOptions(name="ana"), clocks=Clocks(turn_timeout=30)
                    ),
                    listen=Listen(
                        bind="127.0.0.1",
                        port=0,
                        relay=("127.0.0.1", port),
                        public=True,
                        forever=True,
                    ),
                    storage=Storage(out_dir=None),
                    report=Reporting(on_outcome=outcomes.append),
                    stop=stop,
                )

            nursery.start_soon(host)
            for n in range(2):
                while await _lobby_names(port) != ["ana"]:
                    await trio.sleep(0.05)
                games, _ = await fetch_lobby(("127.0.0.1", port))
                mine = await join_game(
                    games[0].invite, bot(4 + n), identity=joe, storage=Storage(out_dir=None)
                )
                assert mine.end is End.FINISHED, mine.message
            while len(outcomes) < 2:
                await trio.sleep(0.05)
            while await _lobby_names(port) != ["ana"]:
                await trio.sleep(0.05)
            stop.set()
    assert server.stats["listings"] == 3


async def test_lobby_and_join_name_a_dropped_listing_in_one_line() -> None:
    from truc_p2p.cli._lobby import fetch
    from truc_p2p.cli._lobby_words import describe_game

    async with lobby_relay(server=_Tampering()) as (_, port):
        ana, code = await register_host(port, b"\x01" * 16)
        assert await _list(ana, code, "ana") == ""
        bob, code = await register_host(port, b"\x02" * 16)
        assert await _list(bob, code, "bob") == ""
        out = io.StringIO()
        games = await trio.to_thread.run_sync(fetch, ("127.0.0.1", port), 5.0, "lobby", out)
        assert games is not None and [g.listing.name for g in games] == ["bob"]
        assert out.getvalue() == (
            "truc-p2p lobby: dropped a listing: the listing's signature does not hold\n"
        )
        line = describe_game(games[0])
        assert line.startswith("bob  ") and "  key " in line and "ladder" not in line
        await ana.aclose()
        await bob.aclose()
