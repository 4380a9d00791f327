"""The site of tests/site, built once per test process from the download cache (the
first build of a fresh machine fills it from the registries; .ci/run runs the suite
online once, after which every build works offline)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.site import stand_in_site

from truc_p2p.site import SiteBuild, write_site


@pytest.fixture(scope="session")
def site() -> SiteBuild:
    return stand_in_site()


@pytest.fixture(scope="session")
def site_dir(site: SiteBuild, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    write_site(site, folder)
    return folder
