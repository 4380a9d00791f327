"""The verifier's second pass on deck v2 hands: every deal message, redeal and shown
card checked with :class:`~truc_p2p.deck.HandVerifierV2`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from truc_p2p.deck import (
    HandVerifierV2,
    Role,
)
from truc_p2p.protocol._errors import (
    MalformedMessageError,
)
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
    Phase,
    Player,
    RoundEnded,
)

if TYPE_CHECKING:
    pass


from truc_p2p.protocol._referee_state import RefereeState

__all__ = ["RefereeV2"]


class RefereeV2(RefereeState):
    """The referee's deck v2 hands."""

    def start_hand_v2(self, context: bytes) -> None:
        """A v2 hand, bound to ``context``: the hash of the envelope before its v2deck1."""
        self.hand += 1
        self.v2 = HandVerifierV2(game_id=self.game_id, hand=self.hand, context=context)
        self.shares_due = None
        self.v2_next, self.predeal = None, None  # a dangling pre-deal is never opened

    @property
    def hand_v2(self) -> HandVerifierV2:
        assert self.v2 is not None
        return self.v2

    def hand_payload(self, env: Envelope, index: int) -> dict[str, Any]:
        """The payload without ``hand``, which names ``index`` exactly when pipelined."""
        payload = dict(env.payload)
        got = payload.pop("hand", None)
        if got != (index if self.pipeline else None):
            raise MalformedMessageError(
                f"{env.type} names hand {got}, expected {index if self.pipeline else 'none'}",
                evidence=(env.raw,),
            )
        return payload

    def on_v2deck1(self, env: Envelope, sender: Player) -> None:
        if self.stage is Stage.V2_PREDEAL1:
            payload = self.hand_payload(env, self.hand + 1)
            # The pre-dealt hand's proofs are bound to the envelope before its v2deck1.
            self.v2_next = HandVerifierV2(
                game_id=self.game_id, hand=self.hand + 1, context=env.prev
            )
            self.v2_next.d1(payload)
            self.predeal = 1
        else:
            self.hand_v2.d1(self.hand_payload(env, self.hand))
        self.advance()

    def on_v2deck2(self, env: Envelope, sender: Player) -> None:
        if self.stage is Stage.V2_PREDEAL2:
            payload = self.hand_payload(env, self.hand + 1)
            if "shares" in payload:
                raise MalformedMessageError(
                    "a pre-dealt v2deck2 carries no shares", evidence=(env.raw,)
                )
            assert self.v2_next is not None
            self.v2_next.d2_deck(payload)
            self.predeal = 2
        else:
            payload = self.hand_payload(env, self.hand)
            if "shares" not in payload:
                raise MalformedMessageError("v2deck2 without its shares", evidence=(env.raw,))
            self.hand_v2.d2(payload)
        self.advance()

    def on_v2open(self, env: Envelope, sender: Player) -> None:
        if env.payload["hand"] != self.hand:
            raise MalformedMessageError(
                f"v2open names hand {env.payload['hand']}, expected {self.hand}",
                evidence=(env.raw,),
            )
        self.hand_v2.d2_shares(env.payload["shares"])
        self.advance()

    def on_v2deck3(self, env: Envelope, sender: Player) -> None:
        payload = self.hand_payload(env, self.hand)
        early = "action" not in payload
        if early and not self.early:
            raise MalformedMessageError(
                "v2deck3 without the non-dealer's first action (early cards are off)",
                evidence=(env.raw,),
            )
        self.hand_v2.d3({"shares": payload["shares"]})
        assert self.game is not None
        self.game.deal({})
        if self.pipeline:
            self.predeal = 0  # this hand is dealt: the next may be pre-dealt
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
        if due != ("shares" in payload):
            raise MalformedMessageError(
                "redeal shares missing" if due else "unexpected redeal shares",
                evidence=(env.raw,),
            )
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
        # Pipelined: the next dealer's shares ride on its action that ends the hand.
        open_due = (
            self.predeal == 2
            and any(isinstance(e, RoundEnded) for e in events)
            and game.phase is Phase.DEAL
            and sender == game.dealer
        )
        if open_due != ("open" in payload):
            raise MalformedMessageError(
                "the next dealer's shares must ride on its action that ends the hand, "
                "and only there",
                evidence=(env.raw,),
            )
        if kind is ActionKind.ACCEPT_REDEAL:
            hand.redeal(role, payload["shares"])
            self.shares_due = Role.NONDEALER
        self.after_action(sender, events, env, payload.get("open"))
