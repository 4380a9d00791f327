"""Deck v2's deal on the session's table, as one part: the handlers of ``v2deck1``,
``v2deck2``, ``v2open`` and ``v2deck3`` (wire.md section 6), the pipelined deal's
pre-deal messages of the next hand (6b) and early cards (6a).

A :class:`DealV2` judges each deal message's payload (:mod:`.v2._judge`: the
``hand`` field, which is present exactly when the players chose the pipelined
deal, a pre-deal's missing shares, ``v2open``, an early ``v2deck3``), feeds it to
the current hand's deck side (:class:`~.v2._hand.HandStateV2`) and answers it: our
next deck step, or our cards dealt and the turn handed.  The pre-deal messages of
hand n + 1 go to the table's :class:`~._pipeline.Pipeline`.  The referee keeps the
stage and the table (:class:`~._play.HandPlay`) the hands; it finds these
handlers here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from truc_p2p.protocol._hello import Negotiation
from truc_p2p.protocol._messages import MessageType
from truc_p2p.protocol._state import Cond, Stage
from truc_p2p.protocol._wire import Envelope
from truc_p2p.protocol.v2._judge import (
    check_predeal2,
    check_v2deck2,
    check_v2open,
    deal_payload,
    is_early_d3,
)

if TYPE_CHECKING:
    from truc_p2p.protocol._play import HandPlay

__all__ = ["DealV2"]


class DealV2:
    """Deck v2's deal on one session's table (see the module docstring): ``table`` is
    the session's table (its hands, referee and play are used), ``hello`` the
    negotiation (early cards agreed), ``pipelined`` whether the players chose the
    pipelined deal, ``emit`` signs and chains a message of ours."""

    def __init__(
        self,
        *,
        table: HandPlay,
        hello: Negotiation,
        pipelined: bool,
        emit: Callable[[str, dict[str, Any]], None],
    ) -> None:
        self._table = table
        self._hello = hello
        self._pipelined = pipelined
        self._emit = emit

    def hand_field(self, index: int) -> dict[str, int]:
        """The ``hand`` field of a deal message: present exactly when pipelined."""
        return {"hand": index} if self._pipelined else {}

    def check_hand_field(self, env: Envelope, index: int) -> dict[str, Any]:
        """The payload of a deal message of hand ``index``, its ``hand`` field judged."""
        return deal_payload(env, index, pipelined=self._pipelined)

    def make_early_d3(self) -> bool:
        """Early cards: as the non-dealer due to send ``v2deck3``, send it now with our
        shares only (wire.md section 6a); the first action follows as a ``v2action``.
        True if it made one."""
        table = self._table
        if not self._hello.early or table.stage is not Stage.V2_DECK3:
            return False
        if table.expected_sender() != table.me or table.cur_v2.pending_d3 is None:
            return False
        hand = table.cur_v2
        shares, hand.pending_d3 = hand.pending_d3, None
        self._emit(MessageType.V2DECK3, {**self.hand_field(table.hand), "shares": shares})
        return True

    def on_v2deck1(self, env: Envelope, mine: bool) -> None:
        table = self._table
        if table.stage is Stage.V2_PREDEAL1:
            self._on_predeal1(env, mine)
            return
        payload = self.check_hand_field(env, table.hand)
        table.advance()
        if not mine:
            d2 = table.cur_v2.deck.receive_d1(payload)
            self._emit(MessageType.V2DECK2, {**self.hand_field(table.hand), **d2})

    def _on_predeal1(self, env: Envelope, mine: bool) -> None:
        """The next non-dealer's v2deck1 of hand n + 1, during hand n."""
        table = self._table
        self.check_hand_field(env, table.hand + 1)
        table.advance()
        table.pipeline.on_predeal1(env, mine, table.hand + 1)

    def on_v2deck2(self, env: Envelope, mine: bool) -> None:
        table = self._table
        if table.stage is Stage.V2_PREDEAL2:
            self._on_predeal2(env, mine)
            return
        payload = self.check_hand_field(env, table.hand)
        check_v2deck2(env, payload)
        table.advance()
        if not mine:
            hand = table.cur_v2
            d3 = hand.deck.receive_d2(payload)
            hand.pending_d3 = list(d3["shares"])
            table.deal_own(redeal=False)
            table.your_turn()

    def _on_predeal2(self, env: Envelope, mine: bool) -> None:
        """The next dealer's v2deck2 of hand n + 1 without its shares, during hand n."""
        table = self._table
        check_predeal2(env, self.check_hand_field(env, table.hand + 1))
        table.advance()
        table.pipeline.on_predeal2(env, mine)

    def on_v2open(self, env: Envelope, mine: bool) -> None:
        """The dealer's shares for the non-dealer's cards of the pre-dealt hand."""
        table = self._table
        check_v2open(env, table.hand)
        table.advance()
        if not mine:
            hand = table.cur_v2
            d3 = hand.deck.receive_d2_shares(env.payload["shares"])
            hand.pending_d3 = list(d3["shares"])
            table.deal_own(redeal=False)
            table.your_turn()

    def on_v2deck3(self, env: Envelope, mine: bool) -> None:
        table = self._table
        payload = self.check_hand_field(env, table.hand)
        early = is_early_d3(env, payload, early=self._hello.early)
        if not mine:
            table.cur_v2.deck.receive_d3({"shares": payload["shares"]})
            table.deal_own(redeal=False)
        if early:  # the dealer holds its cards; the first action follows as a v2action
            table.advance({Cond.EARLY: True})
            return
        table.play_action(env, payload["action"], mine)
