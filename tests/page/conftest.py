"""The fixtures of the page's browser tests: the site, built once per test process, and
``truc-p2p relay --site`` serving it (test_page_browser and test_page_browser_checks
share them)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.cli import spawn

from truc_p2p.site import site_files, write_site


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    write_site(site_files(), folder)
    return folder


@pytest.fixture(scope="session")
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
