"""``truc-p2p interop --peer <browser adapter>``: the site's page, in headless Chromium,
passes every case of protocol_spec/interop.md in both roles.

The adapter (``python -m truc_p2p.interop.browser_peer``) is started by the runner for
each case, as any peer; all of them drive one Chromium (``--cdp``), so the site is
loaded from the browser's cache after the first case, and one ``truc-p2p relay
--site`` serves the site and carries the page's WebSockets."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.cli import spawn
from helpers.web import CHROMIUM, CHROMIUM_FLAGS

from truc_p2p.interop import CASE_NAMES
from truc_p2p.interop._adversary import ADVERSARIAL
from truc_p2p.site import site_files, write_site

#: a browser, a relay and 38 cases: out of the fast loop
pytestmark = pytest.mark.slow

#: One adversarial MUST case per section of interop.md §8 (the first by name): the
#: page refuses or convicts as the row says. The whole suite (every case of ADVERSARIAL)
#: is a long run, done by hand and reported in the issue; in CI one per section keeps
#: each section honest (wire-7's a whole game up to the result: about 40 s in the page).
MUST = sorted(name for name, m in ADVERSARIAL.items() if m.level == "must")
SECTIONS = sorted({"-".join(name.split("-")[:2]) for name in MUST})
SAMPLE = (
    *(min(n for n in MUST if n.startswith(f"{s}-")) for s in SECTIONS),
    # and one SHOULD case: the page joins an older host again without early cards
    "wire-11.1-early-fallback-close",
)


@pytest.fixture(scope="module")
def relay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``truc-p2p relay --site`` on loopback: ``host:port``."""
    site = tmp_path_factory.mktemp("site")
    write_site(site_files(), site)
    proc = spawn(tmp_path_factory.mktemp("relay"), "relay", "--bind", "127.0.0.1", "--port",
                 "0", "--json", "--site", site)  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert '"listening"' in line, line
        yield f"127.0.0.1:{json.loads(line)['addresses'][0][1]}"
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


@pytest.fixture(scope="module")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One Chromium for every case: its DevTools URL."""
    if not CHROMIUM.exists():
        pytest.skip(f"no browser: {CHROMIUM} is missing (apt-get install chromium)")
    pytest.importorskip("playwright")
    profile = tmp_path_factory.mktemp("chromium")
    said = profile.parent / f"{profile.name}.stderr"
    with said.open("w") as stderr:  # a file: a pipe nobody reads would fill and stall it
        proc = subprocess.Popen(
            [str(CHROMIUM), *CHROMIUM_FLAGS, "--remote-debugging-port=0",
             f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )  # fmt: skip
    try:
        url = None
        end = time.monotonic() + 60
        while url is None and time.monotonic() < end:
            found = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", said.read_text())
            if found:
                url = f"http://127.0.0.1:{found.group(1)}"
            else:
                time.sleep(0.1)
        assert url is not None, "chromium gave no DevTools URL"
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(profile, ignore_errors=True)


#: The slow case with the spec's own 30 s think (its heartbeat every 5 s, a dead link after
#: 20 s): a shortened think scales the runner's dead-link time down to 2 s, shorter than
#: one deck step of the page's worker on a loaded machine (its Python computes the
#: shuffle proofs in one go; no heartbeat can leave meanwhile), which interop.md lets a
#: peer fail.
def test_the_page_passes_every_interop_case_in_both_roles(
    relay: str, chromium: str, tmp_path: Path
) -> None:
    peer = shlex.join(
        [sys.executable, "-m", "truc_p2p.interop.browser_peer", "--relay", relay, "--cdp", chromium]
    )
    only = [arg for name in (*CASE_NAMES, *SAMPLE) for arg in ("--case", name)]
    done = subprocess.run(
        [sys.executable, "-m", "truc_p2p", "interop", "--peer", peer, "--json",
         "--slow-think", "30", "--work", str(tmp_path / "work"), *only],
        capture_output=True,
        text=True,
        timeout=2400,
        check=False,
    )  # fmt: skip
    assert done.stdout, done.stderr[-2000:]
    report = json.loads(done.stdout)
    results = {(c["case"], c["role"]): c for c in report["cases"]}
    sample = {(c, r) for c in SAMPLE for r in ADVERSARIAL[c].roles}
    assert set(results) == {(c, r) for c in CASE_NAMES for r in ("host", "join")} | sample
    failed = [f"{c} ({r}): {v['result']} {v['detail']}" for (c, r), v in results.items()
              if v["result"] != "pass"]  # fmt: skip
    assert not failed, "\n".join(failed)
    assert done.returncode == 0
    # the page resumed over a new link, and caught the forged proof at its message
    for role in ("host", "join"):
        assert "connection" in results[("resume", role)]["detail"]
        assert results[("cheat", role)]["detail"].startswith("abort 'cheat'")
