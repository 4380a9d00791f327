"""Chances of winning the game from a score, for scoring the end of a round.

The search looks one round ahead; when that round ends and the game goes on,
it scores the result by how likely each player is then to win the game.  That
likelihood comes from a simple model of a round between equal players: each
side wins it with the same chance, for 1 point most often, sometimes 2 or the
big raised values, and now and then a "my rest" ends the game.  Dynamic
programming over the scores turns the model into a table.  The model is rough,
but it gets what matters right: a point is worth more near the target, and a
player far behind should gamble.
"""

from __future__ import annotations

import functools
from typing import Final

__all__ = ["win_chance"]

#: ``(points, probability)`` of a round's result for its winner; the rest of the
#: probability mass is a round that ends the game ("my rest").
_POINTS: Final = ((1, 0.55), (2, 0.22), (6, 0.08), (8, 0.03))
_GAME_ENDS: Final = 1.0 - sum(p for _, p in _POINTS)
#: How much likelier than its opponent the bot assumes it is to win a round.
_EDGE: Final = 0.0
#: Tables are built up to this target; larger targets are scaled down to it.
_MAX_TABLE: Final = 48


@functools.cache
def _table(target: int) -> tuple[tuple[float, ...], ...]:
    """``t[a][b]``: chance that the player on ``a`` points beats one on ``b``."""
    t = [[0.0] * target for _ in range(target)]
    for a in range(target - 1, -1, -1):
        for b in range(target - 1, -1, -1):
            q = 0.5 + _EDGE
            chance = q * _GAME_ENDS
            for points, p in _POINTS:
                mine = 1.0 if a + points >= target else t[a + points][b]
                theirs = 0.0 if b + points >= target else t[a][b + points]
                chance += p * (q * mine + (1 - q) * theirs)
            t[a][b] = chance
    return tuple(tuple(row) for row in t)


def win_chance(mine: int, theirs: int, target: int) -> float:
    """Chance of winning the game on ``mine`` points against ``theirs``."""
    if mine >= target:
        return 1.0
    if theirs >= target:
        return 0.0
    if target > _MAX_TABLE:
        mine = mine * _MAX_TABLE // target
        theirs = theirs * _MAX_TABLE // target
        target = _MAX_TABLE
    return _table(target)[mine][theirs]
