"""The lobby page on a phone (390 px) in a real headless Chromium: each open game is
a card that wraps, its join button in view without scrolling sideways, the rules
in a player's words and the count of games in the right plural; with
``--no-browser`` the page does not promise a tab.  Screenshot:
``test-artifacts/web/lobby-phone.png``."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import trio
from helpers.web import new_page

from truc_p2p.cli._lobby_web import LobbyPage, status_words
from truc_p2p.i18n import use_language
from truc_p2p.identity import Identity
from truc_p2p.net import LobbyGame, LobbyListing
from truc_p2p.net._lobby import parse_game

#: what must hold at 390 px: the page does not scroll sideways, every join button
#: lies inside the window
PHONE_JS = """() => {
  const width = document.documentElement.clientWidth;
  const bad = [];
  if (document.documentElement.scrollWidth > width) bad.push("the page scrolls sideways");
  for (const b of document.querySelectorAll("button.join")) {
    const box = b.getBoundingClientRect();
    if (box.left < 0 || box.right > width) bad.push(`join at ${box.left}..${box.right}`);
  }
  return bad;
}"""


def _game(name: str, code: str, fields: dict[str, str], waited: int) -> LobbyGame:
    key = Identity.ephemeral().key
    raw = key.public_key().to_bytes()
    listing = LobbyListing(key=raw, addr=("127.0.0.1", 4455), fields={"name": name, **fields})
    body = bytes([len(code)]) + code.encode() + waited.to_bytes(4, "big") + listing.sign(key, code)
    return parse_game(body, ("127.0.0.1", 4456))


GAMES = [
    _game(
        "Maria-Dolors-de-Castellnou-i-Pallars",
        "abcd2345abcd2345",
        {"target": "12", "ladder": "literal", "rest": "game", "deck": "v2", "match": "1"},
        7,
    ),
    _game(
        "bea",
        "efgh2345efgh2345",
        {"target": "24", "ladder": "even", "rest": "value", "deck": "v2", "match": "3"},
        150,
    ),
]


def _serve(page: LobbyPage, ready: threading.Event, urls: list[str], done: threading.Event) -> None:
    from truc_p2p.ui import bind_table, serve_table

    async def main() -> None:
        listeners = await bind_table(0)
        async with serve_table(page, listeners) as server:
            page.server = server
            page.show(GAMES, [], status_words(len(GAMES), 5))
            urls.append(server.url.replace("/?token=", "/lobby.html?token="))
            ready.set()
            while not done.is_set():
                await trio.sleep(0.05)

    trio.run(main)


def test_the_lobby_fits_a_phone_and_speaks_a_players_words(browser: Any, artifacts: Path) -> None:
    page_model = LobbyPage(("127.0.0.1", 4456), "relay.example:4456", opens_tab=False)
    ready, done, urls = threading.Event(), threading.Event(), []
    thread = threading.Thread(target=_serve, args=(page_model, ready, urls, done), daemon=True)
    thread.start()
    try:
        assert ready.wait(10)
        page = new_page(browser, width=390, height=844)
        page.goto(urls[0])
        page.wait_for_function("document.querySelectorAll('#rows li').length === 2")
        assert page.evaluate(PHONE_JS) == []
        first = page.locator("#rows li").nth(0).inner_text()
        assert "to 12 points" in first and "refusing “my rest” loses the game" in first
        assert "single game" in first and "waiting for 7 seconds" in first
        assert "deck" not in first and "ladder" not in first  # no jargon
        second = page.locator("#rows li").nth(1).inner_text()
        assert "match of 3 games" in second and "raises go 1, 2, 4, 6, 8…" in second
        assert "waiting for 2 minutes" in second
        assert page.locator("#status").inner_text().startswith("2 open games")
        page.screenshot(path=artifacts / "lobby-phone.png", full_page=True)
        page.locator("#rows li", has_text="bea").locator("button.join").click()
        page.wait_for_function("document.getElementById('status').textContent.includes('bea')")
        status = page.locator("#status").inner_text()
        assert "new tab" not in status and "the terminal shows" in status
        assert page_model.picked is GAMES[1]
        assert page.errors == []
    finally:
        done.set()
        thread.join(10)


def test_one_open_game_is_singular_in_every_language() -> None:
    assert status_words(1, 5).startswith("1 open game,")
    assert status_words(2, 5).startswith("2 open games,")
    use_language("fr")
    one, two = status_words(1, 5), status_words(2, 5)
    use_language("en")
    assert one != two and "1" in one and "2" in two
