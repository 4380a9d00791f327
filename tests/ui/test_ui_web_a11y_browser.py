"""The web table through Chromium's accessibility tree: cards are named as a screen
reader should say them, in the language in use; whose turn and the opponent's moves
and requests reach a live region; the sound toggle's pressed state is the right way
round; the four-colour deck is a toggle too."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from helpers.web import SEED, TURN_JS, HostedGame, new_page, wait_turn

SUITS = re.compile("[♠♥♦♣]")


def _names(page: Any, selector: str) -> list[str]:
    """The accessible names of the buttons under ``selector``, from the aria tree."""
    tree = page.locator(selector).aria_snapshot()
    return re.findall(r'- button "([^"]*)"', tree)


def test_cards_toggles_and_live_region_in_the_accessibility_tree(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    game = HostedGame(tmp_path, seed=SEED, target=6)
    url = game.start()
    try:
        page = new_page(browser, 1280, 800)
        page.goto(url)
        page.wait_for_function(TURN_JS, arg=None)
        table = page.evaluate("window.truc.state.table")
        # the hand: one button per playable card, named in words ("seven of spades")
        names = _names(page, "#my-hand")
        assert names == [c["name"] for c in table["hand"] if c["action"]], names
        assert all(" of " in n and not SUITS.search(n) for n in names), names
        # in French the cards are French words (checked while the hand is full: later
        # in the game it can be empty between deals), then back to English
        page.select_option("#lang-menu", "fr")
        page.wait_for_function(
            """() => document.documentElement.lang === 'fr' && window.truc.state.table
            && window.truc.state.table.hand.length > 0
            && window.truc.state.table.hand.every((c) => !c.name.includes(' of '))"""
        )
        french = page.evaluate(
            "[...document.querySelectorAll('#my-hand .card')].map((c) => c.ariaLabel)"
        )
        assert french and all(" de " in n and not SUITS.search(n) for n in french), french
        page.select_option("#lang-menu", "en")
        page.wait_for_function(
            """() => document.documentElement.lang === 'en'
            && window.truc.state.table.hand.every((c) => c.name.includes(' of '))"""
        )
        # whose turn reached the live region (a polite log a screen reader reads out)
        region = page.get_by_role("log")
        assert region.get_attribute("aria-live") == "polite"
        assert "your move" in page.evaluate("window.truc.announced")
        # the sound toggle: its name stays, pressed means the sound is on
        sound = page.get_by_role("button", name="sound", exact=True)
        assert sound.get_attribute("aria-pressed") == "true"
        sound.click()
        assert page.get_by_role("button", name="sound", pressed=False).count() == 1
        assert page.evaluate("localStorage.getItem('truc-p2p.muted')") == "1"
        # the four-colour deck: off, then on (clubs green, diamonds blue)
        colours = page.get_by_role("button", name="four-colour deck")
        assert colours.get_attribute("aria-pressed") == "false"
        colours.click()
        assert colours.get_attribute("aria-pressed") == "true"
        assert page.evaluate("document.body.classList.contains('four-colours')")
        page.screenshot(path=artifacts / "a11y-four-colours-1280.png", full_page=True)
        # play on until the opponent moved: its move is said with the card's name
        last = None
        for _ in range(12):
            said = page.evaluate("window.truc.announced")
            if any(" of " in line and "heuristic-bot" in line for line in said):
                break
            table = wait_turn(page, last)
            if table is None:
                break
            last = table["turn"]
            card = next((c for c in table["hand"] if c["action"]), None)
            if card is not None:
                page.click(f"#my-hand .card[data-card='{card['card']}']")
            else:
                page.click(f"button.act[data-action='{table['buttons'][0]['action']}']")
        said = page.evaluate("window.truc.announced")
        moves = [line for line in said if "heuristic-bot" in line]
        assert moves, said
        # the opponent's request ("2 more?", the raising bot's first move) was said too
        assert any("2 more?" in line for line in moves), moves
        assert not any(SUITS.search(line) for line in said), said
        assert page.errors == []
    finally:
        game.stop()
