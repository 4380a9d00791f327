"""The site in headless Chromium at a phone's size (390x844, touch), served by
``truc-p2p relay --site`` (the relay's WebSocket on the same port): a whole game
against the computer tapped through the page, the page joining a ``truc-p2p host``,
the page hosting a ``truc-p2p join``, and two pages playing each other.  Screenshots
go to test-artifacts/page/ (look at them)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from helpers.cli import LIMIT, last_json, spawn, start_host
from helpers.web import ROOT

from truc_p2p.protocol import TRANSCRIPT_MAGIC
from truc_p2p.site import site_files, write_site

#: The page's crypto (the seam's crypto.js) is not in this tree until that branch lands.
_CRYPTO_JS = Path(__file__).resolve().parents[2] / "truc_p2p" / "site" / "static" / "crypto.js"
if not _CRYPTO_JS.exists():
    pytest.skip("no crypto.js in this tree: merge the seam branch", allow_module_level=True)

#: browsers and processes: out of the fast loop
pytestmark = pytest.mark.slow

SHOTS = ROOT / "test-artifacts" / "page"
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "has_touch": True,
    "is_mobile": True,
    "device_scale_factor": 2,
}
#: Booting Pyodide on a loaded 2-core machine takes seconds; this bounds it.
BOOT_MS = 120_000
GAME_SECONDS = 240.0


@pytest.fixture(scope="module")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    write_site(site_files(), folder)
    return folder


@pytest.fixture(scope="module")
def relay(site_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """``truc-p2p relay --site`` on loopback; its port (HTTP, WebSocket and TCP)."""
    cwd = tmp_path_factory.mktemp("relay")
    proc = spawn(cwd, "relay", "--bind", "127.0.0.1", "--port", "0", "--json", "--site", site_dir)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert '"listening"' in line, line
        yield int(json.loads(line)["addresses"][0][1])
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


class Phone:
    """One page in its own browser context (its own IndexedDB), at a phone's size."""

    def __init__(self, browser: Any, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.context = browser.new_context(**PHONE)
        self.page = self.context.new_page()
        self.name = name
        self.console: list[str] = []
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))

    def open(self, url: str) -> None:
        self.page.goto(url)
        self.page.wait_for_function(
            "() => window.trucApp && (window.trucApp.ready || window.trucApp.failed)",
            timeout=BOOT_MS,
        )
        failed = self.page.evaluate("window.trucApp.failed")
        assert not failed, f"{failed}\n" + "\n".join(self.console[-20:])

    def shot(self, label: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / f"{self.name}-{label}.png"))

    def step(self) -> bool:
        """Tap what the table offers (a card first, else the first button); whether
        it tapped."""
        ready = self.page.evaluate(
            """() => { const u = window.truc; const t = u.state && u.state.table;
              return !!(t && t.turn != null && !u.final && !u.settling()); }"""
        )
        if not ready:
            return False
        if self.page.locator("#my-hand button.card:not([disabled])").count():
            self.page.tap("#my-hand button.card:not([disabled]) >> nth=0")
        elif self.page.locator("#buttons button").count():
            self.page.tap("#buttons button >> nth=0")
        else:
            return False
        return True

    def final(self) -> dict[str, Any] | None:
        final: dict[str, Any] | None = self.page.evaluate("window.truc.final")
        return final

    def close(self) -> None:
        self.context.close()


def _play(phones: list[Phone], *, shots: bool = False) -> None:
    """Tap every phone's turns until each shows its end screen."""
    end = time.monotonic() + GAME_SECONDS
    taps = 0
    while time.monotonic() < end:
        if all(p.final() is not None for p in phones):
            for p in phones:  # the end screen comes after the last trick is shown
                p.page.wait_for_selector("#final:not([hidden])", timeout=20_000)
            return
        for p in phones:
            if p.final() is None and p.step():
                taps += 1
                if shots and taps in (1, 6):
                    p.page.wait_for_timeout(300)
                    p.shot(f"table-{taps}")
        phones[0].page.wait_for_timeout(100)
    said = " | ".join(p.console[-1] for p in phones if p.console)
    raise AssertionError(f"the game did not end: {said}")


def _no_overflow(phone: Phone) -> None:
    width = phone.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"{phone.name}: the page scrolls sideways ({width} px)"


def _no_csp_violation(phone: Phone) -> None:
    assert not [line for line in phone.console if "Content Security Policy" in line]


def test_a_whole_bot_game_tapped_on_a_phone(browser: Any, relay: int) -> None:
    phone = Phone(browser, "bot")
    try:
        phone.open(f"http://127.0.0.1:{relay}/")
        phone.page.wait_for_selector("#app-home:not([hidden])")
        phone.page.screenshot(path=str(SHOTS / "bot-home.png"), full_page=True)
        _no_overflow(phone)
        phone.page.tap("#app-bot-go")
        phone.page.wait_for_selector("#app-table:not([hidden])")
        _play([phone], shots=True)
        phone.shot("final")
        final = phone.final()
        assert final is not None and final["outcome"] == "finished"
        assert final["verdict"]["status"] == "complete"
        _no_overflow(phone)
        _no_csp_violation(phone)
        # the transcript downloads as the desktop's .truc file
        with phone.page.expect_download() as download:
            phone.page.tap("#app-final-download")
        path = download.value.path()
        assert path is not None and Path(path).read_bytes().startswith(TRANSCRIPT_MAGIC)
    finally:
        phone.close()


def test_the_page_joins_a_desktop_host_through_the_relay(
    browser: Any, relay: int, tmp_path: Path
) -> None:
    host = start_host(
        tmp_path, "--relay", f"127.0.0.1:{relay}", "--bot", "random", "--seed", "1",
        "--timeout", "120", "--identity", "h.key", "--out", "h",
    )  # fmt: skip
    phone = Phone(browser, "join")
    try:
        phone.open(f"http://127.0.0.1:{relay}/#join={host.invite}")
        phone.page.wait_for_selector("#app-table:not([hidden])")
        _play([phone], shots=True)
        phone.shot("final")
        final = phone.final()
        assert final is not None and final["outcome"] == "finished", final
        status, out, err = host.finish()
        assert status == 0, out + err
        assert "#join=" not in phone.page.url  # the invite leaves the address bar
    finally:
        phone.close()


def test_the_page_hosts_and_the_desktop_joins(browser: Any, relay: int, tmp_path: Path) -> None:
    phone = Phone(browser, "host")
    joiner: subprocess.Popen[str] | None = None
    try:
        phone.open(f"http://127.0.0.1:{relay}/")
        phone.page.tap("#app-host-go")
        phone.page.wait_for_selector("#invite:not([hidden])", timeout=20_000)
        phone.shot("invite")
        link = phone.page.text_content("#invite-text") or ""
        assert link.startswith(f"http://127.0.0.1:{relay}/#join=truc://")
        invite = unquote(link.split("#join=", 1)[1])
        joiner = spawn(
            tmp_path, "join", invite, "--bot", "random", "--seed", "2", "--timeout", "120",
            "--identity", "j.key", "--out", "j", "--json",
        )  # fmt: skip
        _play([phone])
        final = phone.final()
        assert final is not None and final["outcome"] == "finished", final
        out, err = joiner.communicate(timeout=LIMIT)
        assert joiner.returncode == 0, out + err
        assert last_json(out)["valid"]
    finally:
        if joiner is not None and joiner.poll() is None:
            joiner.kill()
            joiner.communicate()
        phone.close()


def test_two_pages_play_each_other(browser: Any, relay: int) -> None:
    host, guest = Phone(browser, "two-host"), Phone(browser, "two-guest")
    try:
        host.open(f"http://127.0.0.1:{relay}/")
        host.page.tap("#app-host-go")
        host.page.wait_for_selector("#invite:not([hidden])", timeout=20_000)
        link = host.page.text_content("#invite-text") or ""
        guest.open(link)
        _play([host, guest])
        host.shot("final")
        guest.shot("final")
        finals = [host.final(), guest.final()]
        assert all(f is not None and f["outcome"] == "finished" for f in finals), finals
        assert {f["won"] for f in finals if f is not None} == {True, False}
    finally:
        host.close()
        guest.close()


def test_the_page_hosts_a_match_and_concedes_a_game(
    browser: Any, relay: int, tmp_path: Path
) -> None:
    """The host card's "match of 3 games": a desktop joins the match; the table's
    "concede this game" gives game 1 away and "next game" plays on to the end."""
    phone = Phone(browser, "match")
    joiner: subprocess.Popen[str] | None = None
    try:
        phone.open(f"http://127.0.0.1:{relay}/")
        phone.page.select_option("#app-match", "3")
        phone.page.tap("#app-host-go")
        phone.page.wait_for_selector("#invite:not([hidden])", timeout=20_000)
        invite = unquote((phone.page.text_content("#invite-text") or "").split("#join=", 1)[1])
        assert "match=3" in invite
        joiner = spawn(
            tmp_path, "join", invite, "--bot", "random", "--seed", "3", "--timeout", "120",
            "--identity", "j.key", "--out", "j",
        )  # fmt: skip
        phone.page.wait_for_function(
            "() => { const t = window.truc.state && window.truc.state.table;"
            " return !!(t && t.turn != null && !window.truc.settling()); }",
            timeout=LIMIT * 1000,
        )
        concede = phone.page.locator("#concede-btn")
        assert concede.is_visible() and concede.inner_text() == "concede this game"
        phone.shot("concede-button")
        asked: list[str] = []

        def accept(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.accept()

        phone.page.on("dialog", accept)
        concede.tap()
        phone.page.wait_for_selector("#final:not([hidden])", timeout=20_000)
        assert asked and asked[0].startswith("Concede this game? ")
        final = phone.final()
        assert final is not None and final["match_line"].startswith("match: you 0 – "), final
        phone.shot("conceded")
        for _ in range(3):
            phone.page.wait_for_function(
                "() => { const b = document.getElementById('final-again');"
                " return !b.hidden && !b.disabled && b.textContent === 'next game'; }",
                timeout=10_000,
            )
            phone.page.tap("#final-again")
            phone.page.wait_for_function("() => !window.truc.final", timeout=20_000)
            _play([phone])
            final = phone.final()
            assert final is not None
            if final.get("again") != "next":
                break
        phone.shot("match-over")
        assert final["match_line"].startswith("match over: "), final
        out, err = joiner.communicate(timeout=LIMIT)
        assert joiner.returncode == 0, out + err
        (record,) = (tmp_path / "j").glob("match-*.json")
        done = subprocess.run(
            [sys.executable, "-m", "truc_p2p.cli", "verify", "--match", str(record)],
            capture_output=True,
            text=True,
            timeout=LIMIT,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        _no_csp_violation(phone)
    finally:
        if joiner is not None and joiner.poll() is None:
            joiner.kill()
            joiner.communicate()
        phone.close()
