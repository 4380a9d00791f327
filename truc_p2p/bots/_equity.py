"""Chances of winning the game from a score, for scoring the end of a round.

The search looks one round ahead; when that round ends and the game goes on,
it scores the result by how likely each player is then to win the game.  That
likelihood comes from a simple model of the rounds to come: the bot wins each
with a chance a little above even (:data:`EDGE`: it expects to outplay its
opponent, which makes it patient with a lead), for 1 point most often,
sometimes 2 or the big raised values, and with chance ``game_ends`` a round
ends the game through "my rest" — an even bet, as the opponent rests when it
likes its cards.  Dynamic programming over the scores turns
the model into a table.  The model is rough, but it gets what matters right:
a point is worth more near the target, a player far behind should gamble, and
against an opponent who stakes the game often a lead is worth less.
"""

from __future__ import annotations

import functools
from typing import Final

__all__ = ["DEFAULT_GAME_ENDS", "EDGE", "win_chance"]

#: How much likelier than even the bot assumes it is to win a round.
EDGE: Final = 0.3
#: Chance that a round ends the game by "my rest", before seeing the opponent.
DEFAULT_GAME_ENDS: Final = 0.06
#: ``(points, relative weight)`` of a round that does not end the game.
_POINTS: Final = ((1, 0.55), (2, 0.22), (6, 0.08), (8, 0.03))
#: Tables are built up to this target; larger targets are scaled down to it.
_MAX_TABLE: Final = 48


@functools.cache
def _table(target: int, game_ends: float, edge: float) -> tuple[tuple[float, ...], ...]:
    """``t[a][b]``: chance that the bot on ``a`` points beats an opponent on ``b``."""
    total = sum(w for _, w in _POINTS)
    points = [(k, w * (1.0 - game_ends) / total) for k, w in _POINTS]
    q = 0.5 + edge
    t = [[0.0] * target for _ in range(target)]
    for a in range(target - 1, -1, -1):
        for b in range(target - 1, -1, -1):
            chance = 0.5 * game_ends  # a rest stakes the game on a round: even
            for k, p in points:
                mine = 1.0 if a + k >= target else t[a + k][b]
                theirs = 0.0 if b + k >= target else t[a][b + k]
                chance += p * (q * mine + (1 - q) * theirs)
            t[a][b] = chance
    return tuple(tuple(row) for row in t)


def win_chance(
    mine: int,
    theirs: int,
    target: int,
    *,
    game_ends: float = DEFAULT_GAME_ENDS,
    edge: float = EDGE,
) -> float:
    """The chance of winning the game on ``mine`` points against ``theirs``.

    ``game_ends`` is the chance that a round ends the game by "my rest"
    (rounded to a hundredth, so that few tables are built); ``edge`` how much
    likelier than even the player is to win a round (the bot's own view by
    default; 0 for even players).
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
    return _table(target, ends, edge)[mine][theirs]
