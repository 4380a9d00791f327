"""The solved round's table: its file, and the strategy of a position (stdlib only).

The table (``round_table.bin``, built by ``tools/solve_round.py``) holds the
average strategy of CFR+ on the whole round's public tree
(:mod:`truc_p2p.bots._round_game`): for every decision node, in depth-first
order, and every hand of the player to act that is still possible there (in
the order of :data:`~truc_p2p.bots._cfr_game.HANDS`), one byte per action
(the chance times 255).  A header line of JSON says which abstraction it was
solved for and its exploitability.
"""

from __future__ import annotations

import functools
import json
import lzma
import zlib
from importlib import resources
from typing import Any, Final

from truc_p2p.bots._cfr_game import HANDS
from truc_p2p.bots._round_game import (
    ACCEPT,
    ASK,
    DECLINE,
    FOLD,
    PLAY_ON,
    RAISE,
    REFUSE,
    REST,
    Abstraction,
    End,
    Node,
    locate,
    moves,
    root,
)
from truc_p2p.rules import Action, ActionKind, Player

__all__ = [
    "ASK_FILE",
    "CLASSES_FILE",
    "CLASS_FILE",
    "DELTA_MAGIC",
    "MAGIC",
    "REDEAL_FILE",
    "TABLE_FILE",
    "RoundTable",
    "load_class_table",
    "load_classes",
    "load_redeal_table",
    "load_robust_asks",
    "load_table",
    "redeal_base",
    "redeal_path",
    "round_path",
    "score_class",
    "table_for",
]

#: The table shipped in the package (built by ``tools/solve_round.py``).
TABLE_FILE: Final = "round_table.bin"
#: The table with the redeal before the round (``Abstraction.redeal``), points
#: payoff: stored as its bytes XOR :func:`redeal_base`'s (the points table twice).
REDEAL_FILE: Final = "round_redeal.bin"
#: The robust asking rule over the redeal table: the hands that ask (the
#: others play on) and its exact figures, written by ``solve_round.py --robust-ask``.
ASK_FILE: Final = "round_redeal_ask.json"
MAGIC: Final = b"TRUC-ROUND 1\n"
#: A score class's table (``round_score_<k>.bin``): its bytes XOR the points
#: table's, lzma-compressed.
DELTA_MAGIC: Final = b"TRUC-ROUND-DELTA 1\n"
CLASS_FILE: Final = "round_score_{}.bin"
#: The score classes (which table plays at which score), written by the solver.
CLASSES_FILE: Final = "round_classes.json"

_LETTERS: Final[dict[ActionKind, str]] = {
    ActionKind.RAISE: RAISE,
    ActionKind.REST: REST,
    ActionKind.ACCEPT: ACCEPT,
    ActionKind.REFUSE: REFUSE,
    ActionKind.FOLD: FOLD,
}


@functools.cache
def holding(played: tuple[int, ...]) -> tuple[int, ...]:
    """The indices in ``HANDS`` of the hands that hold the strengths ``played``."""
    out = []
    for i, hand in enumerate(HANDS):
        rest = list(hand)
        try:
            for s in played:
                rest.remove(s)
        except ValueError:
            continue
        out.append(i)
    return tuple(out)


class RoundTable:
    """A decoded table: :meth:`strategy` of a position.

    A score class's table (:data:`DELTA_MAGIC`) is stored as its bytes XOR
    ``base``'s strategies (the points table's): most entries agree, so the
    difference compresses to a fraction of a table.
    """

    def __init__(self, data: bytes, base: bytes | None = None) -> None:
        if data.startswith(MAGIC):
            head, _, body = data[len(MAGIC) :].partition(b"\n")
            delta = False
        elif data.startswith(DELTA_MAGIC) and base is not None:
            head, _, body = data[len(DELTA_MAGIC) :].partition(b"\n")
            delta = True
        else:
            raise ValueError("not a solved-round table")
        self.header: dict[str, Any] = json.loads(head)
        self.abstraction = Abstraction(
            max_raises=int(self.header["max_raises"]),
            rest_points=int(self.header["rest_points"]),
            redeal=bool(self.header.get("redeal", False)),
        )
        if delta:
            assert base is not None
            xor = lzma.decompress(body)
            if len(xor) != len(base):
                raise ValueError("the delta table does not fit its base")
            self.strategies = (
                int.from_bytes(xor, "little") ^ int.from_bytes(base, "little")
            ).to_bytes(len(base), "little")
        else:
            self.strategies = zlib.decompress(body)
        if len(self.strategies) != int(self.header["entries"]):
            raise ValueError("the table does not fit its header")

    @property
    def exploitability(self) -> float:
        """Points per hand a best response gains on the table (its header)."""
        return float(self.header["exploitability"])

    def strategy(self, path: str, hand: tuple[int, ...]) -> dict[str, float] | None:
        """The mixed strategy at ``path`` for the player to act holding ``hand``
        (the strengths of its three cards as dealt), or ``None`` when the
        position is not a decision of the tree or the hand cannot be there.

        Cards are the digits of their strengths; only legal actions are listed.
        """
        found = locate(path, self.abstraction)
        if found is None or isinstance(found, End):
            return None
        state, _, offset = found
        seat = state.to_act
        played = _played(path, seat, redeal=self.abstraction.redeal)
        if played is None:
            return None
        try:
            column = holding(played).index(HANDS.index(tuple(sorted(hand))))
        except ValueError:
            return None
        acts = moves(state, self.abstraction)
        base = offset + column * len(acts)
        row = self.strategies[base : base + len(acts)]
        rest = list(hand)
        for s in played:
            rest.remove(s)
        out = {}
        for (letter, _), weight in zip(acts, row, strict=True):
            if letter.isdigit() and int(letter) not in rest:
                continue
            out[letter] = weight / 255.0
        return out


def _played(path: str, seat: int, *, redeal: bool = False) -> tuple[int, ...] | None:
    """The strengths ``seat`` played on ``path`` (seat 0 leads the first trick)."""
    out: list[int] = []
    # Any ladder: who plays does not depend on it.
    ab = Abstraction(max_raises=99, redeal=redeal)
    node: Node | None = root(ab)
    for letter in path:
        if node is None:
            return None
        if letter.isdigit() and node.to_act == seat:
            out.append(int(letter))
        nxt = dict(moves(node, ab)).get(letter)
        node = None if nxt is None or isinstance(nxt, End) else nxt
    return tuple(sorted(out))


@functools.cache
def load_table() -> RoundTable | None:
    """The shipped table, or ``None`` if it is missing."""
    try:
        data = resources.files("truc_p2p.bots").joinpath(TABLE_FILE).read_bytes()
    except (FileNotFoundError, OSError):
        return None
    return RoundTable(data)


def redeal_base(points: bytes, hands: int = len(HANDS)) -> bytes:
    """The redeal tree's strategies made of the points table's ``points``: the
    root's rows (play on, ask) and the answer's (accept, decline, fold) even,
    both copies of the round the points table.  The solver starts from it and
    the redeal table is stored as its difference to it (about 6 % of the
    entries differ, so it compresses to under a third of the points table)."""
    return bytes([128, 127] * hands) + points + bytes([85, 85, 85] * hands) + points


@functools.cache
def load_redeal_table() -> RoundTable | None:
    """The table with the redeal (:data:`REDEAL_FILE`), loaded on first use, or
    ``None`` if it or the points table is missing."""
    base = load_table()
    try:
        data = resources.files("truc_p2p.bots").joinpath(REDEAL_FILE).read_bytes()
    except (FileNotFoundError, OSError):
        return None
    if base is None:
        return None
    return RoundTable(data, redeal_base(base.strategies))


@functools.cache
def load_robust_asks() -> frozenset[tuple[int, ...]] | None:
    """The hands (strengths, sorted) the non-dealer asks for a redeal with under
    the robust rule (:data:`ASK_FILE`), or ``None`` if the file is missing."""
    try:
        doc = json.loads(resources.files("truc_p2p.bots").joinpath(ASK_FILE).read_text())
    except (FileNotFoundError, OSError):
        return None
    return frozenset(tuple(sorted(int(x) for x in h)) for h in doc["hands"])


@functools.cache
def load_classes() -> dict[str, Any] | None:
    """The score classes (:data:`CLASSES_FILE`), or ``None`` if they are missing."""
    try:
        text = resources.files("truc_p2p.bots").joinpath(CLASSES_FILE).read_text()
    except (FileNotFoundError, OSError):
        return None
    doc: dict[str, Any] = json.loads(text)
    return doc


def score_class(mine: int, theirs: int, *, i_deal: bool) -> int:
    """The score class of a round about to be played at ``mine`` to ``theirs``
    (0: the points table), by the solver's states: (the non-dealer's points,
    the dealer's)."""
    doc = load_classes()
    if doc is None:
        return 0
    target = int(doc["target"])
    a, b = (theirs, mine) if i_deal else (mine, theirs)
    if not (0 <= a < target and 0 <= b < target):
        return 0
    return int(doc["class"][a][b])


@functools.cache
def load_class_table(index: int) -> RoundTable | None:
    """The table of score class ``index`` (loaded on first use; class 0 and a
    missing class file are the points table)."""
    base = load_table()
    doc = load_classes()
    if index == 0 or doc is None or base is None:
        return base
    name = str(doc["classes"][index]["file"])
    try:
        data = resources.files("truc_p2p.bots").joinpath(name).read_bytes()
    except (FileNotFoundError, OSError):
        return base
    return RoundTable(data, base.strategies)


def table_for(scores: tuple[int, int], seat: int, dealer: int, target: int) -> RoundTable | None:
    """The table for the player ``seat`` at ``scores`` (indexed by seat) when
    ``dealer`` deals: its score class's, for the target the classes were
    solved for, else the points table."""
    doc = load_classes()
    if doc is None or target != int(doc["target"]):
        return load_table()
    mine, theirs = scores[seat], scores[1 - seat]
    return load_class_table(score_class(mine, theirs, i_deal=seat == dealer))


def round_path(deal_actions: list[tuple[Player, Action]], dealer: Player) -> str | None:
    """The tree's path for the actions since the cards in play were dealt, or
    ``None`` if they leave the tree's letters (a redeal request answered
    *no* at the start is skipped: play goes on as if none had been made)."""
    actions = list(deal_actions)
    if actions and actions[0][1].kind is ActionKind.ASK_REDEAL:
        if len(actions) < 2 or actions[1][1].kind is not ActionKind.DECLINE_REDEAL:
            return None
        actions = actions[2:]
    path = ""
    for _, action in actions:
        if action.card is not None:
            path += str(action.card.strength)
            continue
        letter = _LETTERS.get(action.kind)
        if letter is None:
            return None
        path += letter
    return path


def redeal_path(deal_actions: list[tuple[Player, Action]], dealer: Player) -> str | None:
    """The path in the redeal table's tree (:data:`REDEAL_FILE`) of a round whose
    cards were not redealt: ``p`` then the round's path if the non-dealer played
    on, ``d`` and the dealer's answer if it asked (declined: ``dx`` then the
    round's path), ``""`` before anything; ``None`` outside the tree's letters
    (an accepted redeal: the redealt round is the points table's)."""
    actions = list(deal_actions)
    if not actions:
        return ""
    if actions[0][1].kind is not ActionKind.ASK_REDEAL:
        rest = round_path(actions, dealer)
        return None if rest is None else PLAY_ON + rest
    if len(actions) == 1:
        return ASK
    if actions[1][1].kind is not ActionKind.DECLINE_REDEAL:
        return None
    rest = round_path(actions[2:], dealer)
    return None if rest is None else ASK + DECLINE + rest
