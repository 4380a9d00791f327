"""Deck v2: every cheat is caught at the message where it happens.

Each test makes one player deviate (often building a proof for its deviating
message with the real prover) and checks that the receiver raises the typed
error naming step, position (where meaningful) and culprit, and that the
third-party verifier, given the record up to that message, names the same.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers.deck_v2 import (
    CONTEXT,
    DEALER_SEED,
    GAME_ID,
    NONDEALER_SEED,
    G,
    cat,
    expect_both,
    expect_cheat,
    forge_d1,
    forge_d2,
    honest_deal,
    make_share,
    public_after,
    record,
    sides,
    with_,
)

from truc_p2p.deck import (
    DeckSideV2,
    DeckUsageError,
    DuplicateEntryError,
    InvalidKeyProofError,
    InvalidPointError,
    InvalidShareError,
    InvalidShuffleProofError,
    MalformedDeckError,
    MalformedMessageError,
    MalformedProofError,
    PositionAlreadyShownError,
    Role,
    WrongPositionError,
)
from truc_p2p.deck.v2 import _ec as ec
from truc_p2p.deck.v2._hand import _Hand

ND, DL = Role.NONDEALER, Role.DEALER


def _dealer_gets_d1(d1: dict[str, Any], cls: type, position: int | None = None) -> None:
    a, _ = sides()
    expect_both(lambda: a.receive_d1(d1), record(d1=d1), cls, "D1", position, ND)
    assert a.failure is not None
    with pytest.raises(DeckUsageError):
        a.receive_d1(d1)  # the side is dead


def _nondealer_gets_d2(d2_of: Any, cls: type, position: int | None = None) -> None:
    _, b = sides()
    d1 = b.d1()
    d2 = d2_of(d1)
    expect_both(lambda: b.receive_d2(d2), record(d1=d1, d2=d2), cls, "D2", position, ND.other)


# -- D1: the non-dealer's shuffle --------------------------------------------------------


def test_honest_forgers_are_accepted() -> None:
    """The forgers themselves are faithful: without a deviation their messages pass."""
    a, _ = sides()
    d1 = forge_d1()
    a.receive_d1(d1)
    _, b = sides()
    b.receive_d2(forge_d2(b.d1(), perm=list(range(32))[::-1]))


def test_d1_duplicated_card_reproved() -> None:
    perm = list(range(32))
    perm[20] = perm[3]  # card 3 twice, card 20 dropped, at never-opened positions too
    _dealer_gets_d1(forge_d1(perm=perm), InvalidShuffleProofError)


@pytest.mark.parametrize("pos", [0, 11, 12, 31])
def test_d1_substituted_entry(pos: int) -> None:
    """A fresh encryption of a chosen card, with a proof made for the changed deck."""

    def tamper(out: list[Any], x: int) -> None:
        out[pos] = (ec.gmul(5), ec.add([ec.gmul(17), ec.mul(ec.gmul(x), 5)]))

    _dealer_gets_d1(forge_d1(tamper=tamper), InvalidShuffleProofError)


@pytest.mark.parametrize("pos", [4, 25])
def test_d1_scaled_entry(pos: int) -> None:
    def tamper(out: list[Any], x: int) -> None:
        out[pos] = tuple(ec.mul(p, 3) for p in out[pos])

    _dealer_gets_d1(forge_d1(tamper=tamper), InvalidShuffleProofError)


def test_d1_bad_rerandomisation() -> None:
    """An entry encrypted under another key than the one sent (B could later open it alone)."""

    def tamper(out: list[Any], x: int) -> None:
        a, _ = out[7]
        other = ec.gmul(1234)
        out[7] = (a, ec.add([ec.gmul(99), ec.mul(other, 1)]))

    _dealer_gets_d1(forge_d1(tamper=tamper), InvalidShuffleProofError)


def test_d1_duplicated_entry() -> None:
    d1 = forge_d1()
    deck = list(d1["deck"])
    deck[9] = deck[30]
    _dealer_gets_d1(with_(d1, deck=deck), DuplicateEntryError, 30)


def test_d1_dropped_and_padded_entries() -> None:
    d1 = forge_d1()
    _dealer_gets_d1(with_(d1, deck=d1["deck"][:31]), MalformedDeckError)
    _dealer_gets_d1(with_(d1, deck=[*d1["deck"], d1["deck"][0]]), MalformedDeckError)
    _dealer_gets_d1(with_(d1, deck=b"".join(d1["deck"])), MalformedDeckError)


def test_d1_swapped_entries_break_the_proof() -> None:
    d1 = forge_d1()
    deck = list(d1["deck"])
    deck[12], deck[13] = deck[13], deck[12]
    _dealer_gets_d1(with_(d1, deck=deck), InvalidShuffleProofError)


def test_d1_invalid_point() -> None:
    d1 = forge_d1()
    deck = list(d1["deck"])
    deck[12] = deck[12][:33] + b"\x02" + b"\xff" * 32  # x >= p
    _dealer_gets_d1(with_(d1, deck=deck), InvalidPointError, 12)
    deck[12] = b"\x04" + deck[12][1:]
    _dealer_gets_d1(with_(d1, deck=deck), InvalidPointError, 12)
    deck[12] = d1["deck"][12][:65]
    _dealer_gets_d1(with_(d1, deck=deck), MalformedDeckError, 12)


def test_d1_key_and_key_proof() -> None:
    d1 = forge_d1()
    _dealer_gets_d1(with_(d1, key=b"\x02" + bytes(32)), InvalidPointError)
    _dealer_gets_d1(with_(d1, key=ec.encode(ec.gmul(7))), InvalidKeyProofError)
    pok = d1["pok"]
    _dealer_gets_d1(with_(d1, pok=pok[:32] + bytes(32)), InvalidKeyProofError)
    _dealer_gets_d1(with_(d1, pok=pok[:63]), MalformedProofError)
    _dealer_gets_d1(with_(d1, pok=b"\xff" * 64), MalformedProofError)


def test_d1_key_replayed_from_another_hand() -> None:
    """A key (and its proof) copied from another hand: the proof is bound to the hand."""
    other = forge_d1(hand=1)
    d1 = forge_d1()
    _dealer_gets_d1(with_(d1, pok=other["pok"]), InvalidKeyProofError)
    _dealer_gets_d1(with_(d1, proof=other["proof"]), InvalidShuffleProofError)


def test_d1_malformed_payloads() -> None:
    d1 = forge_d1()
    _dealer_gets_d1([], MalformedMessageError)  # type: ignore[arg-type]
    for name in ("key", "pok", "deck", "proof"):
        broken = dict(d1)
        del broken[name]
        _dealer_gets_d1(broken, MalformedMessageError)
    _dealer_gets_d1(with_(d1, proof=d1["proof"][:-1]), MalformedProofError)
    _dealer_gets_d1(with_(d1, proof=None), MalformedProofError)


# -- D2: the dealer's shuffle and its shares -----------------------------------------------


def test_d2_copy_attack() -> None:
    """v1's dealer copy attack: the dealer puts at its own position 1 a re-encryption of
    the entry it sends to the non-dealer's position 0 -- and proves a 'shuffle' of it."""
    perm = list(range(32))
    perm[1] = perm[0]
    _nondealer_gets_d2(lambda d1: forge_d2(d1, perm=perm), InvalidShuffleProofError)


@pytest.mark.parametrize("pos", [0, 1, 12, 31])
def test_d2_substituted_entry(pos: int) -> None:
    def tamper(out: list[Any], inputs: list[Any]) -> None:
        a_b, a_a, b = out[pos]
        out[pos] = (a_b, a_a, ec.add([b, ec.gmul(1)]))

    _nondealer_gets_d2(lambda d1: forge_d2(d1, tamper=tamper), InvalidShuffleProofError)


@pytest.mark.parametrize("pos", [2, 20])
def test_d2_scaled_entry(pos: int) -> None:
    def tamper(out: list[Any], inputs: list[Any]) -> None:
        out[pos] = tuple(ec.mul(p, 2) for p in out[pos])

    _nondealer_gets_d2(lambda d1: forge_d2(d1, tamper=tamper), InvalidShuffleProofError)


def test_d2_layer_not_rerandomised() -> None:
    """Keeping the non-dealer's layer as it was would let the non-dealer track the shuffle."""

    def tamper(out: list[Any], inputs: list[Any]) -> None:
        for i in range(32):
            out[i] = (inputs[i][0], out[i][1], out[i][2])

    _nondealer_gets_d2(lambda d1: forge_d2(d1, tamper=tamper), InvalidShuffleProofError)


def test_d2_for_another_d1() -> None:
    """A D2 computed from a different D1 (another hand's) proves nothing about this one:
    its key proof is bound to the D1 it answers, and so is its shuffle proof."""
    other = forge_d2(forge_d1(hand=1), hand=1)
    _nondealer_gets_d2(lambda d1: other, InvalidKeyProofError)
    _nondealer_gets_d2(
        lambda d1: with_(forge_d2(d1), deck=other["deck"], proof=other["proof"]),
        InvalidShuffleProofError,
    )


def test_d2_malformed_deck() -> None:
    def shorter(d1: dict[str, Any]) -> dict[str, Any]:
        d2 = forge_d2(d1)
        deck = list(d2["deck"])
        deck[17] = deck[17][:66]  # a two-layer entry
        return with_(d2, deck=deck)

    _nondealer_gets_d2(shorter, MalformedDeckError, 17)

    def dup(d1: dict[str, Any]) -> dict[str, Any]:
        d2 = forge_d2(d1)
        return with_(d2, deck=[*d2["deck"][:31], d2["deck"][5]])

    _nondealer_gets_d2(dup, DuplicateEntryError, 31)


def _shares_cheat(change: Any, cls: type, position: int | None) -> None:
    def build(d1: dict[str, Any]) -> dict[str, Any]:
        d2 = forge_d2(d1)
        return with_(d2, shares=change(d1, d2))

    _nondealer_gets_d2(build, cls, position)


def test_d2_shares_swapped() -> None:
    _shares_cheat(
        lambda d1, d2: [d2["shares"][1], d2["shares"][0], d2["shares"][2]], InvalidShareError, 0
    )


def test_d2_share_for_the_wrong_position() -> None:
    """A correctly proven share of position 3 (the dealer's) claimed for position 2."""

    def change(d1: dict[str, Any], d2: dict[str, Any]) -> list[bytes]:
        pub = _Hand(game_id=GAME_ID, hand=0, context=CONTEXT)
        pub.accept_d1(d1, verify=False)
        pub.accept_d2_deck(d2, verify=False)
        from truc_p2p.deck.v2._derive import derived_scalar, side_key

        x = derived_scalar(side_key(DEALER_SEED, pub.t0, b"\x00"), b"key", b"", 0)
        return [d2["shares"][0], make_share(pub, DL, x, 2, "D2", base_pos=3), d2["shares"][2]]

    _shares_cheat(change, InvalidShareError, 2)


def test_d2_share_with_another_key() -> None:
    def change(d1: dict[str, Any], d2: dict[str, Any]) -> list[bytes]:
        pub = _Hand(game_id=GAME_ID, hand=0, context=CONTEXT)
        pub.accept_d1(d1, verify=False)
        pub.accept_d2_deck(d2, verify=False)
        return [d2["shares"][0], d2["shares"][1], make_share(pub, DL, 4242, 4, "D2")]

    _shares_cheat(change, InvalidShareError, 4)


def test_d2_share_reused_from_another_hand() -> None:
    other = forge_d2(forge_d1(hand=1), hand=1)
    _shares_cheat(lambda d1, d2: [other["shares"][0], *d2["shares"][1:]], InvalidShareError, 0)


def test_d2_share_count_and_shape() -> None:
    _shares_cheat(lambda d1, d2: d2["shares"][:2], WrongPositionError, None)
    _shares_cheat(lambda d1, d2: b"".join(d2["shares"]), MalformedMessageError, None)
    _shares_cheat(
        lambda d1, d2: [d2["shares"][0][:96], *d2["shares"][1:]], MalformedMessageError, 0
    )
    bad_point = b"\x02" + b"\xff" * 32 + d2_tail()
    _shares_cheat(lambda d1, d2: [bad_point, *d2["shares"][1:]], InvalidPointError, 0)
    big = lambda d1, d2: [d2["shares"][0][:33] + b"\xff" * 64, *d2["shares"][1:]]  # noqa: E731
    _shares_cheat(big, MalformedProofError, 0)


def d2_tail() -> bytes:
    return bytes(64)


def test_d2_key_proof() -> None:
    def build(d1: dict[str, Any]) -> dict[str, Any]:
        d2 = forge_d2(d1)
        return with_(d2, pok=d2["pok"][::-1])

    _nondealer_gets_d2(build, InvalidKeyProofError)


def test_d2_dealer_reuses_the_nondealer_key() -> None:
    """The dealer sends the non-dealer's own key share (and the non-dealer's key proof)."""

    def build(d1: dict[str, Any]) -> dict[str, Any]:
        return with_(forge_d2(d1), key=d1["key"], pok=d1["pok"])

    _nondealer_gets_d2(build, InvalidKeyProofError)


# -- D3, shows, redeal ---------------------------------------------------------------------


def test_d3_share_cheats() -> None:
    deal = honest_deal()
    shares = deal.d3["shares"]
    for bad, pos, cls in [
        ([shares[1], shares[0], shares[2]], 1, InvalidShareError),
        ([shares[0], shares[1], deal.d2["shares"][2]], 5, InvalidShareError),
        ([*shares[:2], shares[2][:33] + shares[2][33:][::-1]], 5, InvalidShareError),
    ]:
        a, b = sides()
        d2 = a.receive_d1(b.d1())
        b.receive_d2(d2)
        d3 = {"shares": bad}
        expect_both(
            lambda a=a, d3=d3: a.receive_d3(d3),
            record(d1=deal.d1, d2=deal.d2, d3=d3),
            cls,
            "D3",
            pos,
            ND,
        )


def test_show_cheats() -> None:
    deal = honest_deal()
    pub = public_after(deal)
    from truc_p2p.deck.v2._derive import derived_scalar, side_key

    xb = derived_scalar(side_key(NONDEALER_SEED, pub.t0, b"\x01"), b"key", b"", 0)
    good = deal.b.show(2)
    d = {"d1": deal.d1, "d2": deal.d2, "d3": deal.d3}
    # a share of position 0 claimed for position 2
    fake = make_share(pub, ND, xb, 2, "show", base_pos=0)
    expect_both(
        lambda: deal.a.receive_show(2, fake),
        record(**d, nondealer_shown={2: fake}),
        InvalidShareError,
        "show",
        2,
        ND,
    )
    # a position the shower does not hold, and one only after a redeal
    for pos in (1, 6, 31):
        a = honest_deal().a
        expect_both(
            lambda a=a, pos=pos: a.receive_show(pos, good),
            record(**d, nondealer_shown={pos: good}),
            WrongPositionError,
            "show",
            pos,
            ND,
        )
    # shown twice
    a = honest_deal().a
    assert a.receive_show(2, good) == deal.b.my_cards()[2]
    expect_cheat(lambda: a.receive_show(2, good), PositionAlreadyShownError, "show", 2, ND)
    # garbage
    a = honest_deal().a
    expect_cheat(lambda: a.receive_show(2, b"x"), MalformedMessageError, "show", 2, ND)
    a = honest_deal().a
    expect_cheat(lambda: a.receive_show("2", good), MalformedMessageError, "show", None, ND)  # type: ignore[arg-type]
    # the dealer shows with a share of the non-dealer's position... made with its own key
    b = honest_deal().b
    xa = derived_scalar(side_key(DEALER_SEED, pub.t0, b"\x00"), b"key", b"", 0)
    fake = make_share(pub, DL, xa, 1, "show", base_pos=0)
    expect_cheat(lambda: b.receive_show(1, fake), InvalidShareError, "show", 1, DL)


def test_redeal_share_cheat() -> None:
    deal = honest_deal()
    bad = deal.a.redeal_shares()
    bad = [bad[0], bad[2], bad[1]]
    expect_both(
        lambda: deal.b.receive_redeal_shares(bad),
        record(d1=deal.d1, d2=deal.d2, d3=deal.d3, dealer_redeal=bad),
        InvalidShareError,
        "redeal",
        8,
        DL,
    )


def test_shares_of_another_step_are_rejected() -> None:
    """A share proof is bound to its step: a D3 share cannot be replayed as a show."""
    deal = honest_deal()
    expect_cheat(
        lambda: deal.b.receive_show(1, deal.d3["shares"][0]), InvalidShareError, "show", 1, DL
    )


def test_the_nondealer_cannot_reuse_a_d1_for_another_context() -> None:
    """Binding to the caller's context (e.g. the envelope chain hash)."""
    _, b = sides()
    d1 = b.d1()
    a = DeckSideV2(Role.DEALER, DEALER_SEED, game_id=GAME_ID, hand=0, context=bytes(32))
    expect_cheat(lambda: a.receive_d1(d1), InvalidKeyProofError, "D1", None, ND)


def test_a_cheat_at_a_never_opened_position_is_still_caught_by_the_receiver() -> None:
    """Position 31 is never opened: only the proof can catch a change there."""

    def tamper(out: list[Any], x: int) -> None:
        out[31] = (out[31][0], ec.add([out[31][1], G]))

    d1 = forge_d1(tamper=tamper)
    deck = d1["deck"]
    assert deck[31] != forge_d1()["deck"][31] and deck[:31] == forge_d1()["deck"][:31]
    _dealer_gets_d1(d1, InvalidShuffleProofError)
    assert cat(None) == bytes(33)


def test_v1_nondealer_copy_attack_has_no_v2_counterpart() -> None:
    """v1's non-dealer copy attack: a secretly scaled copy of the entry that will be the
    dealer's card, written at the non-dealer's own position. In v2 the non-dealer's only
    deck is D1; the copy is not a permutation of the cards and its proof fails."""

    def tamper(out: list[Any], x: int) -> None:
        out[0] = tuple(ec.mul(p, 0xC0FFEE) for p in out[1])

    _dealer_gets_d1(forge_d1(tamper=tamper), InvalidShuffleProofError)


def test_d2_shared_layer_is_named() -> None:
    """A D2 whose position 1 reuses position 0's non-dealer layer would make the non-dealer's
    D3 share for 1 open its own card 0: refused at D2, naming position 1."""

    def build(d1: dict[str, Any]) -> dict[str, Any]:
        d2 = forge_d2(d1)
        deck = list(d2["deck"])
        deck[1] = deck[0][:33] + deck[1][33:]
        return with_(d2, deck=deck)

    _nondealer_gets_d2(build, DuplicateEntryError, 1)
