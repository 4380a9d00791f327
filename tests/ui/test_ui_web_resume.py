"""``resume --web`` after ``kill -9``: the table in Chromium shows the game as it was
before the crash (the cards, the log, the clock) at once, before the opponent moves,
and the game is played on to its end by clicking."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers.web import new_page, play_to_the_end, wait_turn

from truc_p2p.protocol import verify_transcript
from truc_p2p.transcript import read_transcript

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow

LIMIT = 90
CLI = [sys.executable, "-m", "truc_p2p.cli"]
#: Where a person can look at the resumed table (besides the test artifacts).
SHOTS = Path("/tmp/shots-resume")


def _start(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [*CLI, *args],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg"), "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )
    threading.Timer(LIMIT, proc.kill).start()  # never hang the suite
    return proc


def _read_line(proc: subprocess.Popen[str], pattern: str) -> str:
    assert proc.stdout is not None
    for _i in range(40):
        line = proc.stdout.readline()
        found = re.search(pattern, line)
        if found:
            return found.group(1)
    raise AssertionError(f"no {pattern!r} printed")


def test_resume_web_shows_the_table_as_it_was(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    for who in ("host", "join"):
        subprocess.run(
            [*CLI, "identity", "--identity", str(tmp_path / f"{who}.key")],
            check=True,
            capture_output=True,
        )
    host = _start(tmp_path, "host", "--bind", "127.0.0.1", "--port", "0",
                  "--identity", "host.key", "--out", "h", "--bot", "heuristic", "--seed", "5",
                  "--name", "host-bot", "--grace", "40", "--quiet")  # fmt: skip
    invite = _read_line(host, r"^(truc://\S+)")
    url_line = r"web table: (http://127\.0\.0\.1:\d+/\?token=[\w-]+)"
    join = _start(tmp_path, "join", invite, "--identity", "join.key", "--out", "j",
                  "--name", "alice", "--timeout", "60", "--grace", "40",
                  "--web", "--no-browser")  # fmt: skip
    resumed: subprocess.Popen[str] | None = None
    try:
        page = new_page(browser)
        page.goto(_read_line(join, url_line))
        last = None
        for _move in range(3):  # three moves, then the crash at our next turn
            table = wait_turn(page, last)
            assert table is not None
            last = table["turn"]
            page.click(f"button.act[data-action='{table['buttons'][0]['action']}']")
        table = wait_turn(page, last)
        assert table is not None
        hand_before = page.evaluate("window.truc.state.table.hand")
        # the log as the page keeps it (the last 40 lines; the page shows 14 of them, so
        # the line the resume adds can push the oldest shown one off the screen)
        log_js = "window.truc.log.map((line) => line.text)"
        log_before = page.evaluate(log_js)
        assert len(log_before) >= 4
        os.killpg(join.pid, signal.SIGKILL)
        join.wait(timeout=10)
        page.close()

        (path,) = (tmp_path / "j").glob("*.truc")
        resumed = _start(tmp_path, "resume", f"j/{path.name}", "--web", "--no-browser")
        page = new_page(browser)
        page.goto(_read_line(resumed, url_line))
        # the table as it was, before the opponent moves (it is our turn: it cannot)
        page.wait_for_function(
            "() => window.truc.state && window.truc.state.table"
            " && window.truc.state.table.hand.length > 0"
        )
        state = page.evaluate("window.truc.state")
        assert state["table"]["hand"] == hand_before
        assert page.locator("#my-hand .card").count() == len(hand_before)
        log_after = page.evaluate(log_js)
        shown = page.locator("#log li").all_inner_texts()
        said = [" ".join(line.split()) for line in log_after[::-1][: len(shown)]]
        assert shown == said, shown  # (a page shows "7♠  9♥" with one space)
        for line in log_before:
            assert line in log_after, f"{line!r} lost from the log: {log_after}"
        assert state["seconds_left"] is not None and state["status_template"]
        page.wait_for_function(
            "() => /\\d:\\d\\d/.test(document.querySelector('#status').innerText)"
        )
        status = page.locator("#status").inner_text()
        assert "dealing" not in status
        assert state["started"]["opp"] == "host-bot"
        page.screenshot(path=artifacts / "resume-web.png", full_page=True)
        SHOTS.mkdir(exist_ok=True)
        shutil.copy(artifacts / "resume-web.png", SHOTS / "test-resume-web.png")
        play_to_the_end(page)
        page.locator("#final").wait_for(state="visible")
        assert "verified" in page.locator("#final").inner_text()
        page.keyboard.press("q")
        _out, err = resumed.communicate(timeout=60)
        assert resumed.returncode == 0, err
        assert page.errors == []
    finally:
        for proc in (host, join, resumed):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert verify_transcript(read_transcript(path)).valid
