"""What the public record of a game says about the opponent, for the search bot.

A game's record (its actions, and the viewer's own deals) is replayed in a
:class:`~truc_p2p.rules.Game` of the viewer's seat, incrementally: each decision
replays only the actions pushed since the last one.  The replay gives the
actions of the deal in play (the search weighs the opponent's hands by them)
and counts what tells a sensible opponent from an erratic one: its folds at
its own turn, its stakes and folds where it could declare "my rest", its
dominated follows and its raises where it could raise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from truc_p2p.rules import Action, ActionKind, Card, Game, Phase, Player

__all__: list[str] = []

#: Weight, in expected random folds, of the prior that the opponent is sensible.
_ERRATIC_PRIOR: Final = 1.0


@dataclass(frozen=True, slots=True)
class _Public:
    """What a replay of the public history tells about the game so far."""

    #: The actions pushed since the cards in play were dealt.
    deal_actions: list[tuple[Player, Action]]
    #: How often the opponent folded at its own turn (nothing pending), and how
    #: often a uniformly random player would have: the sum of 1 / (its choices).
    folds: int
    fold_odds: float
    #: How often the opponent could declare "my rest" (at its own turn), and
    #: how often it then played for the game's stakes: a rest or a fold.
    rest_chances: int = 0
    rests_or_folds: int = 0
    #: How many of the opponent's follows could be judged by a card it played
    #: later in the same deal, and how many of those were dominated: it lost
    #: the trick with a higher card than one it kept, or won it with a higher
    #: card than a cheaper winner it kept.  A sensible player never does
    #: either (the card kept is worth less in every later trick); a random
    #: player does it about a third of the time.
    follows_judged: int = 0
    follows_dominated: int = 0
    #: How often the opponent could raise at its own turn, and did.
    raise_chances: int = 0
    raises: int = 0


class _Replayer:
    """Replays a view's public record and the viewer's own deals, incrementally.

    A game's record only grows, so each decision replays only the actions
    pushed since the last one (a new game, or any other mismatch, starts over).
    """

    def __init__(self) -> None:
        self._reset(None)

    def _reset(self, replay: Game | None) -> None:
        self._replay = replay
        self._history: list[tuple[Player, Action]] = []
        self._deals: list[dict[Player, tuple[Card, ...]]] = []
        self._start = self._folds = self._rest_chances = self._rests_or_folds = 0
        self._odds = 0.0
        self._judged = self._dominated = self._raise_chances = self._raises = 0
        #: The opponent's follows in this deal: [lead, card, judged, dominated].
        self._follows: list[list[int | bool]] = []

    def _fits(self, game: Game) -> bool:
        replay, done = self._replay, len(self._history)
        return (
            replay is not None
            and replay.ruleset == game.ruleset
            and replay.first_dealer is game.first_dealer
            and replay.view is game.view
            and game.history[:done] == self._history
            and game.deals[: len(self._deals)] == self._deals
        )

    def public(self, game: Game, opponent: Player) -> _Public:
        """What the record of ``game`` (a view) says, ``opponent`` being the other seat."""
        if not self._fits(game):
            self._reset(Game(game.ruleset, first_dealer=game.first_dealer, view=game.view))
        replay = self._replay
        assert replay is not None
        deals, history = game.deals, game.history
        i = len(self._history)
        while True:
            if replay.phase is Phase.DEAL:
                deal = deals[len(self._deals)]
                replay.deal(deal)
                self._deals.append(deal)
                self._start = i
                self._follows = []
            elif i < len(history):
                player, action = history[i]
                if player is opponent and replay.pending is None:
                    legal = replay.legal_actions()
                    self._odds += 1.0 / len(legal)
                    self._folds += action.kind is ActionKind.FOLD
                    if Action.REST in legal:
                        self._rest_chances += 1
                        self._rests_or_folds += action.kind in (ActionKind.REST, ActionKind.FOLD)
                    if Action.RAISE in legal:
                        self._raise_chances += 1
                        self._raises += action.kind is ActionKind.RAISE
                if player is opponent and action.card is not None:
                    self._judge(replay, action.card.strength)
                replay.push(action)
                self._history.append(history[i])
                i += 1
            else:
                return _Public(
                    deal_actions=history[self._start :],
                    folds=self._folds,
                    fold_odds=self._odds,
                    rest_chances=self._rest_chances,
                    rests_or_folds=self._rests_or_folds,
                    follows_judged=self._judged,
                    follows_dominated=self._dominated,
                    raise_chances=self._raise_chances,
                    raises=self._raises,
                )

    def _judge(self, replay: Game, card: int) -> None:
        """The opponent plays ``card``: judge its earlier follows of this deal by it."""
        for follow in self._follows:
            lead, played, judged, dominated = follow
            assert isinstance(lead, int) and isinstance(played, int)
            if not judged:
                follow[2] = True
                self._judged += 1
            if not dominated and (card < played < lead or lead < card < played):
                follow[3] = True
                self._dominated += 1
        table = replay.table
        if table:
            self._follows.append([table[0][1].strength, card, False, False])


def _replay(game: Game, opponent: Player) -> _Public:
    """What the record of ``game`` (a view) says, replayed from scratch."""
    return _Replayer().public(game, opponent)


def _erratic(public: _Public) -> float:
    """How likely the opponent is to act at random, judging by its folds.

    Folding at one's own turn is never better than playing on, and a sensible
    player does it rarely (to give up a lost round); a random player does it
    once in as many turns as it has choices.  The estimate is the folds over
    their expected number for a random player, shrunk towards 0.
    """
    return min(1.0, public.folds / (public.fold_odds + _ERRATIC_PRIOR))
