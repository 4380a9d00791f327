"""A malicious peer for every cheat, and WHEN each one is caught.

* at once: the receiving ``receive_*`` call rejects the message itself;
* at opening: the message passes, the cheat shows when a card is opened
  (own cards, a shown card, the redeal);
* at the audit: every live check passes; only :func:`audit_hand` with both
  revealed seeds finds it (including both copy attacks).

The cheater is simulated from its seed with plain group operations; the
victim is always an honest :class:`DeckSide`, and the audit runs on the
victim's record (what it received, i.e. the signed messages).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from helpers.deck import (
    DEALER_SEED,
    GAME_ID,
    NONDEALER_SEED,
    N,
    card_of,
    deal_of,
    fresh_point,
    honest_hand,
    inv,
    key,
    mul,
    not_a_point,
    secrets_of,
    seed,
    sides,
)

from truc_p2p.deck import (
    AuditMismatchError,
    CardAlreadySeenError,
    CheatError,
    CommitmentMismatchError,
    DeckSide,
    DeckUsageError,
    DuplicateEntryError,
    HandRecord,
    InvalidKeyError,
    InvalidPointError,
    MalformedDeckError,
    MalformedMessageError,
    NotACardError,
    PositionAlreadyShownError,
    Role,
    UnchangedEntryError,
    WrongPositionError,
    audit_hand,
    card_encodings,
    commitment,
)

SA = secrets_of(Role.DEALER)
SB = secrets_of(Role.NONDEALER)
A_, B_ = SA.global_key, SB.global_key


def audit(record: HandRecord) -> None:
    audit_hand(record, dealer_seed=DEALER_SEED, nondealer_seed=NONDEALER_SEED)


def expect(
    err: pytest.ExceptionInfo[CheatError],
    cls: type[CheatError],
    step: str,
    position: int | None,
    culprit: Role,
) -> None:
    assert type(err.value) is cls, err.value
    assert err.value.step == step
    assert err.value.position == position
    assert err.value.culprit is culprit


def finish_honestly(h_a: DeckSide, h_b: DeckSide, d3: Any, k3: Any) -> None:
    d4, k4 = h_b.receive_d3(d3, k3)
    h_a.receive_d4(d4, k4)


# -- caught at once: malformed decks --------------------------------------------------

Tamper = Callable[[list[Any], tuple[tuple[bytes, ...], ...]], Any]


def _set(i: int, value: Callable[[tuple[tuple[bytes, ...], ...]], Any]) -> Tamper:
    def tamper(deck: list[Any], earlier: tuple[tuple[bytes, ...], ...]) -> Any:
        deck[i] = value(earlier)
        return deck

    return tamper


DECK_TAMPERS: list[tuple[str, Tamper, type[CheatError], int | None]] = [
    ("31 entries", lambda d, e: d[:31], MalformedDeckError, None),
    ("33 entries", lambda d, e: [*d, d[0]], MalformedDeckError, None),
    ("not a sequence", lambda d, e: b"".join(d), MalformedDeckError, None),
    ("a dict", lambda d, e: dict(enumerate(d)), MalformedDeckError, None),
    ("None", lambda d, e: None, MalformedDeckError, None),
    ("31-byte entry", _set(3, lambda e: b"\x01" * 31), MalformedDeckError, 3),
    ("33-byte entry", _set(3, lambda e: b"\x01" * 33), MalformedDeckError, 3),
    ("str entry", _set(3, lambda e: "ab" * 16), MalformedDeckError, 3),
    ("int entry", _set(3, lambda e: 7), MalformedDeckError, 3),
    ("bytearray entry", _set(3, lambda e: bytearray(32)), MalformedDeckError, 3),
    ("duplicated entry", lambda d, e: [*d[:5], d[2], *d[6:]], DuplicateEntryError, 5),
    ("not a point", _set(7, lambda e: not_a_point()), InvalidPointError, 7),
    ("x >= p", _set(7, lambda e: b"\xff" * 32), InvalidPointError, 7),
    ("plain card encoding", _set(9, lambda e: card_encodings()[4]), UnchangedEntryError, 9),
    ("entry of the previous deck", _set(9, lambda e: e[-1][4]), UnchangedEntryError, 9),
    ("entry of the first deck", _set(9, lambda e: e[0][4]), UnchangedEntryError, 9),
]


def _deliver_deck(step: str, tamper: Tamper) -> tuple[Callable[[], object], Role]:
    """Play honestly up to ``step``, tamper with that deck; return the receiving call."""
    a, b = sides()
    d1 = a.d1()
    if step == "D1":
        bad = tamper(list(d1), (card_encodings(),))
        return (lambda: b.receive_d1(bad, a.commitment)), Role.DEALER
    d2 = b.receive_d1(d1, a.commitment)
    if step == "D2":
        bad = tamper(list(d2), (d1,))
        return (lambda: a.receive_d2(bad, b.commitment)), Role.NONDEALER
    d3, k3 = a.receive_d2(d2, b.commitment)
    if step == "D3":
        bad = tamper(list(d3), (d1, d2))
        return (lambda: b.receive_d3(bad, k3)), Role.DEALER
    d4, k4 = b.receive_d3(d3, k3)
    bad = tamper(list(d4), (d2, d3))
    return (lambda: a.receive_d4(bad, k4)), Role.NONDEALER


@pytest.mark.parametrize("step", ["D1", "D2", "D3", "D4"])
@pytest.mark.parametrize(
    ("name", "tamper", "cls", "position"), DECK_TAMPERS, ids=[t[0] for t in DECK_TAMPERS]
)
def test_malformed_deck_caught_at_once(
    step: str, name: str, tamper: Tamper, cls: type[CheatError], position: int | None
) -> None:
    call, culprit = _deliver_deck(step, tamper)
    with pytest.raises(CheatError) as err:
        call()
    expect(err, cls, step, position, culprit)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("step", ["D1", "D2"])
@pytest.mark.parametrize("bad", [b"", b"\x00" * 31, b"\x00" * 33, "00" * 32, None])
def test_malformed_commitment_caught_at_once(step: str, bad: Any) -> None:
    a, b = sides()
    d1 = a.d1()
    with pytest.raises(MalformedMessageError) as err:
        if step == "D1":
            b.receive_d1(d1, bad)
        else:
            a.receive_d2(b.receive_d1(d1, a.commitment), bad)
    assert err.value.step == step
    assert err.value.culprit is (Role.DEALER if step == "D1" else Role.NONDEALER)


def test_side_is_dead_after_a_cheat() -> None:
    a, b = sides()
    d1 = list(a.d1())
    d1[0] = d1[1]
    with pytest.raises(DuplicateEntryError):
        b.receive_d1(d1, a.commitment)
    assert isinstance(b.failure, DuplicateEntryError)
    with pytest.raises(DeckUsageError, match="dead"):
        b.receive_d1(a.record().d1, a.commitment)
    assert b.record().d1 == ()  # the rejected deck is not recorded


# -- caught at once: keys ---------------------------------------------------------------

KeyTamper = Callable[[dict[Any, Any]], Any]
KEY_TAMPERS: list[tuple[str, KeyTamper, type[CheatError] | None, int | None]] = [
    ("not a mapping", lambda k: list(k.values()), MalformedMessageError, None),
    ("missing position", lambda k: {p: v for p, v in k.items() if p != max(k)}, None, -1),
    ("extra position", lambda k: {**k, 20: next(iter(k.values()))}, WrongPositionError, 20),
    ("str position", lambda k: {**k, "0": next(iter(k.values()))}, WrongPositionError, None),
    ("key zero", lambda k: {**k, min(k): bytes(32)}, InvalidKeyError, -2),
    ("key n", lambda k: {**k, min(k): key(N)}, InvalidKeyError, -2),
    ("key above n", lambda k: {**k, min(k): b"\xff" * 32}, InvalidKeyError, -2),
    ("31-byte key", lambda k: {**k, min(k): b"\x01" * 31}, InvalidKeyError, -2),
    ("int key", lambda k: {**k, min(k): 5}, InvalidKeyError, -2),
]


@pytest.mark.parametrize("step", ["D3", "D4"])
@pytest.mark.parametrize(
    ("name", "tamper", "cls", "position"), KEY_TAMPERS, ids=[t[0] for t in KEY_TAMPERS]
)
def test_bad_keys_caught_at_once(
    step: str, name: str, tamper: Callable[[dict[Any, Any]], Any], cls: Any, position: int | None
) -> None:
    a, b = sides()
    d3, k3 = a.receive_d2(b.receive_d1(a.d1(), a.commitment), b.commitment)
    call: Callable[[Any], object]
    if step == "D3":
        keys, culprit, expected_positions = tamper(dict(k3)), Role.DEALER, (0, 2, 4)

        def call(k: Any) -> object:
            return b.receive_d3(d3, k)
    else:
        d4, k4 = b.receive_d3(d3, k3)
        keys, culprit, expected_positions = tamper(dict(k4)), Role.NONDEALER, (1, 3, 5)

        def call(k: Any) -> object:
            a.receive_d4(d4, k)
            return None

    if position == -1:  # the missing one
        cls, position = WrongPositionError, max(expected_positions)
    elif position == -2:  # the first one
        position = min(expected_positions)
    with pytest.raises(CheatError) as err:
        call(keys)
    expect(err, cls, step, position, culprit)


def test_keys_for_the_wrong_positions_caught_at_once() -> None:
    a, b = sides()
    d3, k3 = a.receive_d2(b.receive_d1(a.d1(), a.commitment), b.commitment)
    swapped = {1: k3[0], 2: k3[2], 4: k3[4]}  # a key for a dealer position
    with pytest.raises(WrongPositionError) as err:
        b.receive_d3(d3, swapped)
    expect(err, WrongPositionError, "D3", 1, Role.DEALER)


# -- caught at opening -------------------------------------------------------------------


def test_wrong_d3_key_caught_when_the_nondealer_opens() -> None:
    a, b = sides()
    d3, k3 = a.receive_d2(b.receive_d1(a.d1(), a.commitment), b.commitment)
    k3[2] = key(SA.card_keys[2] + 1)  # a valid scalar, not the key
    with pytest.raises(NotACardError) as err:
        b.receive_d3(d3, k3)
    expect(err, NotACardError, "D3", 2, Role.DEALER)


def test_wrong_d4_key_caught_when_the_dealer_opens() -> None:
    a, b = sides()
    d3, k3 = a.receive_d2(b.receive_d1(a.d1(), a.commitment), b.commitment)
    d4, k4 = b.receive_d3(d3, k3)
    k4[5] = k4[3]  # a real key of another position
    with pytest.raises(NotACardError) as err:
        a.receive_d4(d4, k4)
    expect(err, NotACardError, "D4", 5, Role.NONDEALER)


def test_key_n_minus_k_is_the_same_key() -> None:
    """k and n - k give the same x-coordinate: not a cheat, and the audit agrees."""
    a, b = sides()
    d3, k3 = a.receive_d2(b.receive_d1(a.d1(), a.commitment), b.commitment)
    k3[0] = key(N - SA.card_keys[0])
    d4, k4 = b.receive_d3(d3, k3)
    k4[1] = key(N - SB.card_keys[1])
    a.receive_d4(d4, k4)
    deal = deal_of()
    assert b.my_cards()[0] == deal[0] and a.my_cards()[1] == deal[1]
    assert b.receive_show(3, key(N - SA.card_keys[3])) == deal[3]
    audit(b.record())
    audit(a.record())


@pytest.mark.parametrize(
    ("step", "position", "how"),
    [
        ("D3", 0, "scaled"),
        ("D3", 2, "substituted"),
        ("D3", 4, "keyed for another position"),
    ],
)
def test_bad_d3_entry_at_a_nondealer_position_caught_at_opening(
    step: str, position: int, how: str
) -> None:
    a, b = sides()
    d2 = b.receive_d1(a.d1(), a.commitment)
    d3, k3 = a.receive_d2(d2, b.commitment)
    bad = list(d3)
    if how == "scaled":
        bad[position] = mul(5, d3[position])
    elif how == "substituted":
        bad[position] = fresh_point()
    else:
        bad[position] = mul(SA.card_keys[2] * inv(A_), d2[position])
    with pytest.raises(NotACardError) as err:
        b.receive_d3(bad, k3)
    expect(err, NotACardError, step, position, Role.DEALER)


def test_dealer_card_copied_to_a_nondealer_position_caught_when_the_dealer_shows_it() -> None:
    """A re-keyed copy of the dealer's position 1 at the non-dealer's position 4 opens to
    a valid card; it is caught when the dealer shows its copy, and by the audit."""
    a, b = sides()
    d2 = b.receive_d1(a.d1(), a.commitment)
    d3, k3 = a.receive_d2(d2, b.commitment)
    bad = list(d3)
    bad[4] = mul(SA.card_keys[4] * inv(A_), d2[1])
    b.receive_d3(bad, k3)  # passes
    assert b.my_cards()[4] == deal_of()[1]
    with pytest.raises(CardAlreadySeenError) as err:
        b.receive_show(1, key(SA.card_keys[1]))
    expect(err, CardAlreadySeenError, "show", 1, Role.DEALER)
    with pytest.raises(AuditMismatchError) as audit_err:
        audit(b.record())
    expect(audit_err, AuditMismatchError, "D3", 4, Role.DEALER)


def test_scaled_d4_entry_at_a_dealer_position_caught_at_opening() -> None:
    h_a, h_b = sides()
    d3, k3 = h_a.receive_d2(h_b.receive_d1(h_a.d1(), h_a.commitment), h_b.commitment)
    d4, k4 = h_b.receive_d3(d3, k3)
    bad = list(d4)
    bad[3] = mul(9, d4[3])
    with pytest.raises(NotACardError) as err:
        h_a.receive_d4(bad, k4)
    expect(err, NotACardError, "D4", 3, Role.NONDEALER)


def test_scaled_d4_entry_at_a_nondealer_position_caught_when_shown() -> None:
    h_a, h_b = sides()
    d3, k3 = h_a.receive_d2(h_b.receive_d1(h_a.d1(), h_a.commitment), h_b.commitment)
    d4, k4 = h_b.receive_d3(d3, k3)
    bad = list(d4)
    bad[2] = mul(9, d4[2])
    h_a.receive_d4(bad, k4)  # passes: the dealer does not open position 2
    with pytest.raises(NotACardError) as err:
        h_a.receive_show(2, h_b.show(2))
    expect(err, NotACardError, "show", 2, Role.NONDEALER)
    with pytest.raises(AuditMismatchError) as audit_err:
        audit(h_a.record())
    expect(audit_err, AuditMismatchError, "D4", 2, Role.NONDEALER)


def test_wrong_show_key_caught_at_opening() -> None:
    h = honest_hand()
    with pytest.raises(NotACardError) as err:
        h.b.receive_show(3, key(SA.card_keys[3] + 1))
    expect(err, NotACardError, "show", 3, Role.DEALER)
    h = honest_hand()
    with pytest.raises(NotACardError) as err:
        h.a.receive_show(0, h.b.show(2))  # the key of another position
    expect(err, NotACardError, "show", 0, Role.NONDEALER)


def test_wrong_redeal_key_caught_at_opening() -> None:
    h = honest_hand()
    keys = h.a.redeal_keys()
    keys[8] = key(SA.card_keys[8] * 2)
    with pytest.raises(NotACardError) as err:
        h.b.receive_redeal_keys(keys)
    expect(err, NotACardError, "keys", 8, Role.DEALER)
    h = honest_hand()
    with pytest.raises(WrongPositionError) as wp:
        h.a.receive_redeal_keys({6: key(1), 9: key(1), 11: key(1)})
    expect(wp, WrongPositionError, "keys", 6, Role.NONDEALER)
    h = honest_hand()
    with pytest.raises(InvalidKeyError) as ik:
        h.a.receive_redeal_keys({7: key(1), 9: bytes(32), 11: key(1)})
    expect(ik, InvalidKeyError, "keys", 9, Role.NONDEALER)


@pytest.mark.parametrize(
    ("shower", "position", "redeal", "cls"),
    [
        (Role.DEALER, 0, False, WrongPositionError),  # the non-dealer's position
        (Role.DEALER, 7, False, WrongPositionError),  # redeal position, no redeal
        (Role.DEALER, 12, False, WrongPositionError),  # nobody's
        (Role.DEALER, -1, False, WrongPositionError),
        (Role.DEALER, 1, True, WrongPositionError),  # old hand after the redeal
        (Role.NONDEALER, 1, False, WrongPositionError),
        (Role.NONDEALER, 6, False, WrongPositionError),
        (Role.NONDEALER, 31, False, WrongPositionError),
        (Role.NONDEALER, 2, True, WrongPositionError),
    ],
)
def test_showing_a_position_not_held_caught_at_once(
    shower: Role, position: int, redeal: bool, cls: type[CheatError]
) -> None:
    h = honest_hand()
    if redeal:
        h.b.receive_redeal_keys(h.a.redeal_keys())
        h.a.receive_redeal_keys(h.b.redeal_keys())
    receiver = h.b if shower is Role.DEALER else h.a
    secrets = SA if shower is Role.DEALER else SB
    with pytest.raises(CheatError) as err:
        receiver.receive_show(position, key(secrets.card_keys[max(position, 0)]))
    expect(err, cls, "show", position, shower)


@pytest.mark.parametrize("position", ["1", True, 1.0, None])
def test_show_position_of_the_wrong_type(position: Any) -> None:
    h = honest_hand()
    with pytest.raises(MalformedMessageError) as err:
        h.b.receive_show(position, key(SA.card_keys[1]))
    expect(err, MalformedMessageError, "show", None, Role.DEALER)


@pytest.mark.parametrize("bad", [bytes(32), key(N), b"\x01" * 31, 5, None])
def test_invalid_show_key_caught_at_once(bad: Any) -> None:
    h = honest_hand()
    with pytest.raises(InvalidKeyError) as err:
        h.b.receive_show(1, bad)
    expect(err, InvalidKeyError, "show", 1, Role.DEALER)


def test_showing_the_same_position_twice_caught_at_once() -> None:
    h = honest_hand()
    k = h.a.show(1)
    h.b.receive_show(1, k)
    with pytest.raises(PositionAlreadyShownError) as err:
        h.b.receive_show(1, k)
    expect(err, PositionAlreadyShownError, "show", 1, Role.DEALER)


def test_dealer_revealing_a_card_twice_caught_at_opening() -> None:
    """The dealer copies its position 1 into its position 3 and shows both."""
    a, b = sides()
    d2 = b.receive_d1(a.d1(), a.commitment)
    d3, k3 = a.receive_d2(d2, b.commitment)
    bad = list(d3)
    bad[3] = mul(SA.card_keys[3] * inv(A_), d2[1])
    b.receive_d3(bad, k3)  # passes: nothing the non-dealer can check
    card = b.receive_show(1, key(SA.card_keys[1]))
    assert card == deal_of()[1]
    with pytest.raises(CardAlreadySeenError) as err:
        b.receive_show(3, key(SA.card_keys[3]))
    expect(err, CardAlreadySeenError, "show", 3, Role.DEALER)
    with pytest.raises(AuditMismatchError) as audit_err:
        audit(b.record())
    expect(audit_err, AuditMismatchError, "D3", 3, Role.DEALER)


def test_nondealer_revealing_a_card_twice_caught_at_opening() -> None:
    """The non-dealer scales a copy of its position 0 into its position 2, then
    strips the factor when re-keying D4, and shows both positions."""
    a, b = sides()
    d1 = a.d1()
    d2 = list(b.receive_d1(d1, a.commitment))
    c = 0xC0FFEE
    d2[2] = mul(c, d2[0])
    d3, _ = a.receive_d2(d2, b.commitment)  # passes
    d4 = [mul(SB.card_keys[i] * inv(B_), d3[i]) for i in range(32)]
    d4[2] = mul(SB.card_keys[2] * inv(B_ * c), d3[2])
    a.receive_d4(d4, {p: key(SB.card_keys[p]) for p in (1, 3, 5)})  # passes
    assert a.receive_show(0, key(SB.card_keys[0])) == deal_of()[0]
    with pytest.raises(CardAlreadySeenError) as err:
        a.receive_show(2, key(SB.card_keys[2]))
    expect(err, CardAlreadySeenError, "show", 2, Role.NONDEALER)
    with pytest.raises(AuditMismatchError) as audit_err:
        audit(a.record())
    expect(audit_err, AuditMismatchError, "D2", 2, Role.NONDEALER)


# -- caught only by the audit --------------------------------------------------------------


def test_unshuffled_d1_caught_only_by_the_audit() -> None:
    a, b = sides()
    a.d1()  # the honest deck is discarded
    d1 = [mul(A_, x) for x in card_encodings()]  # encrypted, not shuffled
    d2 = b.receive_d1(d1, a.commitment)
    d3, k3 = a.receive_d2(d2, b.commitment)
    finish_honestly(a, b, d3, k3)
    for p in (1, 3, 5):
        b.receive_show(p, a.show(p))
    first = next(i for i, j in enumerate(SA.permutation) if j != i)
    with pytest.raises(AuditMismatchError) as err:
        audit(b.record())
    expect(err, AuditMismatchError, "D1", first, Role.DEALER)


def test_unshuffled_d2_caught_only_by_the_audit() -> None:
    a, b = sides()
    d1 = a.d1()
    b.receive_d1(d1, a.commitment)
    d2 = [mul(B_, x) for x in d1]
    d3, k3 = a.receive_d2(d2, b.commitment)
    finish_honestly(a, b, d3, k3)
    first = next(i for i, j in enumerate(SB.permutation) if j != i)
    with pytest.raises(AuditMismatchError) as err:
        audit(a.record())
    expect(err, AuditMismatchError, "D2", first, Role.NONDEALER)


def test_substituted_d1_entry_never_opened_caught_only_by_the_audit() -> None:
    a, b = sides()
    d1 = list(a.d1())
    index = SB.permutation[20]  # lands at position 20, which nobody opens
    d1[index] = fresh_point()
    d3, k3 = a.receive_d2(b.receive_d1(d1, a.commitment), b.commitment)
    finish_honestly(a, b, d3, k3)
    with pytest.raises(AuditMismatchError) as err:
        audit(b.record())
    expect(err, AuditMismatchError, "D1", index, Role.DEALER)


@pytest.mark.parametrize("step", ["D3", "D4"])
def test_scaled_entry_never_opened_caught_only_by_the_audit(step: str) -> None:
    a, b = sides()
    d3, k3 = a.receive_d2(b.receive_d1(a.d1(), a.commitment), b.commitment)
    if step == "D3":
        bad = list(d3)
        bad[20] = mul(3, d3[20])
        finish_honestly(a, b, bad, k3)
        victim, culprit = b, Role.DEALER
    else:
        d4, k4 = b.receive_d3(d3, k3)
        bad = list(d4)
        bad[20] = mul(3, d4[20])
        a.receive_d4(bad, k4)
        victim, culprit = a, Role.NONDEALER
    with pytest.raises(AuditMismatchError) as err:
        audit(victim.record())
    expect(err, AuditMismatchError, step, 20, culprit)


def test_dealer_copy_attack_reads_the_nondealer_card_and_only_the_audit_catches_it() -> None:
    """D3[1] = (a_1 / a) * D2[0]: the dealer's position 1 becomes a re-keyed copy of
    the non-dealer's position 0, so opening its 'own' card shows the dealer the
    non-dealer's card."""
    a, b = sides()
    d2 = b.receive_d1(a.d1(), a.commitment)
    d3, k3 = a.receive_d2(d2, b.commitment)
    bad = list(d3)
    bad[1] = mul(SA.card_keys[1] * inv(A_), d2[0])
    d4, k4 = b.receive_d3(bad, k3)  # every check passes
    a.receive_d4(d4, k4)  # and the dealer opens position 1 ...
    assert a.my_cards()[1] == b.my_cards()[0]  # ... which is the non-dealer's card
    with pytest.raises(AuditMismatchError) as err:
        audit(b.record())
    expect(err, AuditMismatchError, "D3", 1, Role.DEALER)
    # Showing that position would be caught at opening: the receiver holds the card.
    with pytest.raises(CardAlreadySeenError):
        b.receive_show(1, key(SA.card_keys[1]))


def test_nondealer_copy_attack_reads_the_dealer_card_and_only_the_audit_catches_it() -> None:
    """D2[0] = c * b * D1[x] where D1[x] is the entry headed for the dealer's position 1:
    when the dealer opens position 0 to the non-dealer, stripping c reveals the
    dealer's card."""
    a, b = sides()
    d1 = a.d1()
    d2 = list(b.receive_d1(d1, a.commitment))
    c = 0x5EC12E7
    d2[0] = mul(c * B_, d1[SB.permutation[1]])
    d3, k3 = a.receive_d2(d2, b.commitment)  # every check passes
    stolen = card_of(mul(inv(int.from_bytes(k3[0], "big") * B_ * c), d3[0]))
    d4 = [mul(SB.card_keys[i] * inv(B_), d3[i]) for i in range(32)]
    a.receive_d4(d4, {p: key(SB.card_keys[p]) for p in (1, 3, 5)})  # passes too
    assert stolen is not None and stolen == a.my_cards()[1]
    with pytest.raises(AuditMismatchError) as err:
        audit(a.record())
    expect(err, AuditMismatchError, "D2", 0, Role.NONDEALER)
    # The non-dealer holds no real card at 0: showing it is caught at opening.
    with pytest.raises(NotACardError):
        a.receive_show(0, key(SB.card_keys[0]))


@pytest.mark.parametrize("role", list(Role))
def test_seed_not_matching_the_commitment_caught_by_the_audit(role: Role) -> None:
    h = honest_hand()
    record = h.a.record()
    seeds = {"dealer_seed": DEALER_SEED, "nondealer_seed": NONDEALER_SEED}
    name = "dealer_seed" if role is Role.DEALER else "nondealer_seed"
    for wrong in (seed("other"), DEALER_SEED if role is Role.NONDEALER else NONDEALER_SEED, b""):
        with pytest.raises(CommitmentMismatchError) as err:
            audit_hand(record, **{**seeds, name: wrong})
        expect(err, CommitmentMismatchError, "audit", None, role)


@pytest.mark.parametrize("role", list(Role))
def test_playing_with_another_seed_than_committed_is_caught_by_the_audit(role: Role) -> None:
    """The cheater commits to one seed and plays another: revealing the committed seed
    fails on its first message, revealing the played seed fails the commitment."""
    played = seed("played")
    committed = DEALER_SEED if role is Role.DEALER else NONDEALER_SEED
    a = DeckSide(
        Role.DEALER, played if role is Role.DEALER else DEALER_SEED, game_id=GAME_ID, hand=0
    )
    b = DeckSide(
        Role.NONDEALER,
        played if role is Role.NONDEALER else NONDEALER_SEED,
        game_id=GAME_ID,
        hand=0,
    )
    fake = commitment(committed, game_id=GAME_ID, hand=0, role=role)
    d1 = a.d1()
    d2 = b.receive_d1(d1, fake if role is Role.DEALER else a.commitment)
    d3, k3 = a.receive_d2(d2, fake if role is Role.NONDEALER else b.commitment)
    finish_honestly(a, b, d3, k3)
    victim = b if role is Role.DEALER else a
    record = victim.record()
    with pytest.raises(AuditMismatchError) as err:
        audit(record)
    assert err.value.culprit is role
    assert err.value.step == ("D1" if role is Role.DEALER else "D2")
    with pytest.raises(CommitmentMismatchError) as c_err:
        if role is Role.DEALER:
            audit_hand(record, dealer_seed=played, nondealer_seed=NONDEALER_SEED)
        else:
            audit_hand(record, dealer_seed=DEALER_SEED, nondealer_seed=played)
    assert c_err.value.culprit is role


# -- neither side can open a card alone ----------------------------------------------------


def test_neither_side_can_open_a_card_without_the_other_key() -> None:
    h = honest_hand()
    encodings = set(card_encodings())
    for i in range(32):
        # The non-dealer strips everything it knows from every deck it saw.
        assert mul(inv(B_), h.d2[i]) not in encodings  # leaves a * m
        assert mul(inv(B_), h.d3[i]) not in encodings  # leaves a_i * m
        assert mul(inv(SB.card_keys[i]), h.d4[i]) not in encodings  # leaves a_i * m
        # The dealer likewise.
        assert mul(inv(A_), h.d1[i]) in encodings  # its own deck, of course
        assert mul(inv(A_), h.d2[i]) not in encodings  # leaves b * m
        assert mul(inv(SA.card_keys[i]), h.d3[i]) not in encodings  # leaves b * m
        assert mul(inv(SA.card_keys[i]), h.d4[i]) not in encodings  # leaves b_i * m
    # With both keys every position opens.
    deal = deal_of()
    for i in range(32):
        assert card_of(mul(inv(SA.card_keys[i] * SB.card_keys[i]), h.d4[i])) == deal[i]
