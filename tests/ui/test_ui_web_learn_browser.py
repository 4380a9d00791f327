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


def _sigint_as_at_a_terminal() -> None:
    """In the child, before it runs the program: Ctrl-C's default action, as at a
    terminal.  A suite started in the background by a shell without job control
    inherits SIGINT ignored, and Python keeps an inherited SIG_IGN, so the program
    would never see the test's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


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
        preexec_fn=_sigint_as_at_a_terminal,
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
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
            if proc.stdout is not None:
                proc.stdout.close()


def test_the_web_lesson_starts_at_step_1_and_leads_to_a_game(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    """Issue 43: the first panel is "step 1"; leaving the lesson asks nothing; its end
    panel offers a game against a level of the learner's choice (nothing to verify, no
    resign question), and that game is played on the same page."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "truc_p2p.cli", "learn", "--web", "--no-browser"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path), "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
        preexec_fn=_sigint_as_at_a_terminal,
    )
    try:
        assert proc.stdout is not None
        url = re.search(r"web table: (\S+)", proc.stdout.readline())
        assert url is not None
        page = new_page(browser, 800, 900)
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.accept()))
        page.goto(url.group(1))
        last: int | None = None
        steps: list[str] = []
        for key in MOVES:
            page.wait_for_function(TURN_JS, arg=last)
            last = page.evaluate("window.truc.state.table.turn")
            steps.append(page.locator("#lesson-step").inner_text())
            page.keyboard.press(key)
        assert steps[0].startswith("step 1 of ")
        numbers = [int(s.split()[1]) for s in steps]
        assert numbers == sorted(set(numbers)), steps  # one step per panel, none skipped
        final = page.locator("#final")
        final.wait_for(state="visible")
        assert page.locator("#final-headline").inner_text() == "You finished the lesson"
        assert page.locator("#final-cosigned").is_hidden()
        assert page.locator("#final-verdict-line").is_hidden()
        again = page.locator("#final-again")
        assert again.inner_text() == "play a game"
        page.select_option("#final-level", "easy")
        page.screenshot(path=artifacts / "learn-3-end-panel.png", full_page=True)
        again.click()
        page.wait_for_url(lambda there: there != url.group(1), timeout=30_000)
        assert re.match(r"http://127\.0\.0\.1:\d+/\?token=", page.url), page.url
        # a first game: the start panel asks the name (the level is chosen already)
        name = page.get_by_role("textbox", name="your name, shown to your opponent")
        name.wait_for(state="visible", timeout=60_000)
        assert page.locator("#start-levels").is_hidden()
        assert name.input_value()  # the login name, to keep or change
        page.screenshot(path=artifacts / "learn-4-your-name.png", full_page=True)
        name.fill("Lina q?")  # the game's keys are letters of a name here
        page.keyboard.press("Enter")
        page.wait_for_function(
            "() => window.truc && window.truc.state && window.truc.state.started",
            timeout=60_000,
        )
        assert page.evaluate("window.truc.state.started.opp") == "easy-bot"
        assert page.locator("#me-name").inner_text() == "Lina q? (you)"
        assert (tmp_path / "truc-p2p" / "name").read_text().strip() == "Lina q?"
        assert page.evaluate("window.truc.state.lesson") is None
        page.screenshot(path=artifacts / "learn-5-the-game.png", full_page=True)
        assert dialogs == []  # nothing asked to resign a lesson
        page.wait_for_function(TURN_JS, arg=None)
        page.keyboard.press("q")  # leaving the game does ask
        page.locator("#final").wait_for(state="visible")
        assert dialogs and dialogs[0].startswith("Leave the game?"), dialogs
        assert proc.wait(timeout=60) == 1  # the game's status: resigned
        assert page.errors == []
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(timeout=10)
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
        if proc.stdout is not None:
            proc.stdout.close()
