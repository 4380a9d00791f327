"""Test vectors for ``protocol_spec/vectors/deck_v1.json``.

Regenerate the file with::

    python -c "from truc_p2p.deck.legacy_v1._vectors import render; \
        open('protocol_spec/vectors/deck_v1.json', 'w').write(render())"

``tests/deck/test_deck_vectors.py`` checks it against this module and against
an independent re-implementation of the spec.  (No I/O here: the deck layer
stays pure.)
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from truc_p2p.deck._schedule import N_CARDS, Role, positions
from truc_p2p.deck.legacy_v1 import _group
from truc_p2p.deck.legacy_v1._encoding import CARD_TAG, card_encodings
from truc_p2p.deck.legacy_v1._secrets import derive_secrets
from truc_p2p.deck.legacy_v1._steps import DeckSide

__all__ = ["CASES", "build", "render"]

_GAME_ID = bytes(range(0x40, 0x60))
_DEALER_SEED = bytes(range(0x00, 0x20))
_NONDEALER_SEED = bytes(range(0x20, 0x40))

CASES: tuple[tuple[str, int, bool], ...] = (
    ("hand 0, all six cards shown", 0, False),
    ("hand 3, redealt, redeal cards shown", 3, True),
)


def _hexes(values: tuple[bytes, ...] | list[bytes]) -> list[str]:
    return [v.hex() for v in values]


def _keys(mapping: dict[int, bytes]) -> dict[str, str]:
    return {str(p): k.hex() for p, k in sorted(mapping.items())}


def _counter(card: int) -> int:
    x = card_encodings()[card]
    counter = 0
    while hashlib.sha256(CARD_TAG + bytes([card]) + counter.to_bytes(4, "big")).digest() != x:
        counter += 1
    return counter


def _case(name: str, hand: int, redeal: bool) -> dict[str, Any]:
    a = DeckSide(Role.DEALER, _DEALER_SEED, game_id=_GAME_ID, hand=hand)
    b = DeckSide(Role.NONDEALER, _NONDEALER_SEED, game_id=_GAME_ID, hand=hand)
    d1 = a.d1()
    d2 = b.receive_d1(d1, a.commitment)
    d3, k3 = a.receive_d2(d2, b.commitment)
    d4, k4 = b.receive_d3(d3, k3)
    a.receive_d4(d4, k4)
    if redeal:
        b.receive_redeal_keys(a.redeal_keys())
        a.receive_redeal_keys(b.redeal_keys())
    for dp, np_ in zip(
        positions(Role.DEALER, redeal), positions(Role.NONDEALER, redeal), strict=True
    ):
        b.receive_show(dp, a.show(dp))
        a.receive_show(np_, b.show(np_))
    report = a.audit(b.seed)
    record = a.record()
    out: dict[str, Any] = {"name": name, "game_id": _GAME_ID.hex(), "hand": hand}
    for role, side in ((Role.DEALER, a), (Role.NONDEALER, b)):
        s = derive_secrets(side.seed, game_id=_GAME_ID, hand=hand, role=role)
        out[role.value] = {
            "seed": side.seed.hex(),
            "commitment": side.commitment.hex(),
            "global_key": _group.scalar_bytes(s.global_key).hex(),
            "card_keys": [_group.scalar_bytes(k).hex() for k in s.card_keys],
            "permutation": list(s.permutation),
        }
    out.update(
        {
            "d1": _hexes(record.d1),
            "d2": _hexes(record.d2),
            "d3": _hexes(record.d3),
            "d3_keys": _keys(dict(record.d3_keys)),
            "d4": _hexes(record.d4),
            "d4_keys": _keys(dict(record.d4_keys)),
            "dealer_redeal_keys": _keys(dict(record.dealer_redeal_keys)),
            "nondealer_redeal_keys": _keys(dict(record.nondealer_redeal_keys)),
            "dealer_shown": _keys(dict(record.dealer_shown)),
            "nondealer_shown": _keys(dict(record.nondealer_shown)),
            "deal": list(report.deal),
            "dealer_cards": {str(p): c for p, c in a.my_cards(redeal).items()},
            "nondealer_cards": {str(p): c for p, c in b.my_cards(redeal).items()},
        }
    )
    return out


def build() -> dict[str, Any]:
    """The whole vector file as a JSON-ready dict."""
    return {
        "schema": "schemas/deck_v1.schema.json",
        "format": "truc-p2p deck test vectors v1 (see protocol_spec/deck.md)",
        "curve": "P-256",
        "order": f"{_group.ORDER:064x}",
        "card_encodings": [
            {"card": i, "counter": _counter(i), "x": x.hex()}
            for i, x in enumerate(card_encodings())
        ],
        "cases": [_case(*case) for case in CASES],
        "n_cards": N_CARDS,
    }


def render() -> str:
    """The vector file's text."""
    return json.dumps(build(), indent=1) + "\n"
