"""vectors/deck_v1.json (deck.md §12)."""

from __future__ import annotations

from typing import Any

from deck1 import DEALER, NONDEALER, Hand, N, Side, encodings, positions

FILE = "deck_v1.json"
INDENT = 1
GAME_ID = bytes(range(0x40, 0x60))
SEEDS = {DEALER: bytes(range(0x00, 0x20)), NONDEALER: bytes(range(0x20, 0x40))}


def _side(side: Side) -> dict[str, Any]:
    return {
        "seed": side.seed.hex(),
        "commitment": side.commitment.hex(),
        "global_key": f"{side.key:064x}",
        "card_keys": [f"{k:064x}" for k in side.card_keys],
        "permutation": side.perm,
    }


def _keys(side: Side, where: list[int]) -> dict[str, str]:
    return {str(p): side.key_bytes(p).hex() for p in where}


def _case(name: str, hand: int, redeal: bool) -> dict[str, Any]:
    a = Side(DEALER, SEEDS[DEALER], GAME_ID, hand)
    b = Side(NONDEALER, SEEDS[NONDEALER], GAME_ID, hand)
    deck = Hand(a, b)
    return {
        "name": name,
        "game_id": GAME_ID.hex(),
        "hand": hand,
        "dealer": _side(a),
        "nondealer": _side(b),
        "d1": [e.hex() for e in deck.d1],
        "d2": [e.hex() for e in deck.d2],
        "d3": [e.hex() for e in deck.d3],
        "d3_keys": _keys(a, positions(NONDEALER, False)),
        "d4": [e.hex() for e in deck.d4],
        "d4_keys": _keys(b, positions(DEALER, False)),
        "dealer_redeal_keys": _keys(a, positions(NONDEALER, True)) if redeal else {},
        "nondealer_redeal_keys": _keys(b, positions(DEALER, True)) if redeal else {},
        "dealer_shown": _keys(a, positions(DEALER, redeal)),
        "nondealer_shown": _keys(b, positions(NONDEALER, redeal)),
        "deal": deck.deal,
        "dealer_cards": {str(p): deck.card(p) for p in positions(DEALER, redeal)},
        "nondealer_cards": {str(p): deck.card(p) for p in positions(NONDEALER, redeal)},
    }


def build() -> dict[str, Any]:
    return {
        "schema": "schemas/deck_v1.schema.json",
        "format": "truc-p2p deck test vectors v1 (see protocol_spec/deck.md)",
        "curve": "P-256",
        "order": f"{N:064x}",
        "card_encodings": [
            {"card": i, "counter": c, "x": x.hex()} for i, (x, c) in enumerate(encodings())
        ],
        "cases": [
            _case("hand 0, all six cards shown", 0, False),
            _case("hand 3, redealt, redeal cards shown", 3, True),
        ],
        "n_cards": 32,
    }
