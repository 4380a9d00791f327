"""The host's side of the Nostr lobby (connect.md §10.2) without relays: what it
publishes and when (a fake ``publish_event`` records it), and a relay that cannot be
reached costing one line within its timeout."""

from __future__ import annotations

import socket
from functools import partial
from typing import Any

import pytest
import trio
import trio.testing

from truc_p2p.crypto import SigningKey
from truc_p2p.net import NostrLister
from truc_p2p.net import _nostr_client as client
from truc_p2p.net._lobby import LobbyListing
from truc_p2p.net._nostr import DELETION_KIND, LISTING_KIND, NostrEvent, verify_listing_event


def _lister(urls: list[str], lines: list[str], now: list[float]) -> NostrLister:
    identity = SigningKey.generate()
    listing = LobbyListing(
        key=identity.public_key().to_bytes(),
        addr=("127.0.0.1", 4455),
        fields={"name": "ana", "target": "12", "match": "1"},
    )
    return NostrLister(
        identity, urls, listing, lifetime=600, timeout=1, on_line=lines.append,
        clock=lambda: now[0],
    )  # fmt: skip


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, NostrEvent]]:
    out: list[tuple[str, NostrEvent]] = []

    async def publish(url: str, event: NostrEvent, *, timeout: float) -> None:
        out.append((url, event))

    monkeypatch.setattr(client, "publish_event", publish)
    return out


async def test_listed_refreshed_then_deleted_and_silent(
    sent: list[tuple[str, NostrEvent]],
) -> None:
    now = [1_700_000_000.0]
    lines: list[str] = []
    lister = _lister(["ws://a", "ws://b"], lines, now)
    await lister.set_listed(True)
    await lister.set_listed(True)  # already listed: nothing more
    assert sorted((u, e.kind) for u, e in sent) == [
        ("ws://a", LISTING_KIND),
        ("ws://b", LISTING_KIND),
    ]
    first = sent[0][1]
    _, game = verify_listing_event(first.to_json(), now=int(now[0]))
    assert game.listing.name == "ana" and first.tag("expiration") == str(int(now[0]) + 600)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lister.refresh, 0.01)
        while len(sent) < 4:
            await trio.sleep(0.005)
        await lister.set_listed(False)  # the first card: the deletion, then silence
        count = len(sent)
        await trio.sleep(0.1)
        assert len(sent) == count
        nursery.cancel_scope.cancel()
    listings = [e for _, e in sent if e.kind == LISTING_KIND]
    # the clock did not move: each replacement is still newer than the one before
    stamps = sorted({e.created_at for e in listings})
    assert len(stamps) == len({e.id for e in listings}) >= 2
    deletions = [e for _, e in sent if e.kind == DELETION_KIND]
    assert len(deletions) == 2 and sent[-1][1].kind == DELETION_KIND
    tags = deletions[0].tags
    assert ["a", f"{LISTING_KIND}:{first.pubkey}:{game.listing.fingerprint}"] in tags
    assert ["e", first.id] in tags
    assert deletions[0].created_at > max(stamps)
    await lister.close()  # not listed: nothing
    assert sent[-1][1].kind == DELETION_KIND and len(deletions) == 2 and lines == []


async def test_an_unreachable_relay_costs_one_line_and_its_timeout() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = f"ws://127.0.0.1:{probe.getsockname()[1]}"
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        quiet = f"ws://127.0.0.1:{silent.getsockname()[1]}"
        lines: list[str] = []
        lister = _lister([dead, quiet], lines, [1_700_000_000.0])
        with trio.fail_after(3):
            await lister.set_listed(True)
    assert sorted(line.split(":", 2)[1] for line in lines) == sorted(
        [dead.split(":")[1], quiet.split(":")[1]]
    )
    assert len(lines) == 2 and any("no answer in time" in line for line in lines)


@pytest.mark.parametrize("url", ["http://x", "ws://", "relay.example", "wss://[::1"])
def test_a_relay_url_is_ws_or_wss(url: str) -> None:
    with pytest.raises(ValueError):
        client.check_relay_url(url)


def test_the_query_asks_for_listings_only() -> None:
    filt: dict[str, Any] = client.lobby_filter()
    assert filt == {"kinds": [LISTING_KIND], "limit": client.QUERY_LIMIT}


async def test_a_tls_relay_that_is_not_tls_is_one_nostr_error() -> None:
    async def handler(stream: trio.SocketStream) -> None:
        await stream.send_all(b"HTTP/1.1 400 Bad Request\r\n\r\nnot tls at all\r\n" * 4)
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        (listener,) = await nursery.start(partial(trio.serve_tcp, handler, 0, host="127.0.0.1"))
        port = listener.socket.getsockname()[1]
        with pytest.raises(client.NostrError, match="TLS"):
            await client.query_relay(f"wss://127.0.0.1:{port}", {}, timeout=3)
        with pytest.raises(client.NostrError, match=r"WebSocket|closed|connection"):
            await client.query_relay(f"ws://127.0.0.1:{port}", {}, timeout=3)
        nursery.cancel_scope.cancel()


async def _serve_ws(answers: list[Any], stream: trio.SocketStream) -> None:
    """A relay that completes the upgrade, reads one message, then sends ``answers``
    (text, or bytes as raw WebSocket frames)."""
    from wsproto import ConnectionType, WSConnection
    from wsproto.events import AcceptConnection, Message, Ping, Request, TextMessage

    ws = WSConnection(ConnectionType.SERVER)
    got_message = False
    while not got_message:
        data = await stream.receive_some(65536)
        if not data:
            return
        ws.receive_data(data)
        for event in ws.events():
            if isinstance(event, Request):
                await stream.send_all(ws.send(AcceptConnection()))
            elif isinstance(event, Message):
                got_message = True
    for answer in answers:
        if isinstance(answer, str):
            await stream.send_all(ws.send(TextMessage(data=answer)))
        elif answer == "ping":
            await stream.send_all(ws.send(Ping()))
        else:
            await stream.send_all(answer)
    await trio.sleep(5)


@pytest.mark.slow  # a second per case: several wait out the timeout
@pytest.mark.parametrize(
    "answers",
    [
        ["[" * 100_000],
        ["{}"],
        ['"text"'],
        ["[]"],
        ["[1, 2]"],
        ["not json"],
        ["x" * (client.MAX_MESSAGE + 10)],
        [b"\x82\x03abc"],  # a binary frame: ignored, then the relay falls silent
        [b"\x8f\x00"],  # a reserved opcode: a broken WebSocket
        ['["EVENT", "other", {}]', '["NOTICE", "hi"]'],
        ['["CLOSED", "%s", "no"]'],
    ],
    ids=lambda a: repr(a)[:24],
)
async def test_a_relay_answering_nonsense_is_one_nostr_error(answers: list[Any]) -> None:
    async with trio.open_nursery() as nursery:
        serve = partial(trio.serve_tcp, partial(_serve_ws, answers), 0, host="127.0.0.1")
        (listener,) = await nursery.start(serve)
        url = f"ws://127.0.0.1:{listener.socket.getsockname()[1]}"
        with pytest.raises(client.NostrError):
            await client.query_relay(url, {}, timeout=1)
        games, notes, down = await client.fetch_nostr_lobby([url], timeout=1)
        assert games == [] and notes == [] and len(down) == 1
        nursery.cancel_scope.cancel()


async def test_a_url_that_is_no_relay_is_one_line_too() -> None:
    lines: list[str] = []
    lister = _lister(["http://not-a-relay"], lines, [1_700_000_000.0])
    await lister.set_listed(True)
    games, notes, down = await client.fetch_nostr_lobby(["relay.example"], timeout=1)
    assert len(lines) == 1 and "ws:// or wss://" in lines[0]
    assert games == [] and notes == [] and len(down) == 1 and "ws:// or wss://" in down[0]
