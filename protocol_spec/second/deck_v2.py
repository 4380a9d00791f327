"""vectors/deck_v2.json (deck_v2.md §12)."""

from __future__ import annotations

from typing import Any

from deck2 import (
    DEALER,
    NONDEALER,
    STEP_D3,
    STEP_REDEAL,
    STEP_SHOW,
    Side,
    cards,
    generators,
    open_card,
    positions,
)
from ec import enc, mul, perm

FILE = "deck_v2.json"
INDENT = 1
GAME_ID = bytes(range(0x40, 0x60))
CONTEXT = bytes(range(0x60, 0x80))
SEEDS = {DEALER: bytes(range(0x00, 0x20)), NONDEALER: bytes(range(0x20, 0x40))}
NAMES = {DEALER: "dealer", NONDEALER: "nondealer"}


def _hex(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list):
        return [_hex(v) for v in value]
    if isinstance(value, dict):
        return {k: _hex(v) for k, v in value.items()}
    return value


def _secrets(side: Side) -> dict[str, Any]:
    data = side.t0 if side.role == NONDEALER else side.t1
    count = 32 if side.role == NONDEALER else 64
    return {
        "seed": SEEDS[side.role].hex(),
        "derivation_key": side.key.hex(),
        "x": f"{side.x:064x}",
        "key": enc(side.y).hex(),
        "permutation": perm(side.key, data),
        "masks": [f"{side.scalar(b'mask', data, i):064x}" for i in range(count)],
    }


def _case(title: str, hand: int, redeal: bool) -> dict[str, Any]:
    a = Side(DEALER, SEEDS[DEALER], GAME_ID, hand, CONTEXT)
    b = Side(NONDEALER, SEEDS[NONDEALER], GAME_ID, hand, CONTEXT)
    d1 = b.d1()
    d2 = a.d2(d1)
    b.receive_d2(d1, d2)
    d3 = {"shares": [b.share(STEP_D3, p) for p in positions(DEALER, False)]}
    deck = a.deck

    def own(side: Side, pos: int) -> bytes:
        return enc(mul(side.layer(pos), side.x))

    # the other side's shares of each side's first-deal positions
    given = dict(zip(positions(NONDEALER, False), d2["shares"], strict=True))
    given.update(zip(positions(DEALER, False), d3["shares"], strict=True))
    case: dict[str, Any] = {"title": title, "hand": hand}
    if redeal:
        dealer_redeal = [a.share(STEP_REDEAL, p) for p in positions(NONDEALER, True)]
        nondealer_redeal = [b.share(STEP_REDEAL, p) for p in positions(DEALER, True)]
        case["dealer_redeal"] = _hex(dealer_redeal)
        case["nondealer_redeal"] = _hex(nondealer_redeal)
        given.update(zip(positions(NONDEALER, True), dealer_redeal, strict=True))
        given.update(zip(positions(DEALER, True), nondealer_redeal, strict=True))

    def held(side: Side, second: bool) -> dict[str, int]:
        return {
            str(p): open_card(deck, p, *sorted_shares(side, p, own(side, p)))
            for p in positions(side.role, second)
        }

    def sorted_shares(side: Side, pos: int, mine: bytes) -> tuple[bytes, bytes]:
        return (mine, given[pos]) if side.role == DEALER else (given[pos], mine)

    hands = {"nondealer": held(b, False), "dealer": held(a, False)}
    if redeal:
        hands["nondealer_redeal"] = held(b, True)
        hands["dealer_redeal"] = held(a, True)
    shows = []
    shown: dict[int, dict[str, int]] = {DEALER: {}, NONDEALER: {}}
    for pa, pb in zip(positions(DEALER, redeal), positions(NONDEALER, redeal), strict=True):
        for side, pos in ((b, pb), (a, pa)):
            sent = side.share(STEP_SHOW, pos)
            card = open_card(deck, pos, *sorted_shares(side, pos, sent))
            shows.append({"role": NAMES[side.role], "pos": pos, "share": sent.hex(), "card": card})
            shown[side.role][str(pos)] = card
    checked = ["D1", "D2", "D3"]
    if redeal:
        checked += ["redeal dealer", "redeal nondealer"]
    for role in (DEALER, NONDEALER):
        checked += [f"show {NAMES[role]} {p}" for p in positions(role, redeal)]
    case.update(
        {
            "t0": a.t0.hex(),
            "t1": a.t1.hex(),
            "t2": a.t2.hex(),
            "nondealer": _secrets(b),
            "dealer": _secrets(a),
            "d1": _hex(d1),
            "d2": _hex(d2),
            "d3": _hex(d3),
            "shows": shows,
            "cards": hands,
            "report": {
                "deck": "v2",
                "hidden_cards_revealed": 0,
                "redeal": redeal,
                "shown": {"dealer": shown[DEALER], "nondealer": shown[NONDEALER]},
                "checked": checked,
            },
        }
    )
    return case


def build() -> dict[str, Any]:
    hs, h = generators()
    return {
        "schema": "schemas/deck_v2.schema.json",
        "version": "deck v2",
        "spec": "protocol_spec/deck_v2.md",
        "group": "secp256k1",
        "game_id": GAME_ID.hex(),
        "context": CONTEXT.hex(),
        "cards": [
            {"index": i, "counter": c, "point": enc(p).hex()} for i, (p, c) in enumerate(cards())
        ],
        "generators": [enc(g).hex() for g in hs],
        "chain_base": enc(h).hex(),
        "cases": [
            _case("hand 0, all six cards shown", 0, False),
            _case("hand 3, redealt, redeal cards shown", 3, True),
        ],
    }
