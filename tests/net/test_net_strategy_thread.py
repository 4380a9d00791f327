"""The bot says whether it thinks in a worker thread; ``net`` knows no bot class."""

from __future__ import annotations

import ast
from pathlib import Path

from truc_p2p.bots import HeuristicBot, RandomBot, SearchBot, thinks_in_thread
from truc_p2p.net import BotStrategy
from truc_p2p.rules import Action, Game

NET = Path(__file__).resolve().parents[2] / "truc_p2p" / "net"


class _SlowBot:
    name = "slow"
    thinks_in_thread = True

    def choose(self, game: Game) -> Action:
        return next(iter(game.legal_actions()))


def test_a_searching_bot_thinks_in_a_thread_and_the_others_do_not() -> None:
    assert thinks_in_thread(SearchBot(1)) and BotStrategy(SearchBot(1)).threaded
    assert not BotStrategy(RandomBot(1)).threaded
    assert not BotStrategy(HeuristicBot(1)).threaded


def test_any_bot_can_say_it_thinks_long_and_the_caller_can_overrule() -> None:
    assert BotStrategy(_SlowBot()).threaded
    assert not BotStrategy(_SlowBot(), threaded=False).threaded
    assert BotStrategy(RandomBot(1), threaded=True).threaded


def test_net_names_no_concrete_bot_class() -> None:
    concrete = {"SearchBot", "HeuristicBot", "RandomBot", "CfrBot", "ExpertBot"}
    found = []
    for path in sorted(NET.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Name) and node.id in concrete:
                found.append(f"{path.name}:{node.lineno} {node.id}")
            if isinstance(node, ast.alias) and node.name in concrete:
                found.append(f"{path.name}:{node.lineno} imports {node.name}")
    assert found == []
