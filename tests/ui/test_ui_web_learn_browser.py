"""``truc-p2p learn --web``: the guided hand on the web table, in a real headless Chromium."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from helpers.web import ROOT, TURN_JS, new_page

#: The lesson's moves, as the terminal's keys (the page takes them too).
MOVES = ["d", "1", "r", "1", "a", "m", "1", "1"]


def test_the_lesson_on_the_web_table(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    """Each step is a panel above the hand (its number, what happens, what to do); a
    refused move's hint shows in it; the log keeps the steps too."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "truc_p2p.cli", "learn", "--web", "--no-browser"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path), "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        url = re.search(r"web table: (\S+)", proc.stdout.readline())
        assert url is not None
        page = new_page(browser, 390, 844)
        page.goto(url.group(1))
        last: int | None = None
        seen: list[str] = []  # the log shows its last lines: read it at each turn
        panels: list[str] = []  # the lesson panel at each turn
        for index, key in enumerate(MOVES):
            page.wait_for_function(TURN_JS, arg=last)
            last = page.evaluate("window.truc.state.table.turn")
            seen.append(page.locator("#log").inner_text())
            panel = page.locator("#lesson")
            assert panel.is_visible()
            assert re.fullmatch(r"step \d+ of \d+", page.locator("#lesson-step").inner_text())
            panels.append(page.locator("#lesson-text").inner_text())
            # the panel sits above the hand, as a tutorial's does
            box, hand = panel.bounding_box(), page.locator("#my-hand").bounding_box()
            assert box is not None and hand is not None and box["y"] < hand["y"]
            if index == 0:  # a move the lesson does not teach here: refused, with the hint
                page.screenshot(path=artifacts / "learn-1-step.png", full_page=True)
                page.keyboard.press("2")
                page.locator("#lesson-hint").filter(
                    has_text="not in this lesson: type d to ask for a redeal"
                ).wait_for()
                page.wait_for_function(TURN_JS, arg=last)
                last = page.evaluate("window.truc.state.table.turn")
                page.screenshot(path=artifacts / "learn-2-hint.png", full_page=True)
            page.keyboard.press(key)
        page.wait_for_function(
            "() => document.querySelector('#log').innerText.includes('That is the lesson')"
        )
        log = page.locator("#log").inner_text()
        seen.append(log)
        for lesson in ("7 8 A K Q J 10 9", "equal ranks spoil the trick", "“my rest”"):
            assert lesson in " ".join(seen)
            assert lesson in " ".join(panels)
        assert len(set(panels)) > 4  # a new panel for each step
        assert "That is the lesson" in page.locator("#lesson-text").inner_text()
        assert "you win the game" in log
        assert page.errors == []
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
            if proc.stdout is not None:
                proc.stdout.close()
