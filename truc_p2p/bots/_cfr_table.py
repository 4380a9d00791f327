"""The CFR bot's table: its layout, its file and the opening's positions in it.

The table (``cfr_opening.bin``, built by ``tools/train_cfr.py``) holds, for
every score, role and decision node of the two opening trees of
:mod:`truc_p2p.bots._cfr_game` (no redeal, redeal), the equilibrium's mixed
strategy for each of the 120 hands, one byte per action.  This module encodes
and decodes it, reads a strategy from it, and maps a game's actions since the
deal to a node's path (:func:`opening_position`).
"""

from __future__ import annotations

import functools
import json
import zlib
from importlib import resources
from typing import Final

from truc_p2p.bots._cfr_game import (
    ACCEPT,
    CHECK,
    DEALER,
    FOLD,
    HAND_INDEX,
    HANDS,
    LEADER,
    RAISE,
    REDEAL,
    REFUSE,
    REST,
    Node,
    build_tree,
)
from truc_p2p.rules import Action, ActionKind, Game, Player

__all__ = [
    "DECLINED_IS_FRESH",
    "TABLE_FILE",
    "decode_table",
    "encode_table",
    "opening_letter",
    "opening_path",
    "opening_position",
    "opening_strategy",
]

#: The table shipped in the package (built by ``tools/train_cfr.py``).
TABLE_FILE: Final = "cfr_opening.bin"
_MAGIC: Final = b"TRUC-CFR-OPENING 1\n"
#: After a declined redeal request, play on as if none had been made: the
#: equilibrium asks for a redeal with weak hands only, but an opponent that
#: asks with any hand (``redeal-spam``) would then be read as weak.
DECLINED_IS_FRESH = True


def _layout() -> tuple[list[list[Node]], list[list[int]], int]:
    """The two trees (no redeal, redeal), each decision node's byte offset
    within a score's block, and the block's size."""
    trees = [build_tree(False), build_tree(True)]
    offsets: list[list[int]] = []
    size = 0
    for nodes in trees:
        offs = [-1] * len(nodes)
        for i, node in enumerate(nodes):
            if node.player >= 0:
                offs[i] = size
                size += len(HANDS) * len(node.actions)
        offsets.append(offs)
    return trees, offsets, size


_TREES, _OFFSETS, _BLOCK = _layout()
_PATHS: Final = [{n.path: i for i, n in enumerate(nodes)} for nodes in _TREES]


def encode_table(
    strategies: bytes,
    *,
    target: int,
    iterations: int,
    edge: float,
    tremble: float,
    game_ends: float,
) -> bytes:
    """The table file: a header line, a JSON description, then the zlib'd strategies.

    The strategies are, for each score (leader's, dealer's) and each seat of
    the bot (leader, dealer), the block of :func:`_layout`.
    """
    if len(strategies) != target * target * 2 * _BLOCK:
        raise ValueError("the strategies do not fit the layout")
    header = {
        "target": target,
        "iterations": iterations,
        "edge": edge,
        "game_ends": game_ends,
        "tremble": tremble,
        "hands": len(HANDS),
        "block": _BLOCK,
    }
    return (
        _MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + zlib.compress(strategies, 9)
    )


def decode_table(data: bytes) -> tuple[dict[str, float], bytes]:
    """``(header, strategies)`` of a table file."""
    if not data.startswith(_MAGIC):
        raise ValueError("not a CFR opening table")
    head, _, body = data[len(_MAGIC) :].partition(b"\n")
    header = json.loads(head)
    strategies = zlib.decompress(body)
    target = int(header["target"])
    if header["block"] != _BLOCK or len(strategies) != target * target * 2 * _BLOCK:
        raise ValueError("the table does not fit this version's opening tree")
    return header, strategies


@functools.cache
def _table() -> tuple[int, bytes] | None:
    """``(target, strategies)`` of the shipped table, or ``None`` if it is missing."""
    try:
        data = resources.files("truc_p2p.bots").joinpath(TABLE_FILE).read_bytes()
    except (FileNotFoundError, OSError):
        return None
    header, strategies = decode_table(data)
    return int(header["target"]), strategies


def opening_strategy(
    scores: tuple[int, int], role: int, redeal: bool, path: str, hand: tuple[int, ...]
) -> dict[str, float] | None:
    """The table's mixed strategy at an opening node, or ``None`` if it has none.

    ``scores`` are (leader's, dealer's); ``role`` the bot's seat (leader or
    dealer); ``redeal``: the round still allows a redeal (nobody accepted
    one); ``path`` the opening's public actions.
    """
    table = _table()
    if table is None:
        return None
    target, strategies = table
    a, b = scores
    if not (0 <= a < target and 0 <= b < target):
        return None
    tree = int(redeal)
    i = _PATHS[tree].get(path)
    if i is None:
        return None
    node = _TREES[tree][i]
    if node.player < 0:
        return None
    k = len(node.actions)
    base = (
        ((a * target + b) * 2 + role) * _BLOCK
        + _OFFSETS[tree][i]
        + HAND_INDEX[tuple(sorted(hand))] * k
    )
    row = strategies[base : base + k]
    return {act: row[j] / 255.0 for j, act in enumerate(node.actions)}


class _Outside(Exception):
    """The position is not in the opening model."""


def opening_path(deal_actions: list[tuple[Player, Action]], leader: Player) -> str:
    """The opening model's path for the actions since the cards in play were dealt.

    Raises :class:`_Outside` when the round has gone past the opening (the
    dealer played a card) or the history does not fit the model.
    """
    path = _opening_prefix(deal_actions, leader)
    if len(path) < len(deal_actions):
        raise _Outside
    return path


def _opening_prefix(deal_actions: list[tuple[Player, Action]], leader: Player) -> str:
    """The path of the longest start of ``deal_actions`` inside the opening model."""
    path = ""
    for player, action in deal_actions:
        if action.card is not None:
            if player is not leader:
                break
            path += str(action.card.strength)
            continue
        letter = _LETTERS.get(action.kind)
        if letter is None:
            break
        path += letter
    return path


_LETTERS: Final[dict[ActionKind, str]] = {
    ActionKind.ASK_REDEAL: REDEAL,
    ActionKind.DECLINE_REDEAL: REFUSE,
    ActionKind.RAISE: RAISE,
    ActionKind.REST: REST,
    ActionKind.ACCEPT: ACCEPT,
    ActionKind.REFUSE: REFUSE,
    ActionKind.FOLD: FOLD,
}


def _locate(path: str, redealt: bool) -> tuple[int, str]:
    """``(tree, path)`` to look the position up at: the tree without a redeal
    once one was accepted; and a declined redeal request is taken to say
    nothing about the leader's cards (:data:`DECLINED_IS_FRESH`)."""
    if redealt:
        return 0, path
    if DECLINED_IS_FRESH and path.startswith(REDEAL + REFUSE):
        return 0, path[2:]
    return 1, path


def opening_position(
    game: Game, deal_actions: list[tuple[Player, Action]]
) -> tuple[tuple[int, int], int, int, str] | None:
    """Where the player to act in ``game`` stands in the opening model, or ``None``.

    ``deal_actions`` are the actions since the cards in play were dealt.  The
    result is ``(scores, role, tree, path)``: the scores (leader's, dealer's),
    the player's seat in the opening (leader or dealer), the tree (1 while a
    redeal is possible) and the node's path, as :func:`opening_strategy`
    takes them.
    """
    me = game.to_act
    if me is None:
        return None
    history = game.history
    before = len(history) - len(deal_actions) - 1
    redealt = before >= 0 and history[before][1].kind is ActionKind.ACCEPT_REDEAL
    leader = game.dealer.other
    try:
        path = opening_path(deal_actions, leader)
    except _Outside:
        return None
    tree, path = _locate(path, redealt)
    i = _PATHS[tree].get(path)
    role = LEADER if me is leader else DEALER
    if i is None or _TREES[tree][i].player != role:
        return None
    a, b = game.scores
    return ((a, b) if leader is Player.P0 else (b, a)), role, tree, path


def opening_letter(action: Action, role: int) -> str | None:
    """The opening model's letter for ``action`` taken in ``role`` (``None``
    if the model has none): the leader's card is its strength's digit, the
    dealer's card is :data:`CHECK`."""
    if action.card is not None:
        return str(action.card.strength) if role == LEADER else CHECK
    if action.kind is ActionKind.ACCEPT_REDEAL:
        return ACCEPT
    return _LETTERS.get(action.kind)
