"""The opening of a round as a small two-player game, for the CFR bot.

Theory of operation
-------------------
Suits never matter in Le Truc, so a 3-card hand is a multiset of three
strengths out of eight: :data:`HANDS` lists the 120 of them.  The chance of
a deal ``(leader's hand, dealer's hand)`` is counted on the 32-card pack
(four cards of each strength), so holding two sevens makes a seven in the
other hand less likely (:func:`prior`).

The *opening* is everything that happens in a round before the dealer plays
its first card: the leader (non-dealer) may ask for a redeal, then either
leads a card without a request (which card is part of its choice: the digit
of its strength in the path), raises, stakes the game ("my rest") or folds;
the dealer answers a request (after an accepted raise the leader leads its
card); then the dealer, *seeing the card led*, may raise, rest, play its
card ("check") or fold before following, and the leader answers.  The tree
(:func:`build_tree`) is that sequence of public actions; a player's
information set is the node and its own hand.  These are the decisions that
settle the stakes — in games between strong bots the game is settled by "my
rest" within about two rounds — and they are exactly where determinised
search goes wrong (it values a rest or an answer as if it would know the
other hand).

Where the opening ends without a fold or refusal, the rest of the round is a
*showdown* at the stake reached: the round is won with the chances of
:func:`outcomes` from the card led — half the time the result of exact card
play by both players (as if each saw the other's hand), half the time that
of the simple policy the bots roll out with (lead high, follow with the
cheapest winner) — so that a hand's worth is neither the all-seeing value
nor a naive one.

Payoffs are chances of winning the *game*: a round won for ``v`` points
leaves the score ``(a + v, b)`` and is worth ``W(a + v, b)``
(:func:`~truc_p2p.bots._gamevalue.game_value`, the leader deals next); an
answered rest is won or lost outright (1 or 0), and a spoiled round keeps
``W(a, b)``.  The opening is a constant-sum game between the leader and the
dealer for each score; `tools/cfr_train.py` solves it by CFR+ and
:mod:`truc_p2p.bots._cfr` plays the solution.  An accepted redeal is worth
the value of the opening without a redeal (:data:`REDEAL_VALUE` node), as
the new cards are a fresh draw.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field
from math import comb
from typing import Final

from truc_p2p.bots import _sim
from truc_p2p.bots._gamevalue import game_value

__all__ = [
    "GAME_ENDS",
    "HANDS",
    "HAND_INDEX",
    "Node",
    "build_tree",
    "lead_of",
    "legal",
    "outcomes",
    "prior",
    "terminal_utility",
]

#: The 120 hands, as sorted strength triples (0 = nine … 7 = seven).
HANDS: Final[tuple[tuple[int, int, int], ...]] = tuple(
    itertools.combinations_with_replacement(range(8), 3)
)
HAND_INDEX: Final[dict[tuple[int, ...], int]] = {h: i for i, h in enumerate(HANDS)}

#: The leader (non-dealer) and the dealer, the two players of the opening.
LEADER: Final = 0
DEALER: Final = 1

#: The prior chance that a round ends the game by "my rest" in the game model W.
GAME_ENDS: Final = 0.12

#: Action letters of the opening's public history; the leader's card is the
#: digit of its strength.
CHECK: Final = "c"  # the dealer plays its card without a request
RAISE: Final = "r"
REST: Final = "s"
FOLD: Final = "f"
REDEAL: Final = "q"  # ask for a redeal
ACCEPT: Final = "a"
REFUSE: Final = "n"  # refuse a request, or decline a redeal


def _counts(hand: tuple[int, ...]) -> list[int]:
    c = [0] * 8
    for s in hand:
        c[s] += 1
    return c


@functools.cache
def prior() -> tuple[tuple[float, ...], ...]:
    """``P[i][j]``: the chance that the leader holds ``HANDS[i]`` and the dealer ``HANDS[j]``."""
    rows = []
    for h in HANDS:
        ch = _counts(h)
        p_h = 1.0
        for k in range(8):
            p_h *= comb(4, ch[k])
        p_h /= comb(32, 3)
        row = []
        for g in HANDS:
            cg = _counts(g)
            p_g = 1.0
            for k in range(8):
                p_g *= comb(4 - ch[k], cg[k]) if cg[k] <= 4 - ch[k] else 0
            row.append(p_h * p_g / comb(29, 3))
        rows.append(tuple(row))
    return tuple(rows)


def _rollout_winner(leader_hand: tuple[int, ...], dealer_hand: tuple[int, ...], lead: int) -> int:
    from truc_p2p.bots._tree import _rollout

    sim = _sim.RoundSim(
        hands=(list(leader_hand), list(dealer_hand)),
        dealer=DEALER,
        leader=LEADER,
        scores=(0, 0),
        target=1000,
    )
    if lead >= 0:
        sim.apply(lead)
    _rollout(sim)
    return sim.winner


#: The showdown chances ``(leader wins, dealer wins, spoiled)`` per hand pair.
Outcomes = tuple[tuple[tuple[float, float, float], ...], ...]


@functools.cache
def outcomes(lead: int = -1) -> Outcomes:
    """``O[i][j] = (leader wins, dealer wins, spoiled)``: the round's chances at a showdown.

    ``lead``: the strength the leader led to the first trick (-1: not yet
    chosen); hands without it get ``(0, 0, 1)`` (they never get there).
    """
    from truc_p2p.bots._exploit import _minimax

    table = []
    for h in HANDS:
        row = []
        if lead >= 0 and lead not in h:
            table.append(tuple((0.0, 0.0, 1.0) for _ in HANDS))
            continue
        rest = list(h)
        if lead >= 0:
            rest.remove(lead)
        for g in HANDS:
            exact = _minimax((tuple(rest), g), lead, (), LEADER)
            rolled = _rollout_winner(h, g, lead)
            lw = 0.5 * (exact == 1) + 0.5 * (rolled == LEADER)
            dw = 0.5 * (exact == -1) + 0.5 * (rolled == DEALER)
            row.append((lw, dw, 1.0 - lw - dw))
        table.append(tuple(row))
    return tuple(table)


@dataclass(slots=True)
class Node:
    """A node of the opening: a decision (``player`` ≥ 0) or a terminal.

    ``path`` is the public history from the round's start (action letters);
    ``actions`` and ``children`` the decision's moves and the nodes they lead
    to.  A terminal has a ``kind`` — ``"points"`` (``winner`` scores
    ``value``), ``"game"`` (``winner`` wins the game), ``"show"`` (the round
    decides ``value`` points), ``"rest"`` (the round decides the game) or
    ``"redeal"`` (the opening starts over on fresh cards) — and ``player`` -1.
    The leader's card is one of its actions: the digit of its strength (legal
    only for hands that hold it).
    """

    path: str
    player: int = -1
    actions: tuple[str, ...] = ()
    children: list[int] = field(default_factory=list)
    kind: str = ""
    winner: int = -1
    value: int = 0
    #: The strength the leader led (-1: none yet): showdowns are counted from it.
    lead: int = -1


def _next_value(value: int) -> int:
    return 2 if value == 1 else (6 if value == 2 else value + 2)


def lead_of(path: str) -> int:
    """The strength the leader led on ``path``, or -1."""
    for ch in path:
        if ch.isdigit():
            return int(ch)
    return -1


def build_tree(redeal: bool) -> list[Node]:
    """The opening's nodes, root first (children after their parent).

    ``redeal``: the leader may ask for a redeal at the root.
    """
    nodes: list[Node] = []

    def terminal(path: str, kind: str, winner: int = -1, value: int = 0) -> int:
        nodes.append(Node(path, kind=kind, winner=winner, value=value, lead=lead_of(path)))
        return len(nodes) - 1

    def decision(path: str, player: int, moves: list[tuple[str, object]]) -> int:
        node = Node(path, player=player, actions=tuple(a for a, _ in moves), lead=lead_of(path))
        nodes.append(node)
        index = len(nodes) - 1
        for action, make in moves:
            assert callable(make)
            node.children.append(make(path + action))
        return index

    def answer(path: str, requester: int, value: int, rest: bool, then: object) -> int:
        """The other player answers ``requester``'s raise (or rest)."""
        answerer = 1 - requester
        if rest:
            return decision(
                path,
                answerer,
                [
                    (ACCEPT, lambda p: terminal(p, "rest")),
                    (REFUSE, lambda p: terminal(p, "game", requester)),
                ],
            )
        return decision(
            path,
            answerer,
            [(ACCEPT, then), (REFUSE, lambda p: terminal(p, "points", requester, value))],
        )

    def dealer_turn(path: str, value: int) -> int:
        nxt = _next_value(value)
        return decision(
            path,
            DEALER,
            [
                (CHECK, lambda p: terminal(p, "show", value=value)),
                (RAISE, lambda p: answer(p, DEALER, value, False, lambda q: show(q, nxt))),
                (REST, lambda p: answer(p, DEALER, value, True, None)),
                (FOLD, lambda p: terminal(p, "points", LEADER, value)),
            ],
        )

    def show(path: str, value: int) -> int:
        return terminal(path, "show", value=value)

    def lead(path: str, value: int) -> int:
        """The leader plays its card (after an accepted raise: no other choice)."""
        return decision(
            path, LEADER, [(str(k), lambda p, v=value: dealer_turn(p, v)) for k in range(8)]
        )

    def leader_turn(path: str, with_redeal: bool) -> int:
        moves: list[tuple[str, object]] = []
        if with_redeal:
            moves.append(
                (
                    REDEAL,
                    lambda p: decision(
                        p,
                        DEALER,
                        [
                            (ACCEPT, lambda q: terminal(q, "redeal")),
                            (REFUSE, lambda q: leader_turn(q, False)),
                        ],
                    ),
                )
            )
        moves += [(str(k), lambda p: dealer_turn(p, 1)) for k in range(8)]
        moves += [
            (RAISE, lambda p: answer(p, LEADER, 1, False, lambda q: lead(q, 2))),
            (REST, lambda p: answer(p, LEADER, 1, True, None)),
            (FOLD, lambda p: terminal(p, "points", DEALER, 1)),
        ]
        return decision(path, LEADER, moves)

    leader_turn("", redeal)
    return nodes


def legal(node: Node) -> tuple[tuple[bool, ...], ...]:
    """Per hand, which of ``node``'s actions it may take (a card only if held)."""
    return tuple(tuple(not a.isdigit() or int(a) in hand for a in node.actions) for hand in HANDS)


def terminal_utility(
    node: Node,
    scores: tuple[int, int],
    target: int,
    redeal_value: float,
    *,
    bot: int = LEADER,
    edge: float = 0.0,
    game_ends: float = GAME_ENDS,
) -> tuple[float, float, float] | float:
    """The leader's payoff at a terminal, for the scores ``(leader's, dealer's)``.

    A float when it does not depend on the cards; else the payoffs ``(if the
    leader wins the round, if the dealer wins it, if it is spoiled)``.  The
    game is constant-sum: the payoffs are ``bot``'s chances of winning the
    game by ``W`` with its skill ``edge`` in the rounds to come (the other
    player gets the rest), so with an edge the bot is patient with a lead and
    the opponent it plays against is modelled as the underdog it would be;
    ``game_ends`` is W's chance that a round to come ends the game by "my rest".
    """
    a, b = scores

    def w(x: int, y: int) -> float:
        """The leader's payoff for the scores ``(x, y)`` after the round."""
        if bot == LEADER:
            return game_value(x, y, target, i_deal=True, game_ends=game_ends, edge=edge)
        return 1.0 - game_value(y, x, target, i_deal=False, game_ends=game_ends, edge=edge)

    if node.kind == "points":
        return w(a + node.value, b) if node.winner == LEADER else w(a, b + node.value)
    if node.kind == "game":
        return 1.0 if node.winner == LEADER else 0.0
    if node.kind == "redeal":
        return redeal_value
    if node.kind == "show":
        return (w(a + node.value, b), w(a, b + node.value), w(a, b))
    if node.kind == "rest":
        return (1.0, 0.0, w(a, b))
    raise ValueError(f"not a terminal: {node.kind!r}")
