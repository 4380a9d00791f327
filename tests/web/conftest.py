"""The browser for tests/web: Debian's chromium driven by playwright, or a skip that
says why (the reason is printed by ``-ra``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from helpers.web import ARTIFACTS, OPEN_PAGES


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
