"""Leaving knows the match (issue 43) on the web table, in a real headless Chromium:
``play --web --match 3`` offers "concede this game" beside "leave", which plays the next
game, and the leave question names the match and what leaving it costs, as the terminal's
does.  Screenshots go to ``test-artifacts/web/``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.web import TURN_JS, new_page, play_web

pytestmark = pytest.mark.slow


def _accept_dialogs(page: Any) -> list[str]:
    said: list[str] = []

    def answer(dialog: Any) -> None:
        said.append(dialog.message)
        dialog.accept()

    page.on("dialog", answer)
    return said


def test_concede_a_game_then_leave_the_match(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    with play_web(tmp_path, "--target", "2", "--seed", "3", "--match", "3") as (proc, url):
        page = new_page(browser)
        page.goto(url)
        page.click("#start-go")
        page.wait_for_function(TURN_JS, arg=None)  # game 1, our turn
        concede = page.locator("#concede-btn")
        assert concede.is_visible() and concede.inner_text() == "concede this game"
        opponent = page.locator("#opp-name").inner_text()
        page.screenshot(path=artifacts / "match-1-concede-button.png")
        dialogs = _accept_dialogs(page)
        concede.click()
        page.wait_for_function("() => window.truc.final && window.truc.final.match_line")
        assert dialogs == [
            f"Concede this game? {opponent} wins it, and the match goes on with the next one."
        ]
        assert concede.is_hidden()  # the end screen: nothing left to concede
        line = page.evaluate("window.truc.final.match_line")
        assert line.startswith(f"match: you 0 – {opponent} 1"), line  # game 1: the opponent's
        page.screenshot(path=artifacts / "match-2-conceded-game-1.png")
        again = page.locator("#final-again")
        assert again.inner_text() == "next game"  # the match goes on
        again.click()
        page.wait_for_function(
            "() => !window.truc.final && window.truc.state && window.truc.state.started"
            " && window.truc.state.table"
        )
        assert page.locator("#match-line").inner_text().startswith("game 2 of 3")
        page.wait_for_function(TURN_JS, arg=None)  # game 2, our turn
        assert concede.is_visible()
        page.keyboard.press("q")  # leave: the whole match
        page.locator("#final-match").wait_for(state="visible")
        assert len(dialogs) == 2
        # the terminal's cost: the game in play goes to the opponent too
        assert dialogs[1] == (
            f"Leave the match? You resign it: {opponent} wins the match, you 0 – {opponent} 2."
        ), dialogs[1]
        assert page.locator("#final-match").inner_text().startswith("match over: ")
        assert page.locator("#final-again").is_hidden()  # no next game after leaving
        page.screenshot(path=artifacts / "match-3-left-the-match.png")
        out, err = proc.communicate(timeout=60)
        assert page.errors == []
    assert proc.returncode == 1, (out, err)  # resigning the match from the page
    record = next((tmp_path / "games").glob("match-*.json"))
    done = subprocess.run(
        [sys.executable, "-m", "truc_p2p.cli", "verify", "--match", str(record)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # two games: the conceded one and the one left, both the opponent's
    assert re.search(r"won by .*, bob 0 – .* 2\n.*VALID \(2 games", done.stdout), done.stdout


def test_a_single_game_offers_no_concede(browser: Any, tmp_path: Path) -> None:
    with play_web(tmp_path, "--target", "2", "--seed", "3") as (proc, url):
        page = new_page(browser)
        page.goto(url)
        page.click("#start-go")
        page.wait_for_function(TURN_JS, arg=None)
        assert page.locator("#concede-btn").is_hidden()
        dialogs = _accept_dialogs(page)
        page.keyboard.press("q")
        page.locator("#final").wait_for(state="visible")
        assert dialogs and dialogs[0].startswith("Leave the game? You resign: ")
        proc.communicate(timeout=60)
