"""benchmarks/site_load.py still runs and reports every figure (read by people, not
asserted: speed is no unit test)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.web import CHROMIUM

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "site_load.py"


@pytest.mark.slow
def test_site_load_reports_weight_boot_times_and_the_longest_stall() -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"no browser: {CHROMIUM} is missing (apt-get install chromium; .ci/run does)")
    done = subprocess.run(
        [sys.executable, str(BENCH), "--runs", "1", "--reloads", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    # every file but manifest.json (which only site check reads) crossed the network
    # on the first visit, the big ones once (the service worker's precache takes them
    # from the HTTP cache), and none on the cached visit
    assert report["site_bytes"] - 20_000 <= report["first_load_bytes"]
    assert report["first_load_bytes"] <= 1.1 * report["site_bytes"]
    assert report["cached_load_bytes"] == 0
    for key in (
        "cold_ready_ms",
        "cached_ready_ms",
        "cold_boot_ms",
        "cached_boot_ms",
        "cold_pyodide_ms",
        "cached_pyodide_ms",
        "cold_cpu_ms",
        "cached_cpu_ms",
    ):
        assert report[key] > 0, key
    assert report["longest_stall_ms"] >= 0
