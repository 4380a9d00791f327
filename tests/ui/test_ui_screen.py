"""The terminal and the web table are both a :class:`Screen`; a bot's strategy is not."""

from __future__ import annotations

import io

from truc_p2p.bots import RandomBot
from truc_p2p.net import BotStrategy
from truc_p2p.ui._screen import Screen
from truc_p2p.ui._tui import ScriptedLines, TerminalPlayer
from truc_p2p.ui._web import WebPlayer


def test_both_screens_are_screens_and_a_bot_is_not() -> None:
    assert isinstance(TerminalPlayer(ScriptedLines([]), "ana", out=io.StringIO()), Screen)
    assert isinstance(WebPlayer("ana"), Screen)
    assert not isinstance(BotStrategy(RandomBot(1)), Screen)


async def test_the_terminal_answers_the_match_question_like_the_web_table() -> None:
    out = io.StringIO()
    player = TerminalPlayer(ScriptedLines(["n"]), "ana", out=out)
    assert await player.ask_again(next_game=True) is False
    player = TerminalPlayer(ScriptedLines(["y"]), "ana", out=io.StringIO())
    assert await player.ask_again() is True
