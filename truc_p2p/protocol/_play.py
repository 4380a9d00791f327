"""The hands of a game: the coin, each hand's deal (deck v1 or v2, pipelined or not),
the play, deck v1's seed audit and the co-signed result.

:meth:`HandPlay._apply` dispatches a message on the chain to its handler; the
handlers drive the stage table of :mod:`._state`, the per-hand deck states and
this player's view of the rules engine in step.  A hello goes to the session's
:class:`~._hello.Negotiation`, and its handler sends what the verdict says.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from truc_p2p.deck import DeckSide, Role, positions
from truc_p2p.protocol._errors import (
    IllegalMoveError,
    MalformedMessageError,
    OutOfTurnError,
    ResultMismatchError,
    blame,
)
from truc_p2p.protocol._events import (
    AuditPassed,
    CardsDealt,
    GameFinished,
    GameResult,
    GameStarted,
    YourTurn,
)
from truc_p2p.protocol._judge import coin_toss
from truc_p2p.protocol._messages import (
    MessageType,
)
from truc_p2p.protocol._session_core import SessionCore
from truc_p2p.protocol._state import (
    FIRST_DEAL_STAGES,
    INTERJECTIONS,
    Cond,
    Stage,
    conditions_after_action,
    due_stage,
)
from truc_p2p.protocol._values import (
    FEATURE_EARLY_REDEAL,
    FEATURE_REST_FINAL,
    FEATURE_RESUME_CLOCK,
    coin_commitment,
    result_payload,
)
from truc_p2p.protocol._wire import (
    Envelope,
)
from truc_p2p.protocol.legacy_v1._hand import HandState, PlayedHand
from truc_p2p.protocol.v2._hand import HandStateV2
from truc_p2p.rules import (
    Action,
    ActionKind,
    Card,
    Event,
    Game,
    IllegalActionError,
    Phase,
    Player,
    RulesError,
)

__all__ = ["HandPlay"]


def action_payload(action: Action) -> dict[str, Any]:
    """Payload fields of an action other than the card proof and keys."""
    return {"act": action.kind.value}


class HandPlay(SessionCore):
    """The hand state machine of a session: deal, play, audit, result."""

    def _apply(self, env: Envelope, *, mine: bool) -> None:
        handler = {
            MessageType.HELLO: self._on_hello,
            MessageType.COIN: self._on_coin,
            MessageType.DECK1: self._on_deck1,
            MessageType.DECK2: self._on_deck2,
            MessageType.DECK3: self._on_deck3,
            MessageType.DECK4: self._on_deck4,
            MessageType.ACTION: self._on_action,
            MessageType.V2DECK1: self._on_v2deck1,
            MessageType.V2DECK2: self._on_v2deck2,
            MessageType.V2DECK3: self._on_v2deck3,
            MessageType.V2ACTION: self._on_action,
            MessageType.V2OPEN: self._on_v2open,
            MessageType.V2REDEAL: self._on_v2redeal,
            MessageType.REVEAL: self._on_reveal,
            MessageType.RESULT: self._on_result,
        }[env.type]
        if self.stage in INTERJECTIONS:
            self.stage = self._due_stage()  # the handler files a pre-deal under its hand
        elif self._current is not None and "deck" in env.type:
            self._current.envelopes[env.type] = env.raw
        try:
            with blame(env):
                handler(env, mine)
        except IllegalActionError as exc:
            raise IllegalMoveError(
                f"illegal action: {exc}", evidence=(env.raw,), message_no=env.seq
            ) from exc
        except RulesError as exc:
            raise MalformedMessageError(
                f"rejected by the rules engine: {exc}", evidence=(env.raw,), message_no=env.seq
            ) from exc

    def _on_hello(self, env: Envelope, mine: bool) -> None:
        """A hello on the chain: the negotiation judges it, we send what it answers."""
        verdict = self._hello.take(env, mine=mine)
        if verdict.answer is not None:  # the responder answers first, then complains
            self._advance()
            self._emit(MessageType.HELLO, verdict.answer)
        if verdict.refusal is not None:
            raise verdict.refusal
        if verdict.answer is not None:
            return
        self._advance()
        if verdict.complete:
            hello = self._hello
            assert hello.peer_key is not None
            clock = hello.agreed(FEATURE_RESUME_CLOCK)
            self._control.bind(hello.game_id, hello.peer_key, clock=clock)
            if self.me is Player.P0:
                self._emit(MessageType.COIN, {"coin": self._coin})

    def _on_coin(self, env: Envelope, mine: bool) -> None:
        hello = self._hello
        first = coin_toss(
            env,
            # our own coin opens our commitment; the peer's must open its hello's
            commitment=coin_commitment(self._coin) if mine else hello.peer_coin,
            responder_coin=hello.peer_coin if mine else self._coin,
            linked_dealer=hello.series.dealer,
        )
        self._game = Game(self.ruleset, first_dealer=first, view=self.me)
        assert hello.peer_name is not None and hello.peer_fingerprint is not None
        self._events.append(
            GameStarted(
                game_id=hello.game_id,
                me=self.me,
                peer_name=hello.peer_name,
                peer_fingerprint=hello.peer_fingerprint,
                ruleset=self.ruleset,
                audit=self.audit_mode,
                first_dealer=first,
                deck=self.deck,
            )
        )
        self._advance({Cond.DECK_V2: self.deck == "v2"})
        self._start_hand()

    def _start_hand(self) -> None:
        game = self._game
        assert game is not None
        assert self.stage is FIRST_DEAL_STAGES[self.deck]
        self._hand += 1
        role = Role.DEALER if game.dealer == self.me else Role.NONDEALER
        if self.deck == "v2":
            self._pipeline.drop()
            # Every proof of the hand is bound to the chain: the hash of the last
            # envelope before the hand's v2deck1 (wire.md section 6).
            self._current = self._new_v2_hand(self._hand, role, self._chain.prev)
            if role is Role.NONDEALER:
                side = self._current.deck
                self._emit(MessageType.V2DECK1, {**self._hand_field(self._hand), **side.d1()})
            return
        deck = DeckSide(role, self._seed(self._hand), game_id=self._hello.game_id, hand=self._hand)
        self._current = self._hands[self._hand] = HandState(self._hand, deck)
        if role is Role.DEALER:
            self._emit(MessageType.DECK1, {"deck": list(deck.d1()), "commitment": deck.commitment})

    def _hand_field(self, index: int) -> dict[str, int]:
        """The ``hand`` field of a deal message: present exactly when pipelined."""
        return {"hand": index} if self.pipeline else {}

    def _check_hand_field(self, env: Envelope, index: int) -> dict[str, Any]:
        """The payload without its ``hand`` field, which must name ``index`` when
        pipelined and be absent otherwise."""
        payload = dict(env.payload)
        got = payload.pop("hand", None)
        if got != (index if self.pipeline else None):
            raise MalformedMessageError(
                f"{env.type} names hand {got}, expected {index if self.pipeline else 'none'}",
                message_no=env.seq,
            )
        return payload

    def _due_stage(self) -> Stage:
        """The stage whose message is due: an owed pre-deal message of the next
        hand (an interjection) from the player due, else the stage itself."""
        return due_stage(
            self.stage,
            self._game,
            self._hand_ender,
            self._pipeline.on_chain,
            rest_final=self._hello.agreed(FEATURE_REST_FINAL),
        )

    def _make_owed_predeal(self) -> bool:
        """Make the pre-deal message owed since our last :class:`YourTurn`, if we are
        the player due (wire.md 6b); True if it made one."""
        if not self._pipeline.flush_due():
            return False
        due = self._due_stage()
        if due is self.stage or self._expected_sender() != self.me:
            return False
        self._pipeline.send_predeal(due, self._hand + 1, self._chain.prev)
        return True

    def _make_early_d3(self) -> bool:
        """Early cards: as the non-dealer due to send ``v2deck3``, send it now with our
        shares only (wire.md section 6a); the first action follows as a ``v2action``.
        True if it made one."""
        if not self._hello.early or self.stage is not Stage.V2_DECK3:
            return False
        if self._expected_sender() != self.me or self._cur_v2.pending_d3 is None:
            return False
        hand = self._cur_v2
        shares, hand.pending_d3 = hand.pending_d3, None
        self._emit(MessageType.V2DECK3, {**self._hand_field(self._hand), "shares": shares})
        return True

    def _open_next(self) -> HandStateV2:
        """The pre-dealt hand becomes the current one (the previous hand ended)."""
        self._current = self._pipeline.open()
        self._hand += 1
        return self._current

    @property
    def _cur(self) -> PlayedHand:
        assert self._current is not None
        return self._current

    @property
    def _cur_v1(self) -> HandState:
        assert isinstance(self._current, HandState)
        return self._current

    @property
    def _cur_v2(self) -> HandStateV2:
        assert isinstance(self._current, HandStateV2)
        return self._current

    def _on_v2deck1(self, env: Envelope, mine: bool) -> None:
        if self.stage is Stage.V2_PREDEAL1:
            self._on_predeal1(env, mine)
            return
        payload = self._check_hand_field(env, self._hand)
        self._advance()
        if not mine:
            d2 = self._cur_v2.deck.receive_d1(payload)
            self._emit(MessageType.V2DECK2, {**self._hand_field(self._hand), **d2})

    def _on_predeal1(self, env: Envelope, mine: bool) -> None:
        """The next non-dealer's v2deck1 of hand n + 1, during hand n."""
        self._check_hand_field(env, self._hand + 1)
        self._advance()
        self._pipeline.on_predeal1(env, mine, self._hand + 1)

    def _on_v2deck2(self, env: Envelope, mine: bool) -> None:
        if self.stage is Stage.V2_PREDEAL2:
            self._on_predeal2(env, mine)
            return
        payload = self._check_hand_field(env, self._hand)
        if "shares" not in payload:
            raise MalformedMessageError("v2deck2 without its shares", message_no=env.seq)
        self._advance()
        if not mine:
            hand = self._cur_v2
            d3 = hand.deck.receive_d2(payload)
            hand.pending_d3 = list(d3["shares"])
            self._deal_own(redeal=False)
            self._your_turn()

    def _on_predeal2(self, env: Envelope, mine: bool) -> None:
        """The next dealer's v2deck2 of hand n + 1 without its shares, during hand n."""
        payload = self._check_hand_field(env, self._hand + 1)
        if "shares" in payload:  # they would show the next non-dealer its cards now
            raise MalformedMessageError("a pre-dealt v2deck2 carries no shares", message_no=env.seq)
        self._advance()
        self._pipeline.on_predeal2(env, mine)

    def _on_v2open(self, env: Envelope, mine: bool) -> None:
        """The dealer's shares for the non-dealer's cards of the pre-dealt hand."""
        if env.payload["hand"] != self._hand:
            raise MalformedMessageError(
                f"v2open names hand {env.payload['hand']}, expected {self._hand}",
                message_no=env.seq,
            )
        self._advance()
        if not mine:
            hand = self._cur_v2
            d3 = hand.deck.receive_d2_shares(env.payload["shares"])
            hand.pending_d3 = list(d3["shares"])
            self._deal_own(redeal=False)
            self._your_turn()

    def _on_v2deck3(self, env: Envelope, mine: bool) -> None:
        payload = self._check_hand_field(env, self._hand)
        early = "action" not in payload
        if early and not self._hello.early:
            raise MalformedMessageError(
                "v2deck3 without the non-dealer's first action (early cards are off)",
                message_no=env.seq,
            )
        if not mine:
            self._cur_v2.deck.receive_d3({"shares": payload["shares"]})
            self._deal_own(redeal=False)
        self._pipeline.hand_dealt()
        if early:  # the dealer holds its cards; the first action follows as a v2action
            self._advance({Cond.EARLY: True})
            return
        self._play_action(env, payload["action"], mine)

    def _on_deck1(self, env: Envelope, mine: bool) -> None:
        self._advance()
        if not mine:
            deck = self._cur_v1.deck
            d2 = deck.receive_d1(env.payload["deck"], env.payload["commitment"])
            self._emit(MessageType.DECK2, {"deck": list(d2), "commitment": deck.commitment})

    def _on_deck2(self, env: Envelope, mine: bool) -> None:
        self._advance()
        if not mine:
            d3, keys = self._cur_v1.deck.receive_d2(env.payload["deck"], env.payload["commitment"])
            order = positions(Role.NONDEALER, False)
            self._emit(MessageType.DECK3, {"deck": list(d3), "keys": [keys[i] for i in order]})

    def _on_deck3(self, env: Envelope, mine: bool) -> None:
        self._advance()
        if not mine:
            order = positions(Role.NONDEALER, False)
            d4, keys = self._cur_v1.deck.receive_d3(
                env.payload["deck"], dict(zip(order, env.payload["keys"], strict=True))
            )
            dealer_order = positions(Role.DEALER, False)
            self._cur_v1.pending_d4 = (tuple(d4), [keys[i] for i in dealer_order])
            self._deal_own(redeal=False)
            self._your_turn()

    def _on_deck4(self, env: Envelope, mine: bool) -> None:
        if not mine:
            order = positions(Role.DEALER, False)
            self._cur_v1.deck.receive_d4(
                env.payload["deck"], dict(zip(order, env.payload["keys"], strict=True))
            )
            self._deal_own(redeal=False)
        self._play_action(env, env.payload["action"], mine)

    def _on_action(self, env: Envelope, mine: bool) -> None:
        self._play_action(env, env.payload, mine)

    def _deal_own(self, *, redeal: bool) -> None:
        game, hand = self._game, self._cur
        assert game is not None
        cards = tuple(Card.from_index(c) for _, c in sorted(hand.my_cards(redeal).items()))
        for event in game.deal({self.me: cards}):
            self._events.append(event)
        self._events.append(
            CardsDealt(round_no=game.round_no, dealer=game.dealer, cards=cards, redeal=redeal)
        )

    def _your_turn(self) -> None:
        game = self._game
        assert game is not None
        if game.to_act == self.me and game.phase is Phase.PLAY:
            self._events.append(YourTurn(legal_actions=tuple(game.legal_actions())))

    def _own_action_payload(self, action: Action) -> dict[str, Any]:
        hand, game = self._cur, self._game
        assert game is not None
        payload = action_payload(action)
        if hand.owe_redeal or action.kind is ActionKind.ACCEPT_REDEAL:
            payload[hand.redeal_field] = hand.redeal_material()
        if action.kind is ActionKind.PLAY:
            assert action.card is not None
            held = {c: p for p, c in hand.my_cards(game.redealt).items()}
            pos = held[action.card.index]
            payload["pos"] = pos
            payload[hand.card_field] = hand.show(pos)
        return payload

    def _play_action(self, env: Envelope, payload: dict[str, Any], mine: bool) -> None:
        game, hand = self._game, self._cur
        assert game is not None
        actor = self.me if mine else self.me.other
        kind = ActionKind(payload["act"])
        # Redeal keys (v1) or shares (v2) ride on the dealer's accept-redeal and
        # on the non-dealer's first action after it; nowhere else.
        field = hand.redeal_field
        keys_due = kind is ActionKind.ACCEPT_REDEAL or (
            hand.peer_owes_redeal if not mine else hand.owe_redeal
        )
        if keys_due != (field in payload):
            raise MalformedMessageError(
                f"redeal {field} missing" if keys_due else f"unexpected redeal {field}",
                message_no=env.seq,
            )
        if not mine and field in payload and kind is not ActionKind.ACCEPT_REDEAL:
            # The non-dealer's keys or shares for our (the dealer's) redeal cards.
            hand.receive_redeal(payload[field])
            hand.peer_owes_redeal = False
            self._deal_own(redeal=True)
        if mine and field in payload and kind is not ActionKind.ACCEPT_REDEAL:
            hand.owe_redeal = False
        if kind is ActionKind.PLAY:
            if mine:
                card = Card.from_index(hand.my_cards(game.redealt)[payload["pos"]])
            else:
                card = Card.from_index(hand.receive_show(payload["pos"], payload[hand.card_field]))
            action = Action.play(card)
        else:
            action = Action(kind)
        if game.to_act != actor:
            raise OutOfTurnError(f"player {int(actor)} acted out of turn", message_no=env.seq)
        events = game.push(action)
        opened: list[bytes] | None = payload.get("open")
        if (opened is not None) != self._pipeline.open_due(events, actor, game):
            raise MalformedMessageError(
                "the next dealer's shares must ride on its action that ends the hand, "
                "and only there",
                message_no=env.seq,
            )
        self._events.extend(events)
        if kind is ActionKind.ACCEPT_REDEAL:
            if mine:
                hand.peer_owes_redeal = True
            else:
                hand.receive_redeal(payload[field])
                hand.owe_redeal = True
                self._deal_own(redeal=True)
        self._after_action(actor, events, opened)

    def _after_action(
        self, actor: Player, events: Sequence[Event], opened: list[bytes] | None = None
    ) -> None:
        holds = conditions_after_action(
            events,
            audit_mode=self.audit_mode,
            hands=self._hand + 1,
            audited=self._audit.audited,
            early_redeal=self._hello.agreed(FEATURE_EARLY_REDEAL),
        )
        holds.update(self._pipeline.conditions(holds[Cond.ROUND_OVER]))
        holds[Cond.OPENED] = opened is not None
        if holds[Cond.ROUND_OVER]:
            self._hand_ender = actor
        self._advance(holds)
        if self.stage in (Stage.DECK1, Stage.V2_DECK1):
            self._start_hand()
        elif self.stage is Stage.V2_DECK3:
            # The new dealer's shares rode on its action that ended the hand.
            assert opened is not None
            hand = self._open_next()
            if actor != self.me:
                d3 = hand.deck.receive_d2_shares(opened)
                hand.pending_d3 = list(d3["shares"])
                self._deal_own(redeal=False)
                self._your_turn()
        elif self.stage in (Stage.V2_DECK2, Stage.V2_OPEN):
            # The pre-dealt hand starts: its dealer sends what it held back.
            hand = self._open_next()
            if self._expected_sender() == self.me:
                self._pipeline.release(hand, self.stage)
        elif self.stage is Stage.REVEAL_FIRST:
            self._maybe_reveal()
        elif self.stage is Stage.RESULT_FIRST:  # deck v2: no audit, the result follows
            self._expected_result = self._result_payload()
            if self._expected_sender() == self.me:
                self._emit(MessageType.RESULT, self._expected_result)
        elif self.stage is Stage.V2_REDEAL:
            # Early redeal cards: as the non-dealer, our shares for the dealer's new
            # cards go at once, before we decide (our turn is handed after them).
            if self._expected_sender() == self.me:
                self._emit(MessageType.V2REDEAL, {"shares": self._cur.redeal_material()})
        else:
            self._pipeline.turn_handed()
            self._your_turn()

    def _on_v2redeal(self, env: Envelope, mine: bool) -> None:
        """Early redeal cards: the non-dealer's shares for the dealer's redeal cards,
        right after the dealer's ``accept-redeal`` (wire.md section 6a)."""
        hand = self._cur
        if mine:
            hand.owe_redeal = False
        else:
            hand.receive_redeal(env.payload["shares"])
            hand.peer_owes_redeal = False
            self._deal_own(redeal=True)
        self._advance()
        self._pipeline.turn_handed()
        self._your_turn()

    def _maybe_reveal(self) -> None:
        if self._expected_sender() == self.me:
            self._emit(MessageType.REVEAL, self._audit.reveal(self._hand))

    def _on_reveal(self, env: Envelope, mine: bool) -> None:
        if not mine:
            self._run_audit(self._audit.receive(env, self._hand), env)
        first_stage = self.stage is Stage.REVEAL_FIRST
        game_over = self._game is not None and self._game.phase is Phase.OVER
        self._advance({Cond.GAME_OVER: game_over})
        if first_stage:
            self._maybe_reveal()
            return
        self._audit.passed(self._hand)
        if self.stage is Stage.DECK1:
            self._start_hand()
        elif self.stage is Stage.RESULT_FIRST:
            self._expected_result = self._result_payload()
            if self._expected_sender() == self.me:
                self._emit(MessageType.RESULT, self._expected_result)

    def _run_audit(self, hands: list[int], env: Envelope) -> None:
        """Audit ``hands`` against the peer's reveal ``env`` and report it."""
        self._audit.check(hands, env)
        self._events.append(AuditPassed(hands=tuple(hands)))

    def _result_payload(self) -> dict[str, Any]:
        outcome = self.outcome
        assert outcome is not None
        return result_payload(outcome, hands=self._hand + 1, chain=self._chain.prev)

    def _on_result(self, env: Envelope, mine: bool) -> None:
        if not mine and env.payload != self._expected_result:
            raise ResultMismatchError(
                f"peer's result {env.payload} disagrees with ours {self._expected_result}",
                message_no=env.seq,
            )
        self._result_envs.append(env.raw)
        self._advance()
        if self.stage is Stage.RESULT_SECOND:
            if self._expected_sender() == self.me:
                assert self._expected_result is not None
                self._emit(MessageType.RESULT, dict(self._expected_result))
            return
        outcome = self.outcome
        assert outcome is not None
        self.result = GameResult(
            game_id=self._hello.game_id,
            winner=outcome.winner,
            scores=outcome.scores,
            reason=outcome.reason.value,
            hands=self._hand + 1,
            envelopes=(self._result_envs[0], self._result_envs[1]),
        )
        self._events.append(GameFinished(result=self.result))
