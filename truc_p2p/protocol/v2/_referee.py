"""The verifier's second pass on deck v2 hands: every deal message, redeal and shown
card checked with :class:`~truc_p2p.deck.HandVerifierV2`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from truc_p2p.deck import (
    HandVerifierV2,
    Role,
)
from truc_p2p.protocol._judge import check_open, check_redeal_material, open_due
from truc_p2p.protocol._state import (
    Cond,
    Stage,
)
from truc_p2p.protocol._wire import (
    Envelope,
)
from truc_p2p.rules import (
    Action,
    ActionKind,
    Card,
    Player,
)

if TYPE_CHECKING:
    pass


from truc_p2p.protocol._referee_state import RefereeState
from truc_p2p.protocol.v2._judge import (
    check_predeal2,
    check_v2deck2,
    check_v2open,
    deal_payload,
    is_early_d3,
)

__all__ = ["RefereeV2"]


class RefereeV2(RefereeState):
    """The referee's deck v2 hands."""

    def start_hand_v2(self, context: bytes) -> None:
        """A v2 hand, bound to ``context``: the hash of the envelope before its v2deck1."""
        self.hand += 1
        self.v2 = HandVerifierV2(game_id=self.game_id, hand=self.hand, context=context)
        self.shares_due = None
        self.v2_next = None  # a dangling pre-deal is never opened

    @property
    def hand_v2(self) -> HandVerifierV2:
        assert self.v2 is not None
        return self.v2

    def hand_payload(self, env: Envelope, index: int) -> dict[str, Any]:
        return deal_payload(env, index, pipelined=self.pipeline)

    def on_v2deck1(self, env: Envelope, sender: Player) -> None:
        if self.stage is Stage.V2_PREDEAL1:
            payload = self.hand_payload(env, self.hand + 1)
            # The pre-dealt hand's proofs are bound to the envelope before its v2deck1.
            self.v2_next = HandVerifierV2(
                game_id=self.game_id, hand=self.hand + 1, context=env.prev
            )
            self.v2_next.d1(payload)
        else:
            self.hand_v2.d1(self.hand_payload(env, self.hand))
        self.advance()

    def on_v2deck2(self, env: Envelope, sender: Player) -> None:
        if self.stage is Stage.V2_PREDEAL2:
            payload = self.hand_payload(env, self.hand + 1)
            check_predeal2(env, payload)
            assert self.v2_next is not None
            self.v2_next.d2_deck(payload)
        else:
            payload = self.hand_payload(env, self.hand)
            check_v2deck2(env, payload)
            self.hand_v2.d2(payload)
        self.advance()

    def on_v2open(self, env: Envelope, sender: Player) -> None:
        check_v2open(env, self.hand)
        self.hand_v2.d2_shares(env.payload["shares"])
        self.advance()

    def on_v2deck3(self, env: Envelope, sender: Player) -> None:
        payload = self.hand_payload(env, self.hand)
        early = is_early_d3(env, payload, early=self.early)
        self.hand_v2.d3({"shares": payload["shares"]})
        assert self.game is not None
        self.game.deal({})  # the referee counts the next hand's pre-deal from here
        if early:  # the first action follows as a v2action (stage v2first)
            self.advance({Cond.EARLY: True})
            return
        self.play_v2(env, sender, payload["action"])

    def on_v2action(self, env: Envelope, sender: Player) -> None:
        self.play_v2(env, sender, env.payload)

    def on_v2redeal(self, env: Envelope, sender: Player) -> None:
        """Early redeal cards (wire.md 6a): the non-dealer's shares for the dealer's
        redeal positions, right after the accept-redeal (stage ``v2redeal``)."""
        assert self.game is not None and self.shares_due is Role.NONDEALER
        self.hand_v2.redeal(Role.NONDEALER, env.payload["shares"])
        self.shares_due = None
        self.game.deal({})
        self.advance()

    def play_v2(self, env: Envelope, sender: Player, payload: dict[str, Any]) -> None:
        """One v2 action, in the order a receiving session checks it."""
        game, hand = self.game, self.hand_v2
        assert game is not None
        role = self.role_of(sender)
        kind = ActionKind(payload["act"])
        due = kind is ActionKind.ACCEPT_REDEAL or self.shares_due is role
        check_redeal_material(env, payload, field="shares", due=due)
        if "shares" in payload and kind is not ActionKind.ACCEPT_REDEAL:
            hand.redeal(role, payload["shares"])  # the non-dealer's, for the dealer's cards
            self.shares_due = None
            game.deal({})
        if kind is ActionKind.PLAY:
            card = hand.show(role, payload["pos"], payload["share"])
            action = Action.play(Card.from_index(card))
        else:
            action = Action(kind)
        events = game.push(action, player=sender)
        check_open(env, payload, due=open_due(events, sender, game, predeal=self.referee.predeal))
        if kind is ActionKind.ACCEPT_REDEAL:
            hand.redeal(role, payload["shares"])
            self.shares_due = Role.NONDEALER
        self.after_action(sender, events, env, payload.get("open"))
