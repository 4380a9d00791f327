"""The session's table: the coin, each hand's deal (deck v1 or v2, pipelined or not),
the play, deck v1's seed audit, the co-signed result and the aborts on the chain.

:class:`HandPlay` is a part of the :class:`~._session.Session` that owns the
game's state (the hands, this player's view of the rules engine, the audit and
the result) and runs its one referee, a :class:`~._referee_core.RefereeCore` (the
class the offline verifier runs too), which holds the stage.
:meth:`HandPlay.apply` steps every message through that referee, ours and the
peer's alike: it judges the order (no second ending, the turn) and runs the
message's handler here, found in the :mod:`._rulebook`.  The handlers call the
judgements of :mod:`._judge` and :mod:`.v2._judge`, move the referee's stage on
(:meth:`~._referee_core.RefereeCore.advance`) and keep the per-hand deck states and
the rules engine in step.  A hello goes to the session's
:class:`~._hello.Negotiation`, and its handler sends what the verdict says.  Two
parts of the table hold handlers of their own, which the table's delegate to:
deck v2's deal (:class:`~._deal_v2.DealV2`) and the end of the game, the result
and the peer's abort (:class:`~._ending.Ending`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from truc_p2p.deck import DeckSide, DeckSideV2, Role, positions
from truc_p2p.protocol._chain import Chain
from truc_p2p.protocol._control import ControlPlane
from truc_p2p.protocol._deal_v2 import DealV2
from truc_p2p.protocol._ending import Ending
from truc_p2p.protocol._errors import (
    IllegalMoveError,
    LocalProtocolError,
    MalformedMessageError,
    OutOfTurnError,
    ProtocolError,
    blame,
)
from truc_p2p.protocol._events import (
    AnyEvent,
    AuditPassed,
    CardsDealt,
    GameStarted,
    YourTurn,
)
from truc_p2p.protocol._hello import Negotiation
from truc_p2p.protocol._judge import (
    check_open,
    check_redeal_material,
    check_reveal_covers,
    coin_toss,
    conditions_after,
    open_due,
)
from truc_p2p.protocol._messages import (
    MessageType,
)
from truc_p2p.protocol._options import SessionOptions
from truc_p2p.protocol._pipeline import Pipeline
from truc_p2p.protocol._referee_core import RefereeCore
from truc_p2p.protocol._resignations import Resignations
from truc_p2p.protocol._state import (
    ACTION_STAGES,
    FIRST_DEAL_STAGES,
    INTERJECTIONS,
    Cond,
    Stage,
)
from truc_p2p.protocol._values import (
    FEATURE_EARLY_REDEAL,
    FEATURE_REST_FINAL,
    FEATURE_RESUME_CLOCK,
    coin_commitment,
    local_seed,
    local_seed_v2,
    local_value,
)
from truc_p2p.protocol._wire import (
    Envelope,
)
from truc_p2p.protocol.legacy_v1._audit import SeedAudit
from truc_p2p.protocol.legacy_v1._hand import HandState, PlayedHand
from truc_p2p.protocol.v2._hand import HandStateV2
from truc_p2p.rules import (
    Action,
    ActionKind,
    Card,
    Event,
    Game,
    IllegalActionError,
    Outcome,
    Phase,
    Player,
    RulesError,
)

__all__ = ["HandPlay", "Parts"]


@dataclass(frozen=True)
class Parts:
    """The session's parts the table works with: the hellos, the control plane (bound
    once the hellos agree), the chain and the resignations."""

    hello: Negotiation
    control: ControlPlane
    chain: Chain
    resignations: Resignations


def action_payload(action: Action) -> dict[str, Any]:
    """Payload fields of an action other than the card proof and keys."""
    return {"act": action.kind.value}


class HandPlay:
    """The session's table: the game's hands and this player's view of the rules engine,
    the handler of every message on the chain, and the referee that judges each
    message's order and holds the stage (see the module docstring).  It owns that
    state; the session reads it and sends through ``emit`` (which signs, chains and
    applies a message of ours, so it comes back through :meth:`apply`).  ``events``
    is the session's queue of events for its caller."""

    def __init__(
        self,
        *,
        options: SessionOptions,
        me: Player,
        secret: bytes,
        parts: Parts,
        events: deque[AnyEvent],
        emit: Callable[[str, dict[str, Any]], None],
        fail: Callable[[ProtocolError], None],
    ) -> None:
        self.options = options
        self.me = me
        self._secret = secret
        self._hello, self._control, self._chain = parts.hello, parts.control, parts.chain
        self._events = events
        self._emit = emit
        #: the one referee: the stage, the turns, the endings (:mod:`._referee_core`)
        self.referee = RefereeCore(self)
        #: this player's view of the rules engine, from the coin flip on
        self.game: Game | None = None
        #: the hand being played, from 0 (-1 before the first)
        self.hand = -1
        # One per-hand state per hand dealt; ``current`` is the hand being played.
        self._hands: dict[int, HandState | HandStateV2] = {}
        self.current: HandState | HandStateV2 | None = None
        #: Pipelined deal: hand n + 1, pre-dealt while ``current`` is played.
        self.pipeline = Pipeline(
            enabled=bool(options.pipeline), new_hand=self._new_v2_hand, emit=emit, fail=fail
        )
        self.audit = SeedAudit(hands=self._hands, seed=self._seed)  # deck v1 only
        #: deck v2's deal: its messages' handlers, early cards
        self.deal_v2 = DealV2(
            table=self, hello=parts.hello, pipelined=bool(options.pipeline), emit=emit
        )
        #: the result, the peer's abort or resignation
        self.ending = Ending(table=self, parts=parts, events=events, emit=emit)

    @property
    def outcome(self) -> Outcome | None:
        """The rules outcome once the last action is played (before the audit)."""
        return self.game.outcome() if self.game is not None else None

    @property
    def coin(self) -> bytes:
        """Our coin (the initiator's is committed to in its hello, wire.md section 4)."""
        return local_value(self._secret, b"coin")

    def _seed(self, hand: int) -> bytes:
        return local_seed(self._secret, hand)

    def _new_v2_hand(self, index: int, role: Role, context: bytes) -> HandStateV2:
        side = DeckSideV2(
            role,
            local_seed_v2(self._secret, index),
            game_id=self._hello.game_id,
            hand=index,
            context=context,
        )
        hand = self._hands[index] = HandStateV2(index, side, context)
        return hand

    @property
    def stage(self) -> Stage:
        """The referee's stage (read only: only the referee moves it)."""
        return self.referee.stage

    @property
    def pipelined(self) -> bool:
        """Whether the players chose the pipelined deal (the referee's :class:`Judge`)."""
        return bool(self.options.pipeline)

    @property
    def deck(self) -> str:
        """The deck version played (the referee's :class:`Judge`)."""
        return self.options.deck

    @property
    def blind(self) -> bool:
        """A player replays every hand it plays (the referee's :class:`Judge`)."""
        return False

    @property
    def rest_final(self) -> bool:
        """Whether both hellos agreed the rest-final rule (wire.md 6b)."""
        return self._hello.agreed(FEATURE_REST_FINAL)

    def advance(self, holds: dict[Cond, bool] | None = None) -> None:
        self.referee.advance(holds)

    def expected_sender(self) -> Player:
        return self.referee.expected_sender()

    def apply(self, env: Envelope, *, mine: bool, place: Callable[[], None]) -> None:
        """Act on ``env`` (``mine``: we signed it): the referee judges it, ``place``
        puts it on the chain once its turn is judged, and the referee runs its handler
        here, for our messages and the peer's alike."""

        def placed() -> None:
            place()
            current = self.current
            if current is not None and "deck" in env.type and self.stage not in INTERJECTIONS:
                current.envelopes[env.type] = env.raw  # a pre-deal is filed by its handler

        try:
            with blame(env):
                self.referee.step(env, mine, place=placed)
        except IllegalActionError as exc:
            raise IllegalMoveError(
                f"illegal action: {exc}", evidence=(env.raw,), message_no=env.seq
            ) from exc
        except RulesError as exc:
            raise MalformedMessageError(
                f"rejected by the rules engine: {exc}", evidence=(env.raw,), message_no=env.seq
            ) from exc

    def on_hello(self, env: Envelope, mine: bool) -> None:
        """A hello on the chain: the negotiation judges it, we send what it answers."""
        verdict = self._hello.take(env, mine=mine)
        if verdict.answer is not None:  # the responder answers first, then complains
            self.advance()
            self._emit(MessageType.HELLO, verdict.answer)
        if verdict.refusal is not None:
            raise verdict.refusal
        if verdict.answer is not None:
            return
        self.advance()
        if verdict.complete:
            hello = self._hello
            assert hello.peer_key is not None
            clock = hello.agreed(FEATURE_RESUME_CLOCK)
            self._control.bind(hello.game_id, hello.peer_key, clock=clock)
            if self.me is Player.P0:
                self._emit(MessageType.COIN, {"coin": self.coin})

    def on_coin(self, env: Envelope, mine: bool) -> None:
        hello = self._hello
        first = coin_toss(
            env,
            # our own coin opens our commitment; the peer's must open its hello's
            commitment=coin_commitment(self.coin) if mine else hello.peer_coin,
            responder_coin=hello.peer_coin if mine else self.coin,
            linked_dealer=hello.series.dealer,
        )
        self.game = Game(self.options.ruleset, first_dealer=first, view=self.me)
        assert hello.peer_name is not None and hello.peer_fingerprint is not None
        self._events.append(
            GameStarted(
                game_id=hello.game_id,
                me=self.me,
                peer_name=hello.peer_name,
                peer_fingerprint=hello.peer_fingerprint,
                ruleset=self.options.ruleset,
                audit=self.options.audit,
                first_dealer=first,
                deck=self.options.deck,
            )
        )
        self.advance({Cond.DECK_V2: self.options.deck == "v2"})
        self._start_hand()

    def _start_hand(self) -> None:
        game = self.game
        assert game is not None
        assert self.stage is FIRST_DEAL_STAGES[self.options.deck]
        self.hand += 1
        role = Role.DEALER if game.dealer == self.me else Role.NONDEALER
        if self.options.deck == "v2":
            self.pipeline.drop()
            # Every proof of the hand is bound to the chain: the hash of the last
            # envelope before the hand's v2deck1 (wire.md section 6).
            self.current = self._new_v2_hand(self.hand, role, self._chain.prev)
            if role is Role.NONDEALER:
                side = self.current.deck
                self._emit(MessageType.V2DECK1, {**self.deal_v2.hand_field(self.hand), **side.d1()})
            return
        deck = DeckSide(role, self._seed(self.hand), game_id=self._hello.game_id, hand=self.hand)
        self.current = self._hands[self.hand] = HandState(self.hand, deck)
        if role is Role.DEALER:
            self._emit(MessageType.DECK1, {"deck": list(deck.d1()), "commitment": deck.commitment})

    def make_owed_predeal(self) -> bool:
        """Make the pre-deal message owed since our last :class:`YourTurn`, if we are
        the player due (wire.md 6b); True if it made one."""
        if not self.pipeline.flush_due():
            return False
        due = self.referee.due()
        if due is self.stage or self.expected_sender() != self.me:
            return False
        self.pipeline.send_predeal(due, self.hand + 1, self._chain.prev)
        return True

    def _open_next(self) -> HandStateV2:
        """The pre-dealt hand becomes the current one (the previous hand ended)."""
        self.current = self.pipeline.open()
        self.hand += 1
        return self.current

    @property
    def cur(self) -> PlayedHand:
        assert self.current is not None
        return self.current

    @property
    def cur_v1(self) -> HandState:
        assert isinstance(self.current, HandState)
        return self.current

    @property
    def cur_v2(self) -> HandStateV2:
        assert isinstance(self.current, HandStateV2)
        return self.current

    def on_v2deck1(self, env: Envelope, mine: bool) -> None:
        self.deal_v2.on_v2deck1(env, mine)

    def on_v2deck2(self, env: Envelope, mine: bool) -> None:
        self.deal_v2.on_v2deck2(env, mine)

    def on_v2open(self, env: Envelope, mine: bool) -> None:
        self.deal_v2.on_v2open(env, mine)

    def on_v2deck3(self, env: Envelope, mine: bool) -> None:
        self.deal_v2.on_v2deck3(env, mine)

    def on_deck1(self, env: Envelope, mine: bool) -> None:
        self.advance()
        if not mine:
            deck = self.cur_v1.deck
            d2 = deck.receive_d1(env.payload["deck"], env.payload["commitment"])
            self._emit(MessageType.DECK2, {"deck": list(d2), "commitment": deck.commitment})

    def on_deck2(self, env: Envelope, mine: bool) -> None:
        self.advance()
        if not mine:
            d3, keys = self.cur_v1.deck.receive_d2(env.payload["deck"], env.payload["commitment"])
            order = positions(Role.NONDEALER, False)
            self._emit(MessageType.DECK3, {"deck": list(d3), "keys": [keys[i] for i in order]})

    def on_deck3(self, env: Envelope, mine: bool) -> None:
        self.advance()
        if not mine:
            order = positions(Role.NONDEALER, False)
            d4, keys = self.cur_v1.deck.receive_d3(
                env.payload["deck"], dict(zip(order, env.payload["keys"], strict=True))
            )
            dealer_order = positions(Role.DEALER, False)
            self.cur_v1.pending_d4 = (tuple(d4), [keys[i] for i in dealer_order])
            self.deal_own(redeal=False)
            self.your_turn()

    def on_deck4(self, env: Envelope, mine: bool) -> None:
        if not mine:
            order = positions(Role.DEALER, False)
            self.cur_v1.deck.receive_d4(
                env.payload["deck"], dict(zip(order, env.payload["keys"], strict=True))
            )
            self.deal_own(redeal=False)
        self.play_action(env, env.payload["action"], mine)

    def on_action(self, env: Envelope, mine: bool) -> None:
        self.play_action(env, env.payload, mine)

    def on_v2action(self, env: Envelope, mine: bool) -> None:
        self.play_action(env, env.payload, mine)

    def deal_own(self, *, redeal: bool) -> None:
        game, hand = self.game, self.cur
        assert game is not None
        cards = tuple(Card.from_index(c) for _, c in sorted(hand.my_cards(redeal).items()))
        for event in game.deal({self.me: cards}):
            self._events.append(event)
        self._events.append(
            CardsDealt(round_no=game.round_no, dealer=game.dealer, cards=cards, redeal=redeal)
        )

    def your_turn(self) -> None:
        game = self.game
        assert game is not None
        if game.to_act == self.me and game.phase is Phase.PLAY:
            self._events.append(YourTurn(legal_actions=tuple(game.legal_actions())))

    def own_action_payload(self, action: Action) -> dict[str, Any]:
        hand, game = self.cur, self.game
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

    def play_own(self, action: Action) -> None:
        """Play our decided ``action``: it must be our turn and legal (else
        :class:`LocalProtocolError`); an owed pre-deal goes first on the chain, then
        the message that carries it (:meth:`action_message`)."""
        game = self.game
        if self.stage not in ACTION_STAGES or game is None or game.to_act != self.me:
            raise LocalProtocolError("it is not your turn to act")
        if not game.is_legal(action):
            try:
                game.copy().push(action)
            except RulesError as exc:  # an illegal action, or not an Action at all
                raise LocalProtocolError(f"illegal action {action}: {exc}") from exc
            raise LocalProtocolError(f"illegal action {action}")  # pragma: no cover
        self.make_owed_predeal()  # it goes first on the chain
        self._emit(*self.action_message(action))

    def action_message(self, action: Action) -> tuple[str, dict[str, Any]]:
        """The type and payload of the message that carries our (legal) ``action`` now:
        an ``action`` or ``v2action`` (with the pipelined ``open`` when it ends the
        hand, :func:`~._judge.open_due`), or the deal message it rides on
        (``deck4``, ``v2deck3``)."""
        game = self.game
        assert game is not None
        payload = self.own_action_payload(action)
        mtype = ACTION_STAGES[self.stage]
        after = game.copy()
        events = after.push(action)
        if mtype == MessageType.V2ACTION and open_due(
            events, self.me, after, predeal=self.referee.predeal
        ):
            payload["open"] = self.pipeline.take_open_shares()
        if mtype == MessageType.DECK4:
            v1 = self.cur_v1
            assert v1.pending_d4 is not None
            (deck, keys), v1.pending_d4 = v1.pending_d4, None
            return mtype, {"deck": list(deck), "keys": keys, "action": payload}
        if mtype == MessageType.V2DECK3:
            v2 = self.cur_v2
            assert v2.pending_d3 is not None
            shares, v2.pending_d3 = v2.pending_d3, None
            return mtype, {
                **self.deal_v2.hand_field(self.hand),
                "shares": shares,
                "action": payload,
            }
        return mtype, payload

    def play_action(self, env: Envelope, payload: dict[str, Any], mine: bool) -> None:
        game, hand = self.game, self.cur
        assert game is not None
        actor = self.me if mine else self.me.other
        kind = ActionKind(payload["act"])
        # Redeal keys (v1) or shares (v2) ride on the dealer's accept-redeal and
        # on the non-dealer's first action after it; nowhere else.
        field = hand.redeal_field
        keys_due = kind is ActionKind.ACCEPT_REDEAL or (
            hand.peer_owes_redeal if not mine else hand.owe_redeal
        )
        check_redeal_material(env, payload, field=field, due=keys_due)
        if not mine and field in payload and kind is not ActionKind.ACCEPT_REDEAL:
            # The non-dealer's keys or shares for our (the dealer's) redeal cards.
            hand.receive_redeal(payload[field])
            hand.peer_owes_redeal = False
            self.deal_own(redeal=True)
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
        check_open(env, payload, due=open_due(events, actor, game, predeal=self.referee.predeal))
        self._events.extend(events)
        if kind is ActionKind.ACCEPT_REDEAL:
            if mine:
                hand.peer_owes_redeal = True
            else:
                hand.receive_redeal(payload[field])
                hand.owe_redeal = True
                self.deal_own(redeal=True)
        self._after_action(actor, events, opened)

    def _after_action(
        self, actor: Player, events: Sequence[Event], opened: list[bytes] | None = None
    ) -> None:
        holds = conditions_after(
            events,
            audit_mode=self.options.audit,
            hands=self.hand + 1,
            audited=self.audit.audited,
            early_redeal=self._hello.agreed(FEATURE_EARLY_REDEAL),
            predeal=self.referee.predeal,
            opened=opened is not None,
        )
        self.referee.advance(holds, actor=actor)
        if self.stage in (Stage.DECK1, Stage.V2_DECK1):
            self._start_hand()
        elif self.stage is Stage.V2_DECK3:
            # The new dealer's shares rode on its action that ended the hand.
            assert opened is not None
            hand = self._open_next()
            if actor != self.me:
                d3 = hand.deck.receive_d2_shares(opened)
                hand.pending_d3 = list(d3["shares"])
                self.deal_own(redeal=False)
                self.your_turn()
        elif self.stage in (Stage.V2_DECK2, Stage.V2_OPEN):
            # The pre-dealt hand starts: its dealer sends what it held back.
            hand = self._open_next()
            if self.expected_sender() == self.me:
                self.pipeline.release(hand, self.stage)
        elif self.stage is Stage.REVEAL_FIRST:
            self._maybe_reveal()
        elif self.stage is Stage.RESULT_FIRST:  # deck v2: no audit, the result follows
            self.ending.result_due()
        elif self.stage is Stage.V2_REDEAL:
            # Early redeal cards: as the non-dealer, our shares for the dealer's new
            # cards go at once, before we decide (our turn is handed after them).
            if self.expected_sender() == self.me:
                self._emit(MessageType.V2REDEAL, {"shares": self.cur.redeal_material()})
        else:
            self.pipeline.turn_handed()
            self.your_turn()

    def on_v2redeal(self, env: Envelope, mine: bool) -> None:
        """Early redeal cards: the non-dealer's shares for the dealer's redeal cards,
        right after the dealer's ``accept-redeal`` (wire.md section 6a)."""
        hand = self.cur
        if mine:
            hand.owe_redeal = False
        else:
            hand.receive_redeal(env.payload["shares"])
            hand.peer_owes_redeal = False
            self.deal_own(redeal=True)
        self.advance()
        self.pipeline.turn_handed()
        self.your_turn()

    def _maybe_reveal(self) -> None:
        if self.expected_sender() == self.me:
            self._emit(MessageType.REVEAL, self.audit.reveal(self.hand))

    def on_reveal(self, env: Envelope, mine: bool) -> None:
        if not mine:
            hands = check_reveal_covers(env, audited=self.audit.audited, hands=self.hand + 1)
            self.audit.receive(env, hands)
            self._run_audit(hands, env)
        first_stage = self.stage is Stage.REVEAL_FIRST
        game_over = self.game is not None and self.game.phase is Phase.OVER
        self.advance({Cond.GAME_OVER: game_over})
        if first_stage:
            self._maybe_reveal()
            return
        self.audit.passed(self.hand)
        if self.stage is Stage.DECK1:
            self._start_hand()
        elif self.stage is Stage.RESULT_FIRST:
            self.ending.result_due()

    def _run_audit(self, hands: list[int], env: Envelope) -> None:
        """Audit ``hands`` against the peer's reveal ``env`` and report it."""
        self.audit.check(hands, env)
        self._events.append(AuditPassed(hands=tuple(hands)))

    def on_result(self, env: Envelope, mine: bool) -> None:
        self.ending.on_result(env, mine)

    def on_abort(self, env: Envelope, mine: bool) -> None:
        self.ending.on_abort(env, mine)
