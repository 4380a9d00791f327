"""Deck v1's seed audit (wire.md section 7).

Under deck v1 the decks are checked after the fact: when an audit is due
(the game is over, every hand with ``audit: "hand"``, or 32 hands since the
last audit) both players reveal the seeds of the hands not yet audited, and
each recomputes the opponent's deck steps of those hands from both seeds
(:meth:`~._hand.HandState.audit`).  :class:`SeedAudit` keeps how far the
hands are audited, makes our ``reveal`` and files the peer's seeds.  The
session keeps the stages (who reveals first, what comes after) and reports the
passed audit.  Deck v2 has nothing to audit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from truc_p2p.protocol._wire import Envelope
from truc_p2p.protocol.legacy_v1._hand import HandState
from truc_p2p.protocol.v2._hand import HandStateV2

__all__ = ["SeedAudit"]


class SeedAudit:
    """One player's side of deck v1's audit (see the module docstring).

    ``hands`` is the session's per-hand state by hand number, only read
    here; ``seed(hand)`` is our seed of a hand.
    """

    def __init__(
        self,
        *,
        hands: Mapping[int, HandState | HandStateV2],
        seed: Callable[[int], bytes],
    ) -> None:
        self._hands = hands
        self._seed = seed
        #: Hands ``[0, audited)`` are audited.
        self.audited = 0

    def reveal(self, last: int) -> dict[str, Any]:
        """Our ``reveal``: the seeds of the hands not audited yet, up to ``last``."""
        first = self.audited
        return {"first": first, "seeds": [self._seed(h) for h in range(first, last + 1)]}

    def receive(self, env: Envelope, hands: Sequence[int]) -> None:
        """File the seeds of the peer's ``reveal`` with the ``hands`` it covers (judged
        by :func:`~.._judge.check_reveal_covers`)."""
        for hand, seed in zip(hands, env.payload["seeds"], strict=True):
            self._v1(hand).peer_seed = seed

    def check(self, hands: Sequence[int], reveal: Envelope) -> None:
        """Recompute the peer's deck steps of ``hands`` from both seeds; raises
        :class:`AuditFailedError` at the first that does not match."""
        for hand in hands:
            self._v1(hand).audit(reveal)

    def passed(self, last: int) -> None:
        """Both reveals are in: every hand up to ``last`` is audited."""
        self.audited = last + 1

    def _v1(self, hand: int) -> HandState:
        state = self._hands[hand]
        assert isinstance(state, HandState)
        return state
