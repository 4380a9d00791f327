"""The whole round of Le Truc as a two-player game over ranks, for the solved table.

Theory of operation
-------------------
Suits never matter in Le Truc, so a hand is one of the 120 multisets of three
strengths out of eight (:data:`~truc_p2p.bots._cfr_game.HANDS`) and the deal's
chance of a pair of hands is counted on the 32-card pack
(:func:`~truc_p2p.bots._cfr_game.prior`).  The round's *public tree* is every
sequence of public actions from the deal to the round's end: the cards played
(the digit of their strength), the requests ``r`` ("2 more?") and ``s`` ("my
rest"), the answers ``a`` (accept) and ``n`` (refuse) and folds ``f``, as
RULES.md orders them — a request before playing one's card, at most one per
player per trick, none once a rest was answered, the round over as soon as its
winner is certain.  A player's information set is a node and its own hand;
a card is legal for the hands that still hold it, so at the third trick each
hand has exactly one card to play.

What is abstracted (:class:`Abstraction`):

* the *raise ladder* is cut at ``max_raises`` accepted raises per round (then
  only "my rest", a card or a fold); the values are the default ladder's
  1, 2, 6, 8 …;
* payoffs are *points per hand*, seat 0's (the non-dealer's): a round won is
  its value, a refused request its value before the request, a fold the
  current value; "my rest" answered or refused is worth ``rest_points`` (the
  game, counted as the points of a whole game); ``tools/solve_round.py``
  also solves it with score-aware payoffs (the chance of winning the game
  after the round, by class of score: ``round_classes.json``), where "my
  rest" is the game itself;
* folding right after one's own accepted request (dominated: folding before
  the request scores less for the opponent) is left out;
* the redeal (``redeal``, off for ``round_table.bin``): the tree starts with
  seat 0's choice to play on (``p``) or ask for a redeal (``d``), which seat 1
  accepts (``y``), declines (``x``) or folds (``f``, seat 0 scores 1).  Asking
  is split from seat 0's first action of the round (the same player, nothing
  learnt between: strategically the same).  Played on or declined, the round
  is the same subtree as without the redeal (so ``p`` and ``x`` are each a
  copy of the no-redeal tree's layout, both players knowing whether a redeal
  was declined); an accepted redeal is a terminal whose payoff is the round
  played from three new cards each with the no-redeal table
  (:mod:`tools.solve_round`: the new hands dealt from what is left of the
  pack, so it depends on both old hands).

Nodes are numbered in depth-first preorder with the children in the order of
:func:`moves`; the size of every subtree depends only on the abstract state, so
:func:`locate` finds a node's number and its strategy's offset from a path
without building the tree (the runtime reads the table this way).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, replace
from typing import Final

__all__ = [
    "ABSTRACTION",
    "REDEALT",
    "Abstraction",
    "Node",
    "Redeal",
    "State",
    "locate",
    "moves",
    "redealt",
    "root",
    "showdown_winner",
    "size",
    "width",
]

#: The public actions' letters (a card is the digit of its strength).
RAISE: Final = "r"
REST: Final = "s"
FOLD: Final = "f"
ACCEPT: Final = "a"
REFUSE: Final = "n"
CARDS: Final = tuple(str(k) for k in range(8))
#: The follower's forced last card (the showdown).
SHOW: Final = "c"
#: Before the round (``Abstraction.redeal``): seat 0 plays on or asks for a
#: redeal; seat 1 accepts or declines it (or folds, :data:`FOLD`).
PLAY_ON: Final = "p"
ASK: Final = "d"
YES: Final = "y"
DECLINE: Final = "x"

#: A trick won by seat 0 or 1, or spoiled.
SPOILED: Final = 2


@dataclass(frozen=True, slots=True)
class Abstraction:
    """What the solved round keeps of the rules (see the module doc)."""

    max_raises: int = 1
    rest_points: int = 12
    #: The pack: ``ranks`` strengths (0 = nine …), ``copies`` cards of each (a
    #: smaller pack makes a tiny game for the tests).
    ranks: int = 8
    copies: int = 4
    #: Whether the tree starts with the redeal (see the module doc).
    redeal: bool = False

    def hands(self) -> tuple[tuple[int, ...], ...]:
        """The possible hands, as sorted strength triples."""
        return tuple(
            h
            for h in itertools.combinations_with_replacement(range(self.ranks), 3)
            if max(h.count(k) for k in h) <= self.copies
        )

    def value(self, raises: int) -> int:
        """The round's value after ``raises`` accepted raises (1, 2, 6, 8 …)."""
        return 1 if raises == 0 else (2 if raises == 1 else 2 + 2 * (raises - 1) + 2)


ABSTRACTION: Final = Abstraction()


def _final(results: tuple[int, ...]) -> int | None:
    won = [r for r in results if r != SPOILED]
    if won.count(0) >= 2:
        return 0
    if won.count(1) >= 2:
        return 1
    return won[0] if won else None


@functools.cache
def decided(results: tuple[int, ...]) -> tuple[bool, int | None]:
    """``(decided, winner)`` of a round whose finished tricks had ``results``."""
    ends = {
        _final(results + rest)
        for rest in itertools.product((0, 1, SPOILED), repeat=3 - len(results))
    }
    if len(ends) == 1:
        return True, ends.pop()
    return False, None


@dataclass(frozen=True, slots=True)
class State:
    """A node of the public tree (a decision; terminals are :class:`End`)."""

    trick: int = 0
    results: tuple[int, ...] = ()
    leader: int = 0
    lead: int = -1  # the strength the leader played to this trick, -1: none yet
    raises: int = 0
    rest: bool = False
    used: int = 0  # bit s: seat s made its request of this trick
    pending: str = ""  # RAISE or REST awaiting an answer
    requester: int = -1

    @property
    def to_act(self) -> int:
        if self.pending:
            return 1 - self.requester
        return self.leader if self.lead < 0 else 1 - self.leader

    def played(self, seat: int) -> int:
        """How many cards ``seat`` has played this round."""
        return self.trick + (1 if seat == self.leader and self.lead >= 0 else 0)


@dataclass(frozen=True, slots=True)
class End:
    """A terminal: ``winner`` (seat, or None: nobody) scores ``points``.

    A *showdown* (``show``) is the follower's forced last card: the third
    trick is decided by the two last cards (``lead`` against the follower's),
    the round by ``results`` and that trick, and its winner scores ``points``.
    """

    winner: int | None
    points: int
    show: bool = False
    results: tuple[int, ...] = ()
    leader: int = -1
    lead: int = -1


@dataclass(frozen=True, slots=True)
class Redeal:
    """A decision before the round: seat 0 plays on or asks (``asked`` False),
    or seat 1 answers its request (``asked`` True)."""

    asked: bool = False

    @property
    def to_act(self) -> int:
        return 1 if self.asked else 0

    def played(self, seat: int) -> int:
        del seat
        return 0


#: An accepted redeal: a terminal whose payoff the solver computes.
REDEALT: Final = End(None, 0, lead=-2)

Node = State | Redeal
Child = State | Redeal | End


def root(ab: Abstraction = ABSTRACTION) -> Node:
    """The tree's first decision: the non-dealer (seat 0) leads, or first
    plays on or asks for a redeal (``ab.redeal``)."""
    return Redeal() if ab.redeal else State()


def redealt(end: End) -> bool:
    """Whether ``end`` is an accepted redeal."""
    return end.lead == -2


def showdown_winner(end: End, follower_card: int) -> int | None:
    """The round's winner at the showdown ``end`` when the follower's last card is that."""
    follower = 1 - end.leader
    won = (
        SPOILED
        if follower_card == end.lead
        else (follower if follower_card > end.lead else end.leader)
    )
    return decided((*end.results, won))[1]


def width(cards_played: int, ab: Abstraction = ABSTRACTION) -> int:
    """How many hands hold a given multiset of ``cards_played`` strengths."""
    if ab.copies >= 3:
        return math.comb(ab.ranks + 2 - cards_played, 3 - cards_played)
    raise ValueError("the layout needs at least three cards of each strength")


def moves(state: Node, ab: Abstraction = ABSTRACTION) -> tuple[tuple[str, Child], ...]:
    """The actions at ``state`` in the tree's order, and where each leads."""
    if isinstance(state, Redeal):
        if not state.asked:
            return ((PLAY_ON, State()), (ASK, Redeal(True)))
        return ((YES, REDEALT), (DECLINE, State()), (FOLD, End(0, 1)))
    p = state.to_act
    value = ab.value(state.raises)
    if state.pending:
        requester = state.requester
        if state.pending == RAISE:
            accepted: Child = replace(state, pending="", raises=state.raises + 1)
            refused: Child = End(requester, value)
        else:
            accepted = replace(state, pending="", rest=True)
            refused = End(requester, ab.rest_points)
        return ((ACCEPT, accepted), (REFUSE, refused))
    if state.trick == 2 and state.lead >= 0:
        # The follower's last card is forced: the round ends at a showdown.
        points = ab.rest_points if state.rest else value
        show = End(None, points, True, state.results, state.leader, state.lead)
        out: list[tuple[str, Child]] = [(SHOW, show)]
    else:
        out = [(str(k), _play(state, k, ab)) for k in range(ab.ranks)]
    mine = state.used >> p & 1
    if not state.rest and not mine:
        if state.raises < ab.max_raises:
            out.append(
                (RAISE, replace(state, pending=RAISE, requester=p, used=state.used | 1 << p))
            )
        out.append((REST, replace(state, pending=REST, requester=p, used=state.used | 1 << p)))
    if not mine:
        out.append((FOLD, End(1 - p, ab.rest_points if state.rest else value)))
    return tuple(out)


def _play(state: State, card: int, ab: Abstraction) -> Child:
    if state.lead < 0:
        return replace(state, lead=card)
    follower = 1 - state.leader
    won = SPOILED if card == state.lead else (follower if card > state.lead else state.leader)
    results = (*state.results, won)
    done, winner = decided(results)
    if done:
        if winner is None:
            return End(None, 0)
        return End(winner, ab.rest_points if state.rest else ab.value(state.raises))
    leader = state.leader if won == SPOILED else won
    return State(
        trick=state.trick + 1,
        results=results,
        leader=leader,
        raises=state.raises,
        rest=state.rest,
    )


@functools.cache
def _size(state: Node, ab: Abstraction) -> tuple[int, int]:
    """``(nodes, strategy entries)`` of the subtree at ``state`` (terminals count as nodes)."""
    acts = moves(state, ab)
    nodes = 1
    entries = width(state.played(state.to_act), ab) * len(acts)
    for _, child in acts:
        if isinstance(child, End):
            nodes += 1
        else:
            n, e = _size(child, ab)
            nodes += n
            entries += e
    return nodes, entries


def size(ab: Abstraction = ABSTRACTION) -> tuple[int, int]:
    """``(nodes, strategy entries)`` of the whole tree."""
    return _size(root(ab), ab)


def locate(path: str, ab: Abstraction = ABSTRACTION) -> tuple[Node, int, int] | End | None:
    """Where ``path`` leads: ``(state, node number, strategy offset)`` of a
    decision, the :class:`End` of a terminal, or ``None`` if it is not a path
    of the tree."""
    state: Node = root(ab)
    node = 0
    offset = 0
    for letter in path:
        acts = moves(state, ab)
        offset += width(state.played(state.to_act), ab) * len(acts)
        node += 1
        for action, child in acts:
            if action == letter:
                if isinstance(child, End):
                    return child
                state = child
                break
            if isinstance(child, End):
                node += 1
            else:
                n, e = _size(child, ab)
                node += n
                offset += e
        else:
            return None
    return state, node, offset
