"""Leaving a match at a real terminal (issue 43): Ctrl-C and ``q`` name the match and
what leaving costs, and ``c`` concedes only the game in play: the next game follows."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from helpers.pty import Terminal

pytestmark = pytest.mark.slow


def test_a_match_at_the_terminal_concedes_one_game_and_goes_on(tmp_path: Path) -> None:
    term = Terminal(
        tmp_path, "play", "--match", "3", "--bot", "heuristic", "--seed", "3", "--name", "alice"
    )
    try:
        term.read_until(r"your move \(\d:\d\d left\):[^>]*\[q\] leave")
        os.killpg(term.proc.pid, signal.SIGINT)  # one Ctrl-C only asks, naming the match
        asked = term.read_until(r"you 0 –\s+heuristic-bot\s+1")
        assert "to leave the match: you resign it" in " ".join(asked.split())
        term.type("q\n")
        question = term.read_until(r"anything\s+else\s+to\s+stay\.")
        said = " ".join(question.split())
        assert "leave the match? You resign it: heuristic-bot wins the match" in said
        assert "c to concede only this game and play the next one" in said
        term.type("c\n")
        after = term.read_until(r"playing\s+against\s+heuristic-bot", timeout=30)
        said = " ".join(after.split())
        assert "(you concede this game: the match goes on with the next one)" in said
        assert "match: you 0 – heuristic-bot 1 (first to win 2 of 3 games)" in said
        # and y leaves the match, saying how it ended
        term.read_until(r"your move \(\d:\d\d left\):[^>]*\[q\] leave")
        term.type("q\n")
        term.read_until(r"anything\s+else\s+to\s+stay\.")
        term.type("y\n")
        end = " ".join(term.read_until(r"heuristic-bot\s+2").split())
        assert "match over: you resigned, so heuristic-bot wins the match, you 0 –" in end
    finally:
        term.close()
