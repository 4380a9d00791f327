"""``truc-p2p join --relay R --web`` in a real headless Chromium: the lobby page
lists the public hosts, refreshes by itself, and its join button joins one on
the web table.  Screenshots go to ``test-artifacts/web/lobby-*.png``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
import trio
from helpers.web import new_page

from truc_p2p.cli._lobby_web import LobbyPage
from truc_p2p.identity import Identity
from truc_p2p.net import LobbyGame, LobbyListing
from truc_p2p.net._lobby import parse_game
from truc_p2p.net._relay_wire import encode

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow

LIMIT = 90


class _Proc:
    """A ``truc-p2p`` process whose output lines are collected by a thread."""

    def __init__(self, cwd: Path, *args: str) -> None:
        env = {**os.environ, "XDG_DATA_HOME": str(cwd / "xdg"), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "truc_p2p.cli", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, encoding="utf-8", cwd=cwd, env=env,
        )  # fmt: skip
        self.lines: list[str] = []
        self.cond = threading.Condition()
        self.timer = threading.Timer(LIMIT, self.proc.kill)
        self.timer.start()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()

    def wait_for(self, needle: str, timeout: float = 30) -> str:
        with self.cond:
            ok = self.cond.wait_for(lambda: any(needle in x for x in self.lines), timeout)
            assert ok, "\n".join(self.lines)
            return next(x for x in self.lines if needle in x)

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.timer.cancel()
        self.reader.join(5)
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        return "\n".join(self.lines)


def _host(cwd: Path, port: int, name: str, *more: str) -> _Proc:
    proc = _Proc(
        cwd, "host", "--relay", f"127.0.0.1:{port}", "--public", "--bind", "127.0.0.1",
        "--port", "0", "--bot", "random", "--timeout", "60", "--name", name,
        "--identity", f"{name}.key", "--out", name, *more,
    )  # fmt: skip
    proc.wait_for("listed in the relay's lobby")
    return proc


def test_lobby_page_lists_refreshes_and_joins(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    relay = _Proc(tmp_path, "relay", "--bind", "127.0.0.1", "--port", "0", "--json")
    procs = [relay]
    try:
        port = json.loads(relay.wait_for('"listening"'))["addresses"][0][1]
        procs.append(_host(tmp_path, port, "ana"))
        joiner = _Proc(
            tmp_path, "join", "--relay", f"127.0.0.1:{port}", "--web", "--no-browser",
            "--identity", "j.key", "--out", "j", "--timeout", "60", "--name", "joe",
        )  # fmt: skip
        procs.append(joiner)
        url = joiner.wait_for("/lobby.html?token=").rsplit(": ", 1)[1].strip()
        page = new_page(browser)
        page.goto(url)
        page.wait_for_function("document.body.dataset.ready === '1'")
        page.wait_for_function("document.querySelectorAll('#rows li').length === 1")
        assert page.locator("#rows li").nth(0).inner_text().startswith("ana")
        procs.append(_host(tmp_path, port, "bea"))  # the page refreshes by itself
        page.wait_for_function("document.querySelectorAll('#rows li').length === 2", timeout=20_000)
        assert "open games at the relay" in page.locator("#title").inner_text()
        page.screenshot(path=artifacts / "lobby-1-list.png", full_page=True)
        # by the button's name: a row's text holds its key's fingerprint, which may contain "bea"
        page.get_by_role("button", name="join bea", exact=True).click()
        page.wait_for_function("document.getElementById('status').textContent.includes('bea')")
        joiner.wait_for("picked bea")
        table = joiner.wait_for("web table: ").rsplit(": ", 1)[1].strip()
        procs[-1].wait_for("connection from")  # bea's host got the joiner
        page.goto(table)
        page.wait_for_function("window.truc && window.truc.state")
        page.screenshot(path=artifacts / "lobby-2-table.png", full_page=True)
        assert page.errors == []
    finally:
        outputs = [p.stop() for p in reversed(procs)]
    assert not any("Traceback" in text for text in outputs), outputs


def test_the_lobby_page_joins_a_match_and_opens_the_table(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    """A public ``host --match 3``: the lobby lists a match of 3 games, its join button
    opens the table and the game starts (the joiner plays the host's match; before,
    the hellos differed and the page stayed on "the table opens in a new tab")."""
    relay = _Proc(tmp_path, "relay", "--bind", "127.0.0.1", "--port", "0", "--json")
    procs = [relay]
    try:
        port = json.loads(relay.wait_for('"listening"'))["addresses"][0][1]
        host = _host(tmp_path, port, "cai", "--match", "3")
        procs.append(host)
        joiner = _Proc(
            tmp_path, "join", "--relay", f"127.0.0.1:{port}", "--web", "--no-browser",
            "--identity", "j.key", "--out", "j", "--timeout", "60", "--name", "joe",
        )  # fmt: skip
        procs.append(joiner)
        url = joiner.wait_for("/lobby.html?token=").rsplit(": ", 1)[1].strip()
        page = new_page(browser)
        page.goto(url)
        page.wait_for_function("document.querySelectorAll('#rows li').length === 1")
        assert "match of 3 games" in page.locator("#rows li").nth(0).inner_text()
        page.get_by_role("button", name="join cai", exact=True).click()
        joiner.wait_for("picked cai")
        table = joiner.wait_for("web table: ").rsplit(": ", 1)[1].strip()
        page.goto(table)
        page.wait_for_function("window.truc && window.truc.state")
        # the game started: the host dealt with the joiner, no settings differed
        host.wait_for("connection from")
        page.wait_for_function(
            "window.truc.state.started && window.truc.state.table", timeout=30_000
        )
        assert page.evaluate("window.truc.state.started.opp") == "cai"
        page.screenshot(path=artifacts / "lobby-3-match-table.png", full_page=True)
        assert page.errors == []
    finally:
        outputs = [p.stop() for p in reversed(procs)]
    assert not any("Traceback" in text for text in outputs), outputs
    assert not any("asked for a single game" in text for text in outputs), outputs
    assert not any("incompatible" in text for text in outputs), outputs


def _game(name: str, code: str = "abcd2345abcd2345") -> LobbyGame:
    key = Identity.ephemeral().key
    raw = key.public_key().to_bytes()
    listing = LobbyListing(key=raw, addr=("127.0.0.1", 4455), fields={"name": name, "match": "3"})
    body = bytes([len(code)]) + code.encode() + (7).to_bytes(4, "big") + listing.sign(key, code)
    assert encode(0x87, body)  # fits a control message
    return parse_game(body, ("127.0.0.1", 4456))


async def test_lobby_page_joins_only_a_listed_code() -> None:
    page = LobbyPage(("127.0.0.1", 4456), "127.0.0.1:4456")
    ana = _game("ana")
    page.show([ana], ["dropped a listing: the listing's signature does not hold"], "ok")
    message = page.snapshot()[0]
    assert (
        message["games"][0]["cells"][0] == "ana"
        and "match of 3 games" in message["games"][0]["cells"]
    )
    assert message["notes"] and message["labels"]["join"] == "join"
    page.receive({"type": "join", "code": "zzzz"})
    page.receive({"type": "join", "code": 5})
    assert not page.picked_event.is_set()
    page.receive({"type": "join", "code": ana.code})
    with trio.fail_after(1):
        await page.picked_event.wait()
    assert page.picked is ana
