"""Play again and matches between two people: a ``host`` and a ``join`` process, both
played from the terminal (through pipes)."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

from cli_helpers import LIMIT, command, env, run

GAME = "\n".join(["1", "a", "2"] * 100) + "\n"
ARGS = ["--target", "2", "--ascii", "--timeout", "30"]


def _host(tmp_path: Path, stdin: str, *args: str) -> tuple[subprocess.Popen[str], str]:
    """A human ``host`` reading ``stdin``; the invite it printed."""
    proc = subprocess.Popen(
        command(
            "host",
            "--port",
            "0",
            "--bind",
            "127.0.0.1",
            "--identity",
            "host.key",
            "--name",
            "ann",
            "--out",
            "hosted",
            *ARGS,
            *args,
        ),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env=env(tmp_path),
        cwd=tmp_path,
    )
    threading.Timer(LIMIT * 2, proc.kill).start()
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    proc.stdin = None  # communicate() must not flush it
    for line in proc.stdout:
        if line.startswith("truc://"):
            return proc, line.strip()
    raise AssertionError(f"no invite: {proc.communicate()}")


def _join(tmp_path: Path, invite: str, stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(
            "join",
            invite,
            "--identity",
            "join.key",
            "--name",
            "bob",
            "--out",
            "joined",
            *ARGS,
            *args,
        ),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=LIMIT * 2,
        env=env(tmp_path),
        cwd=tmp_path,
        encoding="utf-8",
    )


def _report(tmp_path: Path, transcript: Path) -> dict[str, object]:
    done = run(tmp_path, "verify", "--json", transcript)
    assert done.returncode == 0, done.stdout + done.stderr
    report: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return report


def test_two_people_play_again(tmp_path: Path) -> None:
    """Both say y: the joiner redials the same invite, the hellos name the first
    game, the other player deals first; both transcripts of both games verify."""
    host, invite = _host(tmp_path, GAME + "y\n" + GAME + "n\n")
    joined = _join(tmp_path, invite, GAME + "y\n" + GAME + "n\n")
    out, err = host.communicate(timeout=LIMIT)
    assert joined.returncode == 0, joined.stdout[-3000:] + joined.stderr
    assert host.returncode == 0, out[-3000:] + err
    for text in (out, joined.stdout):
        assert text.count("play again? Type y") == 2
    hosted = sorted((tmp_path / "hosted").glob("*.truc"))
    joined_files = sorted((tmp_path / "joined").glob("*.truc"))
    assert len(hosted) == len(joined_files) == 2
    theirs = [_report(tmp_path, t) for t in hosted]
    mine = [_report(tmp_path, t) for t in joined_files]
    assert {r["game_id"] for r in theirs} == {r["game_id"] for r in mine}
    assert theirs[0]["game_id"] != theirs[1]["game_id"]
    assert {r["first_dealer"] for r in mine} == {0, 1}  # the first dealer alternates


def test_one_says_no_and_the_other_gives_up(tmp_path: Path) -> None:
    """The host says n: it stops listening, and the joiner who said y is told the host
    did not start another game (it does not wait forever)."""
    host, invite = _host(tmp_path, GAME + "n\n")
    joined = _join(tmp_path, invite, GAME + "y\n", "--again-wait", "2")
    host.communicate(timeout=LIMIT)
    assert host.returncode == 0
    assert "the host did not start another game" in joined.stderr + joined.stdout
    assert len(list((tmp_path / "joined").glob("*.truc"))) == 1
