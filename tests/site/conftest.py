"""The site of tests/site, built once per test process from the download cache (the
first build of a fresh machine fills it from the registries; .ci/run runs the suite
online once, after which every build works offline)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.site import stand_in_site
from helpers.web import CHROMIUM, CHROMIUM_FLAGS

from truc_p2p.site import SiteBuild, write_site


@pytest.fixture(scope="session")
def site() -> SiteBuild:
    return stand_in_site()


@pytest.fixture(scope="session")
def site_dir(site: SiteBuild, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    write_site(site, folder)
    return folder


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's chromium through playwright, as in tests/web, or a skip that says why."""
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
