"""Deck v2 discloses nothing but the shown cards.

No seed, no key share secret, no mask and no second share of an unshown
position is in any message; from the messages alone (as a transcript reader,
or the opponent with its own key) no unshown card can be opened.
"""

from __future__ import annotations

import contextlib
from itertools import product
from typing import Any

from helpers.deck_v2 import DEALER_SEED, NONDEALER_SEED, honest_deal

from truc_p2p.crypto import Point
from truc_p2p.deck import Role, positions, verify_hand_v2
from truc_p2p.deck.v2 import _ec as ec
from truc_p2p.deck.v2._derive import derived_scalar, hand_digest, side_key
from truc_p2p.deck.v2._points import card_lookup


def _blobs(value: Any) -> list[bytes]:
    if isinstance(value, bytes):
        return [value]
    if isinstance(value, dict):
        return [b for v in value.values() for b in _blobs(v)]
    if isinstance(value, list | tuple):
        return [b for v in value for b in _blobs(v)]
    return []


def _points(blobs: list[bytes]) -> list[Point]:
    """Every 33-byte window at a multiple of 33 that decodes: all points in the messages."""
    out = []
    for blob in blobs:
        for off in range(0, len(blob) - 32, 33):
            with contextlib.suppress(ValueError):
                out.append(ec.decode(blob[off : off + 33]))
    return out


def test_no_secret_is_in_any_message() -> None:
    deal = honest_deal()
    deal.a.receive_show(0, deal.b.show(0))  # the non-dealer shows one card, then folds
    rec = deal.a.record()
    data = b"".join(_blobs([rec.d1, rec.d2, rec.d3, dict(rec.nondealer_shown)]))
    from helpers.deck_v2 import CONTEXT, GAME_ID

    t0 = hand_digest(GAME_ID, 0, CONTEXT)
    for role, seed in ((Role.DEALER, DEALER_SEED), (Role.NONDEALER, NONDEALER_SEED)):
        key = side_key(seed, t0, role.wire_byte)
        assert seed not in data and key not in data
        x = derived_scalar(key, b"key", b"", 0)
        assert ec.scalar_bytes(x) not in data and ec.scalar_bytes(ec.ORDER - x) not in data


def test_unshown_cards_cannot_be_opened_from_the_messages() -> None:
    """For each dealt position, subtract every pair of points that appears anywhere in the
    messages from its card component: only the shown position yields a card."""
    deal = honest_deal()
    deal.a.receive_show(2, deal.b.show(2))
    rec = deal.b.record()
    pts = _points(_blobs([rec.d1, rec.d2, rec.d3, dict(rec.nondealer_shown)]))
    # keep it fast: the shares and layers only (the 97-byte shares and the D2 entries)
    shares = [ec.decode(s[:33]) for s in [*rec.d2["shares"], *rec.d3["shares"]]]  # type: ignore[index]
    shares.append(ec.decode(rec.nondealer_shown[2][:33]))
    assert all(any(ec.encode(s) == ec.encode(p) for p in pts) for s in shares)
    d2 = [[ec.decode(e[k : k + 33]) for k in (0, 33, 66)] for e in rec.d2["deck"]]  # type: ignore[index]
    lookup = card_lookup()
    opened = {}
    for pos in range(12):
        cands = [*shares, *d2[pos][:2]]
        for s1, s2 in product(cands, repeat=2):
            if s1 is s2:
                continue
            m = ec.add([d2[pos][2], ec.neg(s1), ec.neg(s2)])
            if ec.encode(m) in lookup:
                opened[pos] = lookup[ec.encode(m)]
    assert opened == {2: deal.b.my_cards()[2]}
    rep = verify_hand_v2(rec)
    assert rep.opened == opened and rep.hidden_cards_revealed == 0


def test_each_player_learns_only_its_own_cards_from_the_deal() -> None:
    """With its own key the dealer opens exactly 1, 3, 5; the non-dealer exactly 0, 2, 4."""
    deal = honest_deal()
    rec = deal.a.record()
    d2 = [[ec.decode(e[k : k + 33]) for k in (0, 33, 66)] for e in rec.d2["deck"]]  # type: ignore[index]
    received = {
        Role.NONDEALER: dict(zip(positions(Role.NONDEALER), rec.d2["shares"], strict=True)),  # type: ignore[index]
        Role.DEALER: dict(zip(positions(Role.DEALER), rec.d3["shares"], strict=True)),  # type: ignore[index]
    }
    from helpers.deck_v2 import CONTEXT, GAME_ID

    t0 = hand_digest(GAME_ID, 0, CONTEXT)
    for role, seed in ((Role.DEALER, DEALER_SEED), (Role.NONDEALER, NONDEALER_SEED)):
        x = derived_scalar(side_key(seed, t0, role.wire_byte), b"key", b"", 0)
        layer = 1 if role is Role.DEALER else 0
        can_open = set()
        for pos in range(32):
            own = ec.mul(d2[pos][layer], x)
            for share in received[role].values():
                m = ec.add([d2[pos][2], ec.neg(own), ec.neg(ec.decode(share[:33]))])
                if ec.encode(m) in card_lookup():
                    can_open.add(pos)
        assert can_open == set(positions(role))
