"""The search bot's tree: its nodes, the actions it searches and its playout.

An information set of the tree (:class:`_Node`) holds its actions and their
statistics and picks by UCB1; :func:`_private` is what a node is keyed on
besides the public actions, :func:`_moves` the actions worth searching and
:func:`_rollout` the simple policy that plays a round out from a new node.
"""

from __future__ import annotations

import math
import random
from typing import Final

from truc_p2p.bots import _sim
from truc_p2p.bots._sim import RoundSim

__all__: list[str] = []

_EXPLORATION: Final = 0.5


def _rollout(sim: RoundSim) -> None:
    """Play the round out: no requests; lead high, follow cheaply; answer by strength."""
    while not sim.done:
        pending = sim.pending
        if pending == _sim.ASK_REDEAL:
            sim.apply(_sim.DECLINE_REDEAL)
            continue
        if pending:
            hand = sim.hands[1 - sim.requester]
            strong = bool(hand) and max(hand) >= 6
            if pending == _sim.REST and sim.rest_wins_game:
                strong = True
            sim.apply(_sim.ACCEPT if strong else _sim.REFUSE)
            continue
        lead = sim.table
        if lead < 0:
            hand = sim.hands[sim.leader]
            sim.apply(hand[-1])
            continue
        hand = sim.hands[1 - sim.leader]
        card = hand[0]
        for s in hand:  # sorted: the cheapest card that wins, else one that spoils
            if s > lead:
                card = s
                break
        else:
            if lead in hand:
                card = lead
        sim.apply(card)


#: Card classes for answering a request: 9-10-J, Q-K, A, 8, 7.
_CLASS: Final = (0, 0, 0, 1, 1, 2, 3, 4)


def _private(sim: RoundSim, actor: int) -> tuple[int, ...]:
    """What the tree keys ``actor``'s information set on besides the public actions.

    Its cards, as strengths; when answering a request, only the classes of its
    two best cards: the answers do not depend on the exact cards, and pooling
    similar hands gives the opponent's answers enough visits to be sensible.
    """
    hand = sim.hands[actor]
    if sim.pending:
        return tuple(_CLASS[s] for s in hand[-2:])
    return tuple(hand)


def _moves(sim: RoundSim) -> list[int]:
    """The actions worth searching: the legal ones but the weakly dominated.

    Folding never beats refusing or playing on, and refusing never beats
    accepting when refusing loses the game at once.
    """
    moves = [a for a in sim.legal() if a != _sim.FOLD]
    if _sim.REFUSE in moves:
        refused = sim.copy()
        refused.apply(_sim.REFUSE)
        if refused.game_winner == sim.requester:
            moves.remove(_sim.REFUSE)
    return moves


class _Node:
    """One information set of the tree: its actions and their statistics."""

    __slots__ = ("codes", "counts", "totals", "visits")

    def __init__(self, codes: list[int]) -> None:
        self.codes = codes
        self.counts = [0] * len(codes)
        self.totals = [0.0] * len(codes)
        self.visits = 0

    def select(self, rng: random.Random) -> int:
        """An unexplored action (at random), else the UCB1 choice."""
        counts = self.counts
        untried = [i for i, n in enumerate(counts) if n == 0]
        if untried:
            return untried[0] if len(untried) == 1 else rng.choice(untried)
        log_n = math.log(self.visits)
        totals = self.totals
        best_i, best = 0, -1.0
        for i, n in enumerate(counts):
            ucb = totals[i] / n + _EXPLORATION * math.sqrt(log_n / n)
            if ucb > best:
                best_i, best = i, ucb
        return best_i

    def update(self, i: int, reward: float) -> None:
        self.visits += 1
        self.counts[i] += 1
        self.totals[i] += reward

    def mean(self, i: int) -> float:
        return self.totals[i] / self.counts[i]

    def best(self) -> int:
        """The most visited action code (ties: the better mean)."""
        i = max(range(len(self.codes)), key=lambda j: (self.counts[j], self.totals[j]))
        return self.codes[i]
