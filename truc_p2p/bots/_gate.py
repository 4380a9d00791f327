"""The one gate every level's answers pass: no free points.

Theory of operation
-------------------
Before a bot's action is played, :func:`gate` asks the rules engine what the
bot can be sure of in the round (:func:`~truc_p2p.rules.sure_round`, from the
bot's own view: its cards, the cards played, every hand the opponent may
hold).  In a round the bot cannot lose, *giving it up* is a blunder whatever
the stake: refusing a raise or "my rest", folding, asking for or accepting a
redeal (folding there costs more than any outcome of playing on, which is a
win or nobody scoring); in a round it is sure to win, so is playing a card
after which it may not win it.  The gate replaces such an action by the answer that keeps the round:
accept the request, decline the redeal, or play the cheapest card that keeps
what the bot is sure of.  Every other action passes unchanged, so a bot's
play, its random stream and a seeded game stay what they were wherever it
made no such blunder.

:func:`guard` fits the gate to a bot made by :func:`~truc_p2p.bots.make_bot`:
the bot's class is given the gate's ``choose`` in front of its own (a
subclass made once per class), so the bot stays the object it was: its type,
its attributes and its memory of the opponent.  ``slip`` lets a share of the
blunders through on purpose (the easy level, :data:`~truc_p2p.bots._make.EASY_SLIP`).
"""

from __future__ import annotations

import random
from typing import Any, Final

from truc_p2p.rules import Action, ActionKind, Game, SureRound, sure_round

__all__ = ["GIVING_UP", "blunder", "gate", "guard", "keeper", "own_choice"]

#: The actions that give the round up (or throw the cards away) at once.
GIVING_UP: Final = frozenset(
    {ActionKind.REFUSE, ActionKind.FOLD, ActionKind.ASK_REDEAL, ActionKind.ACCEPT_REDEAL}
)


def blunder(game: Game, action: Action, sure: SureRound | None = None) -> str | None:
    """Why ``action`` (of the player to act in ``game``, its view) gives away a
    round that player cannot lose, or ``None`` when it does not.

    ``"gives up"``: a refusal, a fold or a redeal; ``"throws away"``: in a
    round it is sure to win, a card after which it may not win it.  (In a
    round it cannot lose but may not win, a card that risks the round for a
    better chance of winning it is a judgement the bot may make.)
    """
    me = game.to_act
    if me is None:
        return None
    if sure is None:
        sure = sure_round(game, me)
    if not sure.cannot_lose:
        return None
    if action.kind in GIVING_UP:
        return "gives up"
    if sure.wins and action.card is not None and action.card not in sure.cards:
        return "throws away"
    return None


def keeper(game: Game, sure: SureRound) -> Action:
    """The action that keeps a round the player to act cannot lose: accept the
    pending raise or rest, decline the redeal, or play the cheapest card that
    keeps what it is sure of."""
    pending = game.pending
    if pending is ActionKind.ASK_REDEAL:
        return Action.DECLINE_REDEAL
    if pending is not None:
        return Action.ACCEPT
    card = min(sure.cards, key=lambda c: (c.strength, c.index))
    return Action.play(card)


def gate(game: Game, action: Action, rng: random.Random | None = None, slip: float = 0.0) -> Action:
    """``action``, unless it gives away a round the player to act cannot lose;
    then the action that keeps it (with chance ``slip``, drawn from ``rng``
    only then, ``action`` after all)."""
    me = game.to_act
    if me is None or not game.knows_hand(me):
        return action
    sure = sure_round(game, me)
    if blunder(game, action, sure) is None:
        return action
    if slip and rng is not None and rng.random() < slip:
        return action
    return keeper(game, sure)


class _Gated:
    """The gate in front of a bot class's own ``choose`` (see :func:`guard`)."""

    #: The chance of letting a blunder through, and the stream it is drawn from.
    _gate_slip: float = 0.0
    _gate_rng: random.Random | None = None

    def choose(self, game: Game) -> Action:
        """The bot's own action, through :func:`gate`."""
        action: Action = super().choose(game)  # type: ignore[misc]
        return gate(game, action, self._gate_rng, self._gate_slip)


_CLASSES: dict[type, type] = {}


def guard(bot: Any, *, slip: float = 0.0, seed: int | None = None) -> None:
    """Put :func:`gate` in front of ``bot``'s ``choose``, in place.

    ``slip`` > 0 lets that share of the blunders through, drawn from a stream
    seeded by ``seed`` of its own (the bot's own stream is left as it was).
    """
    cls = type(bot)
    if issubclass(cls, _Gated):
        return
    gated = _CLASSES.get(cls)
    if gated is None:
        gated = _CLASSES[cls] = type(
            cls.__name__, (_Gated, cls), {"__module__": cls.__module__, "__doc__": cls.__doc__}
        )
    bot.__class__ = gated
    if slip:
        bot._gate_slip = slip
        bot._gate_rng = random.Random(None if seed is None else seed + 9_000_011)


def own_choice(bot: Any, game: Game) -> Action:
    """What ``bot`` chooses in ``game`` by its own judgement, before the gate
    (what it played before the gate existed; the checker's ``own`` figures)."""
    if isinstance(bot, _Gated):
        action: Action = super(_Gated, bot).choose(game)  # type: ignore[misc]
        return action
    chosen: Action = bot.choose(game)
    return chosen
