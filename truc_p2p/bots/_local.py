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
    Card,
    Event,
    Game,
    Outcome,
    Phase,
    Player,
    Ruleset,
    hands_from_deck,
)

__all__ = ["ViewsOutOfSyncError", "play_local_game"]


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
    first_dealer = coin if first_dealer is None else Player(first_dealer)
    referee = Game(ruleset, first_dealer=first_dealer)
    views = {p: Game(ruleset, first_dealer=first_dealer, view=p) for p in Player}
    bots = {Player.P0: bot0, Player.P1: bot1}
    deck: list[Card] = []
    for _ in range(max_actions):
        if referee.phase is Phase.OVER:
            break
        if referee.phase is Phase.DEAL:
            if not referee.redealt:
                deck = list(ALL_CARDS)
                rng.shuffle(deck)
            hands = hands_from_deck(deck, referee.dealer, redeal=referee.redealt)
            events = referee.deal(hands)
            for p, view in views.items():
                _check_sync(events, view.deal({p: hands[p]}), p)
        else:
            actor = referee.to_act
            assert actor is not None
            # The all-seeing reference of the exploit harness is shown the referee.
            seen = referee if getattr(bots[actor], "omniscient", False) else views[actor]
            action = bots[actor].choose(seen)
            events = referee.push(action, player=actor)
            for p, view in views.items():
                _check_sync(events, view.push(action, player=actor), p)
        if on_event is not None:
            for event in events:
                on_event(event)
    outcome = referee.outcome()
    if outcome is None:
        raise RuntimeError(f"game not over after {max_actions} steps")
    return outcome


def _check_sync(expected: list[Event], got: list[Event], player: Player) -> None:
    if expected != got:
        raise ViewsOutOfSyncError(f"{player}'s view diverged: {got!r} != {expected!r}")
