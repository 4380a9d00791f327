"""``join --nostr URL --web``: the lobby page fed by the Nostr relays (connect.md §10),
its join button naming a game listed without a relay by its key fingerprint."""

from __future__ import annotations

import socket
from functools import partial

import trio

from truc_p2p.cli._lobby_web import LobbyPage, pick_id
from truc_p2p.cli._nostr_lobby import fetch_for_page
from truc_p2p.crypto import SigningKey
from truc_p2p.net import LobbyGame
from truc_p2p.net._lobby import LobbyListing
from truc_p2p.net._nostr import ListedRelay, listing_event, nostr_key_for, verify_listing_event

NOW = 1_700_000_000


def _game(name: str, **relay: object) -> LobbyGame:
    identity = SigningKey.generate()
    listing = LobbyListing(
        key=identity.public_key().to_bytes(),
        addr=("127.0.0.1", 4455),
        fields={"name": name, "target": "12", "match": "1"},
    )
    event = listing_event(
        nostr_key_for(identity), identity, listing, now=NOW, lifetime=600, aux=b"", **relay
    )
    return verify_listing_event(event.to_json(), now=NOW + 5)[1]


async def test_the_page_lists_nostr_games_and_joins_one_by_fingerprint() -> None:
    direct = _game("ana")
    relayed = _game("bea", relay=ListedRelay(("relay.example.org", 4456), "45sjajpekleh2ojq"))
    assert pick_id(direct) == direct.listing.fingerprint and pick_id(relayed) == relayed.code

    async def fetch(timeout: float) -> tuple[list[LobbyGame], list[str], str | None]:
        return [direct, relayed], ["dropped a listing from ws://x: junk"], None

    page = LobbyPage(None, "ws://x ws://y", fetch=fetch)
    games, notes, problem = await page.fetch(1.0)
    page.show(games, notes, problem or "2 open games")
    rows = page.message["games"]
    assert [r["code"] for r in rows] == [direct.listing.fingerprint, relayed.code]
    assert page.message["notes"] == notes and "ws://x ws://y" in page.message["labels"]["title"]
    page.receive({"type": "join", "code": direct.listing.fingerprint[:16]})  # not a whole id
    assert page.picked is None
    page.receive({"type": "join", "code": direct.listing.fingerprint})
    assert page.picked is direct and page.picked_event.is_set()


async def test_a_page_look_with_every_relay_down_says_why() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = f"ws://127.0.0.1:{probe.getsockname()[1]}"
    with trio.fail_after(5):
        games, notes, problem = await partial(fetch_for_page, [dead])(1.0)
    assert games == [] and notes == [] and problem is not None
    assert problem.startswith(f"cannot reach the Nostr relay {dead}: ")
