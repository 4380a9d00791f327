"""The version matrix: the runner against the earlier builds of
``tests/helpers/compat_builds.py`` (through ``old_build_peer.py``), both roles, with
the verdicts ``protocol_spec/interop.md`` section 6 expects of each.  Building needs
git history and PyPI: in CI (``CI`` set) a build that cannot be made fails, elsewhere
the test skips and says why."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers.compat_builds import BUILDS, BuildError, build
from helpers.interop import SPEC_CLOCKS_THINK, old_build, run

from truc_p2p.interop import CASE_NAMES

P, F, U = "pass", "fail", "unsupported"
ROLES = ("host", "join")
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
    "2731091": {
        "redeal": (U, U),
        "resign-peer": (U, U),
        "rest": (U, U),
        "match3": (U, U),  # before linked games
        "rematch": (U, U),
        # unannounced heartbeats: it sends them as a joiner only
        "slow": (F, P),
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


#: One test item per (build, case, peer role): a case of a build takes from a tenth of
#: a second (unsupported) to about 15 s (slow), and xdist spreads the items over the
#: workers where one item for a whole build's matrix kept a worker for minutes.
MATRIX = [(commit, case, role) for commit in BUILDS for case in CASE_NAMES for role in ROLES]


def test_the_expected_verdicts_name_real_cases_only() -> None:
    for commit, cases in EXPECTED.items():
        assert commit in BUILDS
        assert set(cases) <= set(CASE_NAMES), set(cases) - set(CASE_NAMES)


@pytest.mark.slow
@pytest.mark.parametrize(("commit", "case", "role"), MATRIX)
def test_the_runner_gives_each_earlier_build_its_expected_verdicts(
    tmp_path: Path, commit: str, case: str, role: str
) -> None:
    try:
        build(commit)
    except BuildError as exc:
        reason = f"cannot build {commit} ({BUILDS[commit]}): {exc}"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    # the builds keep the spec's 5 s and 20 s heartbeat clocks, and so does the runner:
    # the slow case thinks 12 s, time for two heartbeats of a build that sends them (the
    # spec's own 30 s is tested against this program in test_interop_reference.py)
    result = run(old_build(commit), tmp_path, [case], (role,), slow_think=SPEC_CLOCKS_THINK,
                 spec_clocks=True, timeout=90.0)  # fmt: skip
    want = EXPECTED[commit].get(case, (P, P))[ROLES.index(role)]
    got = result[case, role]
    assert got.result == want, f"{got.result}: {got.detail}"
