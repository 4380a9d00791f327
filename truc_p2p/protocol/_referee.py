"""The verifier's second pass: the hellos, the coin, the end of each hand and the
result, over the deck v1 and v2 hands of :mod:`.legacy_v1._referee` and
:mod:`.v2._referee`.  These are the verifier's handlers; the order of the messages,
the turns and the endings are judged by the one referee the live session runs too
(:class:`~._referee_core.RefereeCore`, see :mod:`._referee_state`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from truc_p2p.protocol._errors import (
    AuditFailedError,
    RulesetMismatchError,
)
from truc_p2p.protocol._judge import (
    check_result,
    check_reveal_covers,
    coin_toss,
    conditions_after,
    expected_result,
    hello_terms,
    hellos_agree,
)
from truc_p2p.protocol._messages import MessageType
from truc_p2p.protocol._state import (
    Cond,
    Stage,
)
from truc_p2p.protocol._values import (
    FEATURE_EARLY_REDEAL,
    game_id_of,
    nonce_features,
    series_of,
)
from truc_p2p.protocol._wire import (
    Envelope,
    fingerprint,
)
from truc_p2p.rules import (
    Event,
    Game,
    Phase,
    Player,
)

if TYPE_CHECKING:
    pass


from truc_p2p.protocol._verify_report import PlayerInfo
from truc_p2p.protocol.legacy_v1._referee import RefereeV1
from truc_p2p.protocol.v2._referee import RefereeV2

__all__ = ["Referee"]


class Referee(RefereeV1, RefereeV2):
    """The referee; see :class:`~._referee_state.RefereeState`."""

    def on_hello(self, env: Envelope, sender: Player) -> None:
        p = env.payload
        # malformed before any comparison, as the session judges it (one function)
        terms = hello_terms(p, evidence=(env.raw,))
        ruleset, audit, deck, pipeline, early = (
            terms.ruleset,
            terms.audit,
            terms.deck,
            terms.pipeline,
            terms.early,
        )
        if sender is Player.P0:
            self.ruleset, self.audit_mode, self.coin_commit = ruleset, audit, p["coin"]
            self.deck, self.pipeline, self.early = deck, pipeline, early
            self.initiator_options = p["options"]
        else:
            # Early cards are negotiated down: the responder may leave them out, never add them.
            assert self.ruleset is not None
            rulesets = (self.ruleset, ruleset)
            if not hellos_agree(self.initiator_options, p["options"], rulesets=rulesets):
                raise RulesetMismatchError(
                    "the players proposed different rulesets or options", evidence=(env.raw,)
                )
            self.early = early
            self.responder_coin = p["coin"]
            self.game_id = game_id_of(self.scan.envelopes[0].raw, env.raw)
        self.players.append(PlayerInfo(name=p["name"], fingerprint=fingerprint(p["key"])))
        self.features.append(nonce_features(p["nonce"]))
        self.advance()

    def on_coin(self, env: Envelope, sender: Player) -> None:
        assert self.ruleset is not None
        linked = series_of(self.initiator_options)
        first = coin_toss(
            env,
            commitment=self.coin_commit,
            responder_coin=self.responder_coin,
            linked_dealer=linked.dealer if linked is not None else None,
        )
        if self.deck == "v2":
            self.game = Game(self.ruleset, first_dealer=first, spectator=True)
            self.advance({Cond.DECK_V2: True})
            self.start_hand_v2(env.hash)
            return
        hands = sum(1 for e in self.scan.envelopes if e.type == MessageType.DECK1)
        complete = {
            p: all((p, h) in self.scan.seeds for h in range(hands)) for p in (Player.P0, Player.P1)
        }
        if not all(complete.values()) and any(complete.values()):
            self.view = Player.P0 if complete[Player.P0] else Player.P1
        self.game = Game(self.ruleset, first_dealer=first, view=self.view)
        self.advance()
        self.start_hand()

    def after_action(
        self,
        actor: Player,
        events: Sequence[Event],
        env: Envelope,
        opened: list[bytes] | None = None,
    ) -> None:
        holds = conditions_after(
            events,
            audit_mode=self.audit_mode or "game",
            hands=self.hand + 1,
            audited=self.audited,
            early_redeal=self.agreed(FEATURE_EARLY_REDEAL),
            predeal=self.referee.predeal,
            opened=opened is not None,
        )
        if holds[Cond.ROUND_OVER] and self.v2 is not None:
            self.v2_hidden += self.v2.report().hidden_cards_revealed
        self.referee.advance(holds, actor=actor)
        if self.stage is Stage.DECK1:
            self.start_hand()
        elif self.stage is Stage.V2_DECK1:
            self.start_hand_v2(env.hash)
        elif self.stage in (Stage.V2_DECK2, Stage.V2_OPEN, Stage.V2_DECK3):
            # the pre-dealt hand starts (V2_DECK3: its dealer's shares rode on the action)
            self.hand += 1
            self.v2, self.v2_next, self.shares_due = self.v2_next, None, None
            if opened is not None:
                self.hand_v2.d2_shares(opened)
        elif self.stage is Stage.RESULT_FIRST:  # deck v2: the result follows the last action
            assert self.game is not None
            self.expected_result = expected_result(self.game, hands=self.hand + 1, chain=env.hash)

    def on_reveal(self, env: Envelope, sender: Player) -> None:
        hands = check_reveal_covers(env, audited=self.audited, hands=self.hand + 1)
        for hand, seed in zip(hands, env.payload["seeds"], strict=True):
            if self.scan.seeds.get((sender, hand), (b"", -1))[0] != seed:
                raise AuditFailedError(
                    f"hand {hand}: seed differs from the one revealed before",
                    step="reveal",
                    evidence=(env.raw,),
                )
        second = self.stage is Stage.REVEAL_SECOND
        assert self.game is not None
        self.advance({Cond.GAME_OVER: self.game.phase is Phase.OVER})
        if second:
            self.audited = self.hand + 1
            if self.stage is Stage.DECK1:
                self.start_hand()
            elif self.stage is Stage.RESULT_FIRST:
                self.expected_result = expected_result(
                    self.game, hands=self.hand + 1, chain=env.hash
                )

    def on_result(self, env: Envelope, sender: Player) -> None:
        check_result(env, self.expected_result)
        self.results.append(env.payload)
        self.advance()
