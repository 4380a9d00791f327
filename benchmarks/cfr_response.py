"""How much any opening could win against a measured opponent, offline, with numpy.

Theory of operation
-------------------
The CFR bot plays the opening of a round (:mod:`truc_p2p.bots._cfr_game`)
from a table solved for an even opponent.  Against a given opponent — the
``search`` bot, a staker — a better opening may exist, and this module
measures how much better: the *best response* to that opponent's opening.

The opponent's opening is measured, not assumed: :class:`OpeningPolicy`
counts its decisions (its seat, the node, its hand, the action) over games
against the CFR bot, and at each of its nodes plays the counts smoothed
towards the table's strategy there (``smoothing`` pseudo-decisions per hand;
a node it was never seen at plays the table).  A fold the model has no action
for (in answer to a redeal request, after its own raise was accepted) is kept
too: it gives the bot the round at its value there.  After a declined redeal
request both players' strategies are those of the opening without a redeal,
where the bot looks them up and the opponent's decisions are recorded.  Its
play after the opening is
the showdown of the model, as the bot's.

Then the *whole game* is solved in the opening abstraction: ``G[role][x][y]``
is the bot's chance of winning the game at the start of a round where it
holds ``role`` (leader or dealer) and the leader has ``x`` points, the dealer
``y``.  A round's terminals are worth the ``G`` of the round that follows
(the leader deals next; a spoiled round keeps the scores), 1 or 0 when the
game ends; so unlike the table's ``W`` (which gives the bot a skill edge in
the rounds to come) nobody outplays anybody after the opening — the bot's
margin comes from the opening alone.  The scores are solved from the highest
down; a spoiled round loops back to the same scores (seats swapped), so the
solve sweeps twice, the first sweep taking 0.5 for those.

:func:`game_values` solves it with the bot playing the table
(``best=False``: what the model predicts for the shipped bot, to compare with
the games actually played) or the best response at every one of its nodes
(``best=True``: no opening strategy does better against this opponent in the
model).  Against the table itself the best response is the table's
exploitability at the level of the game.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from truc_p2p.bots import _cfr
from truc_p2p.bots._cfr_game import (
    ACCEPT,
    DEALER,
    FOLD,
    HAND_INDEX,
    HANDS,
    LEADER,
    RAISE,
    Node,
    _next_value,
    outcomes,
    prior,
)

__all__ = ["GameValues", "OpeningPolicy", "game_values"]

Array = npt.NDArray[np.float64]

#: A decision of the opening: ``(role, tree, path, hand, letter)`` — the
#: player's seat, the tree (1 while a redeal is possible), the node's path,
#: the player's hand (sorted strengths) and the action's letter.
Decision = tuple[int, int, str, tuple[int, ...], str]


@functools.cache
def _prior() -> Array:
    return np.array(prior(), dtype=np.float64)


@functools.cache
def _showdown(lead: int) -> Array:
    return np.array(outcomes(lead), dtype=np.float64)


@functools.cache
def _legal(actions: tuple[str, ...]) -> npt.NDArray[np.bool_]:
    return np.array([[not a.isdigit() or int(a) in h for a in actions] for h in HANDS])


@dataclass
class OpeningPolicy:
    """An opponent's measured opening: per (its seat, tree, node), counts per (hand, action)."""

    counts: dict[tuple[int, int, int], Array] = field(default_factory=dict)
    decisions: int = 0
    #: Folds at nodes where the model has no fold (in answer to a redeal
    #: request, after one's own raise was accepted), per hand: the round is
    #: then the other player's at its current value.
    folds: dict[tuple[int, int, int], Array] = field(default_factory=dict)
    #: Other decisions the model has no action for, by ``(path, letter)``.
    outside: Counter[tuple[str, str]] = field(default_factory=Counter)

    @classmethod
    def from_decisions(cls, decisions: Iterable[Decision]) -> OpeningPolicy:
        """Count ``decisions`` (those at no node of the model are skipped)."""
        policy = cls()
        for role, tree, path, hand, letter in decisions:
            i = _cfr._PATHS[tree].get(path)
            if i is None:
                continue
            node = _cfr._TREES[tree][i]
            if node.player != role or len(hand) != 3:
                continue
            if letter not in node.actions and letter != FOLD:
                policy.outside[(path, letter)] += 1
                continue
            key, h = (role, tree, i), HAND_INDEX[tuple(sorted(hand))]
            if key not in policy.counts:
                policy.counts[key] = np.zeros((len(HANDS), len(node.actions)))
                policy.folds[key] = np.zeros(len(HANDS))
            if letter in node.actions:
                policy.counts[key][h, node.actions.index(letter)] += 1
            else:
                policy.folds[key][h] += 1
            policy.decisions += 1
        return policy

    def frequencies(self, role: int, tree: int, path: str) -> dict[str, float]:
        """How often the opponent took each action at a node (over all hands)."""
        i = _cfr._PATHS[tree][path]
        counts = self.counts.get((role, tree, i))
        if counts is None:
            return {}
        folds = float(self.folds[(role, tree, i)].sum())
        seen = float(counts.sum()) + folds
        actions = _cfr._TREES[tree][i].actions
        out = {a: float(t) / seen for a, t in zip(actions, counts.sum(axis=0), strict=True)}
        if FOLD not in out:
            out[FOLD] = folds / seen
        return out


@dataclass(frozen=True)
class GameValues:
    """``values[role][x][y]``: the bot's chance of winning the game from a round's start."""

    values: Array

    def start(self, role: int) -> float:
        """The bot's chance from 0–0 when it leads (``LEADER``) or deals the first round."""
        return float(self.values[role][0][0])

    def first_game(self) -> float:
        """From 0–0 with the first dealer drawn at random."""
        return (self.start(LEADER) + self.start(DEALER)) / 2


@functools.cache
def _looked_up(tree: int, i: int) -> tuple[int, int]:
    """The node the bot looks its strategy up at for node ``i`` of ``tree``, and
    where an opponent's decisions there are recorded: after a declined redeal
    request, the opening without a redeal (``DECLINED_IS_FRESH`` in
    :mod:`truc_p2p.bots._cfr`)."""
    if tree == 0:
        return tree, i
    tree, path = _cfr._locate(_cfr._TREES[1][i].path, redealt=False)
    return tree, _cfr._PATHS[tree][path]


def _table_strategy(scores: tuple[int, int], role: int, tree: int, i: int) -> Array:
    """The table's strategy at node ``i`` for every hand (rows sum to 1 over legal actions)."""
    table = _cfr._table()
    if table is None:
        raise RuntimeError("the CFR table is missing from the package")
    target, strategies = table
    node = _cfr._TREES[tree][i]
    k = len(node.actions)
    x, y = scores
    base = ((x * target + y) * 2 + role) * _cfr._BLOCK + _cfr._OFFSETS[tree][i]
    raw = np.frombuffer(strategies, dtype=np.uint8, count=len(HANDS) * k, offset=base)
    legal = _legal(node.actions)
    m = raw.reshape(len(HANDS), k).astype(np.float64) * legal
    sums = m.sum(axis=1, keepdims=True)
    uniform = legal / legal.sum(axis=1, keepdims=True)
    return np.where(sums > 0, m / np.where(sums > 0, sums, 1.0), uniform)


def game_values(
    opponent: OpeningPolicy | None,
    *,
    best: bool,
    smoothing: float = 2.0,
    target: int = 12,
    sweeps: int = 2,
) -> GameValues:
    """The game solved in the opening abstraction (see the module doc).

    ``opponent``: its measured opening (``None``: the table's strategy);
    ``best``: the bot best-responds (else it plays the table).
    """
    values = np.full((2, target, target), 0.5)
    for _ in range(sweeps):
        for total in range(2 * target - 2, -1, -1):
            for x in range(max(0, total - target + 1), min(target, total + 1)):
                y = total - x
                for role in (LEADER, DEALER):
                    solver = _Round((x, y), role, values, opponent, best, smoothing, target)
                    plain = solver.value(0, 0.0)
                    values[role][x][y] = solver.value(1, plain)
    return GameValues(values)


class _Round:
    """One round's opening at given scores, the bot in ``role``."""

    def __init__(
        self,
        scores: tuple[int, int],
        role: int,
        values: Array,
        opponent: OpeningPolicy | None,
        best: bool,
        smoothing: float,
        target: int,
    ) -> None:
        self.scores = scores
        self.role = role
        self.values = values
        self.opponent = opponent
        self.best = best
        self.smoothing = smoothing
        self.target = target
        # The deal's chances with the bot's hand first.
        self.chances = _prior() if role == LEADER else _prior().T

    def _after(self, leader: int, dealer: int) -> float:
        """The bot's chance after a round leaving the scores (leader's, dealer's)."""
        target, role = self.target, self.role
        if leader >= target:
            return 1.0 if role == LEADER else 0.0
        if dealer >= target:
            return 1.0 if role == DEALER else 0.0
        return float(self.values[1 - role][dealer][leader])

    def _payoffs(self, node: Node, redeal_value: float) -> Array | float:
        """The bot's payoff at a terminal: a float, or a matrix (bot's hand, opponent's)."""
        x, y = self.scores
        kind = node.kind
        if kind == "points":
            if node.winner == LEADER:
                return self._after(x + node.value, y)
            return self._after(x, y + node.value)
        if kind == "game":
            return 1.0 if node.winner == self.role else 0.0
        if kind == "redeal":
            return redeal_value
        if kind == "show":
            leader_wins = self._after(x + node.value, y)
            dealer_wins = self._after(x, y + node.value)
        elif kind == "rest":
            leader_wins, dealer_wins = (1.0, 0.0) if self.role == LEADER else (0.0, 1.0)
        else:
            raise ValueError(f"not a terminal: {kind!r}")
        chances = _showdown(node.lead)
        spoiled = self._after(x, y)  # the same scores, the seats swapped
        by_leader = (
            chances[:, :, 0] * leader_wins
            + chances[:, :, 1] * dealer_wins
            + chances[:, :, 2] * spoiled
        )
        return by_leader if self.role == LEADER else by_leader.T

    def _opponent_strategy(self, tree: int, i: int) -> tuple[Array, Array | None]:
        """The opponent's strategy at node ``i`` per hand, and its chance of a
        fold the model has no action for (``None``: never)."""
        tree, i = _looked_up(tree, i)
        table = _table_strategy(self.scores, self.role, tree, i)
        if self.opponent is None:
            return table, None
        key = (1 - self.role, tree, i)
        counts = self.opponent.counts.get(key)
        if counts is None:
            return table, None
        folds = self.opponent.folds[key]
        seen = counts.sum(axis=1) + folds + self.smoothing
        unseen = seen == 0  # possible without smoothing: the table plays those hands
        seen[unseen] = 1.0
        mixed: Array = (counts + self.smoothing * table) / seen[:, None]
        mixed[unseen] = table[unseen]
        return mixed, (folds / seen if folds.any() else None)

    def _fold_payoff(self, path: str) -> float:
        """The bot's payoff when the opponent folds at ``path`` (a node without a
        fold): the bot wins the round at its value there."""
        value = 1
        for request, answer in itertools.pairwise(path):
            if request == RAISE and answer == ACCEPT:
                value = _next_value(value)
        x, y = self.scores
        return self._after(x + value, y) if self.role == LEADER else self._after(x, y + value)

    def value(self, tree: int, redeal_value: float) -> float:
        """The bot's chance of winning the game over the round's deals (tree 1: redeal possible)."""
        nodes = _cfr._TREES[tree]

        def walk(i: int, reach: Array) -> Array:
            """Per bot hand: the sum over the opponent's hands of chance × reach × payoff."""
            node = nodes[i]
            if node.player < 0:
                pay = self._payoffs(node, redeal_value)
                if isinstance(pay, float):
                    return pay * (self.chances @ reach)
                out: Array = (self.chances * pay) @ reach
                return out
            if node.player == self.role:
                below = np.stack([walk(c, reach) for c in node.children], axis=1)
                if self.best:
                    best: Array = np.where(_legal(node.actions), below, -np.inf).max(axis=1)
                    return best
                strategy = _table_strategy(self.scores, self.role, *_looked_up(tree, i))
                played: Array = (below * strategy).sum(axis=1)
                return played
            strategy, folds = self._opponent_strategy(tree, i)
            total = np.zeros(len(HANDS))
            if folds is not None:
                total += self._fold_payoff(node.path) * (self.chances @ (reach * folds))
            for j, c in enumerate(node.children):
                weights = strategy[:, j]
                if weights.any():
                    total += walk(c, reach * weights)
            return total

        return float(walk(0, np.ones(len(HANDS))).sum())
