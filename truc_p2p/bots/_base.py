"""The bot protocol and the uniformly random bot."""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from truc_p2p.rules import Action, Game

__all__ = ["Bot", "RandomBot", "thinks_in_thread"]


def thinks_in_thread(bot: Bot) -> bool:
    """Whether ``bot`` thinks long enough that a game loop should ask it in a worker
    thread (and keep reading the peer meanwhile).  A bot says so with a true class
    attribute ``thinks_in_thread`` (the searching bot does); other bots are asked
    in the loop itself."""
    return getattr(bot, "thinks_in_thread", False) is True


@runtime_checkable
class Bot(Protocol):
    """A player: given its own view of the game, choose a legal action.

    ``game`` is the bot's view (``game.view`` is the bot's seat and
    ``game.to_act`` is that seat); bots must not mutate it.
    """

    name: str

    def choose(self, game: Game) -> Action:
        """Return one of ``game.legal_actions()``."""
        ...


class RandomBot:
    """Plays uniformly at random among the legal actions; deterministic if seeded."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, game: Game) -> Action:
        """A uniformly random legal action."""
        actions = list(game.legal_actions())
        if not actions:
            raise ValueError("no legal action: it is not this bot's turn")
        return self._rng.choice(actions)
