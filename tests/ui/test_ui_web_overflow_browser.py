"""The table in three scripts (French, Ukrainian, Gujarati) on a phone and a laptop, in
a real headless Chromium: a raise or "my rest" to answer (the longest buttons, with
their costs), the help and the end screen.  Nothing may stick out of the window or be
clipped in its box.  Screenshots: ``test-artifacts/web/i18n-<lang>-<width>px*.png``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.web import OVERFLOWING_JS, SEED, HostedGame, RaisingBot, RestBot, new_page, wait_turn

LANGS = ("fr", "uk", "gu")
WIDTHS = {390: 844, 1280: 800}


def _to_a_request(page: Any) -> dict[str, Any]:
    """Play the first playable card until the bot's request is to be answered."""
    last: int | None = None
    for _ in range(60):
        table = wait_turn(page, last)
        assert table is not None, "the game ended before the bot asked"
        last = table["turn"]
        pending = table["pending"]
        if pending and pending["by"] == "opp":
            return table
        card = next(c for c in table["hand"] if c["action"])
        page.click(f"#my-hand .card[data-card='{card['card']}']")
    raise AssertionError("no request to answer")


#: The bot's request to answer: "2 more?" or "my rest" (whose answers cost the most words).
BOTS = {"raise": RaisingBot, "rest": RestBot}


@pytest.mark.parametrize("request_kind", list(BOTS))
@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("lang", LANGS)
def test_nothing_overflows(
    browser: Any, tmp_path: Path, artifacts: Path, lang: str, width: int, request_kind: str
) -> None:
    game = HostedGame(tmp_path, seed=SEED, bot=BOTS[request_kind])
    url = game.start()
    try:
        page = new_page(browser, width=width, height=WIDTHS[width])
        page.set_extra_http_headers({"Accept-Language": f"{lang},en;q=0.5"})
        page.emulate_media(reduced_motion="reduce")  # screenshots of cards at rest
        page.goto(url)
        table = _to_a_request(page)
        assert table["pending"]["kind"] == request_kind
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        assert len(table["buttons"]) >= 3 and all(b["cost"] for b in table["buttons"][:2])
        # the texts are in the language, not the English fallbacks
        assert page.locator("#help-btn").inner_text() != "? rules & keys"
        shot = artifacts / f"i18n-{lang}-{width}px"
        if request_kind == "rest":
            page.screenshot(path=f"{shot}-rest.png", full_page=True)
            assert page.evaluate(OVERFLOWING_JS) == [] and page.errors == []
            return
        page.screenshot(path=f"{shot}.png", full_page=True)
        assert page.evaluate(OVERFLOWING_JS) == []
        # the help
        page.keyboard.press("?")
        page.locator("#help").wait_for(state="visible")
        page.screenshot(path=f"{shot}-help.png")
        assert page.evaluate(OVERFLOWING_JS) == []
        page.keyboard.press("Escape")
        # the end screen: leave (resign)
        page.on("dialog", lambda dialog: dialog.accept())
        page.keyboard.press("q")
        page.locator("#final").wait_for(state="visible")
        page.locator("#final-verdict-line").wait_for(state="visible")
        page.screenshot(path=f"{shot}-final.png")
        assert page.evaluate(OVERFLOWING_JS) == []
        assert page.errors == []
    finally:
        game.stop()
