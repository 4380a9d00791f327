"""The verifier's second pass on deck v1 hands: both deck sides rebuilt from the
revealed seeds, every deck message audited byte for byte.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from truc_p2p.deck import (
    Role,
    canonical_key,
    positions,
)
from truc_p2p.protocol._errors import (
    AuditFailedError,
    CheatDetectedError,
)
from truc_p2p.protocol._judge import check_redeal_material
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
from truc_p2p.protocol._verify_scan import canonical_keys

__all__ = ["RefereeV1"]


class RefereeV1(RefereeState):
    """The referee's deck v1 hands."""

    def start_hand(self) -> None:
        assert self.game is not None
        self.hand += 1
        self.sides, self.seed_msgs, self.expect = {}, {}, {}
        for role in (Role.DEALER, Role.NONDEALER):
            player = self.game.dealer if role is Role.DEALER else self.game.dealer.other
            if self.view is not None and player != self.view:
                continue
            known = self.scan.seeds.get((player, self.hand))
            if known is None:
                self.blind_hand = self.hand
                return
            from truc_p2p.deck import DeckSide  # v1 only: loaded on first use

            self.sides[role] = DeckSide(role, known[0], game_id=self.game_id, hand=self.hand)
            self.seed_msgs[role] = known[1]

    def _audit(self, env: Envelope, role: Role, what: str, got: Any, want: Any) -> None:
        if got != want:
            raise AuditFailedError(
                f"hand {self.hand}: the {role.name.lower()}'s {what} does not follow from "
                f"its revealed seed",
                step=env.type,
                evidence=(env.raw,),
            )

    def _check_commitment(self, env: Envelope, role: Role) -> None:
        if role in self.sides and env.payload["commitment"] != self.sides[role].commitment:
            if self.seed_msgs[role] < 0:  # a seed from the local secret, not revealed
                raise AuditFailedError(
                    f"hand {self.hand}: the local player's seed does not open its own "
                    "commitment: the secret or the transcript was altered",
                    step="commitment",
                    evidence=(env.raw,),
                )
            # The fault is in the reveal, not in the message that committed.
            reveal = self.scan.envelopes[self.seed_msgs[role]]
            raise AuditFailedError(
                f"hand {self.hand}: the {role.name.lower()}'s revealed seed does not open "
                f"its commitment (message {env.seq})",
                step="commitment",
                evidence=(reveal.raw, env.raw),
                message_no=reveal.seq,
            )

    def _compare(self, env: Envelope, role: Role, what: str, got: Any) -> None:
        """Audit a message of ``role`` against what its seed produced (if known)."""
        if role in self.sides:
            self._audit(env, role, what, got, self.expect[env.type])

    def on_deck1(self, env: Envelope, sender: Player) -> None:
        p = env.payload
        self._check_commitment(env, Role.DEALER)
        if Role.DEALER in self.sides:
            self.expect["deck1"] = tuple(self.sides[Role.DEALER].d1())
        self._compare(env, Role.DEALER, "D1", tuple(p["deck"]))
        if Role.NONDEALER in self.sides:
            d2 = self.sides[Role.NONDEALER].receive_d1(p["deck"], p["commitment"])
            self.expect["deck2"] = tuple(d2)
        self.advance()

    def on_deck2(self, env: Envelope, sender: Player) -> None:
        p = env.payload
        self._check_commitment(env, Role.NONDEALER)
        self._compare(env, Role.NONDEALER, "D2", tuple(p["deck"]))
        if Role.DEALER in self.sides:
            d3, keys = self.sides[Role.DEALER].receive_d2(p["deck"], p["commitment"])
            want = [keys[i] for i in positions(Role.NONDEALER, False)]
            self.expect["deck3"] = (tuple(d3), canonical_keys(want))
        self.advance()

    def on_deck3(self, env: Envelope, sender: Player) -> None:
        p = env.payload
        self._compare(env, Role.DEALER, "D3", (tuple(p["deck"]), canonical_keys(p["keys"])))
        if Role.NONDEALER in self.sides:
            order = positions(Role.NONDEALER, False)
            d4, keys = self.sides[Role.NONDEALER].receive_d3(
                p["deck"], dict(zip(order, p["keys"], strict=True))
            )
            want = [keys[i] for i in positions(Role.DEALER, False)]
            self.expect["deck4"] = (tuple(d4), canonical_keys(want))
        self.advance()

    def on_deck4(self, env: Envelope, sender: Player) -> None:
        p = env.payload
        self._compare(env, Role.NONDEALER, "D4", (tuple(p["deck"]), canonical_keys(p["keys"])))
        if Role.DEALER in self.sides:
            order = positions(Role.DEALER, False)
            self.sides[Role.DEALER].receive_d4(p["deck"], dict(zip(order, p["keys"], strict=True)))
        self.deal(redeal=False)
        self.play(env, sender, p["action"])

    def deal(self, *, redeal: bool) -> None:
        game = self.game
        assert game is not None
        hands = {}
        for role, side in self.sides.items():
            player = game.dealer if role is Role.DEALER else game.dealer.other
            cards = side.my_cards(redeal=redeal)
            hands[player] = tuple(Card.from_index(c) for _, c in sorted(cards.items()))
        game.deal(hands)

    def on_action(self, env: Envelope, sender: Player) -> None:
        self.play(env, sender, env.payload)

    def play(self, env: Envelope, sender: Player, payload: dict[str, Any]) -> None:
        game = self.game
        assert game is not None
        role = self.role_of(sender)
        kind = ActionKind(payload["act"])
        keys_due = kind is ActionKind.ACCEPT_REDEAL or self.redeal_keys_due is role
        check_redeal_material(env, payload, field="keys", due=keys_due)
        deal_after = False
        if "keys" in payload:
            if role in self.sides:
                own = self.sides[role].redeal_keys()
                want = [own[i] for i in positions(role.other, True)]
                got = canonical_keys(payload["keys"])
                self._audit(env, role, "redeal keys", got, canonical_keys(want))
            if role.other in self.sides:
                self.sides[role.other].receive_redeal_keys(
                    dict(zip(positions(role.other, True), payload["keys"], strict=True))
                )
            if kind is not ActionKind.ACCEPT_REDEAL:
                self.redeal_keys_due = None
            # Deal once every known side has its redeal cards: the omniscient game
            # and the dealer's view when the non-dealer's keys arrive, the
            # non-dealer's view when the dealer's accept-redeal does.
            if self.view is None or role.other in self.sides:
                if kind is not ActionKind.ACCEPT_REDEAL:
                    self.deal(redeal=True)
                elif self.view is not None:
                    deal_after = True
        if kind is ActionKind.PLAY:
            if role.other in self.sides:
                index = self.sides[role.other].receive_show(payload["pos"], payload["key"])
            else:
                held = self.sides[role].my_cards(redeal=game.redealt)
                if payload["pos"] not in held:
                    raise CheatDetectedError(
                        f"player {int(sender)} plays position {payload['pos']}, not in its hand",
                        step="show",
                        position=payload["pos"],
                        evidence=(env.raw,),
                    )
                index = held[payload["pos"]]
            action = Action.play(Card.from_index(index))
        else:
            action = Action(kind)
        events = game.push(action, player=sender)
        if kind is ActionKind.PLAY and role in self.sides:
            # The shower's own key, as the audit checks it (also when only the
            # shower revealed and no receiver side opened the card).
            shown = canonical_key(payload["key"])
            expected = canonical_key(self.sides[role].show(payload["pos"]))
            self._audit(env, role, "shown key", shown, expected)
        if kind is ActionKind.ACCEPT_REDEAL:
            self.redeal_keys_due = Role.NONDEALER
            if deal_after:
                self.deal(redeal=True)
        self.after_action(sender, events, env)
