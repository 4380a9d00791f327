"""The audit: full recomputation, blame (step, position, culprit), partial records."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from helpers.deck import (
    DEALER_SEED,
    GAME_ID,
    NONDEALER_SEED,
    N,
    deal_of,
    honest_hand,
    key,
    secrets_of,
    sides,
)

from truc_p2p.deck import (
    AuditMismatchError,
    CommitmentMismatchError,
    DeckUsageError,
    HandRecord,
    Role,
    audit_hand,
)

SA = secrets_of(Role.DEALER)
SB = secrets_of(Role.NONDEALER)


def full_record(redeal: bool = False) -> HandRecord:
    h = honest_hand()
    if redeal:
        h.b.receive_redeal_keys(h.a.redeal_keys())
        h.a.receive_redeal_keys(h.b.redeal_keys())
    dealer_pos = (7, 9, 11) if redeal else (1, 3, 5)
    nondealer_pos = (6, 8, 10) if redeal else (0, 2, 4)
    for dp, np_ in zip(dealer_pos, nondealer_pos, strict=True):
        h.b.receive_show(dp, h.a.show(dp))
        h.a.receive_show(np_, h.b.show(np_))
    record = h.a.record()
    assert record == h.b.record()
    return record


RECORD = full_record()
REDEAL_RECORD = full_record(redeal=True)


def audit(record: HandRecord) -> Any:
    return audit_hand(record, dealer_seed=DEALER_SEED, nondealer_seed=NONDEALER_SEED)


def test_honest_hand_passes_with_the_full_deal() -> None:
    report = audit(RECORD)
    deal = deal_of()
    assert report.deal == deal
    assert report.game_id == GAME_ID and report.hand == 0
    assert not report.redeal
    assert report.checked == ("D1", "D2", "D3", "D4", "dealer shown", "nondealer shown")
    assert report.cards(Role.DEALER) == {p: deal[p] for p in (1, 3, 5)}
    assert report.cards(Role.NONDEALER, redeal=True) == {p: deal[p] for p in (6, 8, 10)}
    assert report.dealer_shown == {p: deal[p] for p in (1, 3, 5)}
    report = audit(REDEAL_RECORD)
    assert report.redeal
    assert "dealer redeal keys" in report.checked and "nondealer redeal keys" in report.checked


def test_side_audit_helper() -> None:
    h = honest_hand()
    assert h.a.audit(h.b.seed).deal == h.b.audit(h.a.seed).deal == deal_of()


def _replace_entry(deck: tuple[bytes, ...], i: int, value: bytes) -> tuple[bytes, ...]:
    out = list(deck)
    out[i] = value
    return tuple(out)


@pytest.mark.parametrize(
    ("field", "change", "step", "position", "culprit"),
    [
        ("d1", lambda r: _replace_entry(r.d1, 4, r.d2[0]), "D1", 4, Role.DEALER),
        ("d2", lambda r: _replace_entry(r.d2, 31, r.d1[0]), "D2", 31, Role.NONDEALER),
        ("d3", lambda r: _replace_entry(r.d3, 0, r.d4[0]), "D3", 0, Role.DEALER),
        ("d4", lambda r: _replace_entry(r.d4, 17, r.d3[17]), "D4", 17, Role.NONDEALER),
        ("d3", lambda r: r.d3[:31], "D3", None, Role.DEALER),
        ("d4", lambda r: (*r.d4, r.d4[0]), "D4", None, Role.NONDEALER),
        ("d3_keys", lambda r: {**r.d3_keys, 2: key(5)}, "D3", 2, Role.DEALER),
        ("d3_keys", lambda r: {0: r.d3_keys[0], 2: r.d3_keys[2]}, "D3", 4, Role.DEALER),
        ("d3_keys", lambda r: {**r.d3_keys, 1: key(SA.card_keys[1])}, "D3", 1, Role.DEALER),
        ("d4_keys", lambda r: {**r.d4_keys, 5: b"\x00" * 32}, "D4", 5, Role.NONDEALER),
        ("d4_keys", lambda r: {**r.d4_keys, 5: b"short"}, "D4", 5, Role.NONDEALER),
        ("dealer_shown", lambda r: {**r.dealer_shown, 3: key(7)}, "show", 3, Role.DEALER),
        (
            "dealer_shown",
            lambda r: {**r.dealer_shown, 0: key(SA.card_keys[0])},
            "show",
            0,
            Role.DEALER,
        ),
        (
            "nondealer_shown",
            lambda r: {**r.nondealer_shown, 4: key(SB.card_keys[2])},
            "show",
            4,
            Role.NONDEALER,
        ),
        (
            "nondealer_shown",
            lambda r: {**r.nondealer_shown, 6: key(SB.card_keys[6])},
            "show",
            6,
            Role.NONDEALER,
        ),
    ],
)
def test_every_changed_message_is_blamed_on_its_sender(
    field: str, change: Any, step: str, position: int | None, culprit: Role
) -> None:
    record = dataclasses.replace(RECORD, **{field: change(RECORD)})
    with pytest.raises(AuditMismatchError) as err:
        audit(record)
    assert (err.value.step, err.value.position, err.value.culprit) == (step, position, culprit)


@pytest.mark.parametrize(
    ("field", "change", "position", "culprit"),
    [
        ("dealer_redeal_keys", lambda r: {**r.dealer_redeal_keys, 8: key(3)}, 8, Role.DEALER),
        (
            "dealer_redeal_keys",
            lambda r: {6: r.dealer_redeal_keys[6], 8: r.dealer_redeal_keys[8]},
            10,
            Role.DEALER,
        ),
        (
            "nondealer_redeal_keys",
            lambda r: {**r.nondealer_redeal_keys, 1: key(SB.card_keys[1])},
            1,
            Role.NONDEALER,
        ),
    ],
)
def test_redeal_keys_are_audited(field: str, change: Any, position: int, culprit: Role) -> None:
    record = dataclasses.replace(REDEAL_RECORD, **{field: change(REDEAL_RECORD)})
    with pytest.raises(AuditMismatchError) as err:
        audit(record)
    assert (err.value.step, err.value.position, err.value.culprit) == ("keys", position, culprit)


def test_after_a_redeal_only_redeal_positions_may_be_shown() -> None:
    record = dataclasses.replace(
        REDEAL_RECORD, dealer_shown={1: key(SA.card_keys[1]), 7: key(SA.card_keys[7])}
    )
    with pytest.raises(AuditMismatchError) as err:
        audit(record)
    assert (err.value.step, err.value.position) == ("show", 1)


def test_n_minus_k_keys_pass_the_audit() -> None:
    record = dataclasses.replace(
        RECORD,
        d3_keys={p: key(N - SA.card_keys[p]) for p in (0, 2, 4)},
        nondealer_shown={p: key(N - SB.card_keys[p]) for p in (0, 2, 4)},
    )
    assert audit(record).deal == deal_of()


def test_the_first_difference_in_sending_order_is_blamed() -> None:
    record = dataclasses.replace(
        RECORD,
        d2=_replace_entry(RECORD.d2, 3, RECORD.d1[0]),
        d3=_replace_entry(RECORD.d3, 3, RECORD.d1[0]),
    )
    with pytest.raises(AuditMismatchError) as err:
        audit(record)
    assert (err.value.step, err.value.culprit) == ("D2", Role.NONDEALER)


def test_commitments_are_checked_first() -> None:
    record = dataclasses.replace(
        RECORD, d1=_replace_entry(RECORD.d1, 0, RECORD.d2[0]), nondealer_commitment=bytes(32)
    )
    with pytest.raises(CommitmentMismatchError) as err:
        audit(record)
    assert err.value.culprit is Role.NONDEALER and err.value.step == "audit"
    with pytest.raises(CommitmentMismatchError) as err:
        audit(dataclasses.replace(RECORD, hand=1))  # commitments bind the hand number
    assert err.value.culprit is Role.DEALER


def test_partial_records() -> None:
    a, b = sides()
    d1 = a.d1()
    b.receive_d1(d1, a.commitment)
    report = audit(b.record())
    assert report.checked == ("D1", "D2")
    assert report.deal == deal_of()  # the seeds decide the deal anyway
    only_d1 = dataclasses.replace(b.record(), d2=())
    assert audit(only_d1).checked == ("D1",)


@pytest.mark.parametrize(
    "change",
    [
        {"d2": ()},
        {"d3": ()},
        {"d3": (), "d4": ()},
        {"d4": ()},
        {"game_id": b"short"},
        {"hand": -1},
    ],
)
def test_inconsistent_records_are_usage_errors(change: dict[str, Any]) -> None:
    with pytest.raises(DeckUsageError):
        audit(dataclasses.replace(RECORD, **change))


def test_audit_needs_a_record() -> None:
    with pytest.raises(DeckUsageError):
        audit_hand(
            "record",  # type: ignore[arg-type]
            dealer_seed=DEALER_SEED,
            nondealer_seed=NONDEALER_SEED,
        )


@pytest.mark.parametrize(
    ("field", "change", "culprit"),
    [
        ("d1", lambda r: _replace_entry(r.d1, 4, r.d2[0]), Role.DEALER),
        ("d2", lambda r: _replace_entry(r.d2, 31, r.d1[0]), Role.NONDEALER),
        ("d3", lambda r: _replace_entry(r.d3, 0, r.d4[0]), Role.DEALER),
        ("d4", lambda r: _replace_entry(r.d4, 17, r.d3[17]), Role.NONDEALER),
        ("dealer_shown", lambda r: {**r.dealer_shown, 3: key(7)}, Role.DEALER),
        ("nondealer_shown", lambda r: {**r.nondealer_shown, 4: key(9)}, Role.NONDEALER),
    ],
)
def test_a_trusted_role_is_not_recomputed_but_the_other_is(
    field: str, change: Any, culprit: Role
) -> None:
    """A live peer audits only its opponent: its own messages are its own."""
    record = dataclasses.replace(RECORD, **{field: change(RECORD)})
    seeds = {"dealer_seed": DEALER_SEED, "nondealer_seed": NONDEALER_SEED}
    audit_hand(record, trusted=culprit, **seeds)  # the changed side is the trusted one
    with pytest.raises(AuditMismatchError) as err:
        audit_hand(record, trusted=culprit.other, **seeds)
    assert err.value.culprit is culprit
    assert audit_hand(RECORD, trusted=culprit, **seeds).deal == deal_of()
