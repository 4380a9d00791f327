"""The site's lobby card (connect.md 2.2): the page asks the relay for its open games,
with the desktop's own parser and listing-signature check, and joins one as its invite."""

from __future__ import annotations

import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import LIMIT, start_host
from helpers.page import PagePlayer, Relay, TcpWorker, new_app, run_page

from truc_p2p.crypto import SigningKey
from truc_p2p.net._listing import LobbyListing, listing_fields
from truc_p2p.net._relay_wire import MAGIC, Msg, encode
from truc_p2p.page._relay import LobbyQuery, RelayRefused
from truc_p2p.protocol import verify_transcript
from truc_p2p.transcript import read_transcript

RELAY = ("127.0.0.1", 7000)


def _game_body(code: str, listing: bytes, waiting: int = 65) -> bytes:
    return bytes([len(code)]) + code.encode() + struct.pack("!I", waiting) + listing


def _listing(name: str = "ana", match: int = 3) -> LobbyListing:
    fields = listing_fields(
        name=name, ruleset={}, audit="game", deck="v2", pipeline=None, early=None, match=match
    )
    return LobbyListing(key=b"", addr=("127.0.0.1", 5000), fields=fields)


def _signed(listing: LobbyListing, key: SigningKey, code: str) -> bytes:
    from dataclasses import replace

    return replace(listing, key=key.public_key().to_bytes()).sign(key, code)


def test_the_query_keeps_signed_listings_and_drops_forged_ones() -> None:
    key = SigningKey.from_bytes(bytes(range(32)))
    good = _signed(_listing("ana"), key, "abc123")
    forged = _signed(_listing("eve"), key, "other1")  # signed for another code
    query = LobbyQuery(RELAY)
    assert query.first == MAGIC + encode(Msg.LOBBY)
    stream = (
        encode(Msg.GAME, _game_body("abc123", good))
        + encode(Msg.GAME, _game_body("zzz999", forged))
        + encode(Msg.END, struct.pack("!HH", 2, 2))
    )
    assert query.feed(stream[:7]) is None  # a message cut anywhere waits for the rest
    answer = query.feed(stream[7:])
    assert answer is not None
    assert [g.listing.name for g in answer.games] == ["ana"]
    assert answer.notes == ["dropped a listing: the listing's signature does not hold"]
    (game,) = answer.games
    assert game.invite.code == "abc123" and game.invite.relay == RELAY
    assert game.invite.fingerprint == game.listing.fingerprint


def test_the_query_refuses_an_error_and_the_app_says_one_line() -> None:
    query = LobbyQuery(RELAY)
    with pytest.raises(RelayRefused, match="busy"):
        query.feed(encode(Msg.ERROR, b"busy"))
    player = PagePlayer(new_app(relay="127.0.0.1:9"), seed=1)
    player.call({"type": "hello", "lang": "en"}, 0.0)
    player.call({"type": "lobby"}, 0.0)
    ((socket, relay),) = player.opened
    assert relay == "127.0.0.1:9" and player.sent[socket] == [query.first]
    player.take(player.app.closed(socket, 0.0))  # the relay is down
    (said,) = player.texts("lobby")
    assert said == {"type": "lobby", "error": "the relay 127.0.0.1:9 cannot be reached"}


def test_the_app_lists_games_with_their_settings_line() -> None:
    key = SigningKey.from_bytes(bytes(range(1, 33)))
    player = PagePlayer(new_app(relay="127.0.0.1:7000"), seed=1)
    player.call({"type": "hello", "lang": "en"}, 0.0)
    player.call({"type": "lobby"}, 0.0)
    ((socket, _relay),) = player.opened
    body = _game_body("abc123", _signed(_listing("<b>ana</b>"), key, "abc123"), waiting=125)
    stream = encode(Msg.GAME, body) + encode(Msg.END, struct.pack("!HH", 1, 1))
    player.take(player.app.receive(socket, stream, 0.0))
    (said,) = player.texts("lobby")
    (game,) = said["games"]
    assert game["name"] == "<b>ana</b>"  # as given: app.js puts it in as text
    assert game["settings"] == "first to 12 · match of 3 games"
    assert game["waiting"] == "waiting 2:05"
    assert game["invite"].startswith("truc://") and "abc123" in game["invite"]
    assert socket in player.closed


@pytest.fixture
def relay(tmp_path: Path) -> Iterator[Relay]:
    r = Relay(tmp_path)
    try:
        yield r
    finally:
        r.stop()


@pytest.mark.slow
def test_the_page_lists_a_public_desktop_host_and_joins_it(tmp_path: Path, relay: Relay) -> None:
    host = start_host(
        tmp_path, "--relay", relay.address, "--public", "--name", "ana", "--bot", "random",
        "--seed", "1", "--timeout", "30", "--identity", "h.key", "--out", "h",
    )  # fmt: skip
    player = PagePlayer(new_app(relay=relay.address), seed=2)
    player.call({"type": "hello", "lang": "en"}, time.monotonic())
    worker = TcpWorker(player, ("127.0.0.1", relay.port))
    try:
        games: list[dict[str, Any]] = []
        end = time.monotonic() + 20
        while not games and time.monotonic() < end:  # the listing follows the register
            asked = len(player.texts("lobby"))
            player.call({"type": "lobby"}, time.monotonic())
            run_page([(player, worker)], until=lambda n=asked: len(player.texts("lobby")) > n)
            games = player.texts("lobby")[-1].get("games", [])
        (game,) = games
        assert game["name"] == "ana"
        assert game["settings"] == "first to 12"
        player.call({"type": "join", "invite": game["invite"]}, time.monotonic())
        run_page([(player, worker)], until=lambda: player.final is not None, timeout=LIMIT)
        status, out, err = host.finish()
    finally:
        worker.close()
    assert player.final is not None
    assert player.final["outcome"] == "finished", player.final
    assert status == 0, out + err
    (path,) = (tmp_path / "h").glob("*.truc")
    assert read_transcript(path) == player.app.envelopes
    assert verify_transcript(player.app.envelopes).valid
    assert verify_transcript(read_transcript(path)).valid
