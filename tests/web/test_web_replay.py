"""``truc-p2p replay --web`` in a real headless Chromium: step, jump to a hand, go
back; only played cards are ever on the page.  Screenshots go to
``test-artifacts/web/replay-*.png``."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from test_web_browser import new_page
from web_helpers import ROOT

from truc_p2p.rules import Card

sys.path.insert(0, str(ROOT / "tests" / "cli"))
from history_helpers import P0, P1, story_game

LIMIT = 60


def test_replay_page(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    story = story_game({P0: tmp_path / "alice", P1: tmp_path / "bob"}, deck="v2")
    command = [sys.executable, "-m", "truc_p2p.cli", "replay", "--web", "--no-browser"]
    proc = subprocess.Popen(
        [*command, str(story.paths[P0])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    timer = threading.Timer(LIMIT, proc.kill)
    timer.start()
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "/replay.html?token=" in line, line
        url = line.split(": ", 1)[1].strip()
        page = new_page(browser)
        page.goto(url)
        page.wait_for_function("document.body.dataset.step === '0'")
        assert page.locator("#me-name").inner_text() == "alice"
        assert page.locator("#opp-name").inner_text() == "bob"
        assert "shuffle proven" in page.locator("#proof").inner_text()
        assert page.locator("#hands button").count() == 3
        assert page.locator("#opp-hand .card.back").count() == 3
        page.screenshot(path=artifacts / "replay-1-deal.png", full_page=True)
        seen: set[Card] = set()
        steps = 0
        while not page.locator("#next").is_disabled():
            page.click("#next")
            steps += 1
            page.wait_for_function(f"document.body.dataset.step === '{steps}'")
            for card in page.locator("#table .card").all():
                seen.add(Card.from_str(str(card.get_attribute("data-card"))))
            if steps == 5:
                page.screenshot(path=artifacts / "replay-2-trick.png", full_page=True)
        text = page.locator("#lines").inner_text()
        assert "result co-signed by both players" in text
        assert seen == set().union(*story.played.values())  # only played cards, all of them
        page.click("#hands button[data-hand='2']")
        page.wait_for_function(f"document.body.dataset.step !== '{steps}'")
        assert "hand 2: " in page.locator("#lines").inner_text()
        page.screenshot(path=artifacts / "replay-3-hand-2.png", full_page=True)
        page.click("#prev-hand")
        assert page.locator("#hand-of").inner_text().startswith("hand 1 of 3")
        page.keyboard.press("ArrowRight")
        assert "redeal" in page.locator("#lines").inner_text()
        assert page.errors == []
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _out, err = proc.communicate(timeout=10)
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 0, err
