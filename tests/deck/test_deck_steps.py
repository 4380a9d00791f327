"""Honest deals for both roles, redeal, showing cards, the record, API misuse."""

from __future__ import annotations

import secrets
from collections import Counter

import pytest
from helpers.deck import (
    DEALER_SEED,
    GAME_ID,
    NONDEALER_SEED,
    card_of,
    deal_of,
    honest_hand,
    inv,
    mul,
    secrets_of,
    sides,
)

from truc_p2p.deck import (
    N_CARDS,
    DeckSide,
    DeckUsageError,
    HandRecord,
    Role,
    audit_hand,
    card_encodings,
    commitment,
    new_seed,
    positions,
)
from truc_p2p.deck.legacy_v1 import _group as group


def test_schedule() -> None:
    assert positions(Role.NONDEALER, False) == (0, 2, 4)
    assert positions(Role.DEALER, False) == (1, 3, 5)
    assert positions(Role.NONDEALER, True) == (6, 8, 10)
    assert positions(Role.DEALER, True) == (7, 9, 11)
    assert Role.DEALER.other is Role.NONDEALER
    assert Role.NONDEALER.other is Role.DEALER
    assert N_CARDS == 32


def test_messages_have_the_wire_shape() -> None:
    h = honest_hand()
    for deck in (h.d1, h.d2, h.d3, h.d4):
        assert isinstance(deck, tuple)
        assert len(deck) == 32
        assert all(isinstance(x, bytes) and len(x) == 32 for x in deck)
        assert len(set(deck)) == 32
    assert len(set(h.d1 + h.d2 + h.d3 + h.d4 + card_encodings())) == 5 * 32
    assert set(h.k3) == {0, 2, 4}
    assert set(h.k4) == {1, 3, 5}
    for k in [*h.k3.values(), *h.k4.values()]:
        assert len(k) == 32
        assert 1 <= int.from_bytes(k, "big") < group.ORDER


@pytest.mark.parametrize("hand", [0, 1, 7])
def test_honest_deal_both_roles(hand: int) -> None:
    h = honest_hand(hand)
    deal = deal_of(hand)
    assert sorted(deal) == list(range(32))
    assert h.a.my_cards() == {p: deal[p] for p in (1, 3, 5)}
    assert h.b.my_cards() == {p: deal[p] for p in (0, 2, 4)}
    assert h.a.dealt and h.b.dealt
    # The final deck holds a_i * b_i * m at every position.
    sa, sb = secrets_of(Role.DEALER, hand), secrets_of(Role.NONDEALER, hand)
    for i in range(32):
        opened = mul(inv(sa.card_keys[i] * sb.card_keys[i]), h.d4[i])
        assert card_of(opened) == deal[i]


def test_shows_both_ways() -> None:
    h = honest_hand()
    deal = deal_of()
    for p in (3, 1, 5):
        assert h.b.receive_show(p, h.a.show(p)) == deal[p]
    for p in (4, 0, 2):
        assert h.a.receive_show(p, h.b.show(p)) == deal[p]
    assert h.b.opponent_cards == {p: deal[p] for p in (1, 3, 5)}
    assert h.a.opponent_cards == {p: deal[p] for p in (0, 2, 4)}
    assert h.a.record() == h.b.record()


def test_show_key_is_the_per_card_key() -> None:
    h = honest_hand()
    assert h.a.show(1) == secrets_of(Role.DEALER).card_keys[1].to_bytes(32, "big")
    assert h.b.show(0) == secrets_of(Role.NONDEALER).card_keys[0].to_bytes(32, "big")


@pytest.mark.parametrize("dealer_first", [True, False])
def test_redeal(dealer_first: bool) -> None:
    h = honest_hand()
    deal = deal_of()
    if dealer_first:
        ka = h.a.redeal_keys()
        h.b.receive_redeal_keys(ka)
        kb = h.b.redeal_keys()
        h.a.receive_redeal_keys(kb)
    else:
        kb = h.b.redeal_keys()
        ka = h.a.redeal_keys()
        h.a.receive_redeal_keys(kb)
        h.b.receive_redeal_keys(ka)
    assert set(ka) == {6, 8, 10}
    assert set(kb) == {7, 9, 11}
    assert h.a.redeal and h.b.redeal
    assert h.a.my_cards(redeal=True) == {p: deal[p] for p in (7, 9, 11)}
    assert h.b.my_cards(redeal=True) == {p: deal[p] for p in (6, 8, 10)}
    assert h.a.my_cards() == {p: deal[p] for p in (1, 3, 5)}  # the old hand stays readable
    assert h.a.held_positions() == (7, 9, 11)
    assert h.b.held_positions() == (6, 8, 10)
    for p in (7, 9, 11):
        assert h.b.receive_show(p, h.a.show(p)) == deal[p]
    for p in (6, 8, 10):
        assert h.a.receive_show(p, h.b.show(p)) == deal[p]
    record = h.a.record()
    assert record == h.b.record()
    assert record.redeal
    report = audit_hand(record, dealer_seed=DEALER_SEED, nondealer_seed=NONDEALER_SEED)
    assert report.redeal
    assert report.cards(Role.DEALER, redeal=True) == h.a.my_cards(redeal=True)
    assert report.nondealer_shown == {p: deal[p] for p in (6, 8, 10)}


def test_redeal_cards_need_the_keys() -> None:
    h = honest_hand()
    h.b.receive_redeal_keys(h.a.redeal_keys())
    with pytest.raises(DeckUsageError):
        h.a.my_cards(redeal=True)
    assert len(h.b.my_cards(redeal=True)) == 3


def test_record_is_plain_data_and_rebuildable() -> None:
    h = honest_hand()
    h.b.receive_show(1, h.a.show(1))
    record = h.b.record()
    assert record.dealer_commitment == h.a.commitment
    assert record.nondealer_commitment == h.b.commitment
    assert record.d1 == h.d1 and record.d4 == h.d4
    assert dict(record.d3_keys) == h.k3 and dict(record.d4_keys) == h.k4
    assert set(record.dealer_shown) == {1}
    assert record.dealer_shown[1] == secrets_of(Role.DEALER).card_keys[1].to_bytes(32, "big")
    rebuilt = HandRecord(
        game_id=GAME_ID,
        hand=0,
        dealer_commitment=h.a.commitment,
        nondealer_commitment=h.b.commitment,
        d1=list(h.d1),  # type: ignore[arg-type]
        d2=h.d2,
        d3=h.d3,
        d4=h.d4,
        d3_keys=h.k3,
        d4_keys=h.k4,
        dealer_shown={1: record.dealer_shown[1]},
    )
    assert rebuilt == record
    assert isinstance(rebuilt.d1, tuple)
    h.k3[0] = b"changed"
    assert rebuilt.d3_keys[0] != b"changed"  # copied, not aliased


def test_commitment_layout() -> None:
    import hashlib

    expected = hashlib.sha256(
        b"truc-p2p/v1/deck/commit" + GAME_ID + (5).to_bytes(4, "big") + b"\x01" + NONDEALER_SEED
    ).digest()
    assert commitment(NONDEALER_SEED, game_id=GAME_ID, hand=5, role=Role.NONDEALER) == expected
    values = {
        commitment(s, game_id=g, hand=n, role=r)
        for s in (DEALER_SEED, NONDEALER_SEED)
        for g in (GAME_ID, bytes(32))
        for n in (0, 1)
        for r in Role
    }
    assert len(values) == 16
    side = DeckSide(Role.DEALER, DEALER_SEED, game_id=GAME_ID, hand=3)
    assert side.commitment == commitment(DEALER_SEED, game_id=GAME_ID, hand=3, role=Role.DEALER)
    assert side.seed == DEALER_SEED and side.role is Role.DEALER


def test_new_seed_uses_the_injected_rng() -> None:
    calls: list[int] = []

    def rng(n: int) -> bytes:
        calls.append(n)
        return b"\x07" * n

    assert new_seed(rng) == b"\x07" * 32
    assert calls == [32]
    assert len(new_seed(secrets.token_bytes)) == 32
    with pytest.raises(DeckUsageError):
        new_seed(lambda n: b"short")


def test_fresh_seeds_give_different_decks() -> None:
    a1 = DeckSide(Role.DEALER, new_seed(secrets.token_bytes), game_id=GAME_ID, hand=0)
    a2 = DeckSide(Role.DEALER, new_seed(secrets.token_bytes), game_id=GAME_ID, hand=0)
    assert set(a1.d1()).isdisjoint(a2.d1())


def test_context_binds_the_secrets() -> None:
    base = DeckSide(Role.DEALER, DEALER_SEED, game_id=GAME_ID, hand=0).d1()
    other_hand = DeckSide(Role.DEALER, DEALER_SEED, game_id=GAME_ID, hand=1).d1()
    other_game = DeckSide(Role.DEALER, DEALER_SEED, game_id=bytes(32), hand=0).d1()
    assert set(base).isdisjoint(other_hand)
    assert set(base).isdisjoint(other_game)
    assert DeckSide(Role.DEALER, DEALER_SEED, game_id=GAME_ID, hand=0).d1() == base


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seed": b"short"}, "seed"),
        ({"game_id": b"x" * 31}, "game_id"),
        ({"hand": -1}, "hand"),
        ({"hand": 2**32}, "hand"),
        ({"hand": True}, "hand"),
        ({"role": "dealer"}, "role"),
    ],
)
def test_constructor_rejects_bad_local_arguments(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {
        "role": Role.DEALER,
        "seed": DEALER_SEED,
        "game_id": GAME_ID,
        "hand": 0,
    }
    args.update(kwargs)
    with pytest.raises(DeckUsageError, match=message):
        DeckSide(args["role"], args["seed"], game_id=args["game_id"], hand=args["hand"])  # type: ignore[arg-type]


def test_steps_out_of_order_are_usage_errors() -> None:
    a, b = sides()
    with pytest.raises(DeckUsageError):
        b.d1()  # wrong role
    with pytest.raises(DeckUsageError):
        a.receive_d1((), b"")  # wrong role
    with pytest.raises(DeckUsageError):
        a.receive_d2((), b"")  # before d1
    with pytest.raises(DeckUsageError):
        a.my_cards()
    with pytest.raises(DeckUsageError):
        b.my_cards()
    with pytest.raises(DeckUsageError):
        b.show(0)
    with pytest.raises(DeckUsageError):
        b.receive_show(1, b"\x01" * 32)
    with pytest.raises(DeckUsageError):
        b.redeal_keys()
    d1 = a.d1()
    with pytest.raises(DeckUsageError):
        a.d1()  # twice
    d2 = b.receive_d1(d1, a.commitment)
    with pytest.raises(DeckUsageError):
        b.receive_d1(d1, a.commitment)
    d3, k3 = a.receive_d2(d2, b.commitment)
    with pytest.raises(DeckUsageError):
        a.my_cards()  # the dealer's cards come with D4
    b.receive_d3(d3, k3)
    assert len(b.my_cards()) == 3


def test_local_show_misuse() -> None:
    h = honest_hand()
    with pytest.raises(DeckUsageError):
        h.a.show(0)  # not the dealer's
    with pytest.raises(DeckUsageError):
        h.a.show(7)  # redeal position before a redeal
    h.a.show(1)
    with pytest.raises(DeckUsageError):
        h.a.show(1)  # twice
    with pytest.raises(DeckUsageError):
        h.a.redeal_keys()  # a card was shown
    h2 = honest_hand()
    h2.a.redeal_keys()
    with pytest.raises(DeckUsageError):
        h2.a.redeal_keys()
    h2.a.receive_redeal_keys(h2.b.redeal_keys())
    with pytest.raises(DeckUsageError):
        h2.a.receive_redeal_keys(h2.b.redeal_keys())
    with pytest.raises(DeckUsageError):
        h2.a.show(1)  # the old hand is gone after the redeal


class _CountingKey:
    def __init__(self, key: object, counts: Counter[str]) -> None:
        self._key = key
        self._counts = counts

    def exchange(self, algorithm: object, peer: object) -> bytes:
        self._counts["mult"] += 1
        return self._key.exchange(algorithm, peer)  # type: ignore[attr-defined, no-any-return]


def test_one_multiplication_per_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Count the real crypto calls of each side through one hand with three shows each."""
    card_encodings()  # cache outside the count
    counts = {Role.DEALER: Counter[str](), Role.NONDEALER: Counter[str]()}
    current: list[Role] = [Role.DEALER]
    real_decode, real_derive = group.decode, group.derive_key

    def decode(x: bytes) -> object:
        counts[current[0]]["decode"] += 1
        return real_decode(x)

    def derive(k: int) -> object:
        counts[current[0]]["derive"] += 1
        return _CountingKey(real_derive(k), counts[current[0]])

    monkeypatch.setattr(group, "decode", decode)
    monkeypatch.setattr(group, "derive_key", derive)
    a, b = sides()

    def as_(role: Role) -> None:
        current[0] = role

    as_(Role.DEALER)
    d1 = a.d1()
    as_(Role.NONDEALER)
    d2 = b.receive_d1(d1, a.commitment)
    as_(Role.DEALER)
    d3, k3 = a.receive_d2(d2, b.commitment)
    as_(Role.NONDEALER)
    d4, k4 = b.receive_d3(d3, k3)
    as_(Role.DEALER)
    a.receive_d4(d4, k4)
    for dp, np_ in zip((1, 3, 5), (0, 2, 4), strict=True):
        as_(Role.NONDEALER)
        b.receive_show(dp, a.show(dp))
        as_(Role.DEALER)
        a.receive_show(np_, b.show(np_))
    for role, side in ((Role.DEALER, a), (Role.NONDEALER, b)):
        c = counts[role]
        # 32 (own deck step) + 32 (second deck step) + 3 own cards + 3 shown cards
        assert c["mult"] == 70, role
        assert c["derive"] == 39, role
        assert c["decode"] == 64, role
        ops = side.op_counts
        assert (ops.multiplications, ops.derives, ops.decodes) == (70, 39, 64)


def test_sides_agree_on_the_record_at_every_stage() -> None:
    a, b = sides()
    d1 = a.d1()
    assert a.record().d1 == d1 and a.record().d2 == ()
    d2 = b.receive_d1(d1, a.commitment)
    assert b.record().d2 == d2
    assert b.record().dealer_commitment == a.commitment
    d3, k3 = a.receive_d2(d2, b.commitment)
    d4, k4 = b.receive_d3(d3, k3)
    a.receive_d4(d4, k4)
    assert a.record() == b.record()
    assert a.peer_commitment == b.commitment and b.peer_commitment == a.commitment
