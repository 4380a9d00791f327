"""A first ``host --web`` asks the player's name on the page (issue 43), as the terminal
asks it on a first game: the start panel has the name field only (no bot to choose),
the name is kept for the next games, the opponent is told it."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from test_ui_web_browser import TURN_JS, new_page

pytestmark = pytest.mark.slow

LIMIT = 90
CLI = [sys.executable, "-m", "truc_p2p.cli"]


def _start(tmp_path: Path, xdg: str, *args: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [*CLI, *args],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path / xdg), "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )
    threading.Timer(LIMIT, proc.kill).start()  # never hang the suite
    return proc


def _read(proc: subprocess.Popen[str], pattern: str) -> str:
    assert proc.stdout is not None
    for _i in range(40):
        found = re.search(pattern, proc.stdout.readline())
        if found:
            return found.group(1)
    raise AssertionError(f"no {pattern!r} printed")


def test_a_first_host_web_asks_the_name_on_the_page(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    host = _start(tmp_path, "xdg-host", "host", "--bind", "127.0.0.1", "--port", "0",
                  "--no-announce", "--no-portmap", "--out", "h", "--web",
                  "--no-browser")  # fmt: skip
    join: subprocess.Popen[str] | None = None
    try:
        page = new_page(browser, 700, 800)
        page.goto(_read(host, r"web table: (http://127\.0\.0\.1:\d+/\?token=[\w-]+)"))
        name = page.get_by_role("textbox", name="your name, shown to your opponent")
        name.wait_for(state="visible")
        assert page.locator("#start-levels").is_hidden()  # no bot to choose here
        assert page.get_by_role("dialog", name="your name, shown to your opponent").is_visible()
        page.screenshot(path=artifacts / "host-web-first-name.png")
        name.fill("Núria")
        page.keyboard.press("Enter")
        invite = _read(host, r"^(truc://\S+)")
        page.locator("#invite").wait_for(state="visible")
        join = _start(tmp_path, "xdg-join", "join", invite, "--bot", "heuristic",
                      "--name", "Pau", "--quiet")  # fmt: skip
        page.wait_for_function(TURN_JS, arg=None)
        assert page.locator("#me-name").inner_text() == "Núria (you)"
        assert page.locator("#opp-name").inner_text() == "Pau"
        kept = tmp_path / "xdg-host" / "truc-p2p" / "name"
        assert kept.read_text(encoding="utf-8").strip() == "Núria"
        # no bot's level on the end screen of a game against a person
        assert page.evaluate("window.truc.levels && window.truc.levels.level") in (None, False)
        assert page.errors == []
    finally:
        for proc in (host, join):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
    # the game was played under that name (the transcript's settings keep it)
    (path,) = (tmp_path / "h").glob("*.truc")
    meta = json.loads(path.with_name(path.name + ".meta.json").read_text(encoding="utf-8"))
    assert '"Núria"' in json.dumps(meta, ensure_ascii=False), meta
