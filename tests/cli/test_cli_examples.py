"""Every script in ``examples/`` runs and does what its docstring says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers.cli import EXAMPLES, LIMIT, env, run, start_host

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow


def _example(tmp_path: Path, name: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name), *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=LIMIT,
        env=env(tmp_path),
        cwd=tmp_path,
    )


def test_every_example_is_tested() -> None:
    here = Path(__file__).read_text()
    assert {p.name for p in EXAMPLES.glob("*.py")} == {
        "custom_bot.py",
        "blocking_socket.py",
        "verify_transcript.py",
    }
    for path in EXAMPLES.glob("*.py"):
        assert f'"{path.name}"' in here


def test_custom_bot_joins_a_host(tmp_path: Path) -> None:
    host = start_host(tmp_path, "--bot", "heuristic", "--identity", "h.key", "--out", "h", "--json")
    joined = _example(tmp_path, "custom_bot.py", host.invite, "--out", "bot-games")
    status, out, err = host.finish()
    assert joined.returncode == 0, joined.stdout + joined.stderr
    assert status == 0, err
    assert "result co-signed" in joined.stdout and '"highcard"' in out
    assert list((tmp_path / "bot-games").glob("*.truc"))


def test_blocking_socket_session_without_trio(tmp_path: Path) -> None:
    alone = _example(tmp_path, "blocking_socket.py")
    assert alone.returncode == 0, alone.stdout + alone.stderr
    lines = alone.stdout.splitlines()
    assert len(lines) == 2 and lines[0].split(": ")[1] == lines[1].split(": ")[1]
    # The same loop joins the trio implementation's host.
    host = start_host(tmp_path, "--bot", "random", "--identity", "h.key", "--out", "h")
    joined = _example(tmp_path, "blocking_socket.py", host.invite)
    status, _, err = host.finish()
    assert joined.returncode == 0 and status == 0, joined.stdout + err
    assert "wins" in joined.stdout


def test_verify_transcript_from_python(tmp_path: Path) -> None:
    assert run(tmp_path, "demo", "--seed", "2", "--quiet", "--out", "games").returncode == 0
    files = sorted((tmp_path / "games").glob("*.truc"))
    good = _example(tmp_path, "verify_transcript.py", *files)
    assert good.returncode == 0, good.stdout
    assert good.stdout.count(": valid;") == 2
    cut = tmp_path / "cut.truc"
    cut.write_bytes(files[0].read_bytes()[:-200])
    bad = _example(tmp_path, "verify_transcript.py", files[0], cut)
    assert bad.returncode == 1 and ": valid;" in bad.stdout
    assert "cut.truc: torn: cut inside message" in bad.stdout
    assert "cut.truc: INVALID" in bad.stdout
