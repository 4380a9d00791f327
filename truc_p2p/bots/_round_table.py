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
import zlib
from importlib import resources
from typing import Any, Final

from truc_p2p.bots._cfr_game import HANDS
from truc_p2p.bots._round_game import (
    ACCEPT,
    FOLD,
    RAISE,
    REFUSE,
    REST,
    Abstraction,
    End,
    State,
    locate,
    moves,
    root,
)
from truc_p2p.rules import Action, ActionKind, Player

__all__ = [
    "MAGIC",
    "TABLE_FILE",
    "RoundTable",
    "load_table",
    "round_path",
]

#: The table shipped in the package (built by ``tools/solve_round.py``).
TABLE_FILE: Final = "round_table.bin"
MAGIC: Final = b"TRUC-ROUND 1\n"

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
    """A decoded table: :meth:`strategy` of a position."""

    def __init__(self, data: bytes) -> None:
        if not data.startswith(MAGIC):
            raise ValueError("not a solved-round table")
        head, _, body = data[len(MAGIC) :].partition(b"\n")
        self.header: dict[str, Any] = json.loads(head)
        self.abstraction = Abstraction(
            max_raises=int(self.header["max_raises"]),
            rest_points=int(self.header["rest_points"]),
        )
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
        played = _played(path, seat)
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


def _played(path: str, seat: int) -> tuple[int, ...] | None:
    """The strengths ``seat`` played on ``path`` (seat 0 leads the first trick)."""
    out: list[int] = []
    node: State | None = root()
    ab = Abstraction(max_raises=99)  # any abstraction: who plays does not depend on it
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
