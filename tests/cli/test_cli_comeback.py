"""A person at a terminal whose game dies with ``kill -9`` comes back, as a person
would: with ``truc-p2p resume FILE``, or by running the same ``join`` again.  The
other side is a bot host waiting within its grace.  The resumed screen must show
the game as it was (the log before the crash, the hand, the clock) and the game
must go on to its co-signed end."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

import pytest
from helpers.cli import Host, command, start_host
from helpers.net import free_port
from helpers.pty import Terminal, any_move

from truc_p2p.protocol import verify_transcript
from truc_p2p.transcript import read_transcript

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow

#: The screen at our turn, with its clock.
TURN = r"your move \(\d:\d\d left\):[^>]*\[q\] leave[^>]*>"


def _keys(tmp_path: Path) -> tuple[Path, Path]:
    for who in ("host", "join"):
        subprocess.run(
            command("identity", "--identity", tmp_path / f"{who}.key"),
            check=True,
            capture_output=True,
            cwd=tmp_path,
        )
    return tmp_path / "host.key", tmp_path / "join.key"


def _join_args(invite: str, key: Path) -> list[str]:
    return ["join", invite, "--identity", str(key), "--out", "j", "--name", "alice",
            "--timeout", "60", "--grace", "30"]  # fmt: skip


def _play_some(term: Terminal, moves: int) -> str:
    """Make ``moves`` moves; the screen of the turn after them."""
    screen = term.read_until(TURN)
    for _i in range(moves):
        term.type(any_move(screen) + "\n")
        screen = term.read_until(TURN)
    return screen


def _kill(term: Terminal) -> None:
    os.killpg(term.proc.pid, signal.SIGKILL)
    term.proc.wait(timeout=10)
    os.close(term.master)


def _finish(term: Terminal, screen: str) -> str:
    """Play on to the end of the game; everything shown from ``screen`` on."""
    shown = screen
    for _i in range(400):
        term.type(any_move(screen) + "\n")
        screen = term.read_until(TURN + r"|transcript: \S+\n")
        shown += screen
        if re.search(r"transcript: \S+\n", screen):
            return shown
    raise AssertionError("the game did not end")


def _resumed_screen_is_the_old_one(before: str, after: str) -> None:
    """The log before the crash is told again, with the hand and the clock."""
    for line in re.findall(r"^ {3}you play \S+$", before, flags=re.M):
        assert line in after, f"{line!r} missing from the resumed screen:\n{after}"
    assert "playing against host-bot" in after
    hand = re.findall(r"your hand: .*", before)[-1]
    assert hand in after
    assert re.search(r"your move \(\d:\d\d left\):", after)
    # we came back, not the opponent
    assert "back at the table with host-bot; the game goes on where it stopped" in after
    assert "host-bot is back after" not in after


def _check_end(shown: str, tmp_path: Path) -> None:
    # the terminal wraps the points line where its length falls (the score varies)
    assert "result co-signed by both players" in " ".join(shown.split())
    (path,) = (tmp_path / "j").glob("*.truc")
    assert verify_transcript(read_transcript(path)).valid


def _game(tmp_path: Path, port: int = 0) -> tuple[Host, str, Path, Terminal, str]:
    host_key, join_key = _keys(tmp_path)
    host = start_host(tmp_path, "--identity", host_key, "--out", "h", "--bot", "heuristic",
                      "--seed", "4", "--name", "host-bot", "--grace", "30", "--quiet",
                      "--port", str(port))  # fmt: skip
    term = Terminal(tmp_path, *_join_args(host.invite, join_key))
    before = _play_some(term, 3)
    return host, host.invite, join_key, term, before


def test_killed_then_resume_file_finishes_the_game(tmp_path: Path) -> None:
    host, _invite, _key, term, before = _game(tmp_path)
    _kill(term)
    (path,) = (tmp_path / "j").glob("*.truc")
    term = Terminal(tmp_path, "resume", str(path.relative_to(tmp_path)))
    try:
        after = term.read_until(TURN)
        _resumed_screen_is_the_old_one(before, after)
        _check_end(_finish(term, after), tmp_path)
        assert term.close() == 0
    finally:
        status, _out, err = host.finish()
    assert status == 0, err


def test_killed_then_the_same_join_again_finishes_the_game(tmp_path: Path) -> None:
    host, invite, key, term, before = _game(tmp_path)
    _kill(term)
    (path,) = (tmp_path / "j").glob("*.truc")
    term = Terminal(tmp_path, *_join_args(invite, key))
    try:
        after = term.read_until(TURN)
        where = f"j/{path.name}"
        said = f"your game {where} did not finish: resuming it (truc-p2p resume {where})"
        assert said in " ".join(after.split())  # wrapped at the terminal's width
        assert "busy" not in after
        _resumed_screen_is_the_old_one(before, after)
        _check_end(_finish(term, after), tmp_path)
        assert term.close() == 0
    finally:
        status, _out, err = host.finish()
    assert status == 0, err
    assert len(list((tmp_path / "j").glob("*.truc"))) == 1  # no second game was started


def test_busy_says_its_advice_once_and_names_the_command(tmp_path: Path) -> None:
    from truc_p2p.cli._comeback import busy_hint
    from truc_p2p.ui._outcome_text import render_outcome

    text = render_outcome(
        "refused-busy", {"reason": "busy", "detail": "a game is in progress; try again later"}
    )
    assert text.count("try again later") == 1
    hint = busy_hint(
        tmp_path, identity=tmp_path / "k", host_fingerprint="0" * 64, command="truc-p2p join X"
    )
    assert hint == "to join again: truc-p2p join X"


def test_a_stopped_game_is_found_for_the_busy_hint(tmp_path: Path) -> None:
    from truc_p2p.cli._comeback import busy_hint, find_unfinished
    from truc_p2p.net import Invite

    host, invite, key, term, _before = _game(tmp_path)
    _kill(term)
    (path,) = (tmp_path / "j").glob("*.truc")
    fp = Invite.parse(invite).fingerprint
    assert find_unfinished(tmp_path / "j", role="join", identity=key, host_fingerprint=fp) == path
    assert (
        find_unfinished(tmp_path / "j", role="join", identity=key, host_fingerprint="0" * 64)
        is None
    )
    hint = busy_hint(tmp_path / "j", identity=key, host_fingerprint=fp, command="x")
    assert hint == f"if that game is yours, resume it: truc-p2p resume {path}"
    host.proc.kill()
    host.proc.communicate()


def test_join_again_starts_a_new_game_when_the_host_forgot_the_old_one(tmp_path: Path) -> None:
    port = free_port()  # the new host listens where the old invite points
    host, _invite, key, term, _before = _game(tmp_path, port)
    _kill(term)
    host.proc.kill()
    host.proc.communicate()
    (old,) = (tmp_path / "j").glob("*.truc")
    host_key = tmp_path / "host.key"
    fresh = start_host(tmp_path, "--identity", host_key, "--out", "h2", "--bot", "random",
                       "--name", "host-bot", "--quiet", "--port", str(port))  # fmt: skip
    done = subprocess.run(
        command(*_join_args(fresh.invite, key), "--bot", "random", "--quiet"),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg")},
    )
    status, _out, err = fresh.finish()
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"j/{old.name} cannot go on; starting a new game instead" in done.stdout
    assert "the host no longer has this game" in done.stderr
    assert "result co-signed by both players" in " ".join(done.stdout.split())
    assert status == 0, err
    assert len(list((tmp_path / "j").glob("*.truc"))) == 2
