"""``host`` run again at a terminal with an older unfinished game (out of its grace)
asks one line before it resumes it: Enter resumes it (the joiner, still waiting,
comes back and the game goes on to its end), ``n`` starts a new game and says the
command that resumes the old one later."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from helpers.cli import command, env
from helpers.net import free_port
from helpers.pty import Terminal, any_move

from truc_p2p.protocol import verify_transcript
from truc_p2p.transcript import read_transcript

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow

#: The screen at our turn, with its clock.
TURN = r"your move \(\d:\d\d left\):[^>]*\[q\] leave[^>]*>"
ASKED = r"resume it\? \[Y/n\] "


def _start(tmp_path: Path, *args: str | Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        command(*args), cwd=tmp_path, env=env(tmp_path), text=True,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def _invite(host: subprocess.Popen[str]) -> str:
    assert host.stdout is not None
    for _i in range(40):
        line = host.stdout.readline()
        if line.startswith("truc://"):
            return line.strip()
    raise AssertionError("the host printed no invite")


def _stopped_host_game(tmp_path: Path, port: int) -> tuple[subprocess.Popen[str], Path]:
    """A bot host killed with SIGKILL in the middle of its game with a bot joiner (who
    waits for it to come back); the joiner and the host's transcript."""
    for who in ("host", "join"):
        key = tmp_path / f"{who}.key"
        subprocess.run(command("identity", "--identity", key), check=True, capture_output=True,
                       env=env(tmp_path), cwd=tmp_path)  # fmt: skip
    host = _start(tmp_path, "host", "--bind", "127.0.0.1", "--port", str(port), "--identity",
                  "host.key", "--out", "h", "--bot", "random", "--seed", "5", "--grace", "90",
                  "--timeout", "60", "--quiet", "--name", "hb", "--no-announce",
                  "--no-portmap")  # fmt: skip
    join = _start(tmp_path, "join", _invite(host), "--identity", "join.key", "--out", "j",
                  "--bot", "random", "--seed", "6", "--grace", "90", "--timeout", "60",
                  "--quiet", "--name", "ana")  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        files = list((tmp_path / "h").glob("*.truc"))
        if files and files[0].stat().st_size >= 2_500:
            break
        assert host.poll() is None, "the game ended before it could be stopped"
        time.sleep(0.002)
    else:
        raise AssertionError("the host's transcript did not grow")
    host.send_signal(signal.SIGKILL)
    host.communicate()
    time.sleep(1.5)  # older than the new host's --grace 1: offered, not resumed at once
    return join, files[0]


def _host_again(tmp_path: Path, port: int) -> Terminal:
    return Terminal(tmp_path, "host", "--bind", "127.0.0.1", "--port", str(port), "--identity",
                    "host.key", "--out", "h", "--grace", "1", "--timeout", "60", "--name", "hb",
                    "--no-announce", "--no-portmap")  # fmt: skip


def test_enter_resumes_the_game_and_it_goes_on_to_its_end(tmp_path: Path) -> None:
    port = free_port()
    join, path = _stopped_host_game(tmp_path, port)
    term = _host_again(tmp_path, port)
    try:
        asked = term.read_until(ASKED)
        where = f"h/{path.name}"
        assert f"your game {where} against ana did not finish: resume it? [Y/n]" in " ".join(
            asked.split()
        )
        term.type("\n")
        screen = term.read_until(TURN)
        shown = " ".join(screen.split())
        assert f"your game {where} did not finish: resuming it (truc-p2p resume {where})" in shown
        assert "waiting for an opponent" not in screen
        for _i in range(400):
            term.type(any_move(screen) + "\n")
            screen = term.read_until(TURN + r"|transcript: \S+\n")
            if re.search(r"transcript: \S+\n", screen):
                break
        else:
            raise AssertionError("the game did not end")
        assert term.close() == 0
        # the points line wraps at the terminal's width: read it across the wrap
        assert "result co-signed by both players" in " ".join(term.seen.split())
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
        _out, err = join.communicate(timeout=120)
    assert join.returncode == 0, err
    assert verify_transcript(read_transcript(path)).valid
    assert len(list((tmp_path / "h").glob("*.truc"))) == 1  # the same game, no new one


def test_n_starts_a_new_game_and_says_how_to_resume_the_old_one(tmp_path: Path) -> None:
    port = free_port()
    join, path = _stopped_host_game(tmp_path, port)
    join.kill()
    join.communicate()
    term = _host_again(tmp_path, port)
    try:
        term.read_until(ASKED)
        term.type("n\n")
        shown = term.read_until(r"waiting for an opponent \(Ctrl-C to stop\)")
        where = f"h/{path.name}"
        later = f"starting a new game; to resume that one later: truc-p2p resume {where}"
        assert later in " ".join(shown.split())
        assert "resuming it" not in shown
        assert "truc://" in shown  # a new invite: a new game
        os.killpg(term.proc.pid, signal.SIGINT)
        term.read_until(r"no game started, stopping")
        assert term.close() == 130
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
