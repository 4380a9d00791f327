"""Deck v2 honest hands: three messages deal, opening, showing, redeal, records, determinism."""

from __future__ import annotations

import msgpack
import pytest
from helpers.deck_v2 import CONTEXT, DEALER_SEED, GAME_ID, NONDEALER_SEED, honest_deal, sides
from hypothesis import given, settings
from hypothesis import strategies as st

from truc_p2p.deck import (
    DeckSideV2,
    DeckUsageError,
    HandVerifierV2,
    Role,
    positions,
    verify_hand_v2,
)
from truc_p2p.deck.v2._hand import SHARE_SIZE


def test_three_messages_deal_and_the_first_player_knows_its_cards_after_two() -> None:
    a, b = sides()
    d1 = b.d1()
    assert set(d1) == {"key", "pok", "deck", "proof"}
    d2 = a.receive_d1(d1)
    assert set(d2) == {"key", "pok", "deck", "proof", "shares"}
    assert not a.dealt
    d3 = b.receive_d2(d2)
    assert b.dealt and sorted(b.my_cards()) == [0, 2, 4]  # the non-dealer acts first
    assert set(d3) == {"shares"} and all(len(s) == SHARE_SIZE for s in d3["shares"])
    a.receive_d3(d3)
    assert a.dealt and sorted(a.my_cards()) == [1, 3, 5]
    cards = [*a.my_cards().values(), *b.my_cards().values()]
    assert len(set(cards)) == 6 and all(0 <= c < 32 for c in cards)


def test_payloads_are_plain_msgpack() -> None:
    deal = honest_deal()
    for payload in (deal.d1, deal.d2, deal.d3):
        assert msgpack.unpackb(msgpack.packb(payload)) == payload


def test_show_and_receive_show_both_ways() -> None:
    deal = honest_deal()
    for shower, receiver in ((deal.b, deal.a), (deal.a, deal.b)):
        for pos, card in shower.my_cards().items():
            assert receiver.receive_show(pos, shower.show(pos)) == card
        assert receiver.opponent_cards == shower.my_cards()
    rep = verify_hand_v2(deal.a.record())
    assert rep == verify_hand_v2(deal.b.record())
    assert rep.opened == {**deal.a.my_cards(), **deal.b.my_cards()}
    assert rep.hidden_cards_revealed == 0 and rep.deck == "v2"


def test_redeal() -> None:
    deal = honest_deal(hand=3)
    first = {**deal.a.my_cards(), **deal.b.my_cards()}
    deal.b.receive_redeal_shares(deal.a.redeal_shares())
    deal.a.receive_redeal_shares(deal.b.redeal_shares())
    assert sorted(deal.b.my_cards(redeal=True)) == [6, 8, 10]
    assert sorted(deal.a.my_cards(redeal=True)) == [7, 9, 11]
    second = {**deal.a.my_cards(redeal=True), **deal.b.my_cards(redeal=True)}
    assert len(set(first.values()) | set(second.values())) == 12
    assert deal.a.held_positions() == positions(Role.DEALER, True)
    with pytest.raises(DeckUsageError):
        deal.a.show(1)  # the first deal's cards are gone
    pos = 7
    assert deal.b.receive_show(pos, deal.a.show(pos)) == second[pos]
    rep = verify_hand_v2(deal.b.record())
    assert rep.redeal and rep.opened == {7: second[7]}


def test_misuse_is_a_usage_error() -> None:
    a, b = sides()
    with pytest.raises(DeckUsageError):
        a.d1()
    with pytest.raises(DeckUsageError):
        b.receive_d1({})
    with pytest.raises(DeckUsageError):
        b.my_cards()
    with pytest.raises(DeckUsageError):
        DeckSideV2(Role.DEALER, b"short", game_id=GAME_ID, hand=0, context=CONTEXT)
    with pytest.raises(DeckUsageError):
        DeckSideV2(Role.DEALER, DEALER_SEED, game_id=GAME_ID, hand=-1, context=CONTEXT)
    with pytest.raises(DeckUsageError):
        DeckSideV2(Role.DEALER, DEALER_SEED, game_id=GAME_ID, hand=0, context=b"")
    deal = honest_deal()
    deal.a.show(1)
    with pytest.raises(DeckUsageError):
        deal.a.show(1)
    with pytest.raises(DeckUsageError):
        deal.a.redeal_shares()  # no redeal once a card was shown


def test_restart_recomputes_byte_identical_messages() -> None:
    """Crash resume: a side rebuilt from its seed re-sends exactly the same bytes."""
    deal = honest_deal()
    a2, b2 = sides()
    assert b2.d1() == deal.d1
    assert a2.receive_d1(deal.d1) == deal.d2
    assert b2.receive_d2(deal.d2) == deal.d3
    assert b2.show(0) == deal.b.show(0)


def test_hands_are_independent_objects() -> None:
    """Two hands dealt interleaved (as pipelining will) do not interfere."""
    a0, b0 = sides(hand=0)
    a1, b1 = sides(hand=1)
    d1_0, d1_1 = b0.d1(), b1.d1()
    d2_1, d2_0 = a1.receive_d1(d1_1), a0.receive_d1(d1_0)
    a0.receive_d3(b0.receive_d2(d2_0))
    a1.receive_d3(b1.receive_d2(d2_1))
    assert d1_0["deck"] != d1_1["deck"]
    assert b0.my_cards() != b1.my_cards() or a0.my_cards() != a1.my_cards()


def test_incremental_verifier_in_transcript_order() -> None:
    deal = honest_deal()
    v = HandVerifierV2(game_id=GAME_ID, hand=0, context=CONTEXT)
    v.d1(deal.d1)
    v.d2(deal.d2)
    v.d3(deal.d3)
    assert v.show(Role.NONDEALER, 0, deal.b.show(0)) == deal.b.my_cards()[0]
    assert v.show(Role.DEALER, 3, deal.a.show(3)) == deal.a.my_cards()[3]
    rep = v.report()
    assert rep.to_dict()["shown"] == {
        "dealer": {3: deal.a.my_cards()[3]},
        "nondealer": {0: deal.b.my_cards()[0]},
    }
    assert rep.checked == ("D1", "D2", "D3", "show nondealer 0", "show dealer 3")


def test_reprs_hold_no_secrets() -> None:
    a, _ = sides()
    assert DEALER_SEED.hex() not in repr(a) and "seed" not in repr(a).lower()
    assert NONDEALER_SEED.hex() not in repr(honest_deal().b.record())


def test_a_redeal_card_is_shown_only_once_it_is_open() -> None:
    deal = honest_deal()
    shares = deal.a.redeal_shares()  # the dealer accepts the redeal ...
    with pytest.raises(DeckUsageError):
        deal.a.show(7)  # ... but cannot show 7 before the non-dealer's shares open it
    deal.b.receive_redeal_shares(shares)
    deal.a.receive_redeal_shares(deal.b.redeal_shares())
    assert deal.b.receive_show(7, deal.a.show(7)) == deal.a.my_cards(redeal=True)[7]


def test_verifier_misuse_is_a_usage_error() -> None:
    deal = honest_deal()
    v = HandVerifierV2(game_id=GAME_ID, hand=0, context=CONTEXT)
    with pytest.raises(DeckUsageError):
        v.show(Role.NONDEALER, 0, deal.b.show(0))  # before D2
    with pytest.raises(DeckUsageError):
        v.d3(deal.d3)
    with pytest.raises(DeckUsageError):
        v.redeal("dealer", [])  # type: ignore[arg-type]
    v.d1(deal.d1)
    with pytest.raises(DeckUsageError):
        v.d1(deal.d1)


@settings(max_examples=5, deadline=None, derandomize=True)
@given(
    st.binary(min_size=32, max_size=32),
    st.binary(min_size=32, max_size=32),
    st.integers(0, 2**32 - 1),
    st.booleans(),
)
def test_random_honest_hands(seed_a: bytes, seed_b: bytes, hand: int, redeal: bool) -> None:
    a = DeckSideV2(Role.DEALER, seed_a, game_id=GAME_ID, hand=hand, context=CONTEXT)
    b = DeckSideV2(Role.NONDEALER, seed_b, game_id=GAME_ID, hand=hand, context=CONTEXT)
    a.receive_d3(b.receive_d2(a.receive_d1(b.d1())))
    cards = [*a.my_cards().values(), *b.my_cards().values()]
    if redeal:
        b.receive_redeal_shares(a.redeal_shares())
        a.receive_redeal_shares(b.redeal_shares())
        cards += [*a.my_cards(redeal=True).values(), *b.my_cards(redeal=True).values()]
    assert len(set(cards)) == len(cards)
    for pos in b.held_positions():
        a.receive_show(pos, b.show(pos))
    assert a.record() == b.record()
    assert verify_hand_v2(a.record()).opened == b.my_cards(redeal=redeal)
