"""The runner against this program itself (``python -m truc_p2p.interop.peer``), and
what the runner makes of peers that do not play: the verdict comes from the
transcripts, never from the peer's exit status alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.interop import REFERENCE, SPEC_CLOCKS_THINK, run

from truc_p2p.cli import main
from truc_p2p.interop import CASE_NAMES, CaseResult, matrix_text, to_json
from truc_p2p.interop.peer import PeerEnv
from truc_p2p.interop.peer import run as peer_run

#: The (case, role) pairs of the fast loop (the seconds-long slow and rematch cases are in
#: ``REST``).
FAST = [
    ("basic", "host"),
    ("classic", "join"),
    ("redeal", "host"),
    ("resign-peer", "join"),
    ("resign-runner", "host"),
    ("rest", "join"),
    ("resume", "join"),
    ("resume", "host"),
    ("bad-frame", "host"),
    ("cheat", "join"),
    ("cheat", "host"),
]
#: The rest of the whole matrix (both roles of every case), one test item each so that
#: xdist spreads them over the workers: the slow tests.
REST = [(c, r) for c in CASE_NAMES for r in ("host", "join") if (c, r) not in FAST]


@pytest.mark.parametrize(("case", "role"), FAST)
def test_the_program_passes_each_case(tmp_path: Path, case: str, role: str) -> None:
    result = run(REFERENCE, tmp_path, [case], (role,))[(case, role)]
    assert result.result == "pass", result.detail
    assert "\n" not in result.detail
    if case in ("resume", "bad-frame"):
        assert "connections" in result.detail  # the game went on over a new link
    if case == "cheat":
        assert result.detail.startswith("abort 'cheat'")


def test_the_matrix_is_every_case_in_both_roles() -> None:
    assert len(CASE_NAMES) == 13
    assert sorted(FAST + REST) == sorted((c, r) for c in CASE_NAMES for r in ("host", "join"))


@pytest.mark.slow
@pytest.mark.parametrize(("case", "role"), REST)
def test_the_whole_matrix_passes_with_the_program_in_both_roles(
    tmp_path: Path, case: str, role: str
) -> None:
    result = run(REFERENCE, tmp_path, [case], (role,))[(case, role)]
    assert result.result == "pass", result.detail


@pytest.mark.slow
def test_the_runner_plays_the_cases_one_after_the_other(tmp_path: Path) -> None:
    results = run(REFERENCE, tmp_path, ["no-early", "basic"], ("join",))
    assert list(results) == [("no-early", "join"), ("basic", "join")]
    assert {k: r.result for k, r in results.items()} == dict.fromkeys(results, "pass")
    assert {p.name for p in tmp_path.iterdir()} >= {"no-early-join", "basic-join"}


#: The spec's own 30 s think (longer than the 20 s after which a link without heartbeats
#: is dead) with the peer hosting; the peer joining thinks 12 s with the same clocks (the
#: 3 s think of the fast loop scales them down), and the earlier builds do too
#: (test_interop_builds.py): the 30 s mostly waits, once is enough.
SPEC_THINKS = [("host", 30.0), ("join", SPEC_CLOCKS_THINK)]


@pytest.mark.slow
@pytest.mark.parametrize(("role", "think"), SPEC_THINKS)
def test_the_slow_case_with_the_specs_30_seconds(tmp_path: Path, role: str, think: float) -> None:
    results = run(REFERENCE, tmp_path, ["slow"], (role,), slow_think=think, timeout=120.0,
                  spec_clocks=True)  # fmt: skip
    assert {k: r.result for k, r in results.items()} == {("slow", role): "pass"}


def test_the_command_prints_the_json_of_the_issue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        ["interop", "--peer", REFERENCE, "--case", "basic", "--role", "join", "--json",
         "--work", str(tmp_path)]
    )  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    assert set(out) == {"cases", "passed", "failed", "unsupported"}
    (entry,) = out["cases"]
    assert set(entry) == {"case", "role", "result", "detail"}
    assert (entry["case"], entry["role"], entry["result"]) == ("basic", "join", "pass")
    assert (out["passed"], out["failed"], out["unsupported"]) == (1, 0, 0)
    assert list((tmp_path / "basic-join" / "peer").glob("*.truc"))  # TRUC_OUT was used


def test_exit_127_is_unsupported_and_fails_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        ["interop", "--peer", "exit 127", "--case", "basic", "--case", "cheat",
         "--work", str(tmp_path)]
    )  # fmt: skip
    text = capsys.readouterr().out
    assert status == 0
    assert "basic  -            -" in text
    assert "0 passed, 0 failed, 4 unsupported" in text


@pytest.mark.parametrize("role", ["host", "join"])
def test_a_peer_that_exits_0_without_playing_fails(tmp_path: Path, role: str) -> None:
    result = run("exit 0", tmp_path, ["basic"], (role,), linger=1.0)[("basic", role)]
    assert result.result == "fail"
    expected = "printed no invite" if role == "host" else "exited (status 0) before the game"
    assert expected in result.detail


@pytest.mark.parametrize(
    ("peer", "exit_said"),
    [
        ("echo starting >&2; echo 'no such case here' >&2; exit 3", "status 3"),
        ("echo 'out of memory, it says' >&2; kill -9 $$", "killed by SIGKILL"),
    ],
    ids=["an exit status", "a signal"],
)
def test_a_peer_that_dies_is_quoted_by_its_last_stderr_line(
    tmp_path: Path, peer: str, exit_said: str
) -> None:
    result = run(peer, tmp_path, ["basic"], ("join",), linger=1.0)[("basic", "join")]
    assert result.result == "fail"
    last = "no such case here" if "exit 3" in peer else "out of memory, it says"
    assert f"the peer exited ({exit_said}) before the game ended" in result.detail, result.detail
    assert result.detail.endswith(f'; its stderr ends: "{last}"'), result.detail
    assert "\n" not in result.detail


def test_a_host_that_dies_before_its_invite_is_quoted_too(tmp_path: Path) -> None:
    peer = "echo 'the page got no relay code' >&2; exit 1"
    result = run(peer, tmp_path, ["basic"], ("host",), linger=1.0)[("basic", "host")]
    assert result.result == "fail"
    assert result.detail == (
        "the peer printed no invite (peer exit: status 1);"
        ' its stderr ends: "the page got no relay code"'
    ), result.detail


def test_a_peer_that_hangs_fails_after_the_time_limit(tmp_path: Path) -> None:
    result = run("sleep 30", tmp_path, ["basic"], ("join",), timeout=2.0)[("basic", "join")]
    assert result.result == "fail"
    assert "did not end within its time limit" in result.detail


def test_an_unknown_case_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["interop", "--peer", "true", "--case", "nope"])
    assert exited.value.code == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err


def test_the_matrix_has_a_row_per_case_and_a_column_per_role() -> None:
    results = [
        CaseResult("basic", "host", "pass", "ok"),
        CaseResult("basic", "join", "fail", "the peer never played 'redeal'"),
        CaseResult("slow", "host", "unsupported", "exit 127"),
        CaseResult("slow", "join", "pass", "ok"),
    ]
    assert matrix_text(results).splitlines() == [
        "case   peer host    peer join",
        "basic  pass         FAIL",
        "slow   -            pass",
        "",
        "FAIL basic (peer join): the peer never played 'redeal'",
        "",
        "2 passed, 1 failed, 1 unsupported",
    ]
    assert to_json(results)["failed"] == 1


def test_the_reference_peer_reads_its_variables(tmp_path: Path) -> None:
    base = {"TRUC_CASE": "basic", "TRUC_OUT": str(tmp_path), "TRUC_NAME": "x"}
    env = PeerEnv.read({**base, "TRUC_ROLE": "host", "TRUC_PORT": "7788"})
    assert (env.role, env.port, env.invite, env.name) == ("host", 7788, None, "x")
    with pytest.raises(ValueError, match="TRUC_INVITE is not set"):
        PeerEnv.read({**base, "TRUC_ROLE": "join"})
    with pytest.raises(ValueError, match="TRUC_PORT is not a TCP port: 'x'"):
        PeerEnv.read({**base, "TRUC_ROLE": "host", "TRUC_PORT": "x"})
    with pytest.raises(ValueError, match="TRUC_HEARTBEAT is not a number"):
        PeerEnv.read({**base, "TRUC_ROLE": "join", "TRUC_INVITE": "i", "TRUC_HEARTBEAT": "-1"})
    with pytest.raises(ValueError, match="TRUC_ROLE must be host or join"):
        PeerEnv.read({**base, "TRUC_ROLE": "both"})
    assert peer_run({**base, "TRUC_ROLE": "join"}) == 2
    unknown = {**base, "TRUC_CASE": "tomorrow", "TRUC_ROLE": "host", "TRUC_PORT": "1"}
    assert peer_run(unknown) == 127
