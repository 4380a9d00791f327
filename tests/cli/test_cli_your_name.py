"""Your name: without ``--name``, a person at a terminal is asked once, on the
first game, for the name the opponent sees; it is kept in the data folder beside
the identity key.  Without a terminal the login name stays the default."""

from __future__ import annotations

import io
import os
import signal
from pathlib import Path

import pytest
from helpers.cli import run
from helpers.pty import Terminal

from truc_p2p.cli._common import default_name, saved_name_path, your_name


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "truc-p2p"


def test_asked_once_then_kept(data_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert your_name("you", ask=True, stdin=io.StringIO("Núria\n")) == "Núria"
    assert (data_home / "name").read_text(encoding="utf-8") == "Núria\n"
    assert saved_name_path() == data_home / "name"
    asked = capsys.readouterr().err
    assert "your name, shown to your opponent" in asked and "Núria" in asked
    # the next game: no question, the kept name (an empty input would give the default)
    assert your_name("you", ask=True, stdin=io.StringIO("")) == "Núria"
    assert "your name" not in capsys.readouterr().err


def test_enter_or_a_bad_name_keeps_the_login_name(data_home: Path) -> None:
    assert your_name("you", ask=True, stdin=io.StringIO("\n")) == default_name("you")
    (data_home / "name").unlink()
    assert your_name("you", ask=True, stdin=io.StringIO("x" * 41 + "\n")) == default_name("you")


def test_not_asked_without_a_terminal(data_home: Path) -> None:
    assert your_name("you", ask=False, stdin=io.StringIO("Núria\n")) == default_name("you")
    assert not (data_home / "name").exists()


def test_a_piped_game_never_asks(tmp_path: Path) -> None:
    done = run(tmp_path, "play", "--target", "1", "--seed", "3", "--bot", "random", stdin="")
    assert "your name" not in done.stdout + done.stderr
    assert not (tmp_path / "xdg" / "truc-p2p" / "name").exists()


def test_the_first_game_at_a_terminal_asks_and_keeps_the_name(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "play", "--target", "2", "--seed", "5")
    try:
        term.read_until(r"your name, shown to your opponent \(Enter: ")
        term.type("Núria\r")
        term.read_until(r"you play as Núria from now on")
        term.read_until(r"your move")
        os.killpg(term.proc.pid, signal.SIGKILL)
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
        term.proc.wait()
    assert (tmp_path / "xdg" / "truc-p2p" / "name").read_text(encoding="utf-8") == "Núria\n"
