"""Crash resume across processes: ``kill -9`` one side mid-game, ``truc-p2p resume`` it.

Both players are real ``truc-p2p`` processes over loopback TCP.  One of them
is killed with SIGKILL once its transcript holds a random number of bytes
(so the cut falls anywhere: the deal, the play, the audit), then
``truc-p2p resume FILE`` continues it; the other side waited within its
grace period.  Both must exit 0 with transcripts that verify.  SIGTERM must
leave like Ctrl-C: a signed resignation.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from truc_p2p.protocol import verify_transcript
from truc_p2p.transcript import read_transcript

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow

CLI = [sys.executable, "-m", "truc_p2p.cli"]


def _start(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def _invite(host: subprocess.Popen[str]) -> str:
    assert host.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = host.stdout.readline()
        if line.startswith("truc://"):
            return line.strip()
    raise AssertionError("the host printed no invite")


def _wait_for_bytes(directory: Path, size: int, proc: subprocess.Popen[str]) -> Path:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        files = list(directory.glob("*.truc"))
        if files and files[0].stat().st_size >= size:
            return files[0]
        if proc.poll() is not None:
            raise AssertionError(f"the game ended before {size} bytes: {proc.stderr.read()}")  # type: ignore[union-attr]
        time.sleep(0.002)
    raise AssertionError("the transcript did not grow")


def _keys(tmp: Path) -> tuple[str, str]:
    for who in ("host", "join"):
        subprocess.run(
            [*CLI, "identity", "--identity", str(tmp / f"{who}.key")],
            check=True,
            capture_output=True,
        )
    return str(tmp / "host.key"), str(tmp / "join.key")


def _verify(directory: Path) -> None:
    (path,) = list(directory.glob("*.truc"))
    report = verify_transcript(read_transcript(path))
    assert report.valid, report.error


def _host_and_join(
    tmp: Path, seed: int, *extra: str
) -> tuple[subprocess.Popen[str], subprocess.Popen[str]]:
    """A host and a joiner process (bots, own keys, transcripts in h/ and j/)."""
    host_key, join_key = _keys(tmp)
    host = _start(
        ["host", "--bind", "127.0.0.1", "--port", "0", "--identity", host_key, "--out", "h",
         "--seed", str(seed), "--bot", "random", *extra],
        tmp,
    )  # fmt: skip
    join = _start(
        ["join", _invite(host), "--identity", join_key, "--out", "j", "--seed", str(seed + 1),
         "--bot", "random", *extra],
        tmp,
    )  # fmt: skip
    return host, join


@pytest.mark.parametrize("seed", range(8))
def test_kill_9_then_resume_finishes_the_game(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    victim = "join" if seed % 2 == 0 else "host"
    host, join = _host_and_join(tmp_path, seed, "--timeout", "30", "--grace", "40", "--quiet")
    procs = {"host": host, "join": join}
    out = {"host": tmp_path / "h", "join": tmp_path / "j"}
    cut = rng.randrange(1_500, 6_000)
    transcript = _wait_for_bytes(out[victim], cut, procs[victim])
    procs[victim].send_signal(signal.SIGKILL)
    procs[victim].communicate()
    resumed = _start(
        ["resume", str(transcript.relative_to(tmp_path)), "--bot", "random", "--quiet"], tmp_path
    )
    survivor = procs["host" if victim == "join" else "join"]
    _, r_err = resumed.communicate(timeout=120)
    _, s_err = survivor.communicate(timeout=120)
    assert resumed.returncode == 0, r_err
    assert survivor.returncode == 0, s_err
    _verify(out["host"])
    _verify(out["join"])


def test_a_torn_last_frame_is_repaired_on_resume(tmp_path: Path) -> None:
    host, join = _host_and_join(tmp_path, 5, "--timeout", "30", "--grace", "40", "--quiet")
    transcript = _wait_for_bytes(tmp_path / "j", 6_000, join)
    join.send_signal(signal.SIGKILL)
    join.communicate()
    with transcript.open("ab") as f:  # a crash in the middle of writing a frame
        f.write(b"\x00\x00\x02\x00partial")
    resumed = _start(["resume", str(transcript), "--bot", "random"], tmp_path)
    r_out, r_err = resumed.communicate(timeout=120)
    host.communicate(timeout=120)
    assert resumed.returncode == 0, r_err
    assert "dropped 11 torn byte(s)" in r_out
    _verify(tmp_path / "j")


def test_sigterm_leaves_with_a_signed_resignation(tmp_path: Path) -> None:
    """SIGTERM during the game leaves like Ctrl-C: a signed resignation; the host wins
    (exit 0), the joiner exits 143."""
    host, join = _host_and_join(tmp_path, 7, "--quiet", "--json")
    _wait_for_bytes(tmp_path / "j", 3_000, join)
    join.send_signal(signal.SIGTERM)
    j_out, j_err = join.communicate(timeout=60)
    h_out, _ = host.communicate(timeout=60)
    assert join.returncode == 143
    assert host.returncode == 0
    assert "SIGTERM: leaving the game" in j_err
    assert '"abort": {"reason": "resign"' in j_out and '"outcome": "resigned"' in j_out
    assert '"outcome": "opponent-resigned"' in h_out and '"reason": "resigned"' in h_out


def test_play_killed_mid_game_is_resumed_with_its_bot(tmp_path: Path) -> None:
    keys = "\n".join(["1", "a", "n"] * 400) + "\n"
    play = subprocess.Popen(
        [*CLI, "play", "--bot", "easy", "--seed", "3", "--out", "games"],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert play.stdin is not None
    play.stdin.write(keys)
    play.stdin.flush()
    transcript = _wait_for_bytes(tmp_path / "games", 4_000, play)
    play.send_signal(signal.SIGKILL)
    play.communicate()
    done = subprocess.run(
        [*CLI, "--lang", "fr", "resume", str(transcript)],
        cwd=tmp_path,
        input=keys,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    # resumed in French, the game goes on against the bot as its hello names it (the
    # name it was started with), in the greeting as at the table
    greeting = next(line for line in done.stdout.splitlines() if "continue" in line)
    assert "easy-bot" in greeting, greeting
    assert "résultat cosigné par les deux joueurs" in done.stdout, done.stdout[-1500:]
    _verify(tmp_path / "games")
