"""What a player can be sure of in the round under way, from its own view.

Theory of operation
-------------------
From player ``p``'s view the opponent's hand is unknown: it is any set of the
cards ``p`` has not seen (:meth:`~truc_p2p.rules.Game.possible_cards`).  ``p``
*cannot lose* the round when ``p`` has a way to play its cards that, against
every hand the opponent may hold and every way the opponent plays it, never
lets the opponent win the round; ``p`` *is sure to win* it when that way always
wins it.  ``p``'s choices may depend only on what ``p`` sees (its cards and the
cards played), so the question is a game of ``p`` against an adversary who
picks each of the opponent's cards among the unseen ones as it goes: a hand
fixed in advance is one such adversary, and every adversary's line of play is
some hand's.  Suits never matter, so the game runs over rank counts, memoised;
it is a few thousand positions at most.

Stakes do not enter: a round ``p`` cannot lose is worth at least nothing to
``p`` whatever it is worth, and giving it up (refusing a raise or "my rest",
folding, a redeal) hands the opponent points.  The answer holds as long as
``p`` plays one of :attr:`SureRound.cards` whenever it plays a card and keeps
its cards (declines a redeal).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from truc_p2p.rules._cards import Card, Player
from truc_p2p.rules._errors import PlayerError
from truc_p2p.rules._game_state import GameState
from truc_p2p.rules._round import Phase, round_result

__all__ = ["SureRound", "sure_round"]

_RANKS = 8
#: A trick's result from ``p``'s side: won, lost, spoiled.
_WON, _LOST, _SPOILED = 1, -1, 0


@dataclass(frozen=True, slots=True)
class SureRound:
    """What ``p`` can be sure of in the round under way (see the module doc).

    ``cards``: when ``p`` plays the round's next card, the cards of its hand
    that keep what it is sure of; empty when it is sure of nothing or the
    next card is the opponent's.
    """

    wins: bool
    cannot_lose: bool
    cards: tuple[Card, ...]

    @property
    def decided(self) -> bool:
        """Whether the round is one ``p`` cannot lose (so must never give up)."""
        return self.cannot_lose


_OPEN = SureRound(wins=False, cannot_lose=False, cards=())


@functools.cache
def _over(results: tuple[int, ...]) -> int | None:
    """The round's result for ``p`` (1, 0, -1) once decided, else ``None``."""
    players = tuple(Player.P0 if r == _WON else Player.P1 if r == _LOST else None for r in results)
    decided, winner = round_result(players)
    if not decided:
        return None
    return 0 if winner is None else (1 if winner is Player.P0 else -1)


@functools.lru_cache(maxsize=1 << 15)  # one round's positions; bounded over a long session
def _value(
    mine: tuple[int, ...],
    pool: tuple[int, ...],
    left: int,
    lead: int,
    results: tuple[int, ...],
    p_leads: bool,
) -> int:
    """The round's result ``p`` can force (1 won, 0 nobody, -1 lost).

    ``mine``: ``p``'s strengths, sorted; ``pool``: how many unseen cards of each
    strength; ``left``: the opponent's cards; ``lead``: the strength led to the
    current trick, -1 if none; ``p_leads``: whether ``p`` leads it.
    """
    over = _over(results)
    if over is not None:
        return over
    p_plays = p_leads == (lead < 0)
    if p_plays:
        if not mine:  # cannot happen in a consistent view
            return -1
        best = -1
        for s in set(mine):
            best = max(best, _after_mine(mine, pool, left, lead, results, p_leads, s))
            if best > 0:
                break
        return best
    options = [s for s in range(_RANKS) if pool[s]] if left else []
    if not options:  # cannot happen in a consistent view; nothing to fear then
        return 1
    worst = 1
    for s in options:
        rest = list(pool)
        rest[s] -= 1
        if lead < 0:
            v = _value(mine, tuple(rest), left - 1, s, results, p_leads)
        else:
            trick = _SPOILED if s == lead else (_LOST if s > lead else _WON)
            v = _value(mine, tuple(rest), left - 1, -1, (*results, trick), _leads(trick, p_leads))
        worst = min(worst, v)
        if worst < 0:
            break
    return worst


def _leads(trick: int, p_led: bool) -> bool:
    """Whether ``p`` leads the next trick (a spoiled trick is led again by its leader)."""
    return p_led if trick == _SPOILED else trick == _WON


def _after_mine(
    mine: tuple[int, ...],
    pool: tuple[int, ...],
    left: int,
    lead: int,
    results: tuple[int, ...],
    p_leads: bool,
    card: int,
) -> int:
    """:func:`_value` once ``p`` plays a card of strength ``card``."""
    hand = list(mine)
    hand.remove(card)
    rest = tuple(hand)
    if lead < 0:
        return _value(rest, pool, left, card, results, p_leads)
    trick = _SPOILED if card == lead else (_WON if card > lead else _LOST)
    return _value(rest, pool, left, -1, (*results, trick), _leads(trick, p_leads))


def sure_round(game: GameState, player: Player) -> SureRound:
    """What ``player`` can be sure of in ``game``'s round, from ``game``'s view.

    ``game`` must see ``player``'s hand (``player``'s own view, or the
    omniscient one); the opponent may hold any cards ``player`` has not seen.
    Outside a round under way (cards not dealt, game over) it is sure of nothing.
    """
    player = Player.coerce(player)
    hand = game.hand(player)
    if hand is None:
        raise PlayerError(f"this view cannot see {player}'s hand")
    if game.phase is not Phase.PLAY or not hand:
        return _OPEN
    opponent = player.other
    pool = [0] * _RANKS
    for card in game.possible_cards(opponent):
        pool[card.strength] += 1
    results = tuple(
        _SPOILED if t.winner is None else (_WON if t.winner is player else _LOST)
        for t in game.tricks
    )
    table = game.table
    leader = game.leader
    lead = table[0][1].strength if table else -1
    mine = tuple(sorted(c.strength for c in hand))
    left = game.hand_size(opponent)
    args = (mine, tuple(pool), left, lead, results, leader is player)
    value = _value(*args)
    if value < 0:
        return _OPEN
    p_plays = (leader is player) == (not table)
    cards: tuple[Card, ...] = ()
    if p_plays:
        keep = {s for s in set(mine) if _after_mine(*args, s) >= value}
        cards = tuple(c for c in hand if c.strength in keep)
    return SureRound(wins=value > 0, cannot_lose=True, cards=cards)
