"""Fixtures shared by every test directory."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from suite_order import longest_first

# The suite starts hundreds of Python processes (the program, peers, xdist's workers),
# each of which imports the program: with PYTHONDONTWRITEBYTECODE set (some shells and
# containers set it) every one of them compiles every module again, a fifth of a
# subprocess test's time. The test run keeps them (``__pycache__``, git-ignored).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

#: The fast loop's hypothesis profile: a quarter of the examples CI tries (a test that
#: names its count scales it with ``helpers.examples.examples``).
settings.register_profile("fast", max_examples=25)

#: ``tmpfs(size="64k", ro=False)`` -> the directory of a fresh tmpfs mount.
Mount = Callable[..., Path]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's chromium driven by playwright, one per test process for tests/ui,
    tests/page and tests/site alike (playwright's sync API runs one instance per
    thread: a second ``sync_playwright()`` beside a live one fails, and every browser
    test of that process after it), or a skip that says why (printed by ``-ra``)."""
    from helpers.web import CHROMIUM, CHROMIUM_FLAGS

    if not CHROMIUM.exists():
        pytest.skip(f"no browser: {CHROMIUM} is missing (apt-get install chromium; .ci/run does)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - playwright comes with the test extra
        pytest.skip(f"no browser driver: {exc}")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def artifacts() -> Path:
    """``test-artifacts/web/`` (git-ignored), where the browser tests leave screenshots."""
    from helpers.web import ARTIFACTS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(autouse=True)
def _close_pages() -> Iterator[None]:
    """Each test's pages (and their contexts) closed when it ends, passed or failed
    (``helpers.web.OPEN_PAGES``, filled by ``new_page``)."""
    yield
    web = sys.modules.get("helpers.web")  # no browser test ran in this process yet
    while web is not None and web.OPEN_PAGES:
        page = web.OPEN_PAGES.pop()
        with contextlib.suppress(Exception):  # the browser may be gone (a crashed test)
            page.context.close()


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Mount]:
    """``tmpfs(size="64k", ro=False)`` mounts a fresh tmpfs and returns its directory."""
    mounted: list[Path] = []

    def mount(size: str = "64k", *, ro: bool = False) -> Path:
        where = tmp_path / f"mnt{len(mounted)}"
        where.mkdir()
        options = f"size={size},mode=0755" + (",ro" if ro else "")
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            reason = f"cannot mount a tmpfs here: {(done.stderr or done.stdout).strip()}"
            print(reason)
            pytest.skip(reason)
        mounted.append(where)
        return where

    yield mount
    for where in reversed(mounted):
        subprocess.run(["umount", "-l", str(where)], check=False)


@pytest.fixture(scope="session", autouse=True)
def _shuffle_proofs_once() -> Iterator[None]:
    """Deck v2's shuffle proofs made and checked once per test process for each
    statement (``helpers.proof_memo`` says why that changes no answer): most of the
    suite's CPU went to the same seeded deals proved and checked again."""
    from helpers import proof_memo

    with pytest.MonkeyPatch.context() as patch:
        proof_memo.install(patch.setattr)
        yield


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tests read English texts: whatever the developer's locale, commands run in English
    (``LANGUAGE`` comes first, as for gettext) unless a test chooses another language,
    and a test that switches the process's language leaves it English."""
    from truc_p2p.i18n import use_language

    monkeypatch.setenv("LANGUAGE", "en")
    yield
    use_language("en")


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Output that is not a terminal is 80 columns wide, as the layout tests read it,
    whatever ``$COLUMNS`` the developer's shell exports (a test sets it to test it)."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(autouse=True)
def games_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands write and read ``games/`` in their current folder, as the tests were
    written for, never the developer's own history (``$TRUC_P2P_GAMES``; a test of the
    per-person default removes it: tests/history/test_history_games_home.py)."""
    monkeypatch.setenv("TRUC_P2P_GAMES", "games")


def pytest_configure(config: pytest.Config) -> None:
    """The fast loop (``-m "not slow"``, docs/developing.md) runs hypothesis's ``fast``
    profile unless ``--hypothesis-profile`` says otherwise; CI's plain ``pytest``
    keeps hypothesis's default profile and every test's full count."""
    markexpr = str(config.getoption("markexpr", "") or "")
    if "not slow" in markexpr and config.getoption("hypothesis_profile", None) is None:
        settings.load_profile("fast")


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> Iterator[None]:
    """A test that drives the browser (the ``browser`` fixture of tests/ui) is slow
    (marked before ``-m`` selects); under xdist the slow tests that are left start
    first (``suite_order.longest_first``)."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
    yield
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 0)
    if workers > 1:  # in an xdist worker (each orders the same collection the same way)
        items[:] = longest_first(items, workers)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: half as many workers again as cores (3 on 2 cores). Most of the
    suite's time is other processes, browsers and sockets waited on, not our CPU:
    on this 2-core machine the whole suite took 11 min 03 s with 2 workers and
    8 min 39 s with 3 (no test failing in either). The fast loop (``-m "not slow"``)
    is our own CPU: a worker per core, as each worker imports and collects the suite
    again and makes its own deals (``_shuffle_proofs_once``)."""
    cores = os.cpu_count() or 1
    if "not slow" in str(config.getoption("markexpr", "") or ""):
        return cores
    return max(1, cores + cores // 2)


@pytest.fixture(autouse=True)
def pipes_of_ended_processes_closed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A process a test started and that has ended (exited or killed) has its pipes
    closed when the test ends, by whichever test started it: a pipe left to the garbage
    collector is reported in whichever test runs next on that worker, as an unclosed
    ``FileIO``. Processes still running (a module's server) are left alone."""
    started: list[subprocess.Popen[Any]] = []
    real_init = subprocess.Popen.__init__

    def init(self: subprocess.Popen[Any], *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        started.append(self)

    monkeypatch.setattr(subprocess.Popen, "__init__", init)
    yield
    for proc in started:
        if proc.poll() is None:
            continue
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
