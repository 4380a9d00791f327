"""Deck v2 proof fuzzing: mutated messages never crash a receiver or the verifier and are
never accepted -- only a :class:`CheatError` may escape."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from helpers.deck_v2 import honest_deal, record, sides
from helpers.examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from truc_p2p.deck import CheatError, verify_hand_v2

FUZZ = settings(
    max_examples=examples(30),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@functools.cache
def _deal() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], bytes]:
    deal = honest_deal()
    return deal.d1, deal.d2, deal.d3, deal.b.show(0)


def _flip(blob: bytes, offset: int, mask: int) -> bytes:
    offset %= len(blob)
    return blob[:offset] + bytes([blob[offset] ^ mask]) + blob[offset + 1 :]


def _mutate(
    payload: dict[str, Any], field: str, index: int, offset: int, mask: int
) -> dict[str, Any]:
    out = dict(payload)
    value = out[field]
    if isinstance(value, list):
        value = list(value)
        value[index % len(value)] = _flip(value[index % len(value)], offset, mask)
    else:
        value = _flip(value, offset, mask)
    out[field] = value
    return out


masks = st.integers(1, 255)
offsets = st.integers(0, 10_000)


@pytest.mark.slow
@FUZZ
@given(st.sampled_from(["key", "pok", "deck", "proof"]), st.integers(0, 31), offsets, masks)
def test_mutated_d1_is_rejected(field: str, index: int, offset: int, mask: int) -> None:
    d1 = _mutate(_deal()[0], field, index, offset, mask)
    a, _ = sides()
    try:
        a.receive_d1(d1)
    except CheatError:
        pass
    else:
        raise AssertionError("a mutated D1 was accepted")
    try:
        verify_hand_v2(record(d1=d1))
    except CheatError:
        return
    raise AssertionError("the verifier accepted a mutated D1")


@pytest.mark.slow
@FUZZ
@given(
    st.sampled_from(["key", "pok", "deck", "proof", "shares"]), st.integers(0, 31), offsets, masks
)
def test_mutated_d2_is_rejected(field: str, index: int, offset: int, mask: int) -> None:
    d1, d2, _, _ = _deal()
    bad = _mutate(d2, field, index, offset, mask)
    try:
        verify_hand_v2(record(d1=d1, d2=bad))
    except CheatError:
        return
    raise AssertionError("a mutated D2 was accepted")


@pytest.mark.slow
@FUZZ
@given(st.integers(0, 2), offsets, masks)
def test_mutated_d3_and_show_are_rejected(index: int, offset: int, mask: int) -> None:
    d1, d2, d3, show = _deal()
    bad = _mutate(d3, "shares", index, offset, mask)
    try:
        verify_hand_v2(record(d1=d1, d2=d2, d3=bad))
    except CheatError:
        pass
    else:
        raise AssertionError("a mutated D3 was accepted")
    try:
        verify_hand_v2(record(d1=d1, d2=d2, d3=d3, nondealer_shown={0: _flip(show, offset, mask)}))
    except CheatError:
        return
    raise AssertionError("a mutated show was accepted")


junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.binary(max_size=120) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=33) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=40,
)


@pytest.mark.slow
@FUZZ
@given(st.sampled_from(["key", "pok", "deck", "proof", "shares", None]), junk)
def test_junk_fields_give_typed_errors(field: str | None, value: Any) -> None:
    d1, d2, d3, _ = _deal()
    if field is None:
        if value is None:  # a message never sent: the record simply stops there
            return
        cases = [record(d1=value), record(d1=d1, d2=value), record(d1=d1, d2=d2, d3=value)]
    else:
        cases = [
            record(d1=d1, d2={**d2, field: value}),
            record(d1=d1, d2=d2, d3={**d3, "shares": value}),
        ]
        if field in d1:  # unknown fields are ignored: the envelope carries more than the deck
            cases.append(record(d1={**d1, field: value}))
    for rec in cases:
        try:
            verify_hand_v2(rec)
        except CheatError:
            continue
        raise AssertionError("junk was accepted")


@pytest.mark.slow
@settings(max_examples=examples(12), deadline=None, derandomize=True)
@given(junk, junk)
def test_junk_shows_and_redeals_give_typed_errors(position: Any, share: Any) -> None:
    for call in ("show", "redeal"):
        a = honest_deal().a
        try:
            if call == "show":
                a.receive_show(position, share)
            else:
                a.receive_redeal_shares(share)
        except CheatError:
            continue
        raise AssertionError("junk was accepted")
