"""``play`` offers the race to 12's longer games (issue 42): the web start panel and
the terminal's first question offer "refused 'my rest' scores the hand" (``--rest-refused
value``) and "best of 3" (``--match 3``), each with one line of what it changes, and the
choice reaches the game: the session's ruleset and the match's length."""

from __future__ import annotations

import io
import json
import os
import re
import signal
from pathlib import Path
from typing import Any

import pytest
import trio
from helpers.pty import Terminal
from helpers.web import OVERFLOWING_JS, new_page, play_web
from wsproto import ConnectionType, WSConnection
from wsproto.events import Request, TextMessage

from truc_p2p.cli._game_args import GameOptions, RulesChoice
from truc_p2p.cli._play import ask_variants, offered_variants, with_variants
from truc_p2p.i18n import LANGUAGES, use_language
from truc_p2p.ui import VARIANTS
from truc_p2p.ui._web import WebPlayer
from truc_p2p.ui._web._view import page_texts


def _meta(folder: Path) -> dict[str, Any]:
    """The first game's meta (its session's settings and the match), once written."""
    (meta,) = folder.rglob("*.truc.meta.json")
    found: dict[str, Any] = json.loads(meta.read_text())
    return found


def _rules_and_match(meta: dict[str, Any]) -> tuple[str, int]:
    """The session's ruleset's "my rest" refused and its match length (the series)."""
    session = meta["settings"]["session"]
    games = session["series"]["match"]
    assert meta.get("match", {"games": 1})["games"] == games  # the match record's too
    return session["ruleset"]["rest_refused"], games


def test_the_variants_offered_and_what_they_set() -> None:
    plain = GameOptions(command="play", argv=("play",))
    assert offered_variants(plain) == {"value", "best3"}
    given = RulesChoice(rest_refused="value", explicit_options=frozenset({"rest_refused"}))
    assert offered_variants(GameOptions(command="play", rules=given)) == {"best3"}
    both = with_variants(plain, frozenset({"value", "best3"}))
    assert both.rules.rest_refused == "value" and both.rules.match == 3
    assert both.argv == ("play", "--rest-refused", "value", "--match", "3")  # a resume's
    assert with_variants(plain, frozenset()) == plain
    assert offered_variants(both) == frozenset()


@pytest.mark.parametrize(
    ("typed", "chosen"),
    [("\n", set()), ("v\n", {"value"}), ("3\n", {"best3"}), ("v3\n", {"value", "best3"})],
)
def test_the_terminal_question_reads_the_keys(typed: str, chosen: set[str]) -> None:
    out = io.StringIO()
    offered = frozenset(VARIANTS)
    assert ask_variants(offered, stdin=io.StringIO(typed), out=out) == chosen
    shown = out.getvalue()
    for name, text in VARIANTS.values():  # each with the line of what it changes
        assert name in shown and text in shown
    assert ask_variants(frozenset({"best3"}), stdin=io.StringIO("v\n"), out=out) == set()


def test_every_language_says_the_variants() -> None:
    try:
        for code in LANGUAGES:
            use_language(code)
            texts = page_texts()
            assert [v["code"] for v in texts["variants"]] == list(VARIANTS)
            if code != "en":
                english = [v for pair in VARIANTS.values() for v in pair]
                assert all(
                    v["name"] not in english and v["text"] not in english for v in texts["variants"]
                ), code
    finally:
        use_language("en")


def test_the_panel_takes_only_the_variants_it_offered() -> None:
    player = WebPlayer("alice")
    player.level = "medium"
    player.variants_offered = frozenset({"best3"})
    player.asking_level = True
    assert player._levels_message(True)["variants"] == ["best3"]
    player.receive({"type": "level", "level": "easy", "variants": ["value", "best3", 7]})
    assert player.variants_chosen == {"best3"}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("typed", "expected"), [("", ("game", 1)), ("v", ("value", 1)), ("3", ("game", 3))]
)
def test_the_terminal_first_question_reaches_the_game(
    tmp_path: Path, typed: str, expected: tuple[str, int]
) -> None:
    term = Terminal(tmp_path, "play", "--name", "alice")
    try:
        question = " ".join(term.read_until(r"your choice \(v, 3, both, or Enter\): ").split())
        assert "best of 3" in question and "the race to 12 goes on" in question
        term.type(typed + "\r")
        term.read_until(r"your move")
        assert _rules_and_match(_meta(tmp_path)) == expected
        os.killpg(term.proc.pid, signal.SIGKILL)
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
        term.proc.wait()


async def _start_over_the_socket(url: str, variants: list[str]) -> dict[str, Any]:
    """A page (no browser) that starts from the panel with ``variants`` ticked: the
    ``levels`` message it was offered."""
    found = re.search(r"http://(127\.0\.0\.1:(\d+))/\?token=([\w-]+)", url)
    assert found
    host, port, token = found.group(1), int(found.group(2)), found.group(3)
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    offered: dict[str, Any] = {}
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
                        offered = message
                        answer = {"type": "level", "level": "easy", "variants": variants}
                        await stream.send_all(ws.send(TextMessage(json.dumps(answer))))
                    if message["type"] == "state" and message["started"]:
                        return offered


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ticked", "expected"),
    [([], ("game", 1)), (["value"], ("value", 1)), (["best3"], ("game", 3))],
)
def test_the_start_panel_choice_reaches_the_game(
    tmp_path: Path, ticked: list[str], expected: tuple[str, int]
) -> None:
    with play_web(tmp_path, "--seed", "3") as (proc, url):
        offered = trio.run(_start_over_the_socket, url, ticked)
        assert offered["variants"] == ["best3", "value"]
        meta = _meta(tmp_path / "games")
        proc.kill()
        proc.communicate()
    assert _rules_and_match(meta) == expected
    assert meta["bot"] == "easy"


@pytest.mark.slow
def test_a_match_of_three_offers_only_the_other_variant(tmp_path: Path) -> None:
    with play_web(tmp_path, "--match", "3") as (proc, url):
        offered = trio.run(_start_over_the_socket, url, ["value", "best3"])
        meta = _meta(tmp_path / "games")
        proc.kill()
        proc.communicate()
    assert offered["variants"] == ["value"]
    assert _rules_and_match(meta) == ("value", 3)


@pytest.mark.slow
@pytest.mark.parametrize(("width", "height", "lang"), [(390, 844, "uk"), (1280, 800, "en")])
def test_the_start_panel_shows_the_variants(
    browser: Any, tmp_path: Path, artifacts: Path, width: int, height: int, lang: str
) -> None:
    with play_web(tmp_path, "--seed", "3") as (proc, url):
        page = new_page(browser, width=width, height=height)
        page.set_extra_http_headers({"Accept-Language": lang})
        page.goto(url)
        page.locator("#start").wait_for(state="visible")
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        box = page.locator("#start-variants")
        assert box.is_visible()
        assert page.locator("#start-variants label").count() == 2
        for v in page.evaluate("window.truc.texts.variants"):
            label = page.locator(f"#start-variants label[data-variant='{v['code']}']")
            assert v["name"] in label.inner_text() and v["text"] in label.inner_text()
            assert not label.locator("input").is_checked()  # a game to 12 unless ticked
        page.screenshot(path=artifacts / f"start-variants-{lang}-{width}px.png", full_page=True)
        assert page.evaluate(OVERFLOWING_JS) == []
        go = page.locator("#start-go")
        go.scroll_into_view_if_needed()
        assert go.is_visible()
        page.click("#start-variants label[data-variant='best3']")
        page.click("#start-variants label[data-variant='value']")
        page.screenshot(path=artifacts / f"start-variants-ticked-{lang}-{width}px.png")
        go.click()
        page.locator("#start").wait_for(state="hidden")
        page.wait_for_function("() => window.truc.state && window.truc.state.started")
        meta = _meta(tmp_path / "games")
        assert page.errors == []
        proc.kill()
        proc.communicate()
    assert _rules_and_match(meta) == ("value", 3)
