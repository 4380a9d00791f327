"""The web table's input guard in a real headless Chromium: a key or a tap that
comes within half a second of new choices (a new hand, the answer to a raise, a
double tap) is ignored, never played into a hand the player has not seen; the
same key a moment later plays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.web import SEED, TURN_JS, HostedGame, new_page

from truc_p2p.ui._web import _feed

#: Our turn has arrived, whether or not the guard is over.
ARRIVED_JS = """(last) => window.truc && window.truc.state && window.truc.state.table
    && window.truc.state.table.turn != null && window.truc.state.table.turn !== last"""


def test_input_is_ignored_just_after_the_choices_change(
    browser: Any, tmp_path: Path, artifacts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a longer guard than the table's half second, so that a loaded machine cannot let it
    # run out between the test seeing the choices and pressing the key
    monkeypatch.setattr(_feed, "GUARD_SECONDS", 3.0)  # the feed sends it as guard_ms
    game = HostedGame(tmp_path, seed=SEED, target=6)
    url = game.start()
    try:
        page = new_page(browser, 390, 844)
        page.goto(url)
        checked = 0
        last = None
        for _ in range(3):  # three turns in a row, each tried too early first
            page.wait_for_function(ARRIVED_JS, arg=last)
            table = page.evaluate("window.truc.state.table")
            assert page.evaluate("window.truc.state.guard_ms") == 3000
            last = table["turn"]
            if page.evaluate("window.truc.settling()"):
                # a key at once (as 0.4 s after a refused "2 more?"): ignored, nothing sent
                before = page.evaluate("window.truc.guarded")
                key = next((c["key"] for c in table["hand"] if c["action"]), None)
                key = key or table["buttons"][0]["key"]
                page.keyboard.press(key)
                assert page.evaluate("document.body.classList.contains('settling')")
                assert page.evaluate("window.truc.guarded") == before + 1
                assert page.evaluate("window.truc.state.table.turn") == last
                if checked == 0:
                    page.screenshot(path=artifacts / "guard-390.png", full_page=True)
                checked += 1
            # once the choices were on show for half a second, the same key plays
            page.wait_for_function(TURN_JS, arg=None)
            page.wait_for_function("() => !document.body.classList.contains('settling')")
            assert game.player is not None and game.player.model.turn == last
            card = next((c for c in table["hand"] if c["action"]), None)
            if card is not None:
                page.click(f"#my-hand .card[data-card='{card['card']}']")
            else:
                page.click(f"button.act[data-action='{table['buttons'][0]['action']}']")
            page.wait_for_function("(t) => window.truc.state.table.turn !== t", arg=last)
        assert checked == 3
        assert page.errors == []
    finally:
        game.stop()


def test_a_double_tap_plays_one_card(browser: Any, tmp_path: Path) -> None:
    """Two taps 100 ms apart: the first plays, the second finds the table changed
    (no turn, or a new one still settling) and is dropped."""
    game = HostedGame(tmp_path, seed=SEED, target=6)
    url = game.start()
    try:
        page = new_page(browser, 390, 844, touch=True)
        page.goto(url)
        page.wait_for_function(TURN_JS, arg=None)
        table = page.evaluate("window.truc.state.table")
        playable = [c for c in table["hand"] if c["action"]]
        assert len(playable) >= 2
        first = page.locator(f"#my-hand .card[data-card='{playable[0]['card']}']")
        first.tap()
        page.wait_for_timeout(100)
        second = page.locator(f"#my-hand .card[data-card='{playable[1]['card']}']")
        if second.count():
            second.tap(force=True)
        page.wait_for_timeout(300)
        hand = [c["card"] for c in page.evaluate("window.truc.state.table.hand")]
        assert playable[1]["card"] in hand, "the second tap played a card"
        assert playable[0]["card"] not in hand
        assert page.errors == []
    finally:
        game.stop()
