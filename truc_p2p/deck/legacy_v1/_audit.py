"""The audit: recompute a hand byte for byte from both revealed seeds.

Every message of a hand is a deterministic function of its sender's seed and
of the messages before it.  The audit checks both commitments, then walks the
messages in the order they were sent and compares each with what the sender's
seed produces from the (already verified) earlier messages.  The first
difference is therefore always the fault of that message's sender, who is
named as the culprit.  Since every earlier deck matched, the expected decks can
be computed straight from the card points (``D2[i] = x(ab * m)``,
``D3[i] = x(a_i b * m)``, ``D4[i] = x(a_i b_i * m)``): one multiplication per
entry and no point decoding.

Keys are compared as scalars modulo the x-coordinate symmetry: ``k`` and
``n - k`` give the same x-coordinate for every point, so either is accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from truc_p2p.deck._errors import AuditMismatchError, CommitmentMismatchError, DeckUsageError
from truc_p2p.deck._schedule import N_CARDS, Role, positions
from truc_p2p.deck.legacy_v1 import _group
from truc_p2p.deck.legacy_v1._encoding import card_points
from truc_p2p.deck.legacy_v1._record import HandRecord
from truc_p2p.deck.legacy_v1._secrets import SEED_SIZE, commitment, context_bytes, derive_secrets

__all__ = ["AuditReport", "audit_hand"]

_ORDER = _group.ORDER


@dataclass(frozen=True, kw_only=True)
class AuditReport:
    """A hand that passed the audit.

    ``deal[i]`` is the card index at final-deck position ``i``; ``checked``
    lists the messages that were present and verified (``"D1"`` .. ``"D4"``
    include the keys sent with D3/D4); ``dealer_shown`` / ``nondealer_shown``
    map each shown position to its card.
    """

    game_id: bytes
    hand: int
    deal: tuple[int, ...]
    redeal: bool
    checked: tuple[str, ...]
    dealer_shown: Mapping[int, int]
    nondealer_shown: Mapping[int, int]

    def cards(self, role: Role, redeal: bool = False) -> dict[int, int]:
        """Position -> card of ``role``'s hand (the redeal hand if ``redeal``)."""
        return {p: self.deal[p] for p in positions(role, redeal)}


def _mismatch(message: str, step: str, position: int | None, culprit: Role) -> AuditMismatchError:
    return AuditMismatchError(message, step=step, position=position, culprit=culprit)


def _compare_deck(
    step: str, got: tuple[bytes, ...], expected: tuple[bytes, ...], culprit: Role
) -> None:
    if got == expected:
        return
    if len(got) != len(expected):
        raise _mismatch(f"{step} has {len(got)} entries, not {N_CARDS}", step, None, culprit)
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        if g != e:
            raise _mismatch(f"{step} entry differs from what the seed gives", step, i, culprit)


def _compare_keys(
    step: str,
    got: Mapping[int, bytes],
    allowed: tuple[int, ...],
    card_keys: tuple[int, ...],
    culprit: Role,
    *,
    complete: bool,
) -> None:
    for pos in got:
        if isinstance(pos, bool) or not isinstance(pos, int) or pos not in allowed:
            where = pos if isinstance(pos, int) and not isinstance(pos, bool) else None
            raise _mismatch(
                f"key sent for position {pos!r}, not one of {allowed}", step, where, culprit
            )
    if complete:
        for pos in allowed:
            if pos not in got:
                raise _mismatch("key missing", step, pos, culprit)
    for pos, raw in got.items():
        k = _group.parse_scalar(raw)
        expected = card_keys[pos]
        if k is None or (k != expected and k != _ORDER - expected):
            raise _mismatch("key differs from what the seed gives", step, pos, culprit)


def _decks_present(record: HandRecord) -> int:
    """How many of D1..D4 the record holds; :class:`DeckUsageError` if it is inconsistent."""
    game_id, hand = record.game_id, record.hand
    context_bytes(game_id=game_id, hand=hand, role=Role.DEALER)  # validates the context
    decks = (record.d1, record.d2, record.d3, record.d4)
    present = 0
    while present < 4 and decks[present]:
        present += 1
    if any(decks[present:]):
        raise DeckUsageError(f"record has a deck after a missing D{present + 1}")
    if record.d3_keys and present < 3:
        raise DeckUsageError("record has D3 keys but no D3")
    if record.d4_keys and present < 4:
        raise DeckUsageError("record has D4 keys but no D4")
    return present


def _check_seeds(record: HandRecord, dealer_seed: bytes, nondealer_seed: bytes) -> None:
    """Both revealed seeds open their commitments (:class:`CommitmentMismatchError`)."""
    game_id, hand = record.game_id, record.hand
    for role, seed, committed in (
        (Role.DEALER, dealer_seed, record.dealer_commitment),
        (Role.NONDEALER, nondealer_seed, record.nondealer_commitment),
    ):
        if (
            not isinstance(seed, bytes)
            or len(seed) != SEED_SIZE
            or commitment(seed, game_id=game_id, hand=hand, role=role) != committed
        ):
            raise CommitmentMismatchError(
                f"the {role.value}'s revealed seed does not match its commitment",
                step="audit",
                culprit=role,
            )


def audit_hand(
    record: HandRecord,
    *,
    dealer_seed: bytes,
    nondealer_seed: bytes,
    trusted: Role | None = None,
) -> AuditReport:
    """Check ``record`` against both revealed seeds; raise the first cheat found.

    ``trusted`` names the role whose messages the caller produced itself (a
    live peer auditing its opponent): they are not recomputed, which halves
    the cost.  A third party leaves it ``None`` and every message is checked.

    Raises :class:`CommitmentMismatchError` (step ``"audit"``) if a seed does not
    match its commitment, :class:`AuditMismatchError` naming the step
    (``"D1"``..``"D4"`` for a deck or the keys sent with it, ``"keys"`` for
    redeal keys, ``"show"`` for a shown card), the position and the culprit if
    any message differs from its recomputation, and :class:`DeckUsageError` if
    the record itself is inconsistent (a deck present after a missing one).
    """
    if not isinstance(record, HandRecord):
        raise DeckUsageError("audit_hand needs a HandRecord")
    game_id, hand = record.game_id, record.hand
    present = _decks_present(record)
    _check_seeds(record, dealer_seed, nondealer_seed)

    sa = derive_secrets(dealer_seed, game_id=game_id, hand=hand, role=Role.DEALER)
    sb = derive_secrets(nondealer_seed, game_id=game_id, hand=hand, role=Role.NONDEALER)
    pa, pb = sa.permutation, sb.permutation
    deal = tuple(pa[pb[i]] for i in range(N_CARDS))
    points = [card_points()[c] for c in deal]
    derive = _group.derive_key
    ecdh = _group.ECDH
    a, b = sa.global_key, sb.global_key
    checked: list[str] = []

    if present >= 1 and trusted is not Role.DEALER:
        exchange = derive(a).exchange
        all_points = card_points()
        expected = tuple([exchange(ecdh, all_points[j]) for j in pa])
        _compare_deck("D1", record.d1, expected, Role.DEALER)
        checked.append("D1")
    if present >= 2 and trusted is not Role.NONDEALER:
        exchange = derive(a * b % _ORDER).exchange
        expected = tuple([exchange(ecdh, p) for p in points])
        _compare_deck("D2", record.d2, expected, Role.NONDEALER)
        checked.append("D2")
    if present >= 3 and trusted is not Role.DEALER:
        ak = sa.card_keys
        expected = tuple(
            [derive(ak[i] * b % _ORDER).exchange(ecdh, points[i]) for i in range(N_CARDS)]
        )
        _compare_deck("D3", record.d3, expected, Role.DEALER)
        _compare_keys(
            "D3", record.d3_keys, positions(Role.NONDEALER), ak, Role.DEALER, complete=True
        )
        checked.append("D3")
    if present >= 4 and trusted is not Role.NONDEALER:
        ak, bk = sa.card_keys, sb.card_keys
        expected = tuple(
            [derive(ak[i] * bk[i] % _ORDER).exchange(ecdh, points[i]) for i in range(N_CARDS)]
        )
        _compare_deck("D4", record.d4, expected, Role.NONDEALER)
        _compare_keys(
            "D4", record.d4_keys, positions(Role.DEALER), bk, Role.NONDEALER, complete=True
        )
        checked.append("D4")

    redeal = record.redeal
    for role, got, own_keys in (
        (Role.DEALER, record.dealer_redeal_keys, sa.card_keys),
        (Role.NONDEALER, record.nondealer_redeal_keys, sb.card_keys),
    ):
        if got and role is not trusted:
            _compare_keys("keys", got, positions(role.other, True), own_keys, role, complete=True)
            checked.append(f"{role.value} redeal keys")
    for role, got, own_keys in (
        (Role.DEALER, record.dealer_shown, sa.card_keys),
        (Role.NONDEALER, record.nondealer_shown, sb.card_keys),
    ):
        if got and role is not trusted:
            _compare_keys("show", got, positions(role, redeal), own_keys, role, complete=False)
            checked.append(f"{role.value} shown")

    return AuditReport(
        game_id=game_id,
        hand=hand,
        deal=deal,
        redeal=redeal,
        checked=tuple(checked),
        dealer_shown={p: deal[p] for p in record.dealer_shown},
        nondealer_shown={p: deal[p] for p in record.nondealer_shown},
    )
