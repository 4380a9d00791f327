"""The version matrix: the runner against the earlier builds of
``tests/compat/compat_builds.py`` (through ``old_build_peer.py``), both roles, with
the verdicts ``protocol_spec/interop.md`` section 6 expects of each.  Building needs
git history and PyPI: in CI (``CI`` set) a build that cannot be made fails, elsewhere
the test skips and says why."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from interop_helpers import old_build, run

from truc_p2p.interop import CASE_NAMES

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "compat"))
from compat_builds import BUILDS, BuildError, build

P, F, U = "pass", "fail", "unsupported"
#: (peer host, peer join) for each case; cases not named pass in both roles.
EXPECTED: dict[str, dict[str, tuple[str, str]]] = {
    "c2ef0f2": {
        "classic": (U, U),  # it always pipelines the deal
        "redeal": (U, U),  # its command line cannot script the bot
        "resign-peer": (U, U),
        "rest": (U, U),
        "resign-runner": (U, U),  # before resignation
        "match3": (U, U),  # before linked games
        "rematch": (U, U),
        "slow": (U, U),  # before heartbeats
        # before link faults (wire.md 13.7): a damaged frame is taken for a cheat
        "bad-frame": (F, F),
    },
    "b0f1f7f": {
        "redeal": (U, U),
        "resign-peer": (U, U),
        "rest": (U, U),
        "rematch": (U, U),  # its rematch asks a person "play again?"
        # unannounced heartbeats: it sends them as a joiner only
        "slow": (F, P),
    },
}


@pytest.mark.slow
@pytest.mark.parametrize("commit", sorted(BUILDS))
def test_the_runner_gives_each_earlier_build_its_expected_verdicts(
    tmp_path: Path, commit: str
) -> None:
    try:
        build(commit)
    except BuildError as exc:
        reason = f"cannot build {commit} ({BUILDS[commit]}): {exc}"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    # the builds keep the spec's 5 s and 20 s heartbeat clocks: the slow case thinks 30 s
    results = run(old_build(commit), tmp_path, list(CASE_NAMES), slow_think=30.0, timeout=90.0)
    got = {
        case: (results[case, "host"].result, results[case, "join"].result) for case in CASE_NAMES
    }
    want = {case: EXPECTED[commit].get(case, (P, P)) for case in CASE_NAMES}
    details = {k: r.detail for k, r in results.items() if r.result == "fail"}
    assert got == want, details
