"""Generate ``protocol_spec/vectors/deck_v2.json`` (deck v2 test vectors).

    python protocol_spec/deck_v2_vectors.py          # rewrite the file
    python protocol_spec/deck_v2_vectors.py --check  # exit 1 if it is out of date

Two hands with fixed seeds, game id and context: hand 0 with all six cards
shown, and hand 3 redealt with the redeal cards shown.  Each case lists every
message as sent (hex), the secrets each side derives from its seed (so another
implementation can check its derivation step by step) and the cards opened.
``tests/deck/test_deck_v2_vectors.py`` checks the file against this script and
against an independent implementation written in the test.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from truc_p2p.deck import DeckSideV2, Role, positions, verify_hand_v2
from truc_p2p.deck.v2._derive import (
    derived_permutation,
    derived_scalar,
    digest,
    hand_digest,
    side_key,
)
from truc_p2p.deck.v2._ec import encode, gmul
from truc_p2p.deck.v2._points import card_counters, card_points, generators

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "vectors" / "deck_v2.json"

GAME_ID = bytes(range(0x40, 0x60))
CONTEXT = bytes(range(0x60, 0x80))
DEALER_SEED = bytes(range(0x00, 0x20))
NONDEALER_SEED = bytes(range(0x20, 0x40))
CASES: tuple[tuple[str, int, bool], ...] = (
    ("hand 0, all six cards shown", 0, False),
    ("hand 3, redealt, redeal cards shown", 3, True),
)


def _hex(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list | tuple):
        return [_hex(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _hex(v) for k, v in value.items()}
    return value


def _secrets(role: Role, seed: bytes, hand: int, t1: bytes) -> dict[str, Any]:
    t0 = hand_digest(GAME_ID, hand, CONTEXT)
    key = side_key(seed, t0, role.wire_byte)
    x = derived_scalar(key, b"key", b"", 0)
    data = t0 if role is Role.NONDEALER else t1
    count = 32 if role is Role.NONDEALER else 64
    point = gmul(x)
    assert point is not None
    return {
        "seed": seed.hex(),
        "derivation_key": key.hex(),
        "x": f"{x:064x}",
        "key": encode(point).hex(),
        "permutation": list(derived_permutation(key, data, 32)),
        "masks": [f"{derived_scalar(key, b'mask', data, i):064x}" for i in range(count)],
    }


def _case(title: str, hand: int, redeal: bool) -> dict[str, Any]:
    a = DeckSideV2(Role.DEALER, DEALER_SEED, game_id=GAME_ID, hand=hand, context=CONTEXT)
    b = DeckSideV2(Role.NONDEALER, NONDEALER_SEED, game_id=GAME_ID, hand=hand, context=CONTEXT)
    d1 = b.d1()
    d2 = a.receive_d1(d1)
    d3 = b.receive_d2(d2)
    a.receive_d3(d3)
    case: dict[str, Any] = {"title": title, "hand": hand}
    cards = {"nondealer": b.my_cards(), "dealer": a.my_cards()}
    if redeal:
        dealer_redeal = a.redeal_shares()
        b.receive_redeal_shares(dealer_redeal)
        nondealer_redeal = b.redeal_shares()
        a.receive_redeal_shares(nondealer_redeal)
        case["dealer_redeal"] = _hex(dealer_redeal)
        case["nondealer_redeal"] = _hex(nondealer_redeal)
        cards["nondealer_redeal"] = b.my_cards(redeal=True)
        cards["dealer_redeal"] = a.my_cards(redeal=True)
    shows = []
    for pa, pb in zip(
        positions(Role.DEALER, redeal), positions(Role.NONDEALER, redeal), strict=True
    ):
        share = b.show(pb)
        shows.append(
            {
                "role": "nondealer",
                "pos": pb,
                "share": share.hex(),
                "card": a.receive_show(pb, share),
            }
        )
        share = a.show(pa)
        shows.append(
            {"role": "dealer", "pos": pa, "share": share.hex(), "card": b.receive_show(pa, share)}
        )
    report = verify_hand_v2(a.record())
    assert report == verify_hand_v2(b.record())
    t0 = hand_digest(GAME_ID, hand, CONTEXT)
    t1 = digest(b"T1", t0, d1["key"], d1["pok"], b"".join(d1["deck"]), d1["proof"])
    t2 = digest(b"T2", t1, d2["key"], d2["pok"], b"".join(d2["deck"]), d2["proof"])
    case.update(
        {
            "t0": t0.hex(),
            "t1": t1.hex(),
            "t2": t2.hex(),
            "nondealer": _secrets(Role.NONDEALER, NONDEALER_SEED, hand, t1),
            "dealer": _secrets(Role.DEALER, DEALER_SEED, hand, t1),
            "d1": _hex(d1),
            "d2": _hex(d2),
            "d3": _hex(d3),
            "shows": shows,
            "cards": {k: {str(p): c for p, c in v.items()} for k, v in cards.items()},
            "report": report.to_dict(),
        }
    )
    case["report"]["shown"] = {
        r: {str(p): c for p, c in s.items()} for r, s in case["report"]["shown"].items()
    }
    return case


def build() -> dict[str, Any]:
    """The whole vector file as a JSON-able object."""
    hs, h = generators()
    return {
        "schema": "schemas/deck_v2.schema.json",
        "version": "deck v2",
        "spec": "protocol_spec/deck_v2.md",
        "group": "secp256k1",
        "game_id": GAME_ID.hex(),
        "context": CONTEXT.hex(),
        "cards": [
            {"index": i, "counter": c, "point": encode(p).hex()}
            for i, (p, c) in enumerate(zip(card_points(), card_counters(), strict=True))
        ],
        "generators": [encode(g).hex() for g in hs],
        "chain_base": encode(h).hex(),
        "cases": [_case(*c) for c in CASES],
    }


def render() -> str:
    """The file's exact text."""
    return json.dumps(build(), indent=1) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not VECTORS.exists() or VECTORS.read_text() != text:
            print(f"{VECTORS} is out of date: run python {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    VECTORS.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
