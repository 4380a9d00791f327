"""The benchmark scripts still run and report every figure (their numbers are read
by people, not asserted here: speed is not a unit test)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _run(script: str, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert isinstance(report, dict)
    return report


def test_turn_latency_reports_the_wait_before_each_turn() -> None:
    report = _run("turn_latency.py", "--games", "1")
    assert isinstance(report["turns"], int) and report["turns"] > 0
    assert 0 <= report["median_ms"] <= report["p90_ms"] <= report["p99_ms"] <= report["max_ms"]  # type: ignore[operator]


@pytest.mark.slow  # two processes play a game: CI only (docs/developing.md)
def test_net_loopback_plays_two_processes_against_the_cpu_floor() -> None:
    report = _run("net_loopback.py", "--games", "1")
    assert report["failures"] == []
    assert report["wall_to_floor"] and report["cpu_to_floor"] and report["deals_per_hand"]
    assert report["deals_per_hand"] >= 1  # type: ignore[operator]


@pytest.mark.slow  # seconds of CPU: CI only (docs/developing.md)
def test_edge_reports_dead_link_resume_and_admission_times() -> None:
    report = _run("edge.py", "--quick", "--rounds", "1", "--flood", "64")
    assert report["failures"] == []
    for key in (
        "notice_dead_link",
        "resume_after_silent_cut",
        "resume_replacing_held_link",
        "join_while_flooded",
        "notice_cut_first_heartbeat",
        "storm_resumes_per_s",
    ):
        figure = report[key]
        assert isinstance(figure, dict) and figure["median_s"] is not None, key


@pytest.mark.slow  # seconds of CPU: CI only (docs/developing.md)
def test_evidence_property_reports_examples_moves_and_verdicts() -> None:
    report = _run("evidence_property.py", "--examples", "3", "--steps", "10")
    assert report["failure"] is None and report["proof_against_honest"] == 0
    assert isinstance(report["examples"], int) and report["examples"] >= 3
    assert isinstance(report["moves"], int) and report["moves"] > 0
    assert isinstance(report["verdicts"], dict)


@pytest.mark.slow  # a dozen games through a relay: CI only
def test_relay_ws_reports_every_pairing_of_transports() -> None:
    report = _run("relay_ws.py", "--games", "1")
    assert report["failures"] == []
    pairings = report["pairings"]
    assert isinstance(pairings, dict)
    assert set(pairings) == {"tcp-tcp", "ws-tcp", "tcp-ws", "ws-ws"}
    # the same games whatever the transports: the relay copies the same bytes
    assert len({p["median_relay_bytes"] for p in pairings.values()}) == 1
    assert report["static_mb_per_s"] and report["round_trip_ms"]


def test_bot_blunders_counts_each_bot_s_own_and_played_blunders() -> None:
    report = _run("bot_blunders.py", "--games", "6", "--bots", "easy,medium")
    assert isinstance(report["decided"], int) and report["decided"] > 0
    bots = report["bots"]
    assert isinstance(bots, dict) and set(bots) == {"easy", "medium"}
    assert bots["medium"]["played"] == {}


@pytest.mark.slow
def test_site_game_reports_issue_41_s_figures() -> None:
    from helpers.web import CHROMIUM

    if not CHROMIUM.exists():
        pytest.skip(f"no browser: {CHROMIUM} is missing (apt-get install chromium; .ci/run does)")
    report = _run("site_game.py", "--hands", "1", "--taps", "2")
    for key in (
        "first_load_bytes",
        "cached_load_bytes",
        "cached_load_to_first_card_ms",
        "deck_native_ms_per_hand",
        "deck_page_ms_per_hand",
        "deck_ratio",
        "relay_ms_per_hand",
        "worker_wasm_bytes",
        "boot_stall_cached_ms",
        "game_stall_ms",
        "relay_flights_until_first_card",
    ):
        assert isinstance(report[key], int | float), key
    assert report["first_load_bytes"] > report["cached_load_bytes"]
    assert report["deck_page_ms_per_hand"] > 0 and report["deck_native_ms_per_hand"] > 0
    assert set(report["native_flights_until_first_cards"]) == {"dealer", "nondealer"}


def test_bench_startup_reports_the_difference_and_the_modules_verify_loads() -> None:
    report = _run("bench_startup.py", "--runs", "1")
    verify, bare, difference = (
        float(report[k])  # type: ignore[arg-type]
        for k in ("verify_cpu", "python_c_pass_cpu", "difference_cpu")
    )
    assert abs(difference - (verify - bare)) < 0.001
    names = report["module_names"]
    assert isinstance(names, list) and report["modules"] == len(names) > 0
    assert "truc_p2p.cli._verify" in names
    assert not [n for n in names if n.startswith("truc_p2p.ui")]


@pytest.mark.slow  # a second of sleep: CI only (docs/developing.md)
def test_suite_cpu_counts_the_cpu_of_a_commands_children(tmp_path: Path) -> None:
    """A grandchild that burns CPU is counted under its kind, and the floor is the
    sum over the cores.  The burner then stays a second, so that a sampler starved
    by a busy machine still sees it alive (a process that comes and goes between two
    samples is missed: the script's doc says so)."""
    script = tmp_path / "tree.py"
    script.write_text(
        "import subprocess, sys\n"
        "if sys.argv[1:] == ['burn']:\n"
        "    x = 0\n"
        "    for i in range(4_000_000):\n"
        "        x += i\n"
        "    import time; time.sleep(1.0)\n"
        "else:  # the command starts a child, which starts the burner\n"
        "    then = ['burn'] if sys.argv[1:] else ['child']\n"
        "    subprocess.run([sys.executable, __file__, *then])\n"
    )
    report = _run("suite_cpu.py", "--interval", "0.02", "--command", f"{sys.executable} {script}")
    assert report["exit"] == 0
    kinds = {row["kind"]: row for row in report["kinds"]}  # type: ignore[attr-defined]
    python = kinds["Python processes (the program, peers, runners, scripts)"]
    assert python["processes"] == 3  # the command, its child and its grandchild
    assert python["cpu_s"] >= 0.1
    assert report["floor_s"] == pytest.approx(report["cpu_s"] / report["cores"], abs=0.11)  # type: ignore[operator]
