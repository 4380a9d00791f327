"""Your name: without ``--name``, a person at a terminal is asked once, on the
first game, for the name the opponent sees; it is kept in the data folder beside
the identity key.  Without a terminal the login name stays the default."""

from __future__ import annotations

import io
import os
import re
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


def test_enter_or_a_bad_name_keeps_the_login_name(
    data_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import getpass

    monkeypatch.setattr(getpass, "getuser", lambda: "nuria")
    assert your_name("you", ask=True, stdin=io.StringIO("\n")) == "nuria"
    (data_home / "name").unlink()
    assert your_name("you", ask=True, stdin=io.StringIO("x" * 41 + "\n")) == "nuria"


def test_a_system_account_is_offered_a_name_in_its_language(
    data_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Logged in as root (a container), Enter used to keep the role's English word
    ("you", "host", "guest") as the name for good; it is now "player-" and four hex
    digits in the player's language, kept like a typed name."""
    import getpass

    from truc_p2p.i18n import use_language

    monkeypatch.setattr(getpass, "getuser", lambda: "root")
    use_language("fr")
    try:
        name = your_name("host", ask=True, stdin=io.StringIO("\n"))
    finally:
        use_language("en")
    assert re.fullmatch(r"joueur-[0-9a-f]{4}", name), name
    asked = capsys.readouterr().err  # the question offers it, in French
    assert f"{name})" in asked and "your name" not in asked, asked
    assert (data_home / "name").read_text(encoding="utf-8") == f"{name}\n"
    # without a terminal nothing is asked or kept: the role's word, as before
    (data_home / "name").unlink()
    assert your_name("host", ask=False) == "host"


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


@pytest.mark.parametrize("login", ["root", "nobody"])
def test_a_system_accounts_login_name_is_not_offered(
    login: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a container the login name is root: the opponent would see "root" (the page
    joining such a host said so); the role's own word is shown instead."""
    import getpass

    monkeypatch.setattr(getpass, "getuser", lambda: login)
    assert default_name("host") == "host"
    monkeypatch.setattr(getpass, "getuser", lambda: "Núria")
    assert default_name("host") == "Núria"
