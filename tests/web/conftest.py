"""The browser for tests/web: Debian's chromium driven by playwright, or a skip that
says why (the reason is printed by ``-ra``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from helpers.web import ARTIFACTS, CHROMIUM, CHROMIUM_FLAGS, OPEN_PAGES


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
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
def artifacts() -> Any:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(autouse=True)
def _close_pages() -> Iterator[None]:
    """Each test's pages (and their contexts) closed when it ends, passed or failed."""
    yield
    while OPEN_PAGES:
        page = OPEN_PAGES.pop()
        with contextlib.suppress(Exception):  # the browser may be gone (a crashed test)
            page.context.close()
