"""The terminal game in a real pseudo-terminal, as a person sees it: whose turn and
how long, what each answer costs, type-ahead dropped across a deal, and leaving
with Ctrl-C or ``q`` only after the player confirms."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

import pytest
from helpers.cli import LIMIT, command, env
from helpers.pty import Terminal, any_move

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow


def test_a_person_at_the_terminal(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "play", "--bot", "heuristic", "--seed", "3", "--name", "alice")
    try:
        term.type("3\n")  # typed before the cards are dealt: must not play a card
        first = term.read_until(r"your move \(\d:\d\d left\):[^>]*\[q\] leave")
        assert "dropped '3'" in term.read_until(r"dropped '3'[^\n]*\n", timeout=10)
        assert "playing against heuristic-bot" in first
        assert "(new to Le Truc? truc-p2p learn plays a guided first hand)" in first  # 1st game
        assert "key " not in first and "loopback" not in first  # no jargon against a bot
        # every answer says what it costs
        assert re.search(r"\[f\] fold: heuristic-bot scores \d+ points? now", first)
        # one Ctrl-C only asks; the game goes on
        os.killpg(term.proc.pid, signal.SIGINT)
        assert "press Ctrl-C again within 3 s" in term.read_until("press Ctrl-C again within 3 s")
        # move: the turn passes and the screen says to whom, with the time left
        screen = first
        for _turn in range(12):
            term.type(any_move(screen) + "\n")
            shown = term.read_until(
                r"waiting for heuristic-bot \(\d:\d\d left\)|your move \([^>]*\[q\] leave"
            )
            if "waiting for heuristic-bot" in shown:
                break
            screen = shown
        else:
            raise AssertionError("the turn never passed to the bot")
        term.read_until(r"your move \(\d:\d\d left\):")
        # q asks first; "n" stays
        term.type("q\n")
        assert "You resign: heuristic-bot wins the game." in term.read_until(
            r"You resign: heuristic-bot wins the game\."
        )
        term.type("n\n")
        assert "(you stay in the game)" in term.read_until(r"\(you stay in the game\)")
        term.type("q\n")
        term.read_until("You resign")
        term.type("y\n")
        end = term.read_until(r"transcript: (\S+)\n")
        status = term.close()
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    # leaving resigned the game: one line from the player's side, a complete transcript
    assert status == 1  # the player did not finish the game: it left
    assert re.search(
        r"heuristic-bot won: you resigned in hand \d+\n"
        r"points when you resigned: you \d+ – heuristic-bot \d+\n",
        end,
    )
    transcript = re.search(r"transcript: (\S+)\n", end)
    assert transcript is not None
    checked = subprocess.run(
        command("verify", transcript.group(1)),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env(tmp_path),
        timeout=LIMIT,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "alice resigned in hand" in checked.stdout.splitlines()[0]
    assert "Traceback" not in term.seen
    screen = term.seen[: term.seen.rfind("you resigned in hand")]
    wide = [line for line in screen.splitlines() if len(line) > 80]
    assert not wide, wide


def test_q_while_the_opponent_thinks_asks_then_resigns(tmp_path: Path) -> None:
    """Leaving does not wait for one's turn: ``q`` while the bot thinks asks first, and
    ``y`` resigns at once (the transcript verifies as complete)."""
    term = Terminal(tmp_path, "play", "--bot", "search", "--think", "20", "--name", "alice")
    try:
        shown = term.read_until(
            r"waiting for search[^\n]*left\)\n|your move \([^>]*\[q\] leave[^\n]*\n> "
        )
        if "your move" in shown:
            term.type(any_move(shown) + "\n")
            term.read_until(r"waiting for search[^\n]*left\)\n")
        term.type("q\n")
        assert "You resign: search:20s-bot wins the game." in term.read_until(
            r"You resign: search:20s-bot wins the game\."
        )
        term.type("y\n")
        end = term.read_until(r"transcript: (\S+)\n", timeout=15)  # not after 20 s of thought
        status = term.close()
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    assert status == 1
    assert re.search(r"search:20s-bot won: you resigned in hand \d+\n", end)
    assert "(leaving the game: you resign)" in term.seen  # left between turns
    assert "Traceback" not in term.seen


#: The screen before each decision, up to its prompt.
YOUR_MOVE = r"your move \([^>]*\[q\] leave[^\n]*\n> "


def test_at_60_columns_nothing_is_split_and_the_result_shows_once(tmp_path: Path) -> None:
    """A terminal 60 columns wide: every line fits (the terminal never cuts a word),
    and the end of the game says its result once."""
    term = Terminal(tmp_path, "play", "--target", "2", "--seed", "5", "--name", "alice", columns=60)
    try:
        for _turn in range(40):
            shown = term.read_until(YOUR_MOVE + r"|transcript: \S+\n")
            if "transcript: " in shown:
                break
            term.type(any_move(shown) + "\n")
        else:
            raise AssertionError("the game did not end")
        term.read_until("play again")
        term.type("n\n")
        term.close()
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    shown = term.seen
    assert "Traceback" not in shown
    # long lines were wrapped at words to 60 columns (only a path may be longer)
    wide = [
        line
        for line in shown.splitlines()
        if len(line) > 60 and not line.startswith(("transcript: ", "verify it with: "))
    ]
    assert not wide, wide
    assert any(len(line) > 50 for line in shown.splitlines())  # the width is used
    flat = " ".join(shown.split())
    assert flat.count("result co-signed by both players") == 1, flat[-600:]
    assert "== result co-signed" not in flat
    # the end, once: the headline with its reason, the points (signed), the transcript
    end = flat[flat.rindex("trick ") :]
    found = re.search(
        r"(You|[\w-]+-bot) won: .+? (points[^·]*: you \d+ – [\w-]+-bot \d+) "
        r"\(\d+ hands?\) · result co-signed by both players transcript: \S+ verify it with",
        end,
    )
    assert found, end
    assert not re.search(r"wins? the game|and with it the game", end), end


def test_ctrl_d_asks_before_resigning_like_q(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "play", "--seed", "3", "--name", "alice")
    try:
        term.read_until(YOUR_MOVE)
        term.type("\x04")  # Ctrl-D
        assert "You resign: medium-bot wins the game." in term.read_until(
            r"You resign: medium-bot wins the game\.[^>]*> "
        )
        term.type("n\n")
        term.read_until(r"\(you stay in the game\)")
        assert term.proc.poll() is None  # still playing
        term.type("\x04")
        term.read_until("You resign")
        term.type("\x04")  # a second Ctrl-D: yes, leave
        end = term.read_until(r"transcript: (\S+)\n")
        status = term.close()
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    assert status == 1
    assert re.search(r"medium-bot won: you resigned in hand \d+\n", end), end
    assert "Traceback" not in term.seen


def test_ctrl_c_while_hosting_cancels_without_talk_of_resigning(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "host", "--port", "0", "--bind", "127.0.0.1", "--name", "ana")
    try:
        term.read_until(r"waiting for an opponent")
        os.killpg(term.proc.pid, signal.SIGINT)
        shown = term.read_until(r"no game started, stopping")
        status = term.close()
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    assert status == 130
    assert "resign" not in shown and "resign" not in term.seen


def test_the_guided_hand_at_a_terminal(tmp_path: Path) -> None:
    """``truc-p2p learn`` as a person sees it: each step waits for its move, a wrong key
    gets the step's hint, and the lesson ends with the game won."""
    term = Terminal(tmp_path, "learn")
    try:
        first = term.read_until(r"\[q\] leave[^\n]*\n> ")
        assert "7 8 A K Q J 10 9" in " ".join(first.split())
        assert "your hand: [1] 9♥  [2] 10♣  [3] J♦" in first
        term.type("1\n")
        assert "not in this lesson: type d to ask for a redeal" in term.read_until(r"\n> ")
        for move in ["d", "1", "r", "1", "a", "m", "1"]:
            term.type(move + "\n")
            term.read_until(r"\[q\] leave[^\n]*\n> ")
        term.type("1\n")
        end = term.read_until(r"truc-p2p join\.\n")
        assert "you win the game" in end
        assert term.close() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
