"""The solved bot: the whole round from the CFR+ table, the rest as the CFR bot.

Theory of operation
-------------------
``tools/solve_round.py`` solves the whole round over ranks
(:mod:`truc_p2p.bots._round_game`: every card of the three tricks, "2 more?",
"my rest", the answers and folds, in points per hand) and ships the average
strategy (:mod:`truc_p2p.bots._round_table`).  At each of its decisions the
bot maps the round's public actions to the tree's path and its cards as dealt
to the information set, and *samples* its action from the table's mixed
strategy with its own seeded generator, so its raises, rests, folds and
cards cannot be read off its hand.  Where the table has no answer — a raise
past the abstraction's ladder, other rules than the default ones, the redeal
in a score class — it plays as the CFR bot (``fallback``).

The redeal: while a round may still be redealt (its cards are the first
deal's) and the points table is the one to play, the bot plays the table
solved with the redeal before the round (``round_redeal.bin``, loaded on
first use): as the non-dealer it first plays on or asks, as the dealer it
accepts, declines or folds a request, and the round is played from that
table's subtree (played on, or declined).  A redealt round is played with
the points table (no second redeal can come).  Racing (``rest_from``):
the table's "my rest" is not made before a player has that many points; the
other actions keep their odds.

Score-aware (``score_aware``, :data:`SCORE_AWARE` by default): a point is not
worth the same at every score, so the solver also solved the round with the
chance of winning the *game* as its payoff, for a few classes of scores
(``round_classes.json``, ``round_score_<k>.bin``); the bot plays the table of
the class of the game's score and dealer (loaded on first use), the points
table far from the end and for other targets than the classes'.
"""

from __future__ import annotations

import random

from truc_p2p.bots._round_game import (
    ACCEPT,
    ASK,
    DECLINE,
    FOLD,
    PLAY_ON,
    RAISE,
    REFUSE,
    REST,
    SHOW,
    YES,
)
from truc_p2p.bots._round_table import (
    RoundTable,
    load_classes,
    load_redeal_table,
    load_robust_asks,
    load_table,
    redeal_path,
    round_path,
    score_class,
    table_for,
)
from truc_p2p.bots._search import rest_open
from truc_p2p.rules import DEFAULT_RULESET, Action, ActionKind, Game

__all__ = ["SCORE_AWARE", "SolvedBot"]

#: Whether the non-dealer asks for a redeal only with the robust hands by
#: default (``benchmarks/bot_redeal.py --variants robust,table`` measured it:
#: no better against the heuristic bot, so off).
ROBUST_ASK = False

#: Whether the solved bot plays the score classes' tables by default
#: (``benchmarks/bot_score_classes.py`` measured them against the points table).
SCORE_AWARE = True


class SolvedBot:
    """Plays the solved round's table, else its ``fallback`` (see the module doc)."""

    name = "solved"

    def __init__(
        self,
        seed: int | None,
        fallback: object,
        *,
        rest_from: int | None = None,
        score_aware: bool | None = None,
    ) -> None:
        self._rng = random.Random(seed)
        self._fallback = fallback
        self.rest_from = rest_from
        self.score_aware = SCORE_AWARE if score_aware is None else score_aware
        #: Whether to play the redeal table while a round may be redealt (off:
        #: the fallback asks and answers redeals, as before the redeal was solved).
        self.redeal = True
        #: Whether the non-dealer asks for a redeal only with the hands a request
        #: gains with against any accepting dealer (:func:`load_robust_asks`),
        #: playing on with the others; the redeal table's row otherwise.
        self.robust_ask = ROBUST_ASK
        #: The hands ``robust_ask`` asks with (``None``: the robust rule's; an
        #: empty set never asks, a benchmark's baseline).
        self.ask_with: frozenset[tuple[int, ...]] | None = None

    def table(self, game: Game) -> RoundTable | None:
        """The table the bot plays in ``game``: its score class's, or the points table."""
        me = game.to_act
        if not self.score_aware or me is None:
            return load_table()
        return table_for(game.scores, int(me), int(game.dealer), game.ruleset.target)

    def redeal_table(self, game: Game) -> RoundTable | None:
        """The redeal table if it is the one to play in ``game`` (see the module
        doc): the round's cards are the first deal's, the rules the default
        ones and the points table the score's (or ``score_aware`` off)."""
        me = game.to_act
        if not self.redeal or me is None or game.redealt or game.ruleset != DEFAULT_RULESET:
            return None
        if self.score_aware:
            doc = load_classes()
            if doc is not None and game.ruleset.target == int(doc["target"]):
                mine, theirs = game.scores[me], game.scores[me.other]
                if score_class(mine, theirs, i_deal=me is game.dealer) != 0:
                    return None
        return load_redeal_table()

    def position(self, game: Game, *, redeal: bool = False) -> tuple[str, tuple[int, ...]] | None:
        """``(path, hand as dealt)`` of the player to act, or ``None`` outside the
        table: the points (or score class) table's tree, or the redeal table's
        (``redeal``)."""
        me = game.to_act
        if me is None or game.ruleset != DEFAULT_RULESET:
            return None
        held = game.hand(me)
        if held is None:
            return None
        deal_actions = self._fallback._search.deal_actions(game)  # type: ignore[attr-defined]
        path = (redeal_path if redeal else round_path)(deal_actions, game.dealer)
        if path is None:
            return None
        mine = [a.card.strength for p, a in deal_actions if p is me and a.card is not None]
        hand = tuple(sorted([c.strength for c in held] + mine))
        return (path, hand) if len(hand) == 3 else None

    def where(self, game: Game) -> tuple[RoundTable, str, tuple[int, ...]] | None:
        """``(table, path, hand as dealt)``: the table the bot plays now and its
        position there, or ``None`` (the fallback plays)."""
        redeal = self.redeal_table(game)
        if redeal is not None:
            found = self.position(game, redeal=True)
            return None if found is None else (redeal, *found)
        table = self.table(game)
        found = self.position(game)
        return None if found is None or table is None else (table, *found)

    def strategy(self, game: Game) -> dict[str, float] | None:
        """The table's mixed strategy for the player to act in ``game``, or ``None``
        (before the round, with the redeal table: play on ``p`` or ask ``d``)."""
        where = self.where(game)
        if where is None:
            return None
        table, path, hand = where
        strategy = table.strategy(path, hand)
        if strategy is not None and self.robust_ask and path == "" and table.abstraction.redeal:
            asks = load_robust_asks() if self.ask_with is None else self.ask_with
            if asks is not None and tuple(sorted(hand)) not in asks:
                return {PLAY_ON: 1.0}
        return strategy

    def choose(self, game: Game) -> Action:
        """The bot's action for the player to act in ``game`` (its view)."""
        legal = game.legal_actions()
        if game.to_act is None or not legal:
            raise ValueError("no legal action: it is not this bot's turn")
        if len(legal) == 1:
            return next(iter(legal))
        strategy = self.strategy(game)
        if strategy is not None:
            letter = self._sample(game, strategy)
            if letter == PLAY_ON:  # no redeal: the round's first action, from the same table
                where = self.where(game)
                assert where is not None
                table, path, hand = where
                after = table.strategy(path + PLAY_ON, hand)
                letter = None if after is None else self._sample(game, after)
            action = None if letter is None else action_of(game, letter)
            if action is not None and action in legal:
                return action
        chosen: Action = self._fallback.choose(game)  # type: ignore[attr-defined]
        return chosen

    def _sample(self, game: Game, strategy: dict[str, float]) -> str | None:
        if REST in strategy and not rest_open(game, self.rest_from):
            strategy = {x: w for x, w in strategy.items() if x != REST}
        if FOLD in strategy and self.score_aware and fold_loses_game(game):
            strategy = {x: w for x, w in strategy.items() if x != FOLD}
        letters = [x for x, w in strategy.items() if w > 0]
        if not letters:
            return None
        letter: str = self._rng.choices(letters, weights=[strategy[x] for x in letters])[0]
        return letter


def fold_loses_game(game: Game) -> bool:
    """Whether folding now hands the opponent the game: its points and the
    round's value reach the target.  Playing on can then do no worse, so a
    score-aware bot never folds there (the 11–11 class's table, an
    approximate equilibrium, still folds some weak hands it is indifferent
    about, giving up their small chance)."""
    me = game.to_act
    if me is None:
        return False
    return game.scores[1 - int(me)] + game.round_value >= game.ruleset.target


def action_of(game: Game, letter: str) -> Action | None:
    """The action of the tree's ``letter`` for the player to act in ``game``."""
    if letter == SHOW:  # the last card
        me = game.to_act
        held = (game.hand(me) if me is not None else None) or ()
        return Action.play(held[0]) if len(held) == 1 else None
    if letter.isdigit():
        me = game.to_act
        held = (game.hand(me) if me is not None else None) or ()
        cards = [c for c in held if c.strength == int(letter)]
        return Action.play(min(cards, key=lambda c: c.index)) if cards else None
    if letter == ASK:
        return Action.ASK_REDEAL
    if letter == YES:
        return Action.ACCEPT_REDEAL
    if letter == DECLINE:
        return Action.DECLINE_REDEAL
    if letter == ACCEPT:
        return Action.ACCEPT
    if letter == REFUSE:
        return Action.REFUSE
    return {RAISE: Action.RAISE, REST: Action.REST, FOLD: Action.FOLD}.get(letter)


def plain_action(letter: str) -> Action | None:
    """The card-less action of the tree's ``letter`` (an answer is to a raise)."""
    return {
        ACCEPT: Action.ACCEPT,
        REFUSE: Action.REFUSE,
        RAISE: Action.RAISE,
        REST: Action.REST,
        FOLD: Action.FOLD,
    }.get(letter)


def letter_of(action: Action) -> str | None:
    """The tree's letter of ``action`` (a card: its strength's digit), or ``None``."""
    if action.card is not None:
        return str(action.card.strength)
    return _LETTERS.get(action.kind)


_LETTERS = {
    ActionKind.RAISE: RAISE,
    ActionKind.REST: REST,
    ActionKind.ACCEPT: ACCEPT,
    ActionKind.REFUSE: REFUSE,
    ActionKind.FOLD: FOLD,
}

__all__ += ["action_of", "fold_loses_game", "letter_of", "plain_action"]
