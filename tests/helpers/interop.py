"""Shared bits of the interop runner's tests: the peer commands and a runner call."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from truc_p2p.interop import CaseResult, RunnerConfig, run_cases, to_json

HERE = Path(__file__).resolve().parents[1] / "interop"
#: This program as the peer under test.
REFERENCE = f"{shlex.quote(sys.executable)} -m truc_p2p.interop.peer"
#: The think of the slow case in the fast tests (the heartbeat clocks scale with it).
SHORT_THINK = 3.0
#: The think of the slow case with the spec's 5 s and 20 s heartbeat clocks kept
#: (``spec_clocks``): long enough for two of the peer's heartbeats, far from a dead link.
SPEC_CLOCKS_THINK = 12.0


def broken(fault: str) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(HERE / 'broken_peer.py'))} {fault}"


def old_build(commit: str) -> str:
    here = Path(__file__).resolve()
    script = shlex.quote(str(here.with_name("old_build_peer.py")))
    tests = shlex.quote(f"PYTHONPATH={here.parents[1]}")  # for its helpers.compat_builds
    return f"{tests} {shlex.quote(sys.executable)} {script} {commit}"


def run(
    peer: str,
    work: Path,
    cases: list[str],
    roles: tuple[str, ...] = ("host", "join"),
    *,
    timeout: float = 60.0,
    slow_think: float = SHORT_THINK,
    linger: float = 5.0,
    spec_clocks: bool = False,
) -> dict[tuple[str, str], CaseResult]:
    cfg = RunnerConfig(
        peer=peer,
        work=work,
        timeout=timeout,
        slow_think=slow_think,
        linger=linger,
        spec_clocks=spec_clocks,
    )
    return {(r.case, r.role): r for r in run_cases(cfg, cases, roles)}


def run_apart(
    peer: str,
    work: Path,
    cases: list[str],
    roles: tuple[str, ...] = ("host", "join"),
    **cfg: float | bool,
) -> dict[tuple[str, str], CaseResult]:
    """:func:`run` in a process of its own (as ``truc-p2p interop`` runs, so that what a
    stopped case leaves to the garbage collector is not this test's), with the
    :class:`RunnerConfig` fields the command line has no option for."""
    args = json.dumps({"peer": peer, "work": str(work), "cases": cases, "roles": roles, **cfg})
    done = subprocess.run(
        [sys.executable, __file__, args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout, done.stderr[-2000:]
    return {(c["case"], c["role"]): CaseResult(**c) for c in json.loads(done.stdout)["cases"]}


if __name__ == "__main__":  # run_apart's process: one JSON argument, the JSON report out
    given = json.loads(sys.argv[1])
    names, roles = given.pop("cases"), tuple(given.pop("roles"))
    config = RunnerConfig(**{**given, "work": Path(given["work"])})
    print(json.dumps(to_json(run_cases(config, names, roles))))
