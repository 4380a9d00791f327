"""Shared helpers for the deck v2 tests: fixed seeds, an honest deal, a cheater's toolkit.

The forgers re-implement a side's deck step with hooks, so a test can make a
cheater who changes entries *and* builds a proof for its changed deck with the
real prover (which then proves a false statement and must be rejected).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from truc_p2p.deck import CheatError, DeckSideV2, HandRecordV2, Role, verify_hand_v2
from truc_p2p.deck.v2 import _ec as ec
from truc_p2p.deck.v2._derive import derived_scalar, hand_digest, side_key
from truc_p2p.deck.v2._hand import _Hand, binding, share_binding
from truc_p2p.deck.v2._points import card_points
from truc_p2p.deck.v2._proofs import dleq_prove, pok_prove, shuffle_prove

GAME_ID = bytes(range(0x40, 0x60))
CONTEXT = hashlib.sha256(b"truc-p2p tests chain").digest()
G = ec.gmul(1)


def seed(tag: str) -> bytes:
    return hashlib.sha256(b"truc-p2p tests " + tag.encode()).digest()


DEALER_SEED = seed("dealer")
NONDEALER_SEED = seed("nondealer")


def sides(hand: int = 0, context: bytes = CONTEXT) -> tuple[DeckSideV2, DeckSideV2]:
    a = DeckSideV2(Role.DEALER, DEALER_SEED, game_id=GAME_ID, hand=hand, context=context)
    b = DeckSideV2(Role.NONDEALER, NONDEALER_SEED, game_id=GAME_ID, hand=hand, context=context)
    return a, b


@dataclass
class Deal:
    a: DeckSideV2
    b: DeckSideV2
    d1: dict[str, Any]
    d2: dict[str, Any]
    d3: dict[str, Any]


def honest_deal(hand: int = 0, context: bytes = CONTEXT) -> Deal:
    a, b = sides(hand, context)
    d1 = b.d1()
    d2 = a.receive_d1(d1)
    d3 = b.receive_d2(d2)
    a.receive_d3(d3)
    return Deal(a, b, d1, d2, d3)


def record(**fields: Any) -> HandRecordV2:
    return HandRecordV2(game_id=GAME_ID, hand=fields.pop("hand", 0), context=CONTEXT, **fields)


def expect_cheat(
    fn: Callable[[], object], cls: type[CheatError], step: str, position: int | None, culprit: Role
) -> CheatError:
    with pytest.raises(cls) as info:
        fn()
    err = info.value
    assert (err.step, err.position, err.culprit) == (step, position, culprit), str(err)
    return err


def expect_both(
    receive: Callable[[], object],
    rec: HandRecordV2,
    cls: type[CheatError],
    step: str,
    position: int | None,
    culprit: Role,
) -> None:
    """The receiver and the third-party verifier pinpoint the same message."""
    expect_cheat(receive, cls, step, position, culprit)
    expect_cheat(lambda: verify_hand_v2(rec), cls, step, position, culprit)


def cat(*points: ec.Point) -> bytes:
    return b"".join(ec.encode(p) for p in points)


# -- forgers -----------------------------------------------------------------------------


Entry = tuple[ec.Point, ...]


def forge_d1(
    *,
    hand: int = 0,
    perm: list[int] | None = None,
    tamper: Callable[[list[Entry], int], None] | None = None,
    x: int | None = None,
    t0: bytes | None = None,
    key: bytes | None = None,
) -> dict[str, Any]:
    """A non-dealer's D1 built like the honest one, with ``perm`` (maybe not a permutation)
    and ``tamper`` applied to the outputs (given the key) before proving; ``t0`` and
    ``key``: a real session's hand digest and side key (default: the fixed vectors')."""
    if t0 is None:
        t0 = hand_digest(GAME_ID, hand, CONTEXT)
    if key is None:
        key = side_key(NONDEALER_SEED, t0, Role.NONDEALER.wire_byte)
    if x is None:
        x = derived_scalar(key, b"key", b"", 0)
    y = ec.gmul(x)
    assert y is not None
    perm = list(range(32))[::-1] if perm is None else perm
    sigma = [derived_scalar(key, b"mask", t0, i) for i in range(32)]
    cards = card_points()
    outputs: list[Entry] = [
        (ec.gmul(sigma[i]), ec.add([cards[perm[i]], ec.mul(y, sigma[i])])) for i in range(32)
    ]
    if tamper is not None:
        tamper(outputs, x)
    bnd = binding(t0, "D1", Role.NONDEALER)
    proof = shuffle_prove(
        [(None, m) for m in cards],
        outputs,
        [(G, y)],
        perm,
        [[s] for s in sigma],
        binding=bnd,
        key=key,
    )
    return {
        "key": ec.encode(y),
        "pok": pok_prove(x, y, binding=bnd, key=key),
        "deck": [cat(*e) for e in outputs],
        "proof": proof.to_bytes(),
    }


def forge_d2(
    d1: dict[str, Any],
    *,
    hand: int = 0,
    perm: list[int] | None = None,
    tamper: Callable[[list[Entry], list[Entry]], None] | None = None,
    game_id: bytes = GAME_ID,
    context: bytes = CONTEXT,
    key: bytes | None = None,
) -> dict[str, Any]:
    """A dealer's D2 for ``d1`` built like the honest one, with hooks; honest shares.
    ``game_id``, ``context`` and ``key``: a real session's (default: the fixed vectors')."""
    pub = _Hand(game_id=game_id, hand=hand, context=context)
    pub.accept_d1(d1, verify=False)
    assert pub.d1 is not None
    if key is None:
        key = side_key(DEALER_SEED, pub.t0, Role.DEALER.wire_byte)
    x = derived_scalar(key, b"key", b"", 0)
    y = ec.gmul(x)
    assert y is not None
    y_b = pub.keys[Role.NONDEALER]
    perm = list(range(32)) if perm is None else perm
    masks = [derived_scalar(key, b"mask", pub.t1, i) for i in range(64)]
    inputs: list[Entry] = [(a, None, b) for a, b in pub.d1.points]
    outputs: list[Entry] = []
    for i in range(32):
        s, r = masks[2 * i], masks[2 * i + 1]
        a_b, _, b = inputs[perm[i]]
        outputs.append(
            (ec.add([a_b, ec.gmul(s)]), ec.gmul(r), ec.add([b, ec.mul(y_b, s), ec.mul(y, r)]))
        )
    if tamper is not None:
        tamper(outputs, inputs)
    bnd = binding(pub.t1, "D2", Role.DEALER)
    proof = shuffle_prove(
        inputs,
        outputs,
        [(G, None, y_b), (None, G, y)],
        perm,
        [[masks[2 * i], masks[2 * i + 1]] for i in range(32)],
        binding=bnd,
        key=key,
    )
    out: dict[str, Any] = {
        "key": ec.encode(y),
        "pok": pok_prove(x, y, binding=bnd, key=key),
        "deck": [cat(*e) for e in outputs],
        "proof": proof.to_bytes(),
    }
    pub.accept_d2_deck(out, verify=False)
    out["shares"] = [make_share(pub, Role.DEALER, x, p, "D2") for p in (0, 2, 4)]
    return out


def make_share(
    pub: _Hand, role: Role, x: int, pos: int, step: str, base_pos: int | None = None
) -> bytes:
    """``role``'s share with key ``x`` of the layer of ``base_pos`` (default ``pos``),
    proven as if for ``pos``."""
    base = pub.component(role, pos if base_pos is None else base_pos)
    share = ec.mul(base, x)
    assert share is not None
    y = ec.gmul(x)
    assert y is not None
    proof = dleq_prove(x, y, base, share, binding=share_binding(pub.t2, step, role, pos), key=b"k")
    return ec.encode(share) + proof


def public_after(deal: Deal) -> _Hand:
    pub = _Hand(game_id=GAME_ID, hand=0, context=CONTEXT)
    pub.accept_d1(deal.d1, verify=False)
    pub.accept_d2_deck(deal.d2, verify=False)
    return pub


def with_(payload: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = dict(payload)
    out.update(changes)
    return out
