"""Run ``truc-p2p`` as real processes: a host whose invite is read from its stdout, etc."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from truc_p2p.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
#: Generous bound for one subprocess; a game takes well under a second.
LIMIT = 60


def command(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "truc_p2p.cli", *map(str, args)]


def env(tmp_path: Path) -> dict[str, str]:
    """The environment for a child: its own data directory, no stray identity."""
    return {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg"), "PYTHONUNBUFFERED": "1"}


def run(tmp_path: Path, *args: str | Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(*args),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=LIMIT,
        env=env(tmp_path),
        cwd=tmp_path,
        encoding="utf-8",
    )


def finished_play(tmp: Path) -> Path:
    """A ``play`` game that is over (the player left at once: a resignation), written
    into ``tmp/games`` by a real process; its transcript."""
    done = run(tmp, "play", "--target", "1", "--seed", "3", "--bot", "random",
               "--out", "games", "--name", "ana")  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    (path,) = (tmp / "games").glob("*.truc")
    return path


def last_json(text: str) -> dict[str, Any]:
    line = [x for x in text.splitlines() if x.startswith("{")][-1]
    data: dict[str, Any] = json.loads(line)
    return data


def spawn(
    tmp_path: Path, *args: str | Path, stdin: int = subprocess.DEVNULL
) -> subprocess.Popen[str]:
    """Start ``truc-p2p ARGS`` in ``tmp_path`` (its own data directory), its stdout and
    stderr piped as text; ``stdin``: ``subprocess.PIPE`` to type into it."""
    return subprocess.Popen(
        command(*args),
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env=env(tmp_path),
        cwd=tmp_path,
    )


@dataclass
class Host:
    """A running ``truc-p2p host`` and the invite it printed."""

    proc: subprocess.Popen[str]
    invite: str
    lines: list[str]

    def finish(self) -> tuple[int, str, str]:
        """Wait for the host to exit; return (status, stdout, stderr)."""
        try:
            out, err = self.proc.communicate(timeout=LIMIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        return self.proc.returncode, "".join(self.lines) + out, err


def start_host(tmp_path: Path, *args: str | Path) -> Host:
    """Start ``truc-p2p host ARGS`` and read stdout up to the ``truc://`` line."""
    proc = spawn(tmp_path, "host", "--port", "0", "--bind", "127.0.0.1", *args)
    timer = threading.Timer(LIMIT, proc.kill)  # never hang the suite on a stuck host
    timer.start()
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("truc://"):
                return Host(proc, line.strip(), lines)
    finally:
        timer.cancel()
    proc.kill()
    _, err = proc.communicate()
    raise AssertionError(f"host printed no invite: {''.join(lines)} {err}")


@dataclass
class Ran:
    code: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]


def run_main(capsys: pytest.CaptureFixture[str], argv: list[str]) -> Ran:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        code = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, out + err
    return Ran(code, out, err)


def demo_transcript(home: Path) -> Path:
    """A finished demo game's transcript (alice's)."""
    assert main(["demo", "--quiet", "--in-memory", "--seed", "3", "--out", str(home / "ok")]) == 0
    return next((home / "ok").glob("*alice.truc"))
