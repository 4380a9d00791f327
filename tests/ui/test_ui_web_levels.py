"""``play --web`` lets the player choose the bot's level: on a start panel before the
first game (no ``--bot`` given) and on the end screen for a rematch."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import trio
from helpers.web import OVERFLOWING_JS, new_page, play_to_the_end, play_web
from wsproto import ConnectionType, WSConnection
from wsproto.events import Request, TextMessage

from truc_p2p.cli._web import bot_level
from truc_p2p.i18n import use_language
from truc_p2p.ui import bot_player_name
from truc_p2p.ui._web import WebPlayer
from truc_p2p.ui._web._view import page_texts


class Recorder:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def publish(self, message: dict[str, Any]) -> None:
        json.dumps(message)
        self.messages.append(message)


def _args(*argv: str, bot: str = "medium") -> tuple[str, list[str]]:
    """The bot chosen and the command line, as ``bot_level`` takes them."""
    return bot, ["play", "--web", *argv]


def test_when_the_page_asks_for_the_level() -> None:
    assert bot_level(*_args(), WebPlayer("alice")) is True  # no --bot: the start panel
    player = WebPlayer("alice")
    assert bot_level(*_args("--bot", "hard", bot="hard"), player) is False
    assert player.level == "hard"  # ...but a rematch may change it
    assert bot_level(*_args("--bot=easy", bot="easy"), WebPlayer("alice")) is False
    thinking = WebPlayer("alice")  # --think: a bot that is no level, no choice at all
    assert bot_level(*_args("--think", "2", bot="expert:2s"), thinking) is False
    assert thinking.level is None
    assert bot_level(*_args(), WebPlayer("alice"), resumed=True) is False
    assert bot_level(*_args(), object()) is False  # the terminal: --bot decides
    levels = page_texts()["levels"]
    assert [x["code"] for x in levels] == ["easy", "medium", "hard", "strongest"]
    assert all(x["name"] and x["text"] for x in levels)


async def test_the_start_panel_and_the_rematch_choose_the_level() -> None:
    page = Recorder()
    player = WebPlayer("alice")
    player.publisher = page
    player.level = "medium"
    stop = trio.Event()
    chosen: list[bool] = []

    async def ask() -> None:
        chosen.append(await player.ask_level(stop))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(ask)
        await trio.sleep(0.05)
        assert page.messages[-1] == {"type": "levels", "ask": True, "level": "medium"}
        assert {"type": "levels", "ask": True, "level": "medium"} in player.snapshot()
        player.receive({"type": "level", "level": "grandmaster"})  # not a level: ignored
        await trio.sleep(0.3)
        assert not chosen
        player.receive({"type": "level", "level": "easy"})
    assert chosen == [True] and player.level == "easy"
    assert page.messages[-1] == {"type": "levels", "ask": False, "level": "easy"}
    assert not [m for m in player.snapshot() if m["type"] == "levels"]
    # leaving on the start panel: no level, no game
    stop.set()
    assert await player.ask_level(stop) is False

    # the end screen of a rematch offers the level, and takes the one sent with "again"
    player.finish({"headline": "You win!"})
    async with trio.open_nursery() as nursery:
        answers: list[bool] = []

        async def again() -> None:
            answers.append(await player.ask_again())

        nursery.start_soon(again)
        await trio.sleep(0.05)
        final = [m for m in page.messages if m["type"] == "final"][-1]
        assert final["again"] is True and final["level"] == "easy"
        player.receive({"type": "again", "yes": True, "level": "strongest"})
    assert answers == [True] and player.level == "strongest"
    # a match's next game keeps its bot
    player.finish({"headline": "You win!"})
    async with trio.open_nursery() as nursery:
        nursery.start_soon(partial(player.ask_again, next_game=True))
        await trio.sleep(0.05)
        final = [m for m in page.messages if m["type"] == "final"][-1]
        assert final["again"] == "next" and final["level"] is None
        player.receive({"type": "again", "yes": True, "level": "easy"})
    assert player.level == "strongest"


async def _choose_over_the_socket(url: str, level: str) -> dict[str, Any]:
    """A page (no browser) that answers the start panel with ``level``: the game's
    ``started`` as the page is told it."""
    found = re.search(r"http://(127\.0\.0\.1:(\d+))/\?token=([\w-]+)", url)
    assert found
    host, port, token = found.group(1), int(found.group(2)), found.group(3)
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        ws = WSConnection(ConnectionType.CLIENT)
        origin = [(b"Origin", f"http://{host}".encode())]
        request = Request(host=host, target=f"/ws?token={token}", extra_headers=origin)
        await stream.send_all(ws.send(request))
        with trio.fail_after(60):
            while True:
                ws.receive_data(await stream.receive_some(1 << 20))
                for event in ws.events():
                    if not isinstance(event, TextMessage):
                        continue
                    message = json.loads(event.data)
                    if message["type"] == "levels" and message["ask"]:
                        answer = {"type": "level", "level": level}
                        await stream.send_all(ws.send(TextMessage(json.dumps(answer))))
                    if message["type"] == "state" and message["started"]:
                        started: dict[str, Any] = message["started"]
                        return started


def test_the_level_chosen_on_the_page_is_the_bot(tmp_path: Path) -> None:
    with play_web(tmp_path, "--target", "2", "--seed", "3") as (proc, url):
        started = trio.run(_choose_over_the_socket, url, "hard")
        proc.kill()
        proc.communicate()
    assert started["opp"] == "hard-bot"
    (meta,) = (tmp_path / "games").glob("*.truc.meta.json")
    assert json.loads(meta.read_text())["bot"] == "hard"  # what resume rebuilds it from


def test_pick_a_level_and_another_for_the_rematch(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    with play_web(tmp_path, "--target", "2", "--seed", "3") as (proc, url):
        page = new_page(browser, width=390, height=844)
        page.set_extra_http_headers({"Accept-Language": "gu"})
        page.goto(url)
        page.locator("#start").wait_for(state="visible")
        page.wait_for_function("document.documentElement.lang === 'gu'")
        assert page.locator("#start-levels label").count() == 4
        page.screenshot(path=artifacts / "levels-1-start-gu-390px.png")
        assert page.evaluate(OVERFLOWING_JS) == []
        page.click("#start-levels label[data-level='easy']")
        page.click("#start-go")
        page.locator("#start").wait_for(state="hidden")
        play_to_the_end(page)
        # the bot is named in the player's language, the page's (Gujarati) here
        assert page.evaluate("window.truc.state.started.opp") == _named("easy", "gu")
        page.locator("#final-again").wait_for(state="visible")
        box = page.locator("#final-level-box")
        assert box.is_visible() and page.locator("#final-level").input_value() == "easy"
        page.locator("#final-level").select_option("hard")
        page.screenshot(path=artifacts / "levels-2-rematch-gu-390px.png")
        assert page.evaluate(OVERFLOWING_JS) == []
        page.click("#final-again")
        page.wait_for_function(
            "() => !window.truc.final && window.truc.state && window.truc.state.started"
        )
        assert page.evaluate("window.truc.state.started.opp") == _named("hard", "gu")
        play_to_the_end(page)
        page.locator("#final-again").wait_for(state="visible")
        assert page.locator("#final-level").input_value() == "hard"
        page.click("#final-stop")
        out, err = proc.communicate(timeout=60)
        assert page.errors == []
    assert proc.returncode == 0, err
    done = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert not done or len(done) == 2
    games = sorted((tmp_path / "games").glob("game-*-play-bob.truc"))
    assert len(games) == 2
    names = set()
    for game in games:
        verified = subprocess.run(
            [sys.executable, "-m", "truc_p2p.cli", "verify", "--json", str(game)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert verified.returncode == 0, verified.stdout + verified.stderr
        report = json.loads(verified.stdout.splitlines()[-1])
        names |= {p["name"] for p in report["players"]}
    assert {_named("easy", "gu"), _named("hard", "gu")} <= names


def _named(level: str, lang: str) -> str:
    """The name of bot ``level`` in language ``lang``."""
    use_language(lang)
    try:
        return bot_player_name(level)
    finally:
        use_language("en")
