"""The language menu in a real headless Chromium: switching to French mid-game
re-renders the page's texts, the table's and the log's, and nothing overflows at 390 px."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.web import SEED, TURN_JS, HostedGame, new_page


def test_switch_the_page_to_french_mid_game(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    game = HostedGame(tmp_path, seed=SEED)
    url = game.start()
    try:
        page = new_page(browser, width=390, height=844)
        page.goto(url)
        page.wait_for_function(TURN_JS, arg=None)
        assert page.locator("#help-btn").inner_text() == "? rules & keys"
        log = page.locator("#log li")
        assert "playing against heuristic-bot, first to 6 points" in log.all_inner_texts()[-1]
        menu = page.locator("#lang-menu")
        assert menu.is_visible() and menu.input_value() == "en"
        assert menu.locator("option").count() == 10
        menu.select_option("fr")
        page.wait_for_function("document.documentElement.lang === 'fr'")
        page.wait_for_function(
            "document.getElementById('help-btn').textContent === '? règles et touches'"
        )
        # the buttons are drawn again from the next state, which may come a moment later
        page.wait_for_function(
            "[...document.querySelectorAll('#buttons button')]"
            ".some((b) => b.textContent.includes('se coucher'))"
        )
        labels = page.locator("#buttons button").all_inner_texts()
        assert any("se coucher" in label for label in labels), labels
        assert page.locator("#status").inner_text().startswith("à vous de jouer")
        # the lines said before the switch are told again in French (the oldest is last)
        page.wait_for_function(
            "() => document.querySelector('#log li:last-child').textContent"
            ".startsWith('partie contre heuristic-bot, en 6 points')"
        )
        lines = log.all_inner_texts()
        assert any(line.startswith("main 1, ") for line in lines), lines
        assert not any(line.startswith("hand ") for line in lines), lines
        page.screenshot(path=artifacts / "i18n-fr-390px.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        for button in page.locator("#buttons button").all():
            box = button.bounding_box()
            assert box is not None and box["x"] + box["width"] <= 390
        assert page.errors == []
    finally:
        game.stop()
