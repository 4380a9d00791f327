"""``truc-p2p interop --peer <browser adapter>``: the site's page, in headless Chromium,
passes every case of protocol_spec/interop.md in both roles.

The adapter (``python -m truc_p2p.interop.browser_peer``) is started by the runner for
each case, as any peer; all of them drive one Chromium per test process (``--cdp``), so
the site is loaded from the browser's cache after the first case, and the session's
``truc-p2p relay --site`` (tests/page/conftest.py) serves the site and carries the
page's WebSockets.  One test item per case: xdist spreads the 40 runs (about 6 minutes
in one go) over its workers."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.interop import SPEC_CLOCKS_THINK, run_apart
from helpers.web import CHROMIUM, CHROMIUM_FLAGS

from truc_p2p.interop import CASE_NAMES, DEFAULT_CASE_TIMEOUT
from truc_p2p.interop._adversary import ADVERSARIAL
from truc_p2p.interop._runner import LINGER

#: a browser, a relay and 40 runs: out of the fast loop
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


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One Chromium for every case of this test process: its DevTools URL."""
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


#: The slow case thinks 12 s with the spec's 5 s and 20 s heartbeat clocks kept
#: (``spec_clocks``): a think shortened with its clocks would scale the runner's dead-link
#: time down to seconds, shorter than one deck step of the page's worker on a loaded
#: machine (its Python computes the shuffle proofs in one go; no heartbeat can leave
#: meanwhile), which interop.md lets a peer fail.
RUNS = [*((name, ("host", "join")) for name in CASE_NAMES),
        *((name, ADVERSARIAL[name].roles) for name in SAMPLE)]  # fmt: skip


def test_the_runs_are_every_case_in_both_roles_and_a_must_case_per_section() -> None:
    cases = {name for name, _roles in RUNS}
    assert len(CASE_NAMES) == 13
    assert all(roles == ("host", "join") for name, roles in RUNS if name in CASE_NAMES)
    assert {s for s in SECTIONS if any(n.startswith(f"{s}-") for n in cases)} == set(SECTIONS)
    assert cases == {*CASE_NAMES, *SAMPLE}
    assert "wire-11.1-early-fallback-close" in cases  # and one fallback case


@pytest.mark.parametrize(("case", "roles"), RUNS, ids=[name for name, _roles in RUNS])
def test_the_page_passes_every_interop_case_in_both_roles(
    relay: int, chromium: str, tmp_path: Path, case: str, roles: tuple[str, ...]
) -> None:
    peer = shlex.join(
        [sys.executable, "-m", "truc_p2p.interop.browser_peer",
         "--relay", f"127.0.0.1:{relay}", "--cdp", chromium]
    )  # fmt: skip
    results = run_apart(peer, tmp_path / "work", [case], roles, timeout=DEFAULT_CASE_TIMEOUT,
                        slow_think=SPEC_CLOCKS_THINK, linger=LINGER, spec_clocks=True)  # fmt: skip
    assert set(results) == {(case, role) for role in roles}
    failed = [f"{c} ({r}): {v.result} {v.detail}" for (c, r), v in results.items()
              if v.result != "pass"]  # fmt: skip
    assert not failed, "\n".join(failed)
    # the page resumed over a new link, and caught the forged proof at its message
    for role in roles:
        if case == "resume":
            assert "connection" in results[(case, role)].detail
        if case == "cheat":
            assert results[(case, role)].detail.startswith("abort 'cheat'")
