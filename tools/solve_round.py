"""Solve the whole round (truc_p2p/bots/_round_game.py) by CFR+ and write the shipped table.

    nice python tools/solve_round.py                       # writes truc_p2p/bots/round_table.bin
    nice python tools/solve_round.py --max-raises 0 --iterations 50 --out /tmp/t.bin
    nice python tools/solve_round.py --classes 8          # writes truc_p2p/bots/round_classes.json
    nice python tools/solve_round.py --solve-classes all --iterations 30   # round_score_<k>.bin

Theory of operation
-------------------
CFR+ on the public tree, vectorised with numpy over the hands *and* over the
tree: every node has, for each seat, one column per hand still possible for
that seat (120 before its first card, 36, 8, then 1); nodes are laid out depth
by depth, so one iteration is, per depth, a gather (reach down the tree), a
matrix product per group of terminals (the deal's chance with card removal
times the payoff: every terminal but the showdown pays a constant, the
showdown by the two last cards) and a ``bincount`` (values up the tree).
CFR+ keeps regrets non-negative, alternates the seats and weights the average
strategy by the iteration number.  The exploitability is exact over the
abstraction: each seat's best response to the other's average strategy,
``(BR_0 + BR_1) / 2`` points per hand over the game value (a seat-averaged
NashConv / 2).  The redeal is a two-action game on top, solved exactly from
the round's per-deal values (``redeal`` in the table's header).

Score-aware payoffs.  Points per hand are score-blind; near the end of a
game a point is not worth the same.  ``score_utilities(a, b)`` values each
outcome of a round at the score ``a`` (seat 0, the non-dealer) to ``b`` as
``24 · (W − 1/2)``, W the chance that seat 0 wins the game from the score after
it (:func:`~truc_p2p.bots._gamevalue.game_value`, seat 0 dealing next): a
round won or lost for 1 or 2 points, the game ("my rest" answered or refused),
a spoiled round.  Only the terminals change: a showdown pays
``u_spoil·m + (c − u_spoil)·|sg|·m + d·sg·m`` (``c``, ``d`` the mean and half
difference of winning and losing), which is the old ``points·sg·m`` for the
points payoff, so the points table's bytes do not change.  The 144 scores are
classified by the shape of their utility vectors (less the spoiled value, as
unit vectors: CFR's strategies do not change under shifts and scales):
within ``--threshold`` of the points payoff's shape a score keeps the points
table, the others go to ``K − 1`` classes by spherical k-means, each solved at
its medoid score, warm-started from the points table (:meth:`Solver.warm_start`).
A class's table ships as its bytes XOR the points table's, lzma-compressed.

Deterministic (no sampling): the same command writes the same bytes.  Needs
numpy at build time only (in the test extra); the bot reads the table with the
standard library.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import lzma
import math
import resource
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from truc_p2p.bots._gamevalue import game_value
from truc_p2p.bots._round_game import (
    Abstraction,
    End,
    Node,
    moves,
    redealt,
    root,
    showdown_winner,
)
from truc_p2p.bots._round_table import (
    ASK_FILE,
    CLASS_FILE,
    CLASSES_FILE,
    DELTA_MAGIC,
    MAGIC,
    REDEAL_FILE,
    TABLE_FILE,
    RoundTable,
    redeal_base,
)

#: Seat 0's utility of a round's outcome: ``payoff(winner, points)`` (winner
#: None: the round is spoiled; points ``rest_points``: "my rest", the game).
Payoff = Callable[[int | None, int], float]

#: The outcomes of a round, in the order of a utility vector (see :func:`score_utilities`).
OUTCOMES: Final = ("win 1", "win 2", "win game", "lose 1", "lose 2", "lose game", "spoiled")
#: The score-aware payoff's unit: W (the chance of winning the game) times this,
#: so that at 0-0 a point reads about like a point (W − 1/2 is ±1/2 for the game).
SCALE: Final = 24.0
TARGET: Final = 12


def points_payoff(winner: int | None, points: int) -> float:
    """Points per hand, seat 0's (the table shipped as ``round_table.bin``)."""
    return 0.0 if winner is None else (1.0 if winner == 0 else -1.0) * points


def score_utilities(a: int, b: int, target: int = TARGET) -> tuple[float, ...]:
    """Seat 0's utility of each of :data:`OUTCOMES` at the score ``a`` (seat 0,
    the non-dealer) to ``b`` (the dealer): ``SCALE · (W − 1/2)`` with ``W`` the
    chance that seat 0 wins the game from the score after the round, when seat
    0 deals the next one (:func:`~truc_p2p.bots._gamevalue.game_value`); "my
    rest" won or lost (answered or refused) is the game (W = 1 or 0)."""

    def u(mine: int, theirs: int) -> float:
        return SCALE * (game_value(mine, theirs, target, i_deal=True) - 0.5)

    return (
        u(a + 1, b),
        u(a + 2, b),
        SCALE / 2,
        u(a, b + 1),
        u(a, b + 2),
        -SCALE / 2,
        u(a, b),
    )


def vector_payoff(utilities: Sequence[float], ab: Abstraction) -> Payoff:
    """The payoff of a utility vector over :data:`OUTCOMES` (raises up to 2 points)."""
    if ab.max_raises > 1:
        raise ValueError("score-aware payoffs know rounds of 1 and 2 points only")

    def pay(winner: int | None, points: int) -> float:
        if winner is None:
            return float(utilities[6])
        k = 2 if points == ab.rest_points else points - 1
        return float(utilities[3 * winner + k])

    return pay


class Pack:
    """The hands of an abstraction's pack, the played multisets and the deal's chances."""

    def __init__(self, ab: Abstraction) -> None:
        self.hands = ab.hands()
        self.subsets = [
            x for n in range(4) for x in itertools.combinations_with_replacement(range(ab.ranks), n)
        ]
        self.sid = {x: i for i, x in enumerate(self.subsets)}
        self.hold = [self._holding(x) for x in self.subsets]
        self.pos = [{h: k for k, h in enumerate(cols)} for cols in self.hold]
        total = ab.ranks * ab.copies
        first = []
        for h in self.hands:
            w = 1.0
            for k in range(ab.ranks):
                w *= math.comb(ab.copies, h.count(k))
            first.append(w / math.comb(total, 3))
        self.prior = np.zeros((len(self.hands), len(self.hands)))
        for i, h in enumerate(self.hands):
            for j, g in enumerate(self.hands):
                w = first[i] / math.comb(total - 3, 3)
                for k in range(ab.ranks):
                    w *= math.comb(ab.copies - h.count(k), g.count(k))
                self.prior[i, j] = w

    def _holding(self, x: tuple[int, ...]) -> list[int]:
        out = []
        for i, h in enumerate(self.hands):
            rest = list(h)
            try:
                for c in x:
                    rest.remove(c)
            except ValueError:
                continue
            out.append(i)
        return out


def _add(s: tuple[int, ...], card: int) -> tuple[int, ...]:
    return tuple(sorted((*s, card)))


@dataclass
class Tree:
    """The public tree, flattened (see the module doc)."""

    n: int
    depth: np.ndarray
    player: np.ndarray  # -1 terminal
    sid: np.ndarray  # (n, 2): the played multiset id of each seat
    soff: np.ndarray  # strategy offset (decision nodes), runtime (DFS) layout
    nact: np.ndarray
    ends: dict[int, End]
    edges: list[tuple[int, int, int, str]]  # (parent, child, action index, letter)
    entries: int
    pack: Pack
    ab: Abstraction


def build(ab: Abstraction) -> Tree:
    pack = Pack(ab)
    depth: list[int] = []
    player: list[int] = []
    sid: list[tuple[int, int]] = []
    soff: list[int] = []
    nact: list[int] = []
    ends: dict[int, End] = {}
    edges: list[tuple[int, int, int, str]] = []
    entries = 0

    def visit(node: Node | End, d: int, s0: tuple[int, ...], s1: tuple[int, ...]) -> int:
        nonlocal entries
        i = len(depth)
        depth.append(d)
        sid.append((pack.sid[s0], pack.sid[s1]))
        if isinstance(node, End):
            player.append(-1)
            soff.append(-1)
            nact.append(0)
            ends[i] = node
            return i
        p = node.to_act
        acts = moves(node, ab)
        player.append(p)
        soff.append(entries)
        nact.append(len(acts))
        entries += len(pack.hold[pack.sid[s0 if p == 0 else s1]]) * len(acts)
        for a, (letter, child) in enumerate(acts):
            c0, c1 = s0, s1
            if letter.isdigit():
                if p == 0:
                    c0 = _add(s0, int(letter))
                else:
                    c1 = _add(s1, int(letter))
            j = visit(child, d + 1, c0, c1)
            edges.append((i, j, a, letter))
        return i

    visit(root(ab), 0, (), ())
    return Tree(
        n=len(depth),
        depth=np.array(depth, dtype=np.int32),
        player=np.array(player, dtype=np.int8),
        sid=np.array(sid, dtype=np.int32),
        soff=np.array(soff, dtype=np.int64),
        nact=np.array(nact, dtype=np.int32),
        ends=ends,
        edges=edges,
        entries=entries,
        pack=pack,
        ab=ab,
    )


class Solver:
    """CFR+ over a :class:`Tree` (see the module doc)."""

    def __init__(
        self, tree: Tree, payoff: Payoff | None = None, redeal: np.ndarray | None = None
    ) -> None:
        """``redeal``: seat 0's payoff ``R[h0, h1]`` of an accepted redeal (:func:`redeal_values`),
        needed when the tree has the redeal (``tree.ab.redeal``)."""
        self.t = tree
        self.payoff = payoff if payoff is not None else points_payoff
        if tree.ab.redeal and redeal is None:
            raise ValueError("a tree with the redeal needs the redealt round's payoffs")
        self.redeal = redeal
        pk = self.pack = tree.pack
        n = tree.n
        hold_len = np.array([len(x) for x in pk.hold], dtype=np.int64)
        width = hold_len[tree.sid]
        self.width = width
        order = np.argsort(tree.depth, kind="stable")
        self.maxdepth = int(tree.depth.max())
        # Column offsets of every node for each seat, depth by depth.
        self.off = np.zeros((n, 2), dtype=np.int64)
        self.base: list[list[int]] = [[], []]
        for p in (0, 1):
            w = width[order, p]
            starts = np.concatenate(([0], np.cumsum(w)[:-1]))
            self.off[order, p] = starts
            self.size_p = None
            for d in range(self.maxdepth + 2):
                first = np.searchsorted(tree.depth[order], d)
                self.base[p].append(int(starts[first]) if first < n else int(w.sum()))
        self.cols = [int(width[:, 0].sum()), int(width[:, 1].sum())]
        self.entries = tree.entries
        self._edges()
        self._strategy_rows()
        self._terminals()
        self.regret = np.zeros(self.entries + 1)
        self.avg = np.zeros(self.entries + 1)
        self.sigma = np.zeros(self.entries + 1)
        self.sigma[-1] = 1.0  # the sentinel: weight 1 for the other seat's edges
        self._match(self.regret, self.sigma)

    def _edges(self) -> None:
        """Per seat and depth: (child column, parent column, strategy entry or sentinel)."""
        t = self.t
        pk = self.pack
        sentinel = self.entries
        parts: list[list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]]] = [
            [[] for _ in range(self.maxdepth + 1)] for _ in (0, 1)
        ]
        groups: dict[tuple[int, int, int, int], list[tuple[int, int, int]]] = {}
        for parent, child, a, letter in t.edges:
            p = int(t.player[parent])
            d = int(t.depth[parent])
            for seat in (0, 1):
                s = int(t.sid[parent][seat])
                card = int(letter) if (letter.isdigit() and seat == p) else -1
                acting = 1 if seat == p else 0
                groups.setdefault((seat, d, s * 16 + card + 1, acting), []).append(
                    (parent, child, a)
                )
        for (seat, d, key, acting), rows in groups.items():
            s, card = divmod(key, 16)
            card -= 1
            arr = np.array(rows, dtype=np.int64)
            par, chi, act = arr[:, 0], arr[:, 1], arr[:, 2]
            if card >= 0:
                child_s = pk.sid[_add(pk.subsets[s], card)]
                pos = np.array([pk.pos[s][h] for h in pk.hold[child_s]], dtype=np.int64)
            else:
                pos = np.arange(len(pk.hold[s]), dtype=np.int64)
            ce = (self.off[chi, seat][:, None] + np.arange(len(pos))[None, :]).ravel()
            pe = (self.off[par, seat][:, None] + pos[None, :]).ravel()
            if acting:
                se = (
                    t.soff[par][:, None] + pos[None, :] * t.nact[par][:, None] + act[:, None]
                ).ravel()
            else:
                se = np.full(ce.shape, sentinel, dtype=np.int64)
            parts[seat][d].append((ce, pe, se))
        self.edge = [
            [
                tuple(np.concatenate([x[i] for x in level]) for i in range(3)) if level else None
                for level in parts[seat]
            ]
            for seat in (0, 1)
        ]

    def _strategy_rows(self) -> None:
        """Row id (node, hand) of every strategy entry, and which entries are legal."""
        t = self.t
        dec = np.nonzero(t.player >= 0)[0]
        widths = self.width[dec, t.player[dec].astype(np.int64)]
        sizes = widths * t.nact[dec]
        node = np.repeat(np.arange(len(dec)), sizes)
        row_first = np.concatenate(([0], np.cumsum(widths)[:-1]))
        start = t.soff[dec]
        assert int(sizes.sum()) == self.entries and np.all(np.diff(start) == sizes[:-1])
        e = np.arange(self.entries)
        self.rows = row_first[node] + (e - start[node]) // t.nact[dec][node]
        self.nrows = int(widths.sum())
        legal = np.zeros(self.entries, dtype=bool)
        for seat in (0, 1):  # the legal entries are exactly those an edge reaches
            for level in self.edge[seat]:
                if level is not None:
                    se = level[2]
                    legal[se[se < self.entries]] = True
        self.legal = legal
        self.nlegal = np.bincount(self.rows, weights=legal.astype(float), minlength=self.nrows)

    def _terminals(self) -> None:
        """Groups of terminals sharing a payoff matrix: (seat 0's columns, seat 1's
        columns, the matrix, each terminal's scale, whether to add to the columns).

        A showdown pays ``u_spoil·m + (c − u_spoil)·|sg|·m + d·sg·m`` where ``sg``
        is the follower's last card's sign (+1 seat 0 wins the round, −1 seat 1,
        0 nobody), ``m`` the deal's chances, ``c`` and ``d`` the mean and half
        difference of seat 0's utilities of winning and losing the round; with
        the points payoff (``c = u_spoil = 0``, ``d`` the points) only the last
        term is left, as before score-aware payoffs.
        """
        t = self.t
        pk = self.pack
        pri = pk.prior
        pay = self.payoff
        groups: dict[tuple[object, ...], list[tuple[int, float, float, float]]] = {}
        for i, end in t.ends.items():
            s0, s1 = int(t.sid[i][0]), int(t.sid[i][1])
            if redealt(end):
                groups.setdefault((s0, s1, "redeal"), []).append((i, 1.0, 0.0, 0.0))
            elif end.show:
                key: tuple[object, ...] = (s0, s1, end.results, end.leader, end.lead)
                win, lose, spoil = pay(0, end.points), pay(1, end.points), pay(None, end.points)
                c, d = (win + lose) / 2, (win - lose) / 2
                groups.setdefault(key, []).append((i, d, c - spoil, spoil))
            else:
                key = (s0, s1)
                groups.setdefault(key, []).append((i, pay(end.winner, end.points), 0.0, 0.0))
        self.term: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]] = []
        for key, items in groups.items():
            s0, s1 = int(key[0]), int(key[1])  # type: ignore[call-overload]
            m = pri[np.ix_(pk.hold[s0], pk.hold[s1])].copy()
            nodes = np.array([i for i, *_ in items], dtype=np.int64)
            c0 = self.off[nodes, 0][:, None] + np.arange(m.shape[0])[None, :]
            c1 = self.off[nodes, 1][:, None] + np.arange(m.shape[1])[None, :]
            scales = [np.array([x[k] for x in items]) for k in (1, 2, 3)]
            if key[-1] == "redeal":
                assert self.redeal is not None
                m = m * self.redeal
                mats = [m, m, m]
            elif len(key) > 2:
                results, leader, lead = key[2], key[3], key[4]
                follower = 1 - int(leader)  # type: ignore[call-overload]
                fs = s1 if follower == 1 else s0
                end = End(None, 1, True, results, int(leader), int(lead))  # type: ignore
                signs = []
                for h in pk.hold[fs]:
                    rest = list(pk.hands[h])
                    for x in pk.subsets[fs]:
                        rest.remove(x)
                    w = showdown_winner(end, rest[0])
                    signs.append(0.0 if w is None else (1.0 if w == 0 else -1.0))
                sg = np.array(signs)
                sgm = sg[None, :] if follower == 1 else sg[:, None]
                mats = [m * sgm, m * np.abs(sgm), m]
            else:
                mats = [m, m, m]
            first = True
            for mat, scale in zip(mats, scales, strict=True):
                if first or np.any(scale != 0.0):
                    self.term.append((c0, c1, mat, scale, not first))
                    first = False

    def dropped(self, letters: str) -> np.ndarray:
        """Which strategy entries are the actions ``letters``."""
        out = np.zeros(self.entries, dtype=bool)
        for parent, _, a, letter in self.t.edges:
            if letter in letters:
                p = int(self.t.player[parent])
                k = int(self.width[parent, p])
                n = int(self.t.nact[parent])
                start = int(self.t.soff[parent])
                out[start + a : start + k * n : n] = True
        return out

    def _match(
        self, regret: np.ndarray, out: np.ndarray, otherwise: np.ndarray | None = None
    ) -> None:
        """Regret matching: ``out`` (without its sentinel) from ``regret``; rows
        without a positive entry take ``otherwise`` (default: uniform)."""
        pos = np.maximum(regret[:-1], 0.0) * self.legal
        total = np.bincount(self.rows, weights=pos, minlength=self.nrows)
        tot = total[self.rows]
        if otherwise is None:
            otherwise = self.legal / np.maximum(self.nlegal[self.rows], 1.0)
        out[:-1] = np.where(tot > 0, pos / np.where(tot > 0, tot, 1.0), otherwise)

    def reach(self, seat: int, sigma: np.ndarray) -> np.ndarray:
        r = np.zeros(self.cols[seat])
        r[: self.width[0, seat]] = 1.0
        for level in self.edge[seat]:
            if level is None:
                continue
            ce, pe, se = level
            r[ce] = r[pe] * sigma[se]
        return r

    def values(self, seat: int, opp_reach: np.ndarray, sigma: np.ndarray | None) -> np.ndarray:
        """Counterfactual values of ``seat``'s columns (``sigma`` None: best response)."""
        v = np.zeros(self.cols[seat])
        sign = 1.0 if seat == 0 else -1.0
        for c0, c1, m, scale, add in self.term:
            if seat == 0:
                x = (opp_reach[c1] @ m.T) * (sign * scale)[:, None]
                if add:
                    v[c0] += x
                else:
                    v[c0] = x
            else:
                x = (opp_reach[c0] @ m) * (sign * scale)[:, None]
                if add:
                    v[c1] += x
                else:
                    v[c1] = x
        for d in range(self.maxdepth, -1, -1):
            level = self.edge[seat][d]
            if level is None:
                continue
            ce, pe, se = level
            base, top = self.base[seat][d], self.base[seat][d + 1]
            if sigma is None:
                mine = se < self.entries
                acc = np.full(top - base, -np.inf)
                np.maximum.at(acc, pe[mine] - base, v[ce[mine]])
                other = np.bincount(pe[~mine] - base, weights=v[ce[~mine]], minlength=top - base)
                acc = np.where(np.isneginf(acc), 0.0, acc) + other
                touched = np.zeros(top - base, dtype=bool)
                touched[pe - base] = True
            else:
                acc = np.bincount(pe - base, weights=v[ce] * sigma[se], minlength=top - base)
                touched = np.zeros(top - base, dtype=bool)
                touched[pe - base] = True
            seg = v[base:top]
            seg[touched] = acc[touched]
        return v

    def iterate(self, it: int) -> None:
        for seat in (0, 1):
            opp = self.reach(1 - seat, self.sigma)
            own = self.reach(seat, self.sigma)
            v = self.values(seat, opp, self.sigma)
            for level in self.edge[seat]:
                if level is None:
                    continue
                ce, pe, se = level
                mine = se < self.entries
                s = se[mine]
                self.regret[s] = np.maximum(self.regret[s] + v[ce[mine]] - v[pe[mine]], 0.0)
                self.avg[s] += it * own[pe[mine]] * self.sigma[s]
            self._match(self.regret, self.sigma)

    def warm_start(self, strategies: bytes, weight: float = 1.0) -> None:
        """Start CFR+'s current strategy from a table's (one byte per entry):
        each row's regrets are the table's chances times ``weight`` times the
        row's total instantaneous regret against it, so regret matching plays
        the table until the new payoffs' regrets outweigh it.  The average
        starts empty (anchoring it on the table slowed the tiny pack's
        convergence five- to tenfold; weight 1 without it beat a cold start
        tenfold at 40 iterations)."""
        q = table_sigma(self, strategies)
        for seat in (0, 1):
            opp = self.reach(1 - seat, q)
            v = self.values(seat, opp, q)
            for level in self.edge[seat]:
                if level is None:
                    continue
                ce, pe, se = level
                mine = se < self.entries
                s = se[mine]
                inst = np.abs(v[ce[mine]] - v[pe[mine]])
                norm = np.bincount(self.rows[s], weights=inst, minlength=self.nrows)
                self.regret[s] = q[s] * weight * np.maximum(norm[self.rows[s]], 1e-12)
        self._match(self.regret, self.sigma)

    def average(self) -> np.ndarray:
        out = np.zeros(self.entries + 1)
        out[-1] = 1.0
        # The normalised average; an information set the average never reaches
        # plays its current strategy (its regrets still learn the best answer there).
        self._match(self.avg, out, self.sigma[:-1])
        return out

    def root_value(self, sigma: np.ndarray) -> float:
        """Seat 0's expected points per deal when both play ``sigma``."""
        v = self.values(0, self.reach(1, sigma), sigma)
        return float(v[: self.width[0, 0]].sum())

    def exploitability(self, sigma: np.ndarray) -> tuple[float, float, float]:
        """``(game value, BR_0, BR_1)``: seat 0's value under ``sigma`` and each
        seat's best-response value against the other's ``sigma``."""
        value = self.root_value(sigma)
        b0 = self.values(0, self.reach(1, sigma), None)[: self.width[0, 0]].sum()
        b1 = self.values(1, self.reach(0, sigma), None)[: self.width[0, 1]].sum()
        return value, float(b0), float(b1)


def table_sigma(solver: Solver, strategies: bytes, *, drop: str = "") -> np.ndarray:
    """A table's strategies (one byte per entry, the solver's layout) as a
    strategy of ``solver``'s tree, rows renormalised over the legal actions;
    ``drop``: letters the strategy never takes (their share goes to the others,
    as a racing bot that makes no "my rest" plays the table)."""
    q = np.frombuffer(strategies, dtype=np.uint8).astype(float) * solver.legal
    if drop:
        t = solver.t
        dec = np.nonzero(t.player >= 0)[0]
        del t, dec
        q = q * ~solver.dropped(drop)
    out = np.zeros(solver.entries + 1)
    out[-1] = 1.0
    solver._match(np.concatenate((q, [0.0])), out)
    return out


def hand_of_columns(solver: Solver, seat: int) -> np.ndarray:
    """The hand (index in the pack's hands) of every column of ``seat``."""
    pk = solver.pack
    lens = np.array([len(x) for x in pk.hold], dtype=np.int64)
    flat = np.concatenate([np.array(x, dtype=np.int64) for x in pk.hold])
    start = np.concatenate(([0], np.cumsum(lens)[:-1]))
    w = solver.width[:, seat]
    nodes = np.argsort(solver.off[:, seat], kind="stable")
    node = np.repeat(nodes, w[nodes])
    k = np.arange(solver.cols[seat]) - solver.off[node, seat]
    out: np.ndarray = flat[start[solver.t.sid[node, seat]] + k]
    return out


def play_values(solver: Solver, sigma: np.ndarray) -> np.ndarray:
    """``V[h0, h1]``: seat 0's expected payoff of the round dealt ``h0``, ``h1``
    when both play ``sigma`` (per deal, not weighted by its chance; 0 for an
    impossible deal): one pass of the values per hand of seat 1, its reach
    kept on that hand's columns only."""
    pk = solver.pack
    n = len(pk.hands)
    reach = solver.reach(1, sigma)
    hand = hand_of_columns(solver, 1)
    out = np.zeros((n, n))
    for h1 in range(n):
        v = solver.values(0, np.where(hand == h1, reach, 0.0), sigma)[:n]
        pri = pk.prior[:, h1]
        out[:, h1] = np.where(pri > 0, v / np.where(pri > 0, pri, 1.0), 0.0)
    return out


def redeal_payoffs(ab: Abstraction, v: np.ndarray) -> np.ndarray:
    """``R[h0, h1]``: seat 0's payoff of an accepted redeal when the old hands were
    ``h0``, ``h1``: ``Σ P(n0, n1 | h0, h1) · V[n0, n1]``, the new hands dealt
    from the pack less both old hands (card removal), ``v`` the round's values
    per deal (:func:`play_values`).  The deals are grouped by the old hands'
    combined multiset, which is all the new hands' chances depend on."""
    hands = ab.hands()
    n = len(hands)
    counts = np.array([[h.count(k) for k in range(ab.ranks)] for h in hands], dtype=np.int64)
    comb = np.array(
        [[math.comb(a, b) for b in range(4)] for a in range(ab.copies + 1)], dtype=float
    )
    total = ab.ranks * ab.copies
    norm = math.comb(total - 6, 3) * math.comb(total - 9, 3)
    groups: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for i in range(n):
        for j in range(n):
            both = counts[i] + counts[j]
            if np.all(both <= ab.copies):
                groups.setdefault(tuple(int(x) for x in both), []).append((i, j))
    out = np.zeros((n, n))
    for key, pairs in groups.items():
        rem = ab.copies - np.array(key, dtype=np.int64)
        p0 = np.prod(comb[rem[None, :], counts], axis=1)
        rem1 = np.maximum(rem[None, :] - counts, 0)  # (n0, rank); p0 is 0 where negative
        p1 = np.prod(comb[rem1[:, None, :], counts[None, :, :]], axis=2)
        value = float((p0[:, None] * p1 * v).sum()) / norm
        idx = np.array(pairs, dtype=np.int64)
        out[idx[:, 0], idx[:, 1]] = value
    return out


def redeal_start(tree: Tree, base: bytes) -> bytes:
    """A redeal tree's starting strategies (one byte per entry): the points table
    ``base`` in both copies of the round, the redeal's decisions uniform
    (:func:`~truc_p2p.bots._round_table.redeal_base`; the shipped table is its
    difference to it)."""
    out = redeal_base(base, len(tree.pack.hands))
    if len(out) != tree.entries:
        raise ValueError("the points table does not fit the redeal tree")
    return out


def redeal_rates(solver: Solver, sigma: np.ndarray) -> dict[str, float]:
    """How often seat 0 asks for a redeal (over the deal) and, when asked, how
    often seat 1 accepts, declines and folds, under ``sigma``."""
    t = solver.t
    pri = solver.pack.prior
    n = pri.shape[0]
    ask_at = int(t.soff[0])
    ask = sigma[ask_at + 1 : ask_at + 2 * n : 2]
    pending = next(c for p, c, _, letter in t.edges if p == 0 and letter == "d")
    at = int(t.soff[pending])
    reached = (pri * ask[:, None]).sum(0)
    out = {"ask": float((pri.sum(1) * ask).sum())}
    for k, name in enumerate(("accept", "decline", "fold")):
        answer = sigma[at + k : at + 3 * n : 3]
        out[name] = float((reached * answer).sum() / max(reached.sum(), 1e-300))
    return out


def _shape(u: Sequence[float]) -> np.ndarray:
    """A utility vector's shape: less its spoiled value, as a unit vector (CFR's
    strategies do not change when the payoffs are shifted or scaled)."""
    x = np.asarray(u, dtype=float) - float(u[6])
    return x / np.linalg.norm(x)


POINTS_UTILITIES: Final = (1.0, 2.0, 12.0, -1.0, -2.0, -12.0, 0.0)


def score_classes(
    k: int, threshold: float, target: int = TARGET
) -> tuple[list[int], list[tuple[int, int]], list[float]]:
    """The score classes: ``(class of every state a * target + b, each class's
    representative score, each state's distance to its class)``.

    A state is (seat 0's points ``a``, seat 1's ``b``): seat 0 is the
    non-dealer, so who deals is part of it.  Class 0 is the points table: the
    states whose shape (:func:`_shape`) is within ``threshold`` of the points
    payoff's.  The others are split into ``k − 1`` classes by spherical
    k-means (farthest-first start, deterministic); a class is solved at its
    medoid's score, the member nearest the class's mean shape.
    """
    states = [(a, b) for a in range(target) for b in range(target)]
    x = np.array([_shape(score_utilities(a, b, target)) for a, b in states])
    points = _shape(POINTS_UTILITIES)
    near = np.linalg.norm(x - points, axis=1) <= threshold
    centres = [points]
    for _ in range(k - 1):
        dist = np.min([np.linalg.norm(x - c, axis=1) for c in centres], axis=0)
        dist[near] = 0.0
        centres.append(x[int(np.argmax(dist))])
    for _ in range(100):
        label = np.argmin([np.linalg.norm(x - c, axis=1) for c in centres], axis=0)
        label[near] = 0
        for c in range(1, k):
            if np.any(label == c):
                mean = x[label == c].mean(0)
                centres[c] = mean / np.linalg.norm(mean)
    label = np.argmin([np.linalg.norm(x - c, axis=1) for c in centres], axis=0)
    label[near] = 0
    reps = [(0, 0)]
    for c in range(1, k):
        members = np.nonzero(label == c)[0]
        best = members[np.argmin(np.linalg.norm(x[members] - centres[c], axis=1))]
        reps.append(states[int(best)])
    rep_shape = [points] + [_shape(score_utilities(a, b, target)) for a, b in reps[1:]]
    dist = [float(np.linalg.norm(x[i] - rep_shape[label[i]])) for i in range(len(states))]
    return [int(c) for c in label], reps, dist


def points_equivalent(utilities: Sequence[float]) -> float:
    """How many points per hand one unit of ``utilities`` is worth: the ratio of
    the points payoff's norm to this one's (both less their spoiled value)."""
    u = np.asarray(utilities, dtype=float) - float(utilities[6])
    return float(np.linalg.norm(POINTS_UTILITIES) / np.linalg.norm(u))


def write_classes(path: Path, k: int, threshold: float) -> dict[str, object]:
    """Classify the scores and write the class file the runtime reads."""
    label, reps, dist = score_classes(k, threshold)
    classes = []
    for c, (a, b) in enumerate(reps):
        members = [i for i, x in enumerate(label) if x == c]
        classes.append(
            {
                "file": TABLE_FILE if c == 0 else CLASS_FILE.format(c),
                "score": [a, b],
                "states": len(members),
                "utilities": list(POINTS_UTILITIES)
                if c == 0
                else [round(x, 6) for x in score_utilities(a, b)],
                "max_distance": round(max(dist[i] for i in members), 4),
            }
        )
    doc: dict[str, object] = {
        "target": TARGET,
        "scale": SCALE,
        "threshold": threshold,
        "classes": classes,
        "class": [label[a * TARGET : (a + 1) * TARGET] for a in range(TARGET)],
    }
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return doc


def solve_classes(
    tree: Tree,
    doc: dict[str, object],
    base: bytes,
    iterations: int,
    weight: float,
    which: list[int],
    out_dir: Path | None = None,
) -> None:
    """Solve each class in ``which`` (warm-started from the points table ``base``)
    and write its table next to the points table."""
    classes: list[dict[str, object]] = doc["classes"]  # type: ignore[assignment]
    if out_dir is None:
        out_dir = Path(__file__).resolve().parents[1] / "truc_p2p" / "bots"
    for c in which:
        spec = classes[c]
        started = time.perf_counter()
        cpu0 = time.process_time()
        utilities = spec["utilities"]  # type: ignore[index]
        solver = Solver(tree, vector_payoff(utilities, tree.ab))  # type: ignore[arg-type]
        solver.warm_start(base, weight)
        for it in range(1, iterations + 1):
            solver.iterate(it)
        quant = np.rint(solver.average()[:-1] * 255).astype(np.uint8).tobytes()
        value, b0, b1 = solver.exploitability(table_sigma(solver, quant))
        expl = (b0 + b1) / 2
        eq = points_equivalent(utilities)  # type: ignore[arg-type]
        _, c0, c1 = solver.exploitability(table_sigma(solver, base))
        header: dict[str, object] = {
            "max_raises": tree.ab.max_raises,
            "rest_points": tree.ab.rest_points,
            "entries": tree.entries,
            "class": c,
            "score": spec["score"],  # type: ignore[index]
            "utilities": utilities,
            "warm_weight": weight,
            "iterations": iterations,
            "value": round(value, 6),
            "exploitability": round(expl, 6),
            "exploitability_points": round(expl * eq, 6),
            "points_table_exploitability": round((c0 + c1) / 2, 6),
            "base": TABLE_FILE,
        }
        data = write_delta(out_dir / str(spec["file"]), header, quant, base)  # type: ignore[index]
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"class {c} at {spec['score']}: value {value:+.4f}, exploitability {expl:.4f} "  # type: ignore[index]
            f"(x{eq:.3f} = {expl * eq:.4f} points/hand; the points table: {(c0 + c1) / 2:.4f}); "
            f"{len(data):,} bytes; {time.perf_counter() - started:.0f} s wall, "
            f"{time.process_time() - cpu0:.0f} s CPU, peak {rss:.0f} MB",
            flush=True,
        )
        del solver


def write_delta(out: Path, header: dict[str, object], quant: bytes, base: bytes) -> bytes:
    """A class table: its bytes XOR the points table's, compressed (most entries agree)."""
    xor = (int.from_bytes(quant, "little") ^ int.from_bytes(base, "little")).to_bytes(
        len(quant), "little"
    )
    data = (
        DELTA_MAGIC
        + json.dumps(header, sort_keys=True).encode()
        + b"\n"
        + lzma.compress(xor, preset=9 | lzma.PRESET_EXTREME)
    )
    out.write_bytes(data)
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=120)
    parser.add_argument(
        "--report", type=int, default=60, help="print the exploitability every N iterations"
    )
    parser.add_argument("--max-raises", type=int, default=Abstraction().max_raises)
    parser.add_argument("--rest-points", type=int, default=Abstraction().rest_points)
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parents[1] / "truc_p2p" / "bots" / TABLE_FILE,
    )
    parser.add_argument(
        "--evaluate", type=Path, metavar="TABLE", help="only measure TABLE again (its header)"
    )
    parser.add_argument(
        "--classes", type=int, metavar="K", help="classify the scores into K classes, then stop"
    )
    parser.add_argument("--threshold", type=float, default=0.15, help="with --classes")
    parser.add_argument(
        "--solve-classes",
        metavar="LIST",
        help="solve these score classes (comma-separated, 'all') from the class file, "
        "warm-started from the points table; --iterations each",
    )
    parser.add_argument("--warm-weight", type=float, default=1.0)
    parser.add_argument(
        "--redeal",
        action="store_true",
        help="solve the tree with the redeal before the round (writes round_redeal.bin), "
        "warm-started from the points table, which also plays the redealt round",
    )
    parser.add_argument(
        "--robust-ask",
        action="store_true",
        help="the hands whose redeal request gains against any accepting dealer hand, "
        "and the redeal table's exploitability asking only with them (writes "
        "round_redeal_ask.json)",
    )
    parser.add_argument(
        "--out-dir", type=Path, help="with --solve-classes: write there (default: the package)"
    )
    args = parser.parse_args()
    bots_dir = Path(__file__).resolve().parents[1] / "truc_p2p" / "bots"
    if args.classes:
        doc = write_classes(bots_dir / CLASSES_FILE, args.classes, args.threshold)
        for c, spec in enumerate(doc["classes"]):  # type: ignore[arg-type]
            print(c, spec)
        return
    if args.solve_classes:
        doc = json.loads((bots_dir / CLASSES_FILE).read_text())
        n = len(doc["classes"])
        which = (
            sorted(range(1, n), key=lambda c: -doc["classes"][c]["states"])
            if args.solve_classes == "all"
            else [int(x) for x in args.solve_classes.split(",")]
        )
        raw = (bots_dir / TABLE_FILE).read_bytes()
        base = zlib.decompress(raw[len(MAGIC) :].partition(b"\n")[2])
        started = time.perf_counter()
        tree = build(Abstraction())
        print(f"tree built in {time.perf_counter() - started:.0f} s; classes {which}", flush=True)
        solve_classes(tree, doc, base, args.iterations, args.warm_weight, which, args.out_dir)
        return
    if args.evaluate:
        evaluate(args.evaluate)
        return
    if args.robust_ask:
        solve_robust(
            Abstraction(max_raises=args.max_raises, rest_points=args.rest_points),
            bots_dir,
            bots_dir / ASK_FILE if args.out == bots_dir / TABLE_FILE else args.out,
        )
        return
    if args.redeal:
        out = bots_dir / REDEAL_FILE if args.out == bots_dir / TABLE_FILE else args.out
        solve_redeal(
            Abstraction(max_raises=args.max_raises, rest_points=args.rest_points),
            bots_dir / TABLE_FILE,
            out,
            args.iterations,
            args.warm_weight,
            args.report,
        )
        return
    ab = Abstraction(max_raises=args.max_raises, rest_points=args.rest_points)
    started = time.perf_counter()
    cpu0 = time.process_time()
    tree = build(ab)
    solver = Solver(tree)
    decisions = int((tree.player >= 0).sum())
    print(
        f"tree: {tree.n:,} nodes ({decisions:,} decisions, {len(tree.ends):,} terminals), "
        f"{tree.entries:,} strategy entries ({int(solver.legal.sum()):,} legal), "
        f"{solver.cols[0] + solver.cols[1]:,} columns; "
        f"built in {time.perf_counter() - started:.1f} s",
        flush=True,
    )
    run_iterations(solver, args.iterations, args.report, started)
    quant = np.rint(solver.average()[:-1] * 255).astype(np.uint8).tobytes()
    data = write(args.out, solver, quant, iterations=args.iterations)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"wrote {args.out} ({len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()[:16]}); "
        f"{time.perf_counter() - started:.0f} s wall, "
        f"{time.process_time() - cpu0:.0f} s CPU, peak memory {rss:.0f} MB"
    )


def run_iterations(solver: Solver, iterations: int, report: int, started: float) -> None:
    """CFR+'s ``iterations``, printing the average's value and exploitability every
    ``report`` of them but the last (``started``: the run's ``perf_counter``)."""
    for it in range(1, iterations + 1):
        solver.iterate(it)
        if it % report == 0 and it < iterations:
            value, b0, b1 = solver.exploitability(solver.average())
            print(
                f"iteration {it}: value {value:+.4f}, exploitability "
                f"{(b0 + b1) / 2:.4f} points/hand ({time.perf_counter() - started:.0f} s)",
                flush=True,
            )


def solve_redeal(
    ab: Abstraction,
    base_path: Path,
    out: Path,
    iterations: int,
    weight: float,
    report: int,
) -> bytes:
    """Solve the round with the redeal before it and write its table (``--redeal``).

    The redealt round is played with the points table ``base_path`` (no second
    redeal is allowed, so its tree is the right continuation): its values per
    deal, then the redeal's payoff per pair of old hands (:func:`redeal_payoffs`).
    Both copies of the round start from the points table (:meth:`Solver.warm_start`).
    """
    started = time.perf_counter()
    cpu0 = time.process_time()
    raw = base_path.read_bytes()
    head, _, body = raw[len(MAGIC) :].partition(b"\n")
    base_header = json.loads(head)
    base = zlib.decompress(body)
    plain = Solver(build(ab))
    sigma = table_sigma(plain, base)
    no_redeal = plain.root_value(sigma)
    v = play_values(plain, sigma)
    del plain, sigma
    r = redeal_payoffs(ab, v)
    print(
        f"the redealt round's values: {time.perf_counter() - started:.0f} s "
        f"(the points table's value {no_redeal:+.4f})",
        flush=True,
    )
    tree = build(replace(ab, redeal=True))
    solver = Solver(tree, None, r)
    print(
        f"tree: {tree.n:,} nodes, {tree.entries:,} strategy entries; "
        f"{time.perf_counter() - started:.0f} s",
        flush=True,
    )
    solver.warm_start(redeal_start(tree, base), weight)
    run_iterations(solver, iterations, report, started)
    quant = np.rint(solver.average()[:-1] * 255).astype(np.uint8).tobytes()
    rates = redeal_rates(solver, table_sigma(solver, quant))
    extra: dict[str, object] = {
        "redeal": True,
        "warm_weight": weight,
        "base": TABLE_FILE,
        "base_sha256": hashlib.sha256(raw).hexdigest(),
        "value_no_redeal": round(no_redeal, 6),
        "exploitability_no_redeal": base_header.get("exploitability"),
        "ask_rate": round(rates["ask"], 6),
        "accept_rate": round(rates["accept"], 6),
        "fold_rate": round(rates["fold"], 6),
    }
    # Time and memory are printed, not written: the same command writes the same bytes.
    data = write(
        out, solver, quant, iterations=iterations, extra=extra, delta=redeal_start(tree, base)
    )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"asks {rates['ask']:.3f} of its deals; answered: accepts {rates['accept']:.3f}, "
        f"declines {rates['decline']:.3f}, folds {rates['fold']:.3f}",
        flush=True,
    )
    print(
        f"wrote {out} ({len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()[:16]}); "
        f"{time.perf_counter() - started:.0f} s wall, "
        f"{time.process_time() - cpu0:.0f} s CPU, peak memory {rss:.0f} MB"
    )
    return data


def robust_asks(v: np.ndarray, r: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """Seat 0's hands whose request gains against whatever hand the dealer
    accepts it with: ``R[h, g] - V[h, g] >= 0`` for every dealer hand ``g``
    possible beside ``h`` (``v``: the round's values per deal, ``r``: the
    redeal's, ``prior``: the deals' chances).  A mask over the pack's hands."""
    gain = np.where(prior > 0, r - v, np.inf)
    out: np.ndarray = gain.min(axis=1) >= 0
    return out


def robust_sigma(solver: Solver, sigma: np.ndarray, asks: np.ndarray) -> np.ndarray:
    """``sigma`` with seat 0's root rows played on (``p``) for every hand not in
    ``asks`` (the others keep their row)."""
    out = sigma.copy()
    at = int(solver.t.soff[0])
    n = len(asks)
    out[at : at + 2 * n : 2] = np.where(asks, sigma[at : at + 2 * n : 2], 1.0)
    out[at + 1 : at + 2 * n : 2] = np.where(asks, sigma[at + 1 : at + 2 * n : 2], 0.0)
    return out


def solve_robust(ab: Abstraction, bots_dir: Path, out: Path) -> dict[str, object]:
    """The robust asking rule (``--robust-ask``): :func:`robust_asks` over the
    points table's values, measured exactly on the redeal table with its other
    hands played on (:func:`robust_sigma`); writes the hands and figures to ``out``."""
    started = time.perf_counter()
    base = zlib.decompress((bots_dir / TABLE_FILE).read_bytes()[len(MAGIC) :].partition(b"\n")[2])
    plain = Solver(build(ab))
    v = play_values(plain, table_sigma(plain, base))
    prior = plain.pack.prior.copy()
    del plain
    r = redeal_payoffs(ab, v)
    asks = robust_asks(v, r, prior)
    hands = ab.hands()
    gain = np.where(prior > 0, r - v, np.inf).min(axis=1)
    print(f"values: {time.perf_counter() - started:.0f} s; {int(asks.sum())} hands ask", flush=True)
    for i in np.argsort(-gain):
        print(hands[i], f"{gain[i]:+.4f}", bool(asks[i]))
    redeal = RoundTable(
        (bots_dir / REDEAL_FILE).read_bytes(), redeal_base(base, len(hands))
    ).strategies
    tree = build(replace(ab, redeal=True))
    solver = Solver(tree, None, r)
    table = table_sigma(solver, redeal)
    figures: dict[str, object] = {"criterion": "R[h,g] - V[h,g] >= 0 for every dealer hand g"}
    for key, sigma in (("table", table), ("robust", robust_sigma(solver, table, asks))):
        value, b0, b1 = solver.exploitability(sigma)
        rates = redeal_rates(solver, sigma)
        figures[key] = {
            "value": round(value, 6),
            "exploitability": round((b0 + b1) / 2, 6),
            "br_non_dealer": round(b0, 6),
            "br_dealer": round(b1, 6),
            "ask_rate": round(rates["ask"], 6),
        }
        print(key, figures[key], f"{time.perf_counter() - started:.0f} s", flush=True)
    figures["hands"] = [list(hands[i]) for i in range(len(hands)) if asks[i]]
    out.write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n")
    return figures


def write(
    out: Path,
    solver: Solver,
    quant: bytes,
    *,
    iterations: int,
    extra: dict[str, object] | None = None,
    delta: bytes | None = None,
) -> bytes:
    """Measure the table ``quant`` (as shipped: one byte per entry) exactly and write it.

    The header says the abstraction, the tree's size, the game value and the
    exploitability of the table and of the table without "my rest" (as a
    racing bot plays it before a player has 6 points), in points per hand;
    ``extra`` adds to it.  With ``delta`` the table is written as its bytes XOR
    ``delta``'s (:func:`write_delta`; the redeal table against the points table).
    """
    t = solver.t
    ab = t.ab
    header: dict[str, object] = {
        "max_raises": ab.max_raises,
        "rest_points": ab.rest_points,
        "iterations": iterations,
        "entries": t.entries,
        "nodes": t.n,
        "decisions": int((t.player >= 0).sum()),
        **(extra or {}),
    }
    for key, drop in (("", ""), ("_no_rest", "s")):
        value, b0, b1 = solver.exploitability(table_sigma(solver, quant, drop=drop))
        header["value" + key] = round(value, 6)
        header["exploitability" + key] = round((b0 + b1) / 2, 6)
        print(
            f"table{key or ''}: value {value:+.4f} points/hand to the non-dealer; best responses "
            f"{b0:+.4f} (non-dealer), {b1:+.4f} (dealer): exploitability "
            f"{(b0 + b1) / 2:.4f} points/hand",
            flush=True,
        )
    if delta is not None:  # stored as its difference to ``delta`` (see write_delta)
        return write_delta(out, header, quant, delta)
    data = MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + zlib.compress(quant, 9)
    out.write_bytes(data)
    return data


def evaluate(path: Path) -> None:
    """Measure a table file again (``--evaluate``) and rewrite its header."""
    data = path.read_bytes()
    head, _, body = data[len(MAGIC) :].partition(b"\n")
    header = json.loads(head)
    if header.get("redeal"):
        raise SystemExit("--evaluate: a redeal table is measured when it is solved (--redeal)")
    ab = Abstraction(max_raises=int(header["max_raises"]), rest_points=int(header["rest_points"]))
    solver = Solver(build(ab))
    write(path, solver, zlib.decompress(body), iterations=int(header["iterations"]))


if __name__ == "__main__":
    main()
