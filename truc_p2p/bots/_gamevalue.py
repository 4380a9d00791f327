"""W(my score, opponent's score, who deals): the chance of winning the *game*.

Theory of operation
-------------------
A staking decision — raise, "my rest", accept, refuse, fold, redeal and its
answer — changes what the round can do to the score, and a point is not worth
the same at every score: near the target it can end the game, far behind only
a big stake can save it.  So the bots value the end of a round by the chance
of winning the game from the score it leaves, ``W(a, b, d)``: the player on
``a`` points, the opponent on ``b``, ``d`` true when the player deals the next
round.  A decision's value is the expected ``W`` after it (a refused raise
gives ``W(a, b + v, ·)`` for sure, an accepted one ``W(a + v', b, ·)`` or
``W(a, b + v', ·)`` with the round's odds); the difference between two
decisions is their effect on winning the game.

``W`` is computed by dynamic programming over the scores, from a model of one
round between two equal players:

* the round goes to the dealer with chance :data:`DEALER_WINS` — the equity of
  random deals played out by the bots' simple card policy (lead high, follow
  with the cheapest card that wins); :func:`measure_dealer_wins` re-measures
  it (the follower answers the lead, so the dealer has the edge);
* a round that does not end the game is worth 1 point most often, sometimes
  2, rarely the big raised values (:data:`POINTS`, the shares seen in games
  between the project's bots);
* with chance ``game_ends`` a round ends the game through "my rest", an even
  bet: a rest is declared by whoever likes its cards, so the skill edge of
  ordinary rounds does not carry over.  The bots estimate ``game_ends`` from the
  opponent's record: against an opponent who stakes the game often, a lead is
  worth less and patience gains nothing.

Spoiled rounds (nobody scores, about 1 in 200) are left out.  Each round moves
a score up, so the table is filled from the target downwards; ``W`` at the
start of an even game is 1/2 by symmetry.
"""

from __future__ import annotations

import functools
import random
from typing import Final

__all__ = ["DEALER_WINS", "POINTS", "game_value", "measure_dealer_wins"]

#: The chance that the dealer wins a round between equal players (random deals).
DEALER_WINS: Final = 0.59
#: ``(points, share)`` of the rounds that do not end the game.
POINTS: Final = ((1, 0.6), (2, 0.25), (6, 0.1), (8, 0.05))
#: Tables are built up to this target; larger targets are scaled down to it.
_MAX_TABLE: Final = 48


@functools.cache
def _table(
    target: int, game_ends: float, dealer_wins: float, edge: float
) -> tuple[tuple[tuple[float, float], ...], ...]:
    """``t[a][b][d]``: the chance that the player on ``a`` beats the one on ``b``."""
    total = sum(share for _, share in POINTS)
    points = [(k, share * (1.0 - game_ends) / total) for k, share in POINTS]
    t = [[[0.0, 0.0] for _ in range(target)] for _ in range(target)]
    for a in range(target - 1, -1, -1):
        for b in range(target - 1, -1, -1):
            for d in (0, 1):
                q = min(0.99, max(0.01, (dealer_wins if d else 1.0 - dealer_wins) + edge))
                nxt = 1 - d
                # A rest is declared by whoever likes its cards: an even bet,
                # whatever the skill edge in ordinary rounds.
                chance = game_ends * 0.5
                for k, p in points:
                    mine = 1.0 if a + k >= target else t[a + k][b][nxt]
                    theirs = 0.0 if b + k >= target else t[a][b + k][nxt]
                    chance += p * (q * mine + (1.0 - q) * theirs)
                t[a][b][d] = chance
    return tuple(tuple((cell[0], cell[1]) for cell in row) for row in t)


def game_value(
    mine: int,
    theirs: int,
    target: int,
    *,
    i_deal: bool,
    game_ends: float = 0.1,
    dealer_wins: float = DEALER_WINS,
    edge: float = 0.0,
) -> float:
    """``W``: the chance of winning the game on ``mine`` points against ``theirs``.

    ``i_deal`` says whether the player deals the next round; ``game_ends`` is
    the chance that a round ends the game by "my rest" and ``edge`` how much
    likelier than the model's equal player the player is to win a round (both
    rounded to a hundredth, so that few tables are built).
    """
    if mine >= target:
        return 1.0
    if theirs >= target:
        return 0.0
    if target > _MAX_TABLE:
        mine = mine * _MAX_TABLE // target
        theirs = theirs * _MAX_TABLE // target
        target = _MAX_TABLE
    ends = round(min(max(game_ends, 0.0), 0.9), 2)
    table = _table(target, ends, round(dealer_wins, 3), round(edge, 2))
    return table[mine][theirs][int(i_deal)]


def measure_dealer_wins(deals: int, seed: int) -> float:
    """The dealer's share of decided rounds over ``deals`` random deals (simple policy)."""
    from truc_p2p.bots._sim import RoundSim
    from truc_p2p.bots._tree import _rollout

    rng = random.Random(seed)
    pack = [s for s in range(8) for _ in range(4)]
    won = decided = 0
    for _ in range(deals):
        cards = rng.sample(pack, 6)
        sim = RoundSim(
            hands=(sorted(cards[:3]), sorted(cards[3:])),
            dealer=1,
            leader=0,
            scores=(0, 0),
            target=1000,
        )
        _rollout(sim)
        if sim.winner >= 0:
            decided += 1
            won += sim.winner == 1
    return won / max(1, decided)
