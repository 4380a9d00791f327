"""The search bot: information-set Monte-Carlo tree search over the current round.

Theory of operation
-------------------
The bot sees only its own view.  Each iteration of the search *determinises*
the hidden part: it draws the opponent's unplayed cards from
``game.possible_cards(opponent)`` — every card not in the bot's hand, not
played this round and not in a hand the bot saw discarded by a redeal — and,
while a redeal can still happen, the cards it would bring.  Draws are weighted
by what the opponent's requests and answers of this deal suggest (a raise or a
"my rest" makes strong hands likelier, asking for a redeal weak ones).

The iteration then walks a tree of *information sets*: a node is what the
player to act knows — the public actions since the decision and its own cards
(as strengths: suits never matter; when answering a request, only the classes
of its two best cards, so that similar hands share their statistics) — so the
opponent's choices in the tree depend on its cards, never on the bot's, and
the bot's on its own cards only.  Choices follow UCB1; the first unexplored
action of a node is expanded and the round is played out by a simple policy.
The round's end is scored by the chance of winning the game from the scores
it leaves (:mod:`truc_p2p.bots._equity`), or 1/0 when it ends the game.  The
bot plays the most visited action.

Weakly dominated actions are never searched: folding never does better than
refusing or playing on, nor refusing than accepting when refusing loses the
game at once.  The bot gives a round up (folds, or refuses a pending raise)
when no iteration of its chosen action did better than folding's exact value,
or the search puts it clearly below — the round is as good as lost, and playing
on would only give the opponent the chance to raise or rest — but never when
folding would lose the game.

Opponent model, from the public record only: the bot scores results with an
equity that assumes it outplays its opponent (:data:`~truc_p2p.bots._equity.EDGE`:
patient with a lead, it stakes the game only on a near-certain round), while
the tree's opponent judges the game even.  An opponent that folds at its own
turn — never better than playing on — reads as erratic: the bot then trusts
its requests less and is less patient, as whims are not outplayed by waiting.

The expert bot (``game_model``)
-------------------------------
The same search with three changes, each a fix for a way the search above
could be bullied (issue 20):

* **Stakes valued by the game.**  Round ends are scored by ``W(my score,
  opponent's score, who deals next)`` (:mod:`truc_p2p.bots._gamevalue`), the
  chance of winning the game under a model of the rounds to come, and the
  tree's opponent gets exactly ``1 - W``: the search is zero-sum, so a raise,
  a "my rest", an answer, a fold or a redeal is worth its expected change in
  ``W``.  The model's skill edge (``model_edge``: ordinary rounds are won a
  little more often than an even player would) makes the bot patient with a
  lead, and a prior chance that a round ends the game by "my rest"
  (``model_ends``) makes it stake the game sooner than a bot that assumes
  nobody rests — a rest is an even bet whoever declares it, so the opponent's
  rests flatten ``W`` towards the round's own odds.
* **Answers that make sense.**  A redeal request is never answered by
  folding (declining costs nothing now and leaves every later choice open),
  and where the bot would give up a round at its first action it asks for a
  redeal first, for the same reason.  A refused "my rest" that loses the game
  is never searched; under the ``value`` variant refusing is weighed like
  any other answer.
* **A rest needs a margin** (``rest_margin``): determinisation lets each
  sampled world's play see the opponent's cards, so the search is
  over-optimistic about the round (strategy fusion), and "my rest" stakes the
  whole game on that estimate: it is declared only when it beats the next
  best action by the margin.
* **A mixed strategy** (``mix``, ``bluff``): near-equal root actions are
  played in proportion to their visits rather than always the most visited
  one, and a raise within reach of the best action is made now and then as a
  bluff, so that neither its raises nor its card play can be read off its
  hand.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from truc_p2p.bots import _sim
from truc_p2p.bots._equity import DEFAULT_GAME_ENDS, EDGE, win_chance
from truc_p2p.bots._gamevalue import game_value
from truc_p2p.bots._record import _erratic, _Public, _replay, _Replayer
from truc_p2p.bots._sim import RoundSim
from truc_p2p.bots._tree import _moves, _Node, _private, _rollout
from truc_p2p.rules import Action, ActionKind, Game, Player

__all__ = ["PLAIN", "STRENGTHS", "SearchBot", "SearchOptions", "Strength", "rest_open"]


@dataclass(frozen=True, slots=True)
class Strength:
    """A search budget: ``iterations`` per decision, or ``think`` seconds if set."""

    iterations: int
    think: float | None = None


#: The named strengths of ``search:LEVEL``; ``search`` is ``search:default``.
STRENGTHS: Final[dict[str, Strength]] = {
    "fast": Strength(iterations=300),
    "default": Strength(iterations=1500),
    "strong": Strength(iterations=6000),
}

#: How sharply each opponent action of this deal points at its hand quality.
_SIGNALS: Final[dict[ActionKind, float]] = {
    ActionKind.REST: 6.0,
    ActionKind.RAISE: 2.5,
    ActionKind.ACCEPT: 1.5,
    ActionKind.DECLINE_REDEAL: 1.0,
    ActionKind.ASK_REDEAL: -2.5,
}
_MAX_DRAWS: Final = 24
#: How far below folding's value the search must put playing on to give a round up.
_CONCEDE_MARGIN: Final = 0.03
#: How far below the best action a raise may be and still be made as a bluff.
_BLUFF_REACH: Final = 0.05


def _quality(hand: Sequence[int]) -> float:
    """0..1: how strong a whole 3-card hand (strengths) is."""
    return (max(hand) + sum(hand) / len(hand)) / 14


def _value(sim: RoundSim, me: int, game_ends: float, *, edge: float = EDGE) -> float:
    """``me``'s chance of winning the game once the round ``sim`` is over."""
    if sim.game_winner >= 0:
        return 1.0 if sim.game_winner == me else 0.0
    scores, target = sim.scores, sim.target
    return win_chance(scores[me], scores[1 - me], target, game_ends=game_ends, edge=edge)


def _game_value(sim: RoundSim, me: int, game_ends: float, edge: float) -> float:
    """``me``'s chance of winning the game once the round ``sim`` is over, by ``W``.

    The dealer alternates, so the next round is dealt by the one who did not
    deal this one (:func:`~truc_p2p.bots._gamevalue.game_value`).
    """
    if sim.game_winner >= 0:
        return 1.0 if sim.game_winner == me else 0.0
    scores = sim.scores
    return game_value(
        scores[me],
        scores[1 - me],
        sim.target,
        i_deal=sim.dealer != me,
        game_ends=game_ends,
        edge=edge,
    )


def _game_ends(game: Game, opponent: Player, prior: float | None = None) -> float:
    """How often a round will end the game by "my rest", judging by the opponent so far.

    The opponent's rests per round, smoothed towards :data:`DEFAULT_GAME_ENDS`.
    """
    rests = sum(1 for p, a in game.history if p is opponent and a.kind is ActionKind.REST)
    weight = 4
    if prior is None:
        prior = DEFAULT_GAME_ENDS
    return (rests + prior * weight) / (game.round_no + 1 + weight)


def rest_open(game: Game, rest_from: int | None) -> bool:
    """Whether a bot racing to the target may declare "my rest" in ``game``.

    ``rest_from`` points (scaled to the ruleset's target as to 12) held by
    either player open it; ``None`` always does.  Before that the bot raises,
    bluffs and answers but never stakes the game: a game against it is a race
    of several rounds, as people play it, unless the opponent stakes the game.
    """
    if rest_from is None:
        return True
    target = game.ruleset.target
    return max(game.scores) >= math.ceil(rest_from * target / 12)


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """How a search bot judges and plays, besides its budget; the defaults are
    the plain search bot (``search``), ``make_bot`` gives the expert and CFR bots theirs."""

    #: Score round ends by ``W`` (both sides alike) instead of the confident
    #: equity, and answer a redeal request by value only (never fold).
    game_model: bool = False
    #: The game model's round edge and prior chance that a round ends the game.
    model_edge: float = 0.0
    model_ends: float = DEFAULT_GAME_ENDS
    #: Play at random among root actions whose mean is within ``mix`` of the best.
    mix: float = 0.0
    #: Chance of a bluff raise where raising is within reach of the best action.
    bluff: float = 0.0
    #: How much better than the next best action "my rest" must look to be
    #: declared (determinisation makes the search over-optimistic about the
    #: round, and a rest stakes the whole game on that estimate).
    rest_margin: float = 0.0
    #: If set, "my rest" is declared only once a player has this many
    #: points (see :func:`rest_open`): a race to the target first.
    rest_from: int | None = None


#: The plain search bot's options.
PLAIN: Final = SearchOptions()


class SearchBot:
    """Information-set MCTS over the round, from its own view only; see the module doc.

    ``iterations`` per decision make it deterministic under ``seed``;
    ``think`` (seconds) instead searches until that time is spent;
    ``options`` (:class:`SearchOptions`) make it the expert bot, or another.
    """

    name = "search"
    #: It searches: a game loop asks it in a worker thread (:func:`~._base.thinks_in_thread`).
    thinks_in_thread = True

    def __init__(
        self,
        seed: int | None = None,
        *,
        iterations: int = STRENGTHS["default"].iterations,
        think: float | None = None,
        options: SearchOptions = PLAIN,
    ) -> None:
        if iterations < 1:
            raise ValueError("iterations must be at least 1")
        if think is not None and not think > 0:
            raise ValueError("think must be more than 0 seconds")
        self._rng = random.Random(seed)
        self._replayer = _Replayer()
        self.iterations = iterations
        self.think = think
        #: How it judges and plays besides its budget (see :class:`SearchOptions`).
        self.options = options
        self.game_model = options.game_model
        self.model_edge = options.model_edge
        self.model_ends = options.model_ends
        self.mix = options.mix
        self.bluff = options.bluff
        self.rest_margin = options.rest_margin
        self.rest_from = options.rest_from
        #: Whether the decision under way may not declare "my rest".
        self._no_rest = False
        #: If set, ``(weight, n)``: how likely (0..1) the opponent is to hold a
        #: whole hand (strengths, sorted) given the first ``n`` actions of the
        #: deal, which then give no further signal (set by the CFR bot from its
        #: equilibrium).
        self.range_hint: tuple[Callable[[tuple[int, ...]], float], int] | None = None
        #: If set, the only root actions searched (see :meth:`choose_card`).
        self._root_only: frozenset[int] | None = None

    def choose(self, game: Game) -> Action:
        """The action the search prefers for the player to act in ``game`` (a view)."""
        me = game.to_act
        legal = game.legal_actions()
        if me is None or not legal:
            raise ValueError("no legal action: it is not this bot's turn")
        if game.view is not me:
            raise ValueError("the search bot plays from its own view (Game(view=...))")
        if len(legal) == 1:
            return next(iter(legal))
        public = self._replayer.public(game, me.other)
        draw = self._sampler(game, me, public)
        template = draw()
        moves = _moves(template)
        game_ends = _game_ends(game, me.other, self.model_ends if self.game_model else None)
        # The bot expects to outplay a sensible opponent, which makes it patient;
        # against an erratic one patience only gives its whims more rounds.
        edge = EDGE * (1.0 - _erratic(public))
        folded = template.copy()
        folded.apply(_sim.FOLD)
        fold_value = self._leaf(folded, int(me), game_ends, edge)[0]
        if len(moves) == 1:
            return self._action(game, me, moves[0])
        root, better = self._search(draw, int(me), game_ends, edge, fold_value)
        self._no_rest = not rest_open(game, self.rest_from)
        try:
            code = self._pick(root, game.pending is None)
        finally:
            self._no_rest = False
        i = root.codes.index(code)
        concede = (
            Action.FOLD in legal
            and folded.game_winner < 0  # never fold a game away: playing on is no worse
            # Declining a redeal costs nothing now and leaves every later choice
            # open (folding included): with the game model, answer it by value.
            and not (self.game_model and game.pending is ActionKind.ASK_REDEAL)
            and (better[i] == 0 or root.mean(i) + _CONCEDE_MARGIN <= fold_value)
        )
        if concede:
            if self.game_model and Action.ASK_REDEAL in legal:
                # Asking for new cards first costs nothing: declined, the round
                # can still be given up at the same price; accepted, new cards
                # beat cards worth giving up.
                return Action.ASK_REDEAL
            # Refusing a raise is folding by another name; say it that way.
            return Action.REFUSE if Action.REFUSE in legal else Action.FOLD
        return self._action(game, me, code)

    def _record(self, game: Game) -> _Public:
        """What the record of ``game`` (a view) says about the opponent of the player to act."""
        me = game.to_act
        if me is None:
            raise ValueError("nobody is to act in this game")
        return self.public_record(game, me.other)

    def public_record(self, game: Game, opponent: Player) -> _Public:
        """What the record of ``game`` (a view, finished or not) says about ``opponent``."""
        return self._replayer.public(game, opponent)

    def deal_actions(self, game: Game) -> list[tuple[Player, Action]]:
        """The actions pushed since the cards in play were dealt (``game`` a view)."""
        return self._record(game).deal_actions

    def choose_card(self, game: Game) -> Action:
        """The card the search prefers to play now (no request, no fold).

        For a bot that settled the stakes already and only needs the card:
        the search's root is restricted to the cards in hand.
        """
        me = game.to_act
        if me is None:
            raise ValueError("no legal action: it is not this bot's turn")
        cards = game.legal_actions().cards()
        if not cards:
            raise ValueError("no card can be played now")
        if len({c.strength for c in cards}) == 1:
            return Action.play(min(cards, key=lambda c: c.index))
        public = self._replayer.public(game, me.other)
        draw = self._sampler(game, me, public)
        game_ends = _game_ends(game, me.other, self.model_ends if self.game_model else None)
        edge = EDGE * (1.0 - _erratic(public))
        self._root_only = frozenset(c.strength for c in cards)
        try:
            root, _ = self._search(draw, int(me), game_ends, edge, 0.0)
        finally:
            self._root_only = None
        return self._action(game, me, self._pick(root, False))

    def _leaf(self, sim: RoundSim, me: int, game_ends: float, edge: float) -> tuple[float, float]:
        """The values of a finished round ``sim``: ``me``'s and what the tree's opponent gets."""
        if self.game_model:
            u = _game_value(sim, me, game_ends, self.model_edge)
            return u, 1.0 - u
        # The opponent is modelled as judging the game even, not as the
        # underdog the bot's confident equity makes it (which would make it
        # stake the game on any hand).
        return _value(sim, me, game_ends, edge=edge), 1.0 - _value(sim, me, game_ends, edge=0.0)

    def _pick(self, root: _Node, free: bool) -> int:
        """The root action to play: the most visited one, or a mixed choice.

        With :attr:`mix`, any action whose mean is within ``mix`` of the most
        visited one's (and that was searched enough to tell) may be played, in
        proportion to its visits: near-equal actions are not played the same
        way every time.  With :attr:`bluff` (``free``: no request pending), a
        raise that is within reach of the best action is made now and then
        although it is not the best: raises then say less about the hand.
        """
        best = root.best()
        if best == _sim.REST and self._no_rest:
            others = [j for j, c in enumerate(root.codes) if c != _sim.REST]
            if others:
                best = root.codes[max(others, key=lambda j: (root.counts[j], root.totals[j]))]
        if best == _sim.REST and self.rest_margin > 0:
            i = root.codes.index(best)
            others = [j for j, n in enumerate(root.counts) if n > 0 and j != i]
            if others:
                j = max(others, key=root.mean)
                if root.mean(j) >= root.mean(i) - self.rest_margin:
                    return root.codes[j]
        if not self.mix and not self.bluff:
            return best
        rng = self._rng
        j = root.codes.index(best)
        top = root.mean(j)
        if free and self.bluff and best not in (_sim.RAISE, _sim.REST) and _sim.RAISE in root.codes:
            r = root.codes.index(_sim.RAISE)
            reach = root.mean(r) >= top - _BLUFF_REACH
            if root.counts[r] and reach and rng.random() < self.bluff:
                return _sim.RAISE
        if not self.mix:
            return best
        floor = 0.1 * root.counts[j]
        near = [
            i
            for i, n in enumerate(root.counts)
            if n >= floor
            and n > 0
            and root.mean(i) >= top - self.mix
            and not (self._no_rest and root.codes[i] == _sim.REST)
        ]
        if len(near) <= 1:
            return best
        pick = rng.choices(near, weights=[root.counts[i] for i in near])[0]
        return root.codes[pick]

    # ---------------------------------------------------------- determinising

    def _sampler(
        self, game: Game, me: Player, public: _Public | None = None
    ) -> Callable[[], RoundSim]:
        """A function drawing one determinisation of the round."""
        opp = me.other
        if public is None:
            public = _replay(game, opp)
        pool = [c.strength for c in game.possible_cards(opp)]
        size = game.hand_size(opp)
        redeal = game.pending is ActionKind.ASK_REDEAL or (
            game.pending is None and Action.ASK_REDEAL in game.legal_actions()
        )
        played: list[int] = []
        signals: list[float] = []
        hint = self.range_hint
        for n, (player, action) in enumerate(public.deal_actions):
            if player is not opp:
                continue
            if action.card is not None:
                played.append(action.card.strength)
            elif hint is not None and n < hint[1]:
                continue  # the hint's range already accounts for it
            elif action.kind in _SIGNALS:
                # An erratic opponent's requests say little about its cards.
                signals.append(_SIGNALS[action.kind] * (1.0 - _erratic(public)))
        weights: dict[tuple[int, ...], float] = {}
        rng = self._rng
        base = _sim.from_view(game, pool[:size])
        nondealer = 1 - base.dealer

        def weight(hand: list[int]) -> float:
            key = tuple(sorted(hand))
            w = weights.get(key)
            if w is None:
                q = _quality([*played, *hand])
                w = 1.0 if hint is None else hint[0](tuple(sorted([*played, *hand])))
                for k in signals:
                    w *= math.exp(k * (q - 1.0)) if k > 0 else math.exp(k * q)
                weights[key] = w
            return w

        def draw() -> RoundSim:
            for _ in range(_MAX_DRAWS):
                cards = rng.sample(pool, size + 6) if redeal else rng.sample(pool, size)
                if (not signals and hint is None) or rng.random() < weight(cards[:size]):
                    break
            sim = base.copy()
            sim.hands[opp].clear()
            sim.hands[opp].extend(sorted(cards[:size]))
            if redeal:
                new: list[list[int]] = [[], []]
                new[nondealer] = sorted(cards[size : size + 3])
                new[1 - nondealer] = sorted(cards[size + 3 :])
                sim.redeal_hands = (new[0], new[1])
            return sim

        return draw

    # -------------------------------------------------------------- searching

    def _search(
        self,
        draw: Callable[[], RoundSim],
        me: int,
        game_ends: float,
        edge: float,
        floor: float,
    ) -> tuple[_Node, list[int]]:
        """Run the search; return the root node and, per root action, how many
        iterations did better than ``floor`` (folding's value)."""
        rng = self._rng
        tree: dict[tuple[tuple[int, ...], tuple[int, ...]], _Node] = {}
        root: _Node | None = None
        better: list[int] = []
        deadline = None if self.think is None else time.perf_counter() + self.think
        iteration = 0
        while True:
            if deadline is None:
                if iteration >= self.iterations:
                    break
            elif iteration % 16 == 0 and iteration >= 16 and time.perf_counter() >= deadline:
                break
            iteration += 1
            sim = draw()
            path: tuple[int, ...] = ()
            visited: list[tuple[_Node, int, int]] = []
            while not sim.done:
                actor = sim.to_act
                key = (path, _private(sim, actor))
                node = tree.get(key)
                if node is None:
                    codes = _moves(sim)
                    if root is None and self._root_only is not None:
                        codes = [c for c in codes if c in self._root_only]
                    node = tree[key] = _Node(codes)
                if root is None:
                    root = node
                    better = [0] * len(node.codes)
                i = node.select(rng)
                visited.append((node, i, actor))
                code = node.codes[i]
                sim.apply(code)
                if node.counts[i] == 0:  # expanded: play the rest out
                    _rollout(sim)
                    break
                path = (*path, code)
            u, theirs = self._leaf(sim, me, game_ends, edge)
            if u > floor + 1e-9:
                better[visited[0][1]] += 1
            for node, i, actor in visited:
                node.update(i, u if actor == me else theirs)
        assert root is not None
        return root, better

    @staticmethod
    def _action(game: Game, me: Player, code: int) -> Action:
        if code <= _sim.PLAY_MAX:
            hand = game.hand(me) or ()
            card = min((c for c in hand if c.strength == code), key=lambda c: c.index)
            return Action.play(card)
        return _ACTIONS[code]


_ACTIONS: Final[dict[int, Action]] = {
    _sim.RAISE: Action.RAISE,
    _sim.REST: Action.REST,
    _sim.ACCEPT: Action.ACCEPT,
    _sim.REFUSE: Action.REFUSE,
    _sim.FOLD: Action.FOLD,
    _sim.ASK_REDEAL: Action.ASK_REDEAL,
    _sim.ACCEPT_REDEAL: Action.ACCEPT_REDEAL,
    _sim.DECLINE_REDEAL: Action.DECLINE_REDEAL,
}
