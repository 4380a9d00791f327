"""The terminal UI: key mapping, the screen, whole games through a pipe, quitting."""

from __future__ import annotations

import io
import re
import signal
import subprocess
import threading
from pathlib import Path

import pytest
import trio
import trio.testing
from helpers.cli import LIMIT, last_json, run, spawn

from truc_p2p.bots import make_bot
from truc_p2p.cli._common import use_ascii
from truc_p2p.crypto import SigningKey
from truc_p2p.net import BotStrategy, End, PlayOptions, QuitGame, play_game, prepare_game
from truc_p2p.protocol import SessionOptions
from truc_p2p.rules import Action, Card, Game, Player
from truc_p2p.ui._tui import HELP, ScriptedLines, TerminalPlayer, keymap, parse_choice

#: Enough answers for any game: play the first card, accept, decline a redeal.
KEYS = ["1", "a", "n"] * 400


def _cards(*texts: str) -> list[Card]:
    return [Card.from_str(t) for t in texts]


def _game_to_lead() -> Game:
    """P0's view, P1 dealt: P0 (non-dealer) leads the first trick."""
    game = Game(first_dealer=Player.P1, view=Player.P0)
    game.deal({Player.P0: _cards("7S", "10H", "AD")})
    return game


def test_keys_map_to_legal_actions() -> None:
    game = _game_to_lead()
    legal = tuple(game.legal_actions())
    keys = keymap(game, legal)
    assert keys["1"] == Action.play("7S") and keys["3"] == Action.play("AD")
    assert keys["r"] == Action.RAISE and keys["m"] == Action.REST
    assert keys["f"] == Action.FOLD and keys["d"] == Action.ASK_REDEAL
    assert "a" not in keys and "x" not in keys
    assert parse_choice(" 2 ", game, legal) == Action.play("10H")
    assert parse_choice("play ad", game, legal) == Action.play("AD")
    assert parse_choice("?", game, legal) == HELP
    assert "no card 4" in str(parse_choice("4", game, legal))
    assert "unknown key" in str(parse_choice("zz", game, legal))
    assert "not possible now" in str(parse_choice("accept", game, legal))
    with pytest.raises(QuitGame):
        parse_choice("q", game, legal)


def test_a_card_you_do_not_hold_is_named_as_such() -> None:
    """Issue 32: "play 7S is not possible now" read as a rule; the player does not hold it."""
    game = _game_to_lead()
    legal = tuple(game.legal_actions())
    said = str(parse_choice("play 8C", game, legal))
    assert said.startswith("you do not hold 8♣; choose from: 1, 2, 3")
    game.push(Action.RAISE)  # now a card of the hand cannot be played: an answer is due
    game.push(Action.ACCEPT, player=Player.P1)
    legal = tuple(game.legal_actions())
    assert str(parse_choice("accept", game, legal)).startswith("accept is not possible now")


def test_answer_keys_when_a_raise_is_pending() -> None:
    game = Game(first_dealer=Player.P0, view=Player.P0)
    game.deal({Player.P0: _cards("7S", "10H", "AD")})
    game.push(Action.RAISE)  # P1 (non-dealer, to lead) asks "2 more?"
    legal = tuple(game.legal_actions())
    assert keymap(game, legal) == {"a": Action.ACCEPT, "x": Action.REFUSE, "f": Action.FOLD}
    ui = TerminalPlayer(ScriptedLines([]), "me", out=io.StringIO())
    ui.names = {Player.P0: "me", Player.P1: "bob"}
    screen = ui.render(game, legal)
    assert "bob asks “2 more?”" in screen and "[a] accept" in screen
    assert "your hand: [1] 7♠  [2] 10♥  [3] A♦" in screen
    assert "score: you 0 – bob 0 (first to 12)" in screen and "hand worth 1" in screen
    assert "[x] refuse: bob scores 1 point now" in screen


def test_ascii_fallback() -> None:
    def stream(encoding: str) -> io.TextIOWrapper:
        return io.TextIOWrapper(io.BytesIO(), encoding=encoding)

    assert use_ascii(False, stream("ascii")) and use_ascii(False, stream("latin-1"))
    assert not use_ascii(False, stream("utf-8")) and use_ascii(True, stream("utf-8"))
    ui = TerminalPlayer(ScriptedLines([]), "me", ascii=True, out=io.StringIO())
    ui.names = {Player.P0: "me", Player.P1: "bob"}
    game = _game_to_lead()
    screen = ui.render(game, tuple(game.legal_actions()))
    assert screen.isascii() and "[1] 7S" in screen and '"2 more?"' in screen


async def test_terminal_player_plays_a_whole_game_against_a_bot(
    autojump_clock: trio.abc.Clock,
) -> None:
    out = io.StringIO()
    human = TerminalPlayer(ScriptedLines(["?", *KEYS]), "me", out=out, echo=True)
    mine = prepare_game(
        identity=SigningKey.generate(),
        role=Player.P0,
        transcript=None,
        options=SessionOptions(name="me"),
    )
    theirs = prepare_game(
        identity=SigningKey.generate(),
        role=Player.P1,
        transcript=None,
        options=SessionOptions(name="bot"),
    )
    a, b = trio.testing.memory_stream_pair()
    outcomes = {}
    async with trio.open_nursery() as nursery:

        async def bot_side() -> None:
            outcomes["bot"] = await play_game(b, theirs.session, BotStrategy(make_bot("random", 3)))

        nursery.start_soon(bot_side)
        outcomes["me"] = await play_game(a, mine.session, human, PlayOptions(on_event=human))
    assert outcomes["me"].end is End.FINISHED and outcomes["bot"].end is End.FINISHED
    text = out.getvalue()
    for expected in ("playing against bot", "your hand: [1]", "table:", "score: you", ">> bot"):
        assert expected in text
    assert "Le Truc for two, in short" in text and "wins the game" in text
    # the command prints the co-signed result once, at the end (print_outcome), not here
    assert "result co-signed" not in text


def test_play_through_a_pipe_for_a_whole_game(tmp_path: Path) -> None:
    done = run(tmp_path, "play", "--seed", "5", "--out", "games", stdin="\n".join(KEYS) + "\n")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    out = done.stdout
    assert "playing against medium-bot" in out and "your move (" in out
    # no transport jargon or keys against a bot (that is --verbose)
    assert "loopback" not in out and "key " not in out
    assert "> 1" in out  # input from a pipe is echoed after the prompt
    assert out.count("result co-signed by both") == 1  # once, not narrated too
    transcript = next((tmp_path / "games").glob("*.truc"))
    # the bot's side of the game is kept out of sight, in games/.bot/
    assert sorted(p.name for p in (tmp_path / "games").iterdir() if p.is_file()) == sorted(
        [transcript.name, transcript.name + ".secret", transcript.name + ".meta.json"]
    )
    assert (tmp_path / "games" / ".bot" / (transcript.name + ".opponent")).exists()
    assert run(tmp_path, "verify", transcript).returncode == 0


def test_end_of_input_resigns_and_tells_the_bot(tmp_path: Path) -> None:
    """Leaving is resigning: the bot wins, the transcript verifies as complete (exit 0),
    and the command that left still exits 1 (it did not finish the game)."""
    done = run(tmp_path, "play", "--json", "--ascii", "--out", "games", stdin="")
    assert done.returncode == 1
    result = last_json(done.stdout)
    assert result["outcome"] == "resigned" and result["abort"]["reason"] == "resign"
    assert result["reason"] == "resigned" and result["complete"] is True
    assert result["valid"] is False  # nobody co-signed: the resigner alone signed
    assert result["resigned_by"] == result["me"] and result["winner"] != result["me"]
    assert "end of input" in done.stderr and done.stderr.isascii()
    transcript = next((tmp_path / "games").glob("*.truc"))
    checked = run(tmp_path, "verify", transcript)
    assert checked.returncode == 0, checked.stdout
    # the first hand may end before the player's first turn (the bot folds at once)
    assert re.search(r" resigned in hand \d+; ", checked.stdout.splitlines()[0])


def test_ctrl_c_leaves_cleanly(tmp_path: Path) -> None:
    proc = spawn(tmp_path, "play", "--json", stdin=subprocess.PIPE)
    timer = threading.Timer(LIMIT, proc.kill)
    timer.start()
    try:
        assert proc.stderr is not None
        seen = ""
        while "your move (" not in seen:  # wait for the first decision
            line = proc.stderr.readline()
            assert line, seen
            seen += line
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=LIMIT)
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert "Traceback" not in err and "interrupted" in err
    assert last_json(out)["outcome"] == "resigned"
