"""The built site in Chromium, served from disk with the site's CSP: Python boots in a
worker from the site's own files, this package's rules engine plays a random legal
game there (the same game as natively, move for move), Python calls the vendored noble curves
synchronously (the same keys as natively), no CSP violation is reported,
and after one visit the page loads again with the network cut (the service worker)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import coincurve
import pytest
from helpers.site import serve_folder

from truc_p2p.crypto import SigningKey
from truc_p2p.rules import ALL_CARDS, Game, Phase, Player, hands_from_deck
from truc_p2p.site import SiteBuild

pytestmark = pytest.mark.slow
#: Booting Pyodide on a loaded 2-core machine takes seconds; this bounds it.
BOOT_MS = 120_000


def random_game(seed: int) -> str:
    """The stand-in worker's game (tests/site/fixtures/page/worker.js), played natively."""
    rng = random.Random(seed)
    game = Game(first_dealer=Player.P1)
    deck: list[Any] = []
    steps = 0
    while game.phase is not Phase.OVER:
        if game.phase is Phase.DEAL:
            if not game.redealt:
                deck = list(ALL_CARDS)
                rng.shuffle(deck)
            game.deal(dict(hands_from_deck(deck, game.dealer, redeal=game.redealt)))
            continue
        game.push(rng.choice(list(game.legal_actions())))
        steps += 1
    return f"{game.outcome()} after {steps} actions"


def native_crypto(secret: bytes) -> str:
    """What the worker computes through truc_p2p.crypto on its js backend (crypto.js),
    computed natively."""
    ed = SigningKey.from_bytes(secret).public_key().to_bytes()
    point = coincurve.PrivateKey(secret).public_key.format(compressed=True)
    return f"{hashlib.sha256(secret).hexdigest()} {ed.hex()} {point.hex()}"


@pytest.fixture
def page(browser: Any, site_dir: Path) -> Iterator[tuple[Any, str, list[str]]]:
    """A page in a fresh context (its own service worker and caches), the site's URL,
    and the console's messages (the CSP's reports land there, the worker's too)."""
    with serve_folder(site_dir) as url:
        context = browser.new_context()
        try:
            page = context.new_page()
            console: list[str] = []
            page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
            page.on("worker", lambda w: w.on("console", lambda m: console.append(m.text)))
            yield page, url, console
        finally:
            context.close()


def _played(page: Any) -> dict[str, str]:
    page.wait_for_selector("body[data-result], body[data-error]", timeout=BOOT_MS)
    shown: dict[str, str] = page.evaluate("() => ({...document.body.dataset})")
    assert "error" not in shown, shown["error"]
    return shown


#: The stand-in worker's one eval, which shows the CSP governs the worker too.
PROBE = "Refused to evaluate a string as JavaScript"


def _no_csp_violation(shown: dict[str, str], console: list[str]) -> None:
    assert "violations" not in shown, shown["violations"]
    # the worker ran under the site's CSP (no eval), and Python booted all the same
    assert shown["workerEvalBlocked"] == "true"
    reported = [line for line in console if "Content Security Policy" in line]
    assert [line for line in reported if PROBE not in line] == []


def test_python_plays_the_rules_engine_in_a_worker_and_then_offline(
    page: tuple[Any, str, list[str]],
) -> None:
    tab, url, console = page
    tab.goto(f"{url}#seed=7")
    shown = _played(tab)
    assert shown["result"] == random_game(7)
    assert shown["crypto"] == native_crypto(bytes([7] * 32))
    assert tab.locator("#progress").text_content().startswith("Python ready in ")
    _no_csp_violation(shown, console)
    # the service worker has every file of the build before the network goes
    tab.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=BOOT_MS)
    tab.context.set_offline(True)
    tab.goto(f"{url}#seed=11")
    tab.reload()
    shown = _played(tab)
    assert shown["result"] == random_game(11)
    _no_csp_violation(shown, console)
    # the check can fail: with the network cut and no service worker there is no page
    fresh = tab.context.browser.new_context(service_workers="block")
    try:
        cold = fresh.new_page()
        fresh.set_offline(True)
        with pytest.raises(Exception, match="ERR_INTERNET_DISCONNECTED"):
            cold.goto(url)
    finally:
        fresh.close()


def test_a_csp_violation_would_be_seen(page: tuple[Any, str, list[str]], site_dir: Path) -> None:
    """The violation check can fail: an inline script, which the CSP blocks, is reported
    (by the page's securitypolicyviolation listener and on the console)."""
    tab, url, console = page
    tab.goto(f"{url}#seed=1")
    with pytest.raises(Exception, match="violates the following Content Security Policy"):
        tab.add_script_tag(content="document.title = 'injected'")
    tab.wait_for_function("() => document.body.dataset.violations", timeout=10_000)
    shown = tab.evaluate("() => ({...document.body.dataset})")
    with pytest.raises(AssertionError):
        _no_csp_violation(shown, console)


def test_the_page_asks_for_every_pyodide_file_the_site_ships(
    browser: Any, site: SiteBuild, site_dir: Path
) -> None:
    """With no service worker in the way: the files of vendor/pyodide/ are exactly
    those loadPyodide fetches (pins.json's "take"), and the page asks for no file the
    site lacks."""
    tally: dict[str, int] = {}
    with serve_folder(site_dir, tally) as url:
        context = browser.new_context(service_workers="block")
        try:
            tab = context.new_page()
            tab.goto(f"{url}#seed=3")
            assert _played(tab)["result"] == random_game(3)
        finally:
            context.close()
    asked = {key[1:] for key in tally if key.startswith("/")}
    shipped = {path for path in site.files if path.startswith("vendor/pyodide/")}
    assert {path for path in asked if path.startswith("vendor/pyodide/")} == shipped
    assert asked <= set(site.files), asked - set(site.files)


def test_a_new_build_replaces_the_old_one_in_the_browser(
    browser: Any, site: SiteBuild, tmp_path: Path
) -> None:
    """A new build deployed over the old: the next visit installs its service worker,
    which caches the new files and deletes the old build's cache."""
    from helpers.site import STAND_IN_MISSING, STAND_IN_PAGE

    from truc_p2p.site import site_files, write_site

    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "notes.txt").write_text("the second build\n")
    second = site_files(
        override_static=[STAND_IN_PAGE], extra_static=[STAND_IN_MISSING, extra], offline=True
    )
    folder = tmp_path / "site"
    write_site(site, folder)
    with serve_folder(folder) as url:
        context = browser.new_context()
        try:
            tab = context.new_page()
            tab.goto(f"{url}#seed=5")
            _played(tab)
            tab.wait_for_function("() => navigator.serviceWorker.controller !== null")
            assert _caches(tab) == [f"truc-p2p-{site.build}"]
            assert _snapshot_state(tab, url) == "made"
            first = tab.evaluate(SNAPSHOTS)
            assert len(first) == 1
            write_site(second, folder)
            tab.reload()
            _played(tab)
            for _ in range(600):
                if _caches(tab) == [f"truc-p2p-{second.build}"]:
                    break
                tab.wait_for_timeout(100)
            assert _caches(tab) == [f"truc-p2p-{second.build}"]
            # the same Python (site.json): the memory snapshot still serves, and only it
            assert _snapshot_state(tab, url) == "restored"
            assert tab.evaluate(SNAPSHOTS) == first
            context.set_offline(True)
            assert tab.evaluate("() => fetch('notes.txt').then((r) => r.text())") == (
                "the second build\n"
            )
        finally:
            context.close()


def _caches(tab: Any) -> list[str]:
    names: list[str] = tab.evaluate("() => caches.keys()")
    return names


#: In the worker: boot.js's memory-snapshot state once a made one is stored.
SNAPSHOT_STATE = """(url) => import(url).then(async ({ snapshot }) => {
  await snapshot.saved;
  return snapshot.state;
})"""

#: In the page: the snapshots kept (boot.js: files of the origin private file system).
SNAPSHOTS = """async () => {
  const root = await navigator.storage.getDirectory();
  const dir = await root.getDirectoryHandle("truc-p2p.snapshot", { create: true });
  const names = [];
  for await (const name of dir.keys()) names.push(name);
  return names;
}"""

#: In the page: one byte of the stored snapshot flipped (in the middle of Python's
#: memory), its recorded SHA-256 (its first 32 bytes) kept.
CORRUPT_SNAPSHOT = """async (name) => {
  const root = await navigator.storage.getDirectory();
  const dir = await root.getDirectoryHandle("truc-p2p.snapshot");
  const handle = await dir.getFileHandle(name);
  const bytes = new Uint8Array(await (await handle.getFile()).arrayBuffer());
  bytes[bytes.length >> 1] ^= 0x5a;
  const out = await handle.createWritable();
  await out.write(bytes);
  await out.close();
  return bytes.length;
}"""


#: In the worker: Python calls a method of a host object through ``js``.
PLAIN_JS = "() => self.trucPython.runPython('import js; js.performance.now() > 0')"


def _snapshot_state(tab: Any, url: str) -> str:
    for _ in range(100):
        if tab.workers:
            break
        tab.wait_for_timeout(50)
    state: str = tab.workers[0].evaluate(SNAPSHOT_STATE, f"{url}boot.js")
    return state


def test_the_memory_snapshot_is_restored_and_a_corrupted_one_refused(
    page: tuple[Any, str, list[str]],
) -> None:
    """The first boot keeps a memory snapshot and the next one starts from it; a
    snapshot whose bytes no longer give its SHA-256 is refused with one console
    line, and Python boots the slow way (the same game) and keeps a new one."""
    tab, url, console = page
    tab.goto(f"{url}#seed=5")
    assert _played(tab)["result"] == random_game(5)
    assert _snapshot_state(tab, url) == "made"
    # the first visit's Python too is one restored from the snapshot, not the one that
    # made it (which reaches JS through a recorder, where a method loses its `this`)
    assert tab.workers[0].evaluate(PLAIN_JS) is True
    tab.goto(f"{url}#seed=6")
    tab.reload()
    assert _played(tab)["result"] == random_game(6)
    assert _snapshot_state(tab, url) == "restored"
    kept = tab.evaluate(SNAPSHOTS)
    assert len(kept) == 1
    assert tab.evaluate(CORRUPT_SNAPSHOT, kept[0]) > 1_000_000
    console.clear()
    tab.goto(f"{url}#seed=8")
    tab.reload()
    assert _played(tab)["result"] == random_game(8)
    # one line (the worker's console reaches the page's too, as "warning: <line>")
    refused = sorted(
        {line.removeprefix("warning: ") for line in console if "snapshot is refused" in line}
    )
    assert len(refused) == 1, console
    assert "its SHA-256 is " in refused[0]
    assert refused[0].endswith("starting Python the slow way")
    assert _snapshot_state(tab, url) == "made"  # a new one, which the next boot takes
    tab.reload()
    _played(tab)
    assert _snapshot_state(tab, url) == "restored"
