"""The help a player reads: the game commands' options in groups (the game, the
connection, the screen, advanced), defaults with their units, no spec sections or
bot internals, the top-level help saying where to start with the developers'
commands apart, and the joiner's line on the host's settings in a player's words."""

from __future__ import annotations

import argparse
import io
import re
from pathlib import Path

import pytest
from helpers.cli import run

from truc_p2p.cli import build_parser
from truc_p2p.cli._join import _say_joining
from truc_p2p.i18n import use_language
from truc_p2p.net import Invite


def _help(*words: str) -> str:
    """The ``--help`` text of the top level, or of the command ``words[0]``."""
    parser = build_parser(words[0] if words else None)
    if not words:
        return parser.format_help()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return str(sub.choices[words[0]].format_help())


def _sections(text: str) -> dict[str, str]:
    """``title:`` -> the lines under it."""
    parts = re.split(r"^(\S[^\n]*):\n", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


@pytest.mark.parametrize("command", ["host", "join", "play"])
def test_the_options_come_in_groups(command: str) -> None:
    sections = _sections(_help(command))
    assert {"the game", "the screen", "advanced"} <= set(sections), list(sections)
    assert "--target" in sections["the game"] and "--web" in sections["the screen"]
    assert "--no-pipeline" in sections["advanced"]
    if command != "play":
        assert "--port" in sections.get("the connection", "") or command == "join"
    # "options" keeps only help and the language
    left = re.findall(r"^  (--?[\w-]+)", sections["options"], flags=re.M)
    assert set(left) <= {"-h", "--lang"}, left


def test_host_help_speaks_a_players_words_with_units() -> None:
    text = " ".join(_help("host").split())
    assert "section 6" not in text and "wire.md" not in text and "search bot" not in text
    assert "default 12 points" in text and "default 300 seconds" in text
    assert "default 120 seconds" in text  # --grace


def test_top_level_help_says_where_to_start() -> None:
    text = _help()
    commands = text.split("options:")[0]
    assert re.search(r"^    play ", commands, flags=re.M)
    assert not re.search(r"^    (bench|interop) ", commands, flags=re.M)
    assert "start with: truc-p2p play" in text
    assert "for developers: bench, interop" in text


def test_the_joiner_reads_the_hosts_settings_in_a_players_words() -> None:
    invite = Invite.parse(
        "truc://127.0.0.1:4455/?fp=" + "ab" * 32
        + "&target=12&ladder=literal&rest=game&audit=game&deck=v2&pipeline=1"
    )  # fmt: skip
    out = io.StringIO()
    _say_joining(invite, "ana", out)
    line = out.getvalue().splitlines()[1]
    assert line == "the host plays to 12 points; refusing “my rest” loses the game"
    out = io.StringIO()
    _say_joining(invite, "ana", out, verbose=True)
    assert "deck v2 pipelined" in out.getvalue()
    use_language("ca")
    out = io.StringIO()
    _say_joining(invite, "ana", out)
    catalan = out.getvalue().splitlines()[1]
    assert "joc fora" in catalan and "12 punts" in catalan and "v2" not in catalan


def test_the_game_says_once_how_long_each_move_may_take(tmp_path: Path) -> None:
    done = run(tmp_path, "play", "--target", "1", "--seed", "3", "--timeout", "45", stdin="")
    assert done.stdout.count("you have 45 seconds for each move") == 1, done.stdout
    done = run(tmp_path, "play", "--target", "1", "--seed", "3", stdin="")
    assert "you have 5 minutes for each move" in done.stdout
    # a person at the terminal of a network game is told its away budget too
    from truc_p2p.cli._game_args import GameOptions
    from truc_p2p.cli._lifecycle import _player
    from truc_p2p.ui import TerminalPlayer

    human, _hook = _player(GameOptions(command="join"), "ana", ascii=True)
    assert isinstance(human, TerminalPlayer) and human.away_seconds == 600
