"""The site's load in headless Chromium (issue 41's figures): page weight on the first
visit and on a cached one, the time from a load to Python ready in the worker (cold:
a fresh profile; cached: a reload served by the service worker), and the longest
main-thread stall (a PerformanceObserver for long tasks).

The site is built from this package (with tests/site's stand-in page where the page's
own files are missing) into a temporary folder and served from disk on 127.0.0.1.

    python benchmarks/site_load.py [--runs 3] [--reloads 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # helpers

from helpers.site import serve_folder, stand_in_site
from helpers.web import CHROMIUM, CHROMIUM_FLAGS

from truc_p2p.site import SiteError, write_site

#: Registered before any script of the page (through the browser's devtools, which
#: the page's CSP does not govern): the longest task on the main thread.
LONGTASKS = """
window.__longest = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    window.__longest = Math.max(window.__longest, entry.duration);
  }
}).observe({ type: "longtask", buffered: true });
"""
BOOT_MS = 180_000


def _browser_cpu_seconds() -> float:
    """CPU time (user + system) of this process's descendants so far (the browser's
    processes, through playwright's driver), from /proc; 0 where there is none.  A
    figure a loaded machine does not inflate, unlike the wall time."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        pid = int(stat.parent.name)
        parents[pid] = int(fields[1])
        ticks[pid] = int(fields[11]) + int(fields[12])
    mine, grew = {os.getpid()}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in mine} - mine
        mine |= more
        grew = bool(more)
    mine.discard(os.getpid())
    return sum(ticks[pid] for pid in mine) / os.sysconf("SC_CLK_TCK")


def _load(page: Any, url: str, *, reload: bool) -> dict[str, float]:
    cpu = _browser_cpu_seconds()
    started = time.perf_counter()
    if reload:
        page.reload()
    else:
        page.goto(url)
    page.wait_for_selector("body[data-result], body[data-error]", timeout=BOOT_MS)
    wall = (time.perf_counter() - started) * 1000
    cpu = _browser_cpu_seconds() - cpu
    shown = page.evaluate(
        "() => ({...document.body.dataset, longest: window.__longest,"
        " observed: PerformanceObserver.supportedEntryTypes.includes('longtask')})"
    )
    if not shown["observed"]:
        raise SystemExit("site_load: this browser reports no long tasks")
    if "error" in shown:
        raise SystemExit(f"site_load: the page failed: {shown['error']}")
    pyodide = re.search(r"\(Pyodide (\d+) ms", page.locator("#progress").text_content() or "")
    return {
        "pyodide_ms": float(pyodide[1]) if pyodide else float("nan"),
        "wall_ms": wall,
        "cpu_ms": cpu * 1000,
        "ready_ms": float(shown["readyAt"]),  # navigation start -> Python ready
        "boot_ms": float(shown["bootMs"]),  # inside the worker: bootPython()
        "longest_stall_ms": float(shown["longest"] or 0),
    }


def measure(runs: int, reloads: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    site = stand_in_site()
    cold: list[dict[str, float]] = []
    cached: list[dict[str, float]] = []
    first_bytes: list[int] = []
    cached_bytes: list[int] = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        folder = Path(tmp) / "site"
        write_site(site, folder)
        for run in range(runs):
            tally: dict[str, int] = {}
            with serve_folder(folder, tally) as url:
                # a fresh profile on disk, as a phone's browser has: an incognito
                # context's HTTP cache is in memory and keeps no file over 1.25 MB
                context = p.chromium.launch_persistent_context(
                    Path(tmp) / f"profile{run}",
                    executable_path=str(CHROMIUM),
                    args=CHROMIUM_FLAGS,
                )
                try:
                    context.add_init_script(LONGTASKS)
                    page = context.new_page()
                    cold.append(_load(page, url, reload=False))
                    page.wait_for_function(
                        "() => navigator.serviceWorker.controller !== null", timeout=BOOT_MS
                    )
                    first_bytes.append(tally.get("bytes", 0))
                    for _ in range(reloads):
                        tally.clear()
                        cached.append(_load(page, url, reload=True))
                        cached_bytes.append(tally.get("bytes", 0))
                finally:
                    context.close()

    def median(rows: list[dict[str, float]], key: str) -> float:
        return round(statistics.median(row[key] for row in rows), 1)

    return {
        "runs": runs,
        "reloads": reloads,
        "site_bytes": site.size,
        "site_files": len(site.files),
        "first_load_bytes": int(statistics.median(first_bytes)),
        "cached_load_bytes": max(cached_bytes),
        "cold_ready_ms": median(cold, "ready_ms"),
        "cold_boot_ms": median(cold, "boot_ms"),
        "cached_ready_ms": median(cached, "ready_ms"),
        "cached_boot_ms": median(cached, "boot_ms"),
        "cold_cpu_ms": median(cold, "cpu_ms"),
        "cached_cpu_ms": median(cached, "cpu_ms"),
        "cold_pyodide_ms": median(cold, "pyodide_ms"),
        "cached_pyodide_ms": median(cached, "pyodide_ms"),
        "load_average": round(os.getloadavg()[0], 1),
        "cpus": os.cpu_count(),
        "longest_stall_ms": max(row["longest_stall_ms"] for row in cold + cached),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh profiles to load (median)")
    parser.add_argument(
        "--reloads", type=int, default=2, help="cached loads after each first visit (median)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        print(f"site_load: no browser ({CHROMIUM} is missing)", file=sys.stderr)
        return 1
    try:
        report = measure(max(1, args.runs), max(1, args.reloads))
    except SiteError as exc:
        print(f"site_load: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report))
        return 0
    mb = 1e6
    print(f"site: {report['site_files']} files, {report['site_bytes'] / mb:.1f} MB")
    print(
        f"page weight: first load {report['first_load_bytes'] / mb:.1f} MB over the network, "
        f"cached load {report['cached_load_bytes'] / 1e3:.1f} kB"
    )
    print(
        f"load to Python ready (median of {report['runs']} first visits and "
        f"{report['runs'] * report['reloads']} reloads): cold {report['cold_ready_ms']:.0f} ms"
        f" (bootPython {report['cold_boot_ms']:.0f} ms), cached {report['cached_ready_ms']:.0f} ms"
        f" (bootPython {report['cached_boot_ms']:.0f} ms)"
    )
    print(
        f"of which loadPyodide: cold {report['cold_pyodide_ms']:.0f} ms, "
        f"cached {report['cached_pyodide_ms']:.0f} ms (the rest: unpacking this package)"
    )
    print(
        f"browser CPU time (all its processes) per load: cold {report['cold_cpu_ms']:.0f} ms, "
        f"cached {report['cached_cpu_ms']:.0f} ms"
    )
    print(f"longest main-thread stall: {report['longest_stall_ms']:.0f} ms")
    print(f"(machine: {report['cpus']} CPUs, load average {report['load_average']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
