"""One clock on both screens (issue 43): ``host --web`` and ``join --web`` of one game in
one headless Chromium, each move played after a pause, and after every move the two
pages' clocks of the move due agree within a second: also when the player who moved
keeps the turn (a trick won leads the next one), and after the joiner is killed and
comes back with ``resume --web``."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from test_ui_web_browser import new_page

pytestmark = pytest.mark.slow

LIMIT = 150
CLI = [sys.executable, "-m", "truc_p2p.cli"]
URL = r"web table: (http://127\.0\.0\.1:\d+/\?token=[\w-]+)"
#: What a page's clock leaves the move due, in seconds (None: no clock runs).
LEFT_JS = """() => {
    const t = window.truc;
    if (t.final || !t.state || !t.state.table) return null;
    return t.secondsLeft();
}"""
#: Whose move it is on this page: "me", "opp" or null (dealing, over, out of step).
TO_ACT_JS = """() => {
    const t = window.truc;
    if (t.final) return "over";
    const table = t.state && t.state.table;
    if (!table) return null;
    if (table.turn != null && !t.settling()) return "me";
    return table.to_act === "opp" ? "opp" : null;
}"""


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


def _read(proc: subprocess.Popen[str], pattern: str) -> str:
    assert proc.stdout is not None
    for _i in range(40):
        found = re.search(pattern, proc.stdout.readline())
        if found:
            return found.group(1)
    raise AssertionError(f"no {pattern!r} printed")


def _whose(pages: dict[str, Any]) -> str:
    """The name of the page whose turn it is, once the other page waits for it."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        seen = {name: page.evaluate(TO_ACT_JS) for name, page in pages.items()}
        if "over" in seen.values():
            return "over"
        mine = [name for name, to_act in seen.items() if to_act == "me"]
        if len(mine) == 1 and all(v == "opp" for n, v in seen.items() if n != mine[0]):
            return mine[0]
        time.sleep(0.1)
    raise AssertionError(f"nobody's turn: {seen}")


def _compare(pages: dict[str, Any], mover: str, said: list[str]) -> None:
    """Both clocks of the move due, read one after the other: within a second."""
    waiter = next(name for name in pages if name != mover)
    mine = pages[mover].evaluate(LEFT_JS)
    theirs = pages[waiter].evaluate(LEFT_JS)
    assert mine is not None and theirs is not None, (mine, theirs)
    statuses = [pages[n].locator("#status").inner_text() for n in (mover, waiter)]
    said.append(f"{mover} {mine:.1f} / {waiter} {theirs:.1f}: {statuses}")
    assert abs(mine - theirs) < 1.0, "\n".join(said)


def _move(page: Any) -> None:
    """Accept a raise, else play the first card that may be played, else press the
    first button."""
    table = page.evaluate("window.truc.state.table")
    card = next((c for c in table["hand"] if c["action"]), None)
    pending = table["pending"]
    if pending and pending["by"] == "opp":  # answer a raise by accepting it
        accept = next(b for b in table["buttons"] if b["kind"] == "accept")
        page.click(f"button.act[data-action='{accept['action']}']")
    elif card is not None:
        page.click(f"#my-hand .card[data-card='{card['card']}']")
    else:
        page.click(f"button.act[data-action='{table['buttons'][0]['action']}']")


def test_both_pages_show_one_clock(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    for who in ("host", "join"):
        subprocess.run(
            [*CLI, "identity", "--identity", str(tmp_path / f"{who}.key")],
            check=True,
            capture_output=True,
        )
    host = _start(tmp_path, "host", "--bind", "127.0.0.1", "--port", "0", "--no-announce",
                  "--no-portmap", "--identity", "host.key", "--out", "h", "--name", "Bob",
                  "--grace", "60", "--web", "--no-browser", "--target", "4")  # fmt: skip
    host_url = _read(host, URL)
    invite = _read(host, r"^(truc://\S+)")
    join = _start(tmp_path, "join", invite, "--identity", "join.key", "--out", "j",
                  "--name", "Alice", "--grace", "60", "--web", "--no-browser")  # fmt: skip
    resumed: subprocess.Popen[str] | None = None
    said: list[str] = []
    kept = 0  # moves after which the mover kept the turn
    try:
        pages = {"Bob": new_page(browser, 700, 800), "Alice": new_page(browser, 700, 800)}
        pages["Bob"].goto(host_url)
        pages["Alice"].goto(_read(join, URL))
        last = None
        for _move_no in range(8):
            mover = _whose(pages)
            assert mover != "over", "\n".join(said)
            kept += mover == last
            time.sleep(2.0)  # a move that took a while: a clock left running shows it
            _compare(pages, mover, said)
            _move(pages[mover])
            last = mover
        mover = _whose(pages)
        assert kept, f"no move kept the turn: the test saw nothing\n{said}"
        pages["Bob"].screenshot(path=artifacts / "clocks-host.png")
        pages["Alice"].screenshot(path=artifacts / "clocks-joiner.png")
        # the joiner's program is killed, then resumed: the clocks agree again
        os.killpg(join.pid, signal.SIGKILL)
        join.wait(timeout=10)
        pages["Alice"].close()
        # the stayer's clock stops with the link (wire.md 13.5): it says the same later
        pages["Bob"].locator("#banner-disconnect").wait_for(state="visible")
        stopped = pages["Bob"].evaluate(LEFT_JS)
        time.sleep(2.0)
        assert pages["Bob"].evaluate(LEFT_JS) == stopped, stopped
        (path,) = (tmp_path / "j").glob("*.truc")
        resumed = _start(tmp_path, "resume", f"j/{path.name}", "--web", "--no-browser")
        pages["Alice"] = new_page(browser, 700, 800)
        pages["Alice"].goto(_read(resumed, URL))
        pages["Bob"].locator("#banner-disconnect").wait_for(state="hidden")
        before = len(said)
        for _move_no in range(4):
            mover = _whose(pages)
            if mover == "over":
                break
            time.sleep(2.0)
            _compare(pages, mover, said)
            _move(pages[mover])
        assert len(said) > before, "no move compared after the resume"
        pages["Alice"].screenshot(path=artifacts / "clocks-joiner-resumed.png")
        for page in pages.values():
            assert page.errors == []
    finally:
        for proc in (host, join, resumed):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.communicate()
