"""Solving the opening (:mod:`truc_p2p.bots._cfr_game`) by CFR+, offline, with numpy.

Theory of operation
-------------------
Counterfactual regret minimisation on the public tree, vectorised over the
hands: at each node the player to act holds a regret per (hand, action);
each iteration walks the tree once per player with the other player's reach
probabilities per hand, and at a terminal the counterfactual values of all
120 hands are one matrix product (the deal's chance times the payoff, with
card removal).  CFR+ keeps regrets non-negative, updates the players in
turn and weights the average strategy by the iteration number; the average
strategy converges to an equilibrium of the opening, and :func:`exploitability`
measures how far it is (what two best responses would gain).

Only this training code needs numpy (it comes with the test extra); the bot
reads the table it writes (:mod:`truc_p2p.bots._cfr`) with the standard
library alone.  ``python tools/train_cfr.py`` rebuilds the table; the
training is deterministic (no sampling), so the table is reproducible.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from truc_p2p.bots._cfr_game import (
    DEALER,
    GAME_ENDS,
    LEADER,
    Node,
    build_tree,
    legal,
    outcomes,
    prior,
)
from truc_p2p.bots._cfr_game import terminal_utility as _utility

__all__ = ["Solution", "exploitability", "solve", "solve_score"]

Array = npt.NDArray[np.float64]

#: A hand whose information set the average strategy reaches less often than
#: this (relative to its chance) plays its best response there.
_UNREACHED = 1e-4


@functools.cache
def _prior() -> Array:
    return np.array(prior(), dtype=np.float64)


@functools.cache
def _showdown(lead: int) -> tuple[Array, Array, Array]:
    """The showdown chances (leader wins, dealer wins, spoiled) after ``lead`` (-1: none)."""
    o = np.array(outcomes(lead), dtype=np.float64)
    return o[:, :, 0], o[:, :, 1], o[:, :, 2]


@dataclass
class Solution:
    """The opening solved for one score: its tree and average strategies.

    ``strategy[n]`` is, for a decision node ``n``, an array (hands × actions)
    of the average strategy; ``value`` is the leader's expected payoff when
    both play it.
    """

    nodes: list[Node]
    strategy: dict[int, Array]
    value: float


def _leader_payoff(
    node: Node,
    scores: tuple[int, int],
    target: int,
    redeal_value: float,
    bot: int,
    edge: float,
    game_ends: float,
) -> Array:
    """The leader's payoff at terminal ``node`` per hand pair (see ``terminal_utility``)."""
    u = _utility(node, scores, target, redeal_value, bot=bot, edge=edge, game_ends=game_ends)
    if isinstance(u, float):
        return np.full_like(_prior(), u)
    lw, dw, sp = _showdown(node.lead)
    mixed: Array = lw * u[0] + dw * u[1] + sp * u[2]
    return mixed


class _Solver:
    def __init__(
        self,
        nodes: list[Node],
        scores: tuple[int, int],
        target: int,
        redeal_value: float,
        bot: int,
        edge: float,
        tremble: float,
        game_ends: float,
    ) -> None:
        self.nodes = nodes
        self.tremble = tremble
        p = _prior()
        n_hands = p.shape[0]
        #: Per terminal, per player: the matrix giving that player's values from
        #: the other's reach (rows: own hands).
        self.payoff: dict[int, tuple[Array, Array]] = {}
        self.regret: dict[int, Array] = {}
        self.total: dict[int, Array] = {}
        #: Per decision node, 1.0 where a hand may take an action, else 0.0.
        self.legal: dict[int, Array] = {}
        #: Per decision node, its player's values per (hand, action) from the last
        #: :meth:`evaluate`.
        self.values: dict[int, Array] = {}
        for i, node in enumerate(nodes):
            if node.player < 0:
                ul = _leader_payoff(node, scores, target, redeal_value, bot, edge, game_ends)
                mine, theirs = p * ul, p * (1.0 - ul)
                self.payoff[i] = (mine, np.ascontiguousarray(theirs.T))
            else:
                shape = (n_hands, len(node.actions))
                self.regret[i] = np.zeros(shape)
                self.total[i] = np.zeros(shape)
                self.legal[i] = np.array(legal(node), dtype=np.float64)

    def _normalise(self, i: int, weights: Array) -> Array:
        """Rows of ``weights`` made into distributions over the legal actions
        (uniform over them where a row has no weight)."""
        ok = self.legal[i]
        w = weights * ok
        s = w.sum(axis=1, keepdims=True)
        uniform = ok / ok.sum(axis=1, keepdims=True)
        out: Array = np.where(s > 0, w / np.where(s > 0, s, 1.0), uniform)
        return out

    def current(self, i: int) -> Array:
        return self._normalise(i, self.regret[i])

    def shaken(self, i: int, sigma: Array) -> Array:
        """``sigma`` as the other player sees it: each legal action kept with at
        least :attr:`tremble` / n (a trembling hand), so that every node is
        reached by every hand and off-path answers are best responses to a
        sensible range."""
        if not self.tremble:
            return sigma
        ok = self.legal[i]
        shaken: Array = (1.0 - self.tremble) * sigma + self.tremble * ok / ok.sum(
            axis=1, keepdims=True
        )
        return shaken

    def average(self, i: int) -> Array:
        return self._normalise(i, self.total[i])

    def walk(self, i: int, player: int, own: Array, other: Array, weight: float) -> Array:
        """``player``'s counterfactual values per hand at node ``i``; updates its regrets."""
        node = self.nodes[i]
        if node.player < 0:
            return self.payoff[i][player] @ other
        sigma = self.current(i)
        if node.player == player:
            values = np.stack(
                [
                    self.walk(c, player, own * sigma[:, a], other, weight)
                    for a, c in enumerate(node.children)
                ],
                axis=1,
            )
            v: Array = (sigma * values).sum(axis=1)
            self.regret[i] = np.maximum(self.regret[i] + values - v[:, None], 0.0)
            self.total[i] += weight * own[:, None] * sigma
            return v
        out = np.zeros_like(own)
        sigma = self.shaken(i, sigma)
        for a, c in enumerate(node.children):
            out += self.walk(c, player, own, other * sigma[:, a], weight)
        return out

    def evaluate(
        self, i: int, player: int, other: Array, best: bool, shaken: bool = False
    ) -> Array:
        """``player``'s values per hand with the average strategies, or its best
        response; ``shaken``: the other player trembles (see :meth:`shaken`)."""
        node = self.nodes[i]
        if node.player < 0:
            return self.payoff[i][player] @ other
        if node.player == player:
            values = np.stack(
                [self.evaluate(c, player, other, best, shaken) for c in node.children], axis=1
            )
            self.values[i] = values
            if best:
                best_values: Array = np.where(self.legal[i] > 0, values, -np.inf).max(axis=1)
                return best_values
            mean: Array = (self.average(i) * values).sum(axis=1)
            return mean
        sigma = self.average(i)
        if shaken:
            sigma = self.shaken(i, sigma)
        out = np.zeros(other.shape[0])
        for a, c in enumerate(node.children):
            out += self.evaluate(c, player, other * sigma[:, a], best, shaken)
        return out


def solve(
    redeal: bool,
    scores: tuple[int, int],
    target: int,
    iterations: int,
    redeal_value: float = 0.5,
    *,
    bot: int = LEADER,
    edge: float = 0.0,
    tremble: float = 0.0,
    game_ends: float = GAME_ENDS,
) -> tuple[Solution, _Solver]:
    """Run CFR+ for ``iterations`` on the opening at ``scores`` (leader's, dealer's);
    payoffs are ``bot``'s chances of winning the game with ``edge`` and
    ``game_ends`` (see
    :func:`~truc_p2p.bots._cfr_game.terminal_utility`)."""
    solver = _Solver(
        build_tree(redeal), scores, target, redeal_value, bot, edge, tremble, game_ends
    )
    ones = np.ones(len(prior()))
    for t in range(1, iterations + 1):
        for player in (LEADER, DEALER):
            solver.walk(0, player, ones, ones, float(t))
    value = float(solver.evaluate(0, LEADER, ones, best=False).sum())
    # Each player's values per action with the other trembling: the answers
    # off the equilibrium path (below) are made against a sensible range.
    solver.evaluate(0, LEADER, ones, best=False, shaken=True)
    solver.evaluate(0, DEALER, ones, best=False, shaken=True)
    # Where the average strategy never (or hardly ever) reaches a hand's
    # information set, it is noise: play the best action there against the
    # other's average strategy instead (the opponent may go where the
    # equilibrium does not, and the bot must still answer well).
    reached_norm = iterations * (iterations + 1) / 2
    strategy = {}
    for i in solver.regret:
        avg = solver.average(i)
        ok = solver.legal[i] > 0
        values = np.where(ok, solver.values[i], -np.inf)
        floor = np.where(ok, solver.values[i], np.inf).min(axis=1)
        unreached = solver.total[i].sum(axis=1) < _UNREACHED * reached_norm
        # A hand for which every action is worth the same (a rest it cannot
        # win) takes the first one (accept before refuse: no worse, and sane).
        unreached |= values.max(axis=1) - floor < 1e-12
        best = np.eye(avg.shape[1])[values.argmax(axis=1)]
        strategy[i] = np.where(unreached[:, None], best, avg)
    return Solution(solver.nodes, strategy, value), solver


def exploitability(solver: _Solver) -> float:
    """How much two best responses to the average strategies gain together (≥ 0)."""
    ones = np.ones(len(prior()))
    br_leader = float(solver.evaluate(0, LEADER, ones, best=True).sum())
    br_dealer = float(solver.evaluate(0, DEALER, ones, best=True).sum())
    return br_leader + br_dealer - 1.0


def solve_score(
    scores: tuple[int, int],
    target: int,
    iterations: int,
    *,
    bot: int,
    edge: float,
    tremble: float,
    game_ends: float = GAME_ENDS,
) -> tuple[Solution, Solution]:
    """The openings without and with a redeal at ``scores``; an accepted redeal
    is worth the value of the first (fresh cards, no second redeal)."""
    plain, _ = solve(
        False,
        scores,
        target,
        iterations,
        bot=bot,
        edge=edge,
        tremble=tremble,
        game_ends=game_ends,
    )
    with_redeal, _ = solve(
        True,
        scores,
        target,
        iterations,
        redeal_value=plain.value,
        bot=bot,
        edge=edge,
        tremble=tremble,
        game_ends=game_ends,
    )
    return plain, with_redeal


def quantize(probs: Array) -> bytes:
    """Rows of probabilities as bytes summing to 255 per row (largest remainders)."""
    out = bytearray()
    for row in probs:
        scaled = row * 255.0
        q = np.floor(scaled).astype(int)
        short = 255 - int(q.sum())
        order = np.argsort(-(scaled - q), kind="stable")
        for k in order[:short]:
            q[k] += 1
        out.extend(int(x) for x in q)
    return bytes(out)


def build_table(
    iterations: int,
    edge: float,
    tremble: float,
    target: int = 12,
    progress: bool = False,
    game_ends: float = GAME_ENDS,
) -> bytes:
    """The bot's table (:func:`truc_p2p.bots._cfr.encode_table`) for every score
    and both seats of the bot."""
    from truc_p2p.bots._cfr import encode_table

    blobs: list[bytes] = []
    for a in range(target):
        for b in range(target):
            for bot in (LEADER, DEALER):
                plain, with_redeal = solve_score(
                    (a, b),
                    target,
                    iterations,
                    bot=bot,
                    edge=edge,
                    tremble=tremble,
                    game_ends=game_ends,
                )
                for sol in (plain, with_redeal):
                    for i in sorted(sol.strategy):
                        blobs.append(quantize(sol.strategy[i]))
        if progress:
            print(f"scores {a}-*: done", flush=True)
    return encode_table(
        b"".join(blobs),
        target=target,
        iterations=iterations,
        edge=edge,
        tremble=tremble,
        game_ends=game_ends,
    )
