"""The replay, history and lobby pages speak the browser's language (its
``Accept-Language``) unless ``--lang`` was given, and their language menu switches:
checked at the WebSocket, no browser needed."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import trio
from helpers.history import P0, P1, story_game
from wsproto import ConnectionType, WSConnection
from wsproto.events import Request, TextMessage

from truc_p2p.cli._lobby_web import LobbyPage
from truc_p2p.i18n import LANGUAGES, current, use_language
from truc_p2p.ui._web._server import bind_table, serve_table

LIMIT = 60


async def _talk(
    port: int, token: str, accept: str, send: list[dict[str, Any]], expect: int = 0
) -> list[Any]:
    """Connect to the page's WebSocket as a browser asking for ``accept``; send ``send``
    after the first message and return the messages received (``expect`` of them, or
    one more than sent)."""
    host = f"127.0.0.1:{port}"
    got: list[Any] = []
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        ws = WSConnection(ConnectionType.CLIENT)
        headers = [(b"Origin", f"http://{host}".encode()), (b"Accept-Language", accept.encode())]
        target = f"/ws?token={token}"
        await stream.send_all(ws.send(Request(host=host, target=target, extra_headers=headers)))
        with trio.fail_after(20):
            while len(got) < (expect or 1 + len(send)):
                ws.receive_data(await stream.receive_some(1 << 20))
                for event in ws.events():
                    if isinstance(event, TextMessage):
                        got.append(json.loads(event.data))
                        if len(got) == 1:
                            for message in send:
                                await stream.send_all(ws.send(TextMessage(json.dumps(message))))
    return got


def talk(url: str, accept: str, *send: dict[str, Any], expect: int = 0) -> list[Any]:
    found = re.search(r"http://127\.0\.0\.1:(\d+)/\S*\?token=([\w-]+)", url)
    assert found, url
    return trio.run(_talk, int(found.group(1)), found.group(2), accept, list(send), expect)


def serve(*args: str) -> tuple[subprocess.Popen[str], str, threading.Timer]:
    """``truc-p2p ARGS --web --no-browser`` and the URL it printed."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "truc_p2p.cli", *args, "--web", "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    timer = threading.Timer(LIMIT, proc.kill)
    timer.start()
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"http://\S+", line)
    assert found, line
    return proc, found.group(0), timer


def stop(proc: subprocess.Popen[str], timer: threading.Timer) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        _out, err = proc.communicate(timeout=10)
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0 and "Traceback" not in err, err


def test_history_page_follows_the_browser(tmp_path: Path) -> None:
    games = tmp_path / "games"
    story_game({P0: games, P1: tmp_path / "b"}, stamp="20261201-100000", tag="one")
    proc, url, timer = serve("games", str(games))
    try:
        (listing,) = talk(url, "fr-CH, fr;q=0.9, en;q=0.5")
        assert listing["type"] == "games" and listing["menu"]["lang"] == "fr"
        assert listing["labels"]["replay"] == "revoir"
        assert [x["code"] for x in listing["menu"]["languages"]] == list(LANGUAGES)
        # another browser, another language; a replay opened from the list follows it
        listing, replay = talk(url, "uk", {"type": "open", "game": 0})
        assert listing["menu"]["lang"] == "uk" and replay["menu"]["lang"] == "uk"
        assert replay["labels"]["next"] == "далі ▶"
        # the menu: the list and the open replay again, in Catalan; it sticks
        _listing, listing, replay = talk(url, "es", {"type": "lang", "lang": "ca"}, expect=3)
        assert listing["menu"]["lang"] == "ca" and replay["menu"]["lang"] == "ca"
        (listing,) = talk(url, "es")
        assert listing["menu"]["lang"] == "ca"
    finally:
        stop(proc, timer)


def test_replay_page_follows_the_browser_unless_lang_was_given(tmp_path: Path) -> None:
    story = story_game({P0: tmp_path / "alice", P1: tmp_path / "bob"})
    proc, url, timer = serve("replay", str(story.paths[P0]))
    try:
        (replay,) = talk(url, "gd")
        assert replay["menu"]["lang"] == "gd" and replay["labels"]["next"] != "next ▶"
        english = talk(url, "en")[0]
        assert english["labels"]["next"] == "next ▶"
        assert len(english["steps"]) == len(replay["steps"])
        assert english["steps"][-1]["lines"] != replay["steps"][-1]["lines"]  # told again
    finally:
        stop(proc, timer)
    proc, url, timer = serve("replay", str(story.paths[P0]), "--lang", "et")
    try:
        (replay,) = talk(url, "fr")
        assert replay["menu"]["lang"] == "et"  # --lang decides, not the browser
        _first, replay = talk(url, "fr", {"type": "lang", "lang": "fr"})
        assert replay["menu"]["lang"] == "fr" and replay["labels"]["next"] == "suivant ▶"
    finally:
        stop(proc, timer)


async def test_lobby_page_follows_the_browser() -> None:
    page = LobbyPage(("127.0.0.1", 9), "127.0.0.1:9")
    async with serve_table(page, await bind_table(0)) as server:
        page.server = server
        args = (server.port, server.token)
        (lobby,) = await _talk(*args, "oc, fr;q=0.8", [])
        assert lobby["type"] == "lobby" and lobby["menu"]["lang"] == "oc"
        assert lobby["labels"]["join"] != "join" and lobby["status"] != "asking the relay…"
        (lobby,) = await _talk(*args, "en-GB", [])
        assert lobby["labels"]["join"] == "join" and lobby["status"] == "asking the relay…"
        _first, lobby = await _talk(*args, "en", [{"type": "lang", "lang": "is"}])
        assert lobby["menu"]["lang"] == "is" and current() == "is"
        (lobby,) = await _talk(*args, "fr", [])  # the menu's choice sticks
        assert lobby["menu"]["lang"] == "is"
    pinned = LobbyPage(("127.0.0.1", 9), "127.0.0.1:9", lang_pinned=True)  # --lang
    use_language("uk")
    pinned.greet("fr")
    assert current() == "uk" and pinned.snapshot()[0]["menu"]["lang"] == "uk"


def test_the_menus_in_a_browser(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    """The history page in the browser's language, switched with its menu; a replay
    opened from it speaks the new language and switches again on the same step."""
    from helpers.web import new_page

    games = tmp_path / "games"
    story_game({P0: games, P1: tmp_path / "b"}, stamp="20261201-100000", tag="one")
    proc, url, timer = serve("games", str(games))
    try:
        page = new_page(browser, width=390, height=844)
        page.set_extra_http_headers({"Accept-Language": "gu"})
        page.goto(url)
        page.wait_for_function("document.body.dataset.ready === '1'")
        menu = page.locator("#lang-menu")
        assert menu.is_visible() and menu.input_value() == "gu"
        page.screenshot(path=artifacts / "i18n-history-gu-390px.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        menu.select_option("fr")
        page.wait_for_function("document.documentElement.lang === 'fr'")
        page.locator("#title").filter(has_text="vos parties").wait_for()
        page.locator("a.replay").first.click()
        page.wait_for_function("document.body.dataset.step === '0'")
        assert page.locator("#next").inner_text() == "suivant ▶"
        page.click("#next")
        page.wait_for_function("document.body.dataset.step === '1'")
        page.locator("#lang-menu").select_option("uk")
        page.wait_for_function("document.getElementById('next').textContent === 'далі ▶'")
        assert page.evaluate("document.body.dataset.step") == "1"
        page.screenshot(path=artifacts / "i18n-replay-uk-390px.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert page.errors == []
    finally:
        stop(proc, timer)
