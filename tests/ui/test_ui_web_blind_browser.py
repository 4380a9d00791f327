"""A blind player plays a whole game (issue 43), as lichess's blind mode lets one: the
test reads only what a screen reader reads — the accessibility tree (roles, names,
the key hints of aria-keyshortcuts) and what the live regions say, heard through a
MutationObserver as a screen reader hears them — and plays with the keyboard alone.
It never looks at ``window.truc`` or at the pixels."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from helpers.web import HostedGame
from test_ui_web_browser import SEED, new_page

from truc_p2p.net import End

pytestmark = pytest.mark.slow

SUITS = re.compile("[♠♥♦♣]")
#: The screen reader: every text a live region (aria-live, role status or log) is given,
#: in order, as it would be spoken.
LISTEN_JS = """
window.heard = [];
document.addEventListener("DOMContentLoaded", () => {
  const regions = document.querySelectorAll("[aria-live], [role=status], [role=log]");
  const observer = new MutationObserver((changes) => {
    for (const change of changes) {
      let node = change.target;
      while (node && !(node.matches && node.matches("[aria-live], [role=status], [role=log]"))) {
        node = node.parentNode;
      }
      const text = node && !node.hidden ? node.textContent.trim() : "";
      if (text && window.heard[window.heard.length - 1] !== text) window.heard.push(text);
    }
  });
  for (const region of regions) {
    observer.observe(region, { childList: true, subtree: true, characterData: true,
                               attributes: true, attributeFilter: ["hidden"] });
  }
});
"""
TURNS_JS = "() => window.heard.filter((t) => t.endsWith('your move')).length"


def _buttons(page: Any, group: str) -> list[tuple[str, str]]:
    """The buttons of a named group of the accessibility tree: (name, key hint)."""
    box = page.get_by_role("group", name=group, exact=True)
    names = re.findall(r'- button "([^"]*)"', box.aria_snapshot())
    return [
        (name, box.get_by_role("button", name=name, exact=True).get_attribute("aria-keyshortcuts"))
        for name in names
    ]


def test_a_blind_player_plays_a_whole_game(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    game = HostedGame(tmp_path, seed=SEED, target=6)
    url = game.start()
    felt: set[str] = set()
    choices_seen: set[str] = set()
    try:
        page = new_page(browser, 1000, 800)
        page.add_init_script(LISTEN_JS)
        page.goto(url)
        turns = 0
        accepted = False
        for _move in range(200):
            page.wait_for_function(
                f"(n) => ({TURNS_JS})() > n || !document.querySelector('#final').hidden",
                arg=turns,
            )
            if page.get_by_role("dialog").count():
                break
            turns = page.evaluate(TURNS_JS)
            time.sleep(0.6)  # as a person would: the table ignores keys for a moment
            if turns == 2:  # "s" says where the game stands, as lichess's blind mode does
                page.keyboard.press("s")
                page.wait_for_function("() => window.heard.some((t) => t.includes('your hand: '))")
            tree = page.get_by_role("main").aria_snapshot()
            felt.update(re.findall(r'- img "([^"]*played by[^"]*)"', tree))
            # the hand's tricks in words ("tricks: won · to play · to play"), no dashes
            marks = re.findall(r'img "(tricks: [^"]*)"', tree)
            assert len(marks) == 1 and "–" not in marks[0], marks
            hand = _buttons(page, "your hand")
            choices = _buttons(page, "your choices")
            for name, key in choices:
                assert key and re.fullmatch(r"[a-z]", key), (name, key)
                assert not name.endswith(f" {key}") and not name.endswith(key + "…"), name
            choices_seen.update(n for n, _k in choices)
            names = {n: k for n, k in choices}
            if "accept" in names and not accepted:
                key = names["accept"]  # the first "2 more?": then refused, so hands end
                accepted = True
            elif "refuse" in names:
                key = names["refuse"]
            elif hand:
                key = hand[0][1]
            else:
                key = next(k for n, k in choices if n != "fold")
            page.keyboard.press(key)
        else:
            raise AssertionError("the game did not end in 200 moves")
        page.get_by_role("dialog").wait_for(state="visible")
        page.wait_for_function("() => window.heard.some((t) => / won: /.test(t))")
        body = page.locator("body").aria_snapshot()
        end = re.search(r'dialog "([^"]*)"', body)
        page.screenshot(path=artifacts / "blind-final.png", full_page=True)
        heard = page.evaluate("window.heard")
        said = "\n".join(heard)
        assert page.errors == []
    finally:
        game.stop()
    assert game.outcome is not None and game.outcome.end is End.FINISHED
    # the cards were named in words, on the hand and on the felt, with who played them
    assert felt and all(" of " in n and not SUITS.search(n) for n in felt), felt
    assert any("heuristic-bot" in n for n in felt) and any("you" in n for n in felt), felt
    assert "accept" in choices_seen, choices_seen  # the raising bot's "2 more?" was answered
    # what the live regions said: each new hand and its cards, tricks, hands, the score
    assert re.search(r"hand 1; your cards: \w+ of \w+, ", said), said[:400]
    assert re.search(r"hand 2; your cards: ", said), said
    assert re.search(r"trick 1: (you win it|heuristic-bot wins it)", said), said
    assert re.search(r"(you win|heuristic-bot wins) hand 1", said), said
    assert re.search(r"you \d+ – heuristic-bot \d+", said), said
    assert "heuristic-bot asks “2 more?”" in said, said
    assert not SUITS.search(said), [line for line in heard if SUITS.search(line)]
    situation = next(line for line in heard if "your hand: " in line)
    assert re.match(r"you \d+ – heuristic-bot \d+\. ", situation), situation
    # each trick is said once (a hand ended by a refusal does not say its trick again)
    for hand in said.split("hand ")[1:]:
        tricks = re.findall(r"trick \d: [^\n·]*", hand)
        assert len(tricks) == len(set(tricks)), hand
    # the end: said, and the end dialog is named by its headline
    assert end and re.match(r"(You won|heuristic-bot won): ", end.group(1)), end
    assert end.group(1) in said, said[-400:]
