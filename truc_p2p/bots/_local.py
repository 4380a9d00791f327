"""Play a whole game between two bots in memory (a demo, and a test of views).

One omniscient :class:`Game` referees; each bot gets its own view, which is
dealt only its own hand and told every action.  The events of every view must
match the referee's, which proves the views stay in sync.  The shuffle uses
:class:`random.Random`: fine for a local demo, never for the protocol.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from truc_p2p.bots._base import Bot
from truc_p2p.rules import (
    ALL_CARDS,
    DEFAULT_RULESET,
    Action,
    Card,
    Event,
    Game,
    Outcome,
    Phase,
    Player,
    Ruleset,
    hands_from_deck,
)

__all__ = ["LocalTable", "ViewsOutOfSyncError", "play_local_game"]


class ViewsOutOfSyncError(RuntimeError):
    """A player's view produced different events than the omniscient referee."""


def play_local_game(
    bot0: Bot,
    bot1: Bot,
    *,
    ruleset: Ruleset = DEFAULT_RULESET,
    seed: int,
    on_event: Callable[[Event], None] | None = None,
    max_actions: int = 10_000,
    first_dealer: Player | None = None,
) -> Outcome:
    """Play ``bot0`` (seat P0) against ``bot1`` (seat P1) and return the outcome.

    ``seed`` drives the first-dealer coin flip and the shuffles; ``first_dealer``
    overrides the coin (the shuffles stay those of ``seed``).  ``on_event``
    receives every event of the omniscient referee, in order.
    """
    rng = random.Random(seed)
    coin = Player(rng.randrange(2))
    table = LocalTable(ruleset, coin if first_dealer is None else Player(first_dealer), rng)
    referee = table.referee
    bots = {Player.P0: bot0, Player.P1: bot1}
    for _ in range(max_actions):
        if referee.phase is Phase.OVER:
            break
        if referee.phase is Phase.DEAL:
            events = table.deal()
        else:
            actor = referee.to_act
            assert actor is not None
            # The all-seeing reference of the exploit harness is shown the referee.
            seen = referee if getattr(bots[actor], "omniscient", False) else table.views[actor]
            events = table.push(bots[actor].choose(seen), actor)
        if on_event is not None:
            for event in events:
                on_event(event)
    outcome = referee.outcome()
    if outcome is None:
        raise RuntimeError(f"game not over after {max_actions} steps")
    return outcome


class LocalTable:
    """One game in memory: the omniscient referee and each player's view, dealt from
    ``rng``'s shuffles (a redeal deals the next cards of the same pack).  Every deal
    and action goes to the referee and to both views, whose events must match the
    referee's (:class:`ViewsOutOfSyncError`)."""

    def __init__(self, ruleset: Ruleset, first_dealer: Player, rng: random.Random) -> None:
        self.rng = rng
        self.referee = Game(ruleset, first_dealer=first_dealer)
        self.views = {p: Game(ruleset, first_dealer=first_dealer, view=p) for p in Player}
        self._deck: list[Card] = []

    def deal(self) -> list[Event]:
        """Deal the hand that is due (a fresh shuffle, unless it is a redeal)."""
        referee = self.referee
        if not referee.redealt:
            self._deck = list(ALL_CARDS)
            self.rng.shuffle(self._deck)
        hands = hands_from_deck(self._deck, referee.dealer, redeal=referee.redealt)
        events = referee.deal(hands)
        for p, view in self.views.items():
            _check_sync(events, view.deal({p: hands[p]}), p)
        return events

    def push(self, action: Action, actor: Player) -> list[Event]:
        """``actor``'s action, on the referee and both views."""
        events = self.referee.push(action, player=actor)
        for p, view in self.views.items():
            _check_sync(events, view.push(action, player=actor), p)
        return events


def _check_sync(expected: list[Event], got: list[Event], player: Player) -> None:
    if expected != got:
        raise ViewsOutOfSyncError(f"{player}'s view diverged: {got!r} != {expected!r}")
