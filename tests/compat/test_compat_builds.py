"""Today's program against real earlier builds of it (wire.md section 11.1).

For each build of :data:`~compat_builds.BUILDS` (the tree of that commit in a venv
of its own), whole bot games over loopback TCP in both roles, and one game in
which a process is killed (SIGKILL) mid-game and finished with ``truc-p2p
resume``; every transcript must verify with the old and with today's verifier.
Building needs git history and PyPI: in CI (``CI`` set) a build that cannot be
made fails the module, elsewhere it skips it and says why.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers.compat_builds import BUILDS, TODAY, BuildError, Side, build, play, verify

from truc_p2p.net import Invite
from truc_p2p.protocol import decode_envelope
from truc_p2p.transcript import read_transcript

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=sorted(BUILDS))
def old(request: pytest.FixtureRequest) -> tuple[str, ...]:
    commit: str = request.param
    try:
        return build(commit)
    except BuildError as exc:
        reason = f"cannot build {commit} ({BUILDS[commit]}): {exc}"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


def _result(side: Side) -> dict[str, object]:
    lines = [x for x in side.out.splitlines() if x.startswith("{")]
    assert lines, f"no result from {side.cmd[0]}: {side.out} {side.err}"
    result: dict[str, object] = json.loads(lines[-1])
    return result


def _check(tmp: Path, old: tuple[str, ...], host: Side, joiner: Side) -> None:
    for side in (host, joiner):
        assert side.status == 0, f"{side.cmd[0]} exited {side.status}: {side.out} {side.err}"
        assert _result(side)["outcome"] == "finished", side.out
        assert len(side.transcripts) == 1, side.transcripts
    assert _result(host)["game_id"] == _result(joiner)["game_id"]
    for side in (host, joiner):
        for verifier in (old, TODAY):
            valid, words = verify(verifier, side.transcripts[0], tmp)
            assert valid, f"{verifier[0]} verify {side.transcripts[0].name}: {words}"


def test_an_old_host_and_todays_joiner(tmp_path: Path, old: tuple[str, ...]) -> None:
    host, joiner = play(tmp_path, old, TODAY)
    _check(tmp_path, old, host, joiner)
    # An invite without settings keys is an older host's: today's joiner proposed no
    # early cards to it (wire.md 11.1), so the game needed no second connection.
    [invite] = [line for line in host.out.splitlines() if line.startswith("truc://")]
    if Invite.parse(invite).settings.empty:
        first = decode_envelope(read_transcript(joiner.transcripts[0])[0])
        assert "early" not in first.payload["options"], first.payload


def test_todays_host_and_an_old_joiner(tmp_path: Path, old: tuple[str, ...]) -> None:
    host, joiner = play(tmp_path, TODAY, old)
    _check(tmp_path, old, host, joiner)


def test_a_killed_joiner_resumes_against_the_other_build(
    tmp_path: Path, old: tuple[str, ...], request: pytest.FixtureRequest
) -> None:
    """Today's joiner killed under an old host (it redials with the game's hellos
    telling whether heartbeats are spoken), and an old joiner killed under
    today's host: each build is in one resumed game (c2ef0f2 hosts, b0f1f7f joins)."""
    if request.node.callspec.params["old"] == "b0f1f7f":
        host, joiner = play(tmp_path, TODAY, old, kill_joiner=True)
    else:
        host, joiner = play(tmp_path, old, TODAY, kill_joiner=True)
    assert joiner.killed, "the game ended before the joiner could be killed"
    _check(tmp_path, old, host, joiner)
