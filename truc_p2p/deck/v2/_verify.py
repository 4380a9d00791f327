"""Deck v2 third-party verifier: every proof and every shown card, from the messages alone.

:class:`HandVerifierV2` is fed the signed payloads in transcript order (what
``truc-p2p verify`` replays); :func:`verify_hand_v2` checks a whole
:class:`HandRecordV2`.  Both run the receivers' own checks (:class:`._v2_hand._Hand`)
and raise the same :class:`CheatError` (step, position, culprit) on the same
message.  No seed is needed: none is ever revealed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from truc_p2p.deck._errors import CheatError, DeckUsageError
from truc_p2p.deck._schedule import Role, positions
from truc_p2p.deck.v2._hand import _as_payload, _field, _Hand
from truc_p2p.deck.v2._record import DeckReportV2, HandRecordV2

__all__ = ["HandVerifierV2", "verify_hand_v2"]


class HandVerifierV2:
    """Third-party verifier of one v2 hand: feed the signed payloads in transcript order.

    Each method checks every proof of its message and raises the same
    :class:`CheatError` (step, position, culprit) the receiving player raised;
    the verifier is then dead.  :meth:`show` returns the card the message opens.
    """

    def __init__(self, *, game_id: bytes, hand: int, context: bytes) -> None:
        self._hand = _Hand(game_id=game_id, hand=hand, context=context)
        self._failure: CheatError | None = None
        self._d3 = False

    def _run(self, fn: Any, *args: Any) -> Any:
        if self._failure is not None:
            raise DeckUsageError(f"the verifier stopped at a cheat: {self._failure}")
        try:
            return fn(*args)
        except CheatError as err:
            self._failure = err
            raise

    def d1(self, payload: Mapping[str, Any]) -> None:
        """Check the non-dealer's D1."""
        self._run(lambda: self._hand.accept_d1(payload, verify=True))

    def d2(self, payload: Mapping[str, Any]) -> None:
        """Check the dealer's D2 (deck, proofs and its shares for positions 0, 2, 4)."""
        self.d2_deck(payload)

        def shares() -> Any:
            p = _as_payload(payload, "D2", Role.DEALER)
            return _field(p, "shares", "D2", Role.DEALER)

        self.d2_shares(self._run(shares))

    def d2_deck(self, payload: Mapping[str, Any]) -> None:
        """Check the dealer's D2 without its shares (a pipelined pre-deal)."""
        self._run(lambda: self._hand.accept_d2_deck(payload, verify=True))

    def d2_shares(self, shares: Sequence[bytes]) -> None:
        """Check the dealer's shares for positions 0, 2, 4 (the rest of D2)."""

        def go() -> None:
            if self._hand.d2 is None or "D2" in self._hand.checked:
                raise DeckUsageError("D2's shares come once, after its deck")
            self._hand.accept_shares(
                Role.DEALER, positions(Role.NONDEALER), shares, "D2", verify=True
            )
            self._hand.checked.append("D2")

        self._run(go)

    def d3(self, payload: Mapping[str, Any]) -> None:
        """Check the non-dealer's D3 (its shares for positions 1, 3, 5)."""

        def go() -> None:
            if self._hand.d2 is None or self._d3:
                raise DeckUsageError("D3 comes once, after D2")
            p = _as_payload(payload, "D3", Role.NONDEALER)
            shares = _field(p, "shares", "D3", Role.NONDEALER)
            self._hand.accept_shares(
                Role.NONDEALER, positions(Role.DEALER), shares, "D3", verify=True
            )
            self._d3 = True
            self._hand.checked.append("D3")

        self._run(go)

    def redeal(self, role: Role, shares: Sequence[bytes]) -> None:
        """Check ``role``'s redeal shares."""
        _check_role(role)
        self._run(lambda: self._hand.accept_redeal(role, shares, verify=True))

    def show(self, role: Role, position: int, share: bytes) -> int:
        """Check a card ``role`` shows; return the card index."""
        _check_role(role)
        result: int = self._run(lambda: self._hand.accept_show(role, position, share, verify=True))
        return result

    def report(self) -> DeckReportV2:
        """The cards shown, the redeal flag and the messages checked so far."""
        h = self._hand
        return DeckReportV2(
            shown={r: dict(s) for r, s in h.shown.items()},
            redeal=h.redeal,
            checked=tuple(h.checked),
        )


def _check_role(role: object) -> None:
    if not isinstance(role, Role):
        raise DeckUsageError("role must be a Role")


def verify_hand_v2(record: HandRecordV2) -> DeckReportV2:
    """Check a whole v2 hand from its public record (every proof, every shown card).

    Messages are checked in protocol order: D1, D2, D3, the redeal shares, then
    the shown cards; the first failure raises its :class:`CheatError`.
    """
    v = HandVerifierV2(game_id=record.game_id, hand=record.hand, context=record.context)
    steps = [(record.d1, v.d1), (record.d2, v.d2), (record.d3, v.d3)]
    for payload, fn in steps:
        if payload is None:
            return v.report()
        fn(payload)
    if record.dealer_redeal is not None:
        v.redeal(Role.DEALER, record.dealer_redeal)
    if record.nondealer_redeal is not None:
        v.redeal(Role.NONDEALER, record.nondealer_redeal)
    for role, shown in (
        (Role.DEALER, record.dealer_shown),
        (Role.NONDEALER, record.nondealer_shown),
    ):
        for pos, share in shown.items():
            v.show(role, pos, share)
    return v.report()
