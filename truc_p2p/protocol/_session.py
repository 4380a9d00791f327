"""The sans-IO game session (shape of h11's ``Connection``).

Theory of operation
-------------------
A :class:`Session` is one player's end of one game.  Feed it the bytes the
peer sent with :meth:`Session.receive_data`, pull typed events out of
:meth:`Session.next_event`, answer :class:`YourTurn` with
:meth:`Session.send`, and write whatever :meth:`Session.data_to_send` returns
to the peer.  It never touches a socket, a clock or a global RNG: the caller
passes a 32-byte ``secret`` (fresh randomness, e.g. ``secrets.token_bytes``)
from which every local random value is derived (hello nonce, coin, one deck
seed per hand), so a session can be rebuilt from that secret and its
transcript (:meth:`Session.restore`, replayed by :mod:`._restore`).

Every message, sent or received, goes through :meth:`_apply`, which keeps
the chain (a :class:`~._chain.Chain` and the game id), the stage table of
:mod:`._state`, the deck layer (one per-hand state object per hand: a
:class:`~._hand.HandState` around :class:`~truc_p2p.deck.DeckSide` for deck
v1, a :class:`~._hand_v2.HandStateV2` around
:class:`~truc_p2p.deck.DeckSideV2` for deck v2) and this player's view of the
rules engine in step.  The deck version is negotiated in the hellos'
``options``; actions are handled through the per-hand objects' common
interface, so only the deal (and v1's audit) differ by version.  Messages the
protocol makes without a decision (hellos, coin, deck steps, reveals,
results) are queued automatically.  Any fault in peer input becomes a
:class:`RemoteProtocolError` carrying the signed envelope(s) as evidence and
leaves the session in the ``ERROR`` stage.

With the pipelined deal (wire.md section 6b) two hands are alive at once:
the session plays ``_current`` while its :class:`~._pipeline.Pipeline`
holds hand n + 1, pre-dealt meanwhile, until that hand opens.  The messages
outside the chain (``resume``, ``refuse``, ``bye``) belong to the session's
:class:`~._link.ControlPlane`; the session frames them and queues what it
returns.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from truc_p2p.deck import DeckSide, DeckSideV2, Role, positions
from truc_p2p.protocol._chain import Chain
from truc_p2p.protocol._control import ControlPlane
from truc_p2p.protocol._errors import (
    AuditRefusedError,
    CheatDetectedError,
    IllegalMoveError,
    LocalProtocolError,
    MalformedMessageError,
    OutOfTurnError,
    PeerKeyMismatchError,
    ProtocolError,
    RemoteProtocolError,
    ResultMismatchError,
    ResumeRefusedError,
    RulesetMismatchError,
    UnexpectedMessageError,
    WrongGameError,
    blame,
)
from truc_p2p.protocol._events import (
    CLOSED,
    NEED_DATA,
    AnyEvent,
    AuditPassed,
    CardsDealt,
    GameFinished,
    GameResult,
    GameStarted,
    PeerAborted,
    PeerResigned,
    Resignation,
    SessionEvent,
    YourTurn,
)
from truc_p2p.protocol._hand_v2 import HandStateV2
from truc_p2p.protocol._judge import answer_agrees, check_options
from truc_p2p.protocol._messages import (
    ABORT_REASONS,
    DECK_VERSIONS,
    MessageType,
    validate_payload,
)
from truc_p2p.protocol._pipeline import Pipeline
from truc_p2p.protocol._restore import deck_settings, own_features, own_series, replay
from truc_p2p.protocol._state import (
    ACTION_STAGES,
    FIRST_DEAL_STAGES,
    INTERJECTIONS,
    STAGES,
    Cond,
    Stage,
    conditions_after_action,
    due_stage,
    expected_sender,
    next_stage,
)
from truc_p2p.protocol._values import (
    AUDIT_MODES,
    EARLY_DEFAULT,
    FEATURE_EARLY_REDEAL,
    FEATURE_HEARTBEAT,
    FEATURE_RESIGN,
    FEATURE_REST_FINAL,
    PIPELINE_DEFAULT,
    Series,
    coin_commitment,
    first_dealer_from_coins,
    game_id_of,
    hello_nonce,
    local_seed,
    local_seed_v2,
    local_value,
    nonce_features,
    refusal,
    resignable,
    result_payload,
    series_of,
    session_options,
)
from truc_p2p.protocol._wire import (
    FRAME_HEADER,
    Envelope,
    FrameBuffer,
    decode_envelope,
    envelope_hash,
    fingerprint,
    frame,
    public_key_bytes,
    sign_envelope,
    verify_signature,
)
from truc_p2p.protocol.legacy_v1._audit import SeedAudit
from truc_p2p.protocol.legacy_v1._hand import HandState, PlayedHand
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
    Ruleset,
)

__all__ = [
    "AUDIT_MODES",
    "DECK_VERSIONS",
    "Session",
    "coin_commitment",
    "first_dealer_from_coins",
    "game_id_of",
    "local_seed",
    "local_seed_v2",
    "local_value",
    "refusal",
]


def action_payload(action: Action) -> dict[str, Any]:
    """Payload fields of an action other than the card proof and keys."""
    return {"act": action.kind.value}


class Session:
    """One player's end of a truc-p2p game.  See the module docstring.

    ``role`` is :attr:`Player.P0` for the initiator (who sends the first
    hello) and :attr:`Player.P1` for the responder.  ``record`` is called with
    every envelope sent or received, in transcript order, before it is acted
    on: pass a transcript writer's ``append`` so nothing is lost on an error.
    ``deck`` is the mental-poker deck, ``"v2"`` (default: proofs checked at
    every message, nothing revealed) or ``"v1"`` (seed audit after the game);
    both players must choose the same one, as for the ruleset and ``audit``
    (which only matters for v1).  ``resign`` announces in the hello that this
    player understands resignation (wire.md section 8.1); it is agreed
    when both hellos announce it, and then :meth:`resign` ends the game with
    a signed resignation instead of a plain ``quit``.  ``rest_final`` announces
    the rest-final rule (wire.md section 6b): when both hellos announce it, no
    pre-deal message is owed while "my rest" decides the hand (:attr:`rest_final`).
    ``early_redeal`` announces early redeal cards (wire.md section 6a): when both
    hellos announce it, the non-dealer sends its shares for the dealer's redealt
    cards in a ``v2redeal`` right after the ``accept-redeal``, before it decides
    (:attr:`early_redeal`).
    """

    def __init__(
        self,
        *,
        identity: Ed25519PrivateKey,
        role: Player,
        secret: bytes,
        ruleset: Ruleset | None = None,
        name: str = "player",
        audit: str = "game",
        record: Callable[[bytes], None] | None = None,
        expected_peer_fingerprint: str | None = None,
        deck: str = "v2",
        pipeline: bool | None = None,
        resign: bool = True,
        early: bool | None = None,
        rest_final: bool = True,
        series: Series | None = None,
        accept_series: Callable[[Series, str], bool] | None = None,
        early_redeal: bool = True,
        heartbeat: bool = False,
    ) -> None:
        if pipeline is None:
            pipeline = deck == "v2" and PIPELINE_DEFAULT
        if pipeline and deck != "v2":
            raise LocalProtocolError("the pipelined deal needs deck v2")
        if early is None:
            early = deck == "v2" and EARLY_DEFAULT
        if early and deck != "v2":
            raise LocalProtocolError("early cards need deck v2")
        if len(secret) != 32:
            raise LocalProtocolError("secret must be 32 bytes of fresh randomness")
        if audit not in AUDIT_MODES:
            raise LocalProtocolError(f"audit must be one of {AUDIT_MODES}")
        if deck not in DECK_VERSIONS:
            raise LocalProtocolError(f"deck must be one of {DECK_VERSIONS}")
        if not (1 <= len(name) <= 40 and name.isprintable()):
            raise LocalProtocolError("name must be 1 to 40 printable characters")
        self._identity = identity
        self._public = public_key_bytes(identity.public_key())
        self.me = Player(role)
        self._secret = secret
        self.ruleset = ruleset if ruleset is not None else Ruleset()
        self.name = name
        self.audit_mode = audit
        #: the deck version: "v1" (seed audit) or "v2" (proofs at every message)
        self.deck = deck
        #: deck v2 only: deal hand n + 1 while hand n is played (wire.md section 6b)
        self.pipeline = bool(pipeline)
        #: deck v2 only: the non-dealer may send its v2deck3 shares before its first
        #: action (wire.md section 6a).  What we propose; after the hellos, what both
        #: agreed (negotiated down when the peer's hello lacks it, wire.md section 4).
        self.early = bool(early)
        #: what our hello proposed (``early`` may be negotiated down by the peer's hello)
        self.early_proposed = self.early
        #: the linked games this one belongs to (rematch, match; wire.md section 4.1)
        self.series = series if series is not None else Series()
        # Responder only: may the initiator's hello link this game to another
        # (``accept_series(series, peer_fingerprint)``, e.g. ``host --forever``
        # taking a rematch of a game it played)?  Without it the series must be ours.
        self._accept_series = accept_series
        self._record = record
        # Envelopes recorded (or, without ``record``, that would be) and their framed bytes.
        self._recorded = [0, 0]
        self._expected_peer = expected_peer_fingerprint
        #: whether our hello announces resignation (wire.md section 8.1)
        self.resign_feature = resign
        #: whether our hello announces the rest-final rule (wire.md section 6b): no
        #: pre-deal is owed while "my rest" decides the hand, when both announce it
        self.rest_final_feature = rest_final
        #: whether our hello announces early redeal cards (wire.md section 6a)
        self.early_redeal_feature = early_redeal
        #: whether our hello announces heartbeats (wire.md sections 11.1, 13.6): a
        #: transport feature, so off unless the network layer speaks them
        self.heartbeat_feature = heartbeat
        self._peer_features = 0
        #: the signed resignation that ended the game (ours or the peer's), if any
        self.resignation: Resignation | None = None
        # Before each chain position: whether a resignation may sit there, and the
        # score and hands dealt it would record (a resign may chain to an earlier
        # point than our last message when our move crossed it, wire.md section 8).
        self._marks: list[tuple[bool, tuple[int, int] | None, int]] = []
        self._v1_deals = 0  # deck1 messages on the chain: a v1 resignation's hand number

        self._frames = FrameBuffer()
        self._events: deque[AnyEvent] = deque()
        #: the events a restore replayed from the transcript (see :meth:`take_history`)
        self._history: list[SessionEvent | Event] = []
        self._outbox: list[bytes] = []
        self._error: ProtocolError | None = None

        self.stage = Stage.HELLO_INITIATOR
        self._chain = Chain()
        # resume, refuse and bye: signed, outside the chain.
        self._control = ControlPlane(
            identity=identity,
            me=self.me,
            expected_peer=expected_peer_fingerprint,
            chain=self._chain,
        )
        self.game_id = b""
        self._hellos: list[bytes] = []
        self._peer_key: Ed25519PublicKey | None = None
        self.peer_name: str | None = None
        self.peer_fingerprint: str | None = None
        #: the series the peer's hello names (wire.md 4.1; ``None``: not yet, or malformed)
        self.peer_series: Series | None = None
        self._peer_coin: bytes = b""  # commitment (we are responder) or coin (initiator)

        self._game: Game | None = None
        self._hand = -1
        # One per-hand state per hand dealt; ``_current`` is the hand being played.
        self._hands: dict[int, HandState | HandStateV2] = {}
        self._current: HandState | HandStateV2 | None = None
        # Pipelined deal: hand n + 1, pre-dealt while ``_current`` is played.
        self._pipeline = Pipeline(
            enabled=self.pipeline, new_hand=self._new_v2_hand, emit=self._emit, fail=self._fail
        )
        self._hand_ender: Player | None = None
        self._audit = SeedAudit(hands=self._hands, seed=self._seed)  # deck v1 only
        self._expected_result: dict[str, Any] | None = None
        self._result_envs: list[bytes] = []
        self.result: GameResult | None = None
        self._sent_log: list[bytes] | None = None  # own envelopes, while restoring

        if self.me is Player.P0:
            self._emit(MessageType.HELLO, self._hello_payload(coin_commitment(self._coin)))

    # ------------------------------------------------------------------ public API

    @property
    def fingerprint(self) -> str:
        """This player's key fingerprint."""
        return fingerprint(self._public)

    @property
    def peer_key(self) -> Ed25519PublicKey | None:
        """The opponent's public key, once its hello is in (the transport checks
        signatures with it to tell a damaged frame from a signed one)."""
        return self._peer_key

    @property
    def game(self) -> Game:
        """A copy of this player's view of the rules engine (after the coin flip)."""
        if self._game is None:
            raise LocalProtocolError("the game has not started yet")
        return self._game.copy()

    @property
    def outcome(self) -> Outcome | None:
        """The rules outcome once the last action is played (before the audit)."""
        return self._game.outcome() if self._game is not None else None

    @property
    def hands_dealt(self) -> int:
        return self._hand + 1

    @property
    def transcript_messages(self) -> int:
        """Envelopes of this game in this side's transcript: every one sent or received,
        once, over every connection and restart (``resume`` and ``bye`` are not in it).
        What ``verify`` counts as the transcript's messages."""
        return self._recorded[0]

    @property
    def transcript_bytes(self) -> int:
        """Bytes of those envelopes framed as in the transcript (4-byte length each)."""
        return self._recorded[1]

    @property
    def error(self) -> ProtocolError | None:
        """The error that ended the session, if any."""
        return self._error

    @property
    def finished(self) -> bool:
        return self.stage in (Stage.DONE, Stage.ABORTED, Stage.ERROR)

    def secret_for_storage(self) -> bytes:
        """The 32-byte session secret, to store (0600) for :meth:`restore`. Never log it."""
        return self._secret

    def receive_data(self, data: bytes) -> None:
        """Buffer bytes received from the peer; process them with :meth:`next_event`.

        Bytes that arrive after the game ended (finished, aborted, or ended by
        the peer's error) are peer input the game no longer needs: they are
        dropped, never an error, and never buffered.
        """
        if not self._control.reconnecting and (
            self.stage in (Stage.ABORTED, Stage.ERROR)
            or (self.stage is Stage.DONE and self.peer_done)
        ):
            return
        self._frames.feed(data)

    def next_event(self) -> AnyEvent:
        """Return the next event, :data:`NEED_DATA` or :data:`CLOSED`.

        Raises :class:`RemoteProtocolError` (and keeps raising it) once the peer
        broke the protocol.
        """
        while True:
            if self._events:
                return self._events.popleft()
            if self._error is not None:
                raise self._error
            if self._control.reconnecting:
                try:
                    raw = self._frames.next_envelope()
                except RemoteProtocolError as exc:
                    self._frames = FrameBuffer()
                    raise ResumeRefusedError(f"not a resume: {exc.args[0]}") from None
                if raw is None:
                    return NEED_DATA
                self._on_resume(raw)
                continue
            if self.stage is Stage.DONE:
                self._read_farewells()
                return CLOSED
            if self.stage is Stage.ABORTED:
                return CLOSED
            if self._make_owed_predeal():
                continue
            try:
                raw = self._frames.next_envelope()
            except RemoteProtocolError as exc:
                self._fail(exc)
                raise
            if raw is None:
                if self._pipeline.work():  # nothing to read: time for the put-off deck work
                    continue
                return NEED_DATA
            self._receive(raw)

    def work(self) -> bool:
        """Do the deck work of the next hand that is waiting; True if there was any.

        With the pipelined deal (wire.md section 6b) the player is handed its turn
        first and the next hand's deck work waits: the pre-deal message we owe
        (our shuffle and its proofs), and checking the peer's pre-deal message and
        computing our answer to it. Call this while the local player thinks, then
        send :meth:`data_to_send`: the peer gets our pre-deal message before our
        move and can do its part while we think. Otherwise :meth:`next_event`
        does the checking before it returns :data:`NEED_DATA`, and the session
        does whatever a message needs when it needs it. Raises
        :class:`RemoteProtocolError` (and the session fails) if the peer's
        pre-deal message cheats; the error names that message.

        With early cards (wire.md section 6a) a non-dealer that was just handed
        the first turn of a hand makes its ``v2deck3`` here, shares only: send it
        at once and the dealer sees its cards while we think.  If :meth:`send`
        comes first, the action rides on the ``v2deck3`` as without early cards.
        """
        if self._error is not None:
            raise self._error
        made = self._make_owed_predeal() or self._make_early_d3()
        return self._pipeline.work() or made

    def data_to_send(self) -> bytes:
        """Framed bytes of every message queued since the last call."""
        out = b"".join(frame(env) for env in self._outbox)
        self._outbox.clear()
        return out

    def send(self, action: Action) -> bytes:
        """Play ``action`` (it must be legal and your turn); returns the bytes to send.

        The returned bytes include any queued automatic message.
        """
        if self._error is not None or self.finished:
            raise LocalProtocolError(f"cannot act: session is {self.stage.value}")
        game = self._game
        if self.stage not in ACTION_STAGES or game is None or game.to_act != self.me:
            raise LocalProtocolError("it is not your turn to act")
        if not game.is_legal(action):
            try:
                game.copy().push(action)
            except RulesError as exc:  # an illegal action, or not an Action at all
                raise LocalProtocolError(f"illegal action {action}: {exc}") from exc
            raise LocalProtocolError(f"illegal action {action}")  # pragma: no cover
        self._make_owed_predeal()  # it goes first on the chain
        payload = self._own_action_payload(action)
        mtype = ACTION_STAGES[self.stage]
        if mtype == MessageType.V2ACTION and self._pipeline.open_due(
            game.copy().push(action), self.me, game
        ):
            payload["open"] = self._pipeline.take_open_shares()
        if mtype == MessageType.DECK4:
            hand = self._cur_v1
            pending = hand.pending_d4
            assert pending is not None
            deck, keys = pending
            hand.pending_d4 = None
            self._emit(mtype, {"deck": list(deck), "keys": keys, "action": payload})
        elif mtype == MessageType.V2DECK3:
            hand2 = self._cur_v2
            shares = hand2.pending_d3
            assert shares is not None
            hand2.pending_d3 = None
            self._emit(mtype, {**self._hand_field(self._hand), "shares": shares, "action": payload})
        else:
            self._emit(mtype, payload)
        return self.data_to_send()

    def abort(self, reason: str, detail: str = "") -> bytes:
        """End the game early with a signed ``abort`` (quit, timeout, cheat, ...).

        Returns the bytes to send (empty if nothing can be sent any more).  Reason
        ``"resign"`` is :meth:`resign`: a complete result, with its own checks.
        """
        if reason not in ABORT_REASONS:
            raise LocalProtocolError(f"abort reason must be one of {', '.join(ABORT_REASONS)}")
        if reason == "resign":
            return self.resign(detail)
        if self.stage in (Stage.DONE, Stage.ABORTED):
            return b""
        detail = "".join(c if c.isprintable() else " " for c in detail)[:200]
        if not self._hellos or (len(self._hellos) < 2 and self._peer_key is None):
            self.stage = Stage.ABORTED
            return b""
        self._emit(MessageType.ABORT, {"reason": reason, "detail": detail})
        self.stage = Stage.ABORTED
        return self.data_to_send()

    @property
    def resign_agreed(self) -> bool:
        """Both hellos announce resignation (wire.md section 8.1): :meth:`resign` may be used."""
        return self.resign_feature and bool(self._peer_features & FEATURE_RESIGN)

    @property
    def can_resign(self) -> bool:
        """Whether :meth:`resign` would give the game away now: resignation is agreed,
        the game started and is not decided, and no reveal or result is due."""
        return self._error is None and self.resign_agreed and resignable(self.stage, self._game)

    def resign(self, detail: str = "") -> bytes:
        """Give the game to the opponent with a signed ``abort`` {reason: ``resign``}.

        Unlike a ``quit`` this is a complete result (wire.md section 8): the opponent
        wins, the score is the one on the chain now, and both transcripts verify.
        It may be sent at any time during the deal and play, also while the
        opponent is to act.  Raises :class:`LocalProtocolError` when
        :attr:`can_resign` is false (an old peer, no game yet, or the game is
        decided): leave with :meth:`abort` ``"quit"`` then.  Returns the bytes to send.
        """
        if not self.can_resign:
            why = (
                "the peer does not support it"
                if not self.resign_agreed
                else (f"not in stage {self.stage.value}")
            )
            raise LocalProtocolError(f"cannot resign now: {why}")
        game = self._game
        assert game is not None
        detail = "".join(c if c.isprintable() else " " for c in detail)[:200]
        scores, hand = game.scores, self._resign_hand()
        self._emit(MessageType.ABORT, {"reason": "resign", "detail": detail})
        self.stage = Stage.ABORTED
        self.resignation = Resignation(
            game_id=self.game_id,
            by=self.me,
            winner=self.me.other,
            scores=scores,
            hand=hand,
            detail=detail,
            envelope=self._chain.raw(self._chain.seq - 1),
        )
        return self.data_to_send()

    @property
    def ending(self) -> str:
        """How the game ended, in the words of a second ending's error: ``"a
        resignation"``, ``"an abort"`` or ``"the co-signed result"``."""
        if self.stage is Stage.DONE:
            return "the co-signed result"
        return "a resignation" if self.resignation is not None else "an abort"

    @property
    def started(self) -> bool:
        """Whether the game began from our side: hellos exchanged and the coin flipped."""
        return self._game is not None

    def take_history(self) -> tuple[SessionEvent | Event, ...]:
        """The events of the game so far that no one was handed yet: those the replay
        of a restored transcript produced, in order (a new session has none).  A game
        loop hands them to its screen before anything else, so a resumed game's table
        is rebuilt by the same road as a live one; they are handed out once."""
        history, self._history = tuple(self._history), []
        return history

    @property
    def peer_played(self) -> bool:
        """Whether the peer signed a message of the game beyond its hello and an abort
        (a host that turns our options down after its hello played nothing)."""
        peer = int(self.me.other)
        mine = [n for n in range(self._chain.seq) if self._chain.sender(n) == peer]
        if mine and decode_envelope(self._chain.raw(mine[-1])).type == MessageType.ABORT:
            mine.pop()
        return len(mine) > 1

    @property
    def resumable(self) -> bool:
        """Whether a lost connection can be resumed: the game id exists and the game was
        neither aborted nor broken (a finished game still resends its last messages)."""
        return bool(self.game_id) and self.stage not in (Stage.ABORTED, Stage.ERROR)

    @property
    def peer_done(self) -> bool:
        """The peer said ``bye``: it holds the whole game, nothing is owed to it."""
        return self._control.peer_done

    def _read_farewells(self) -> None:
        """After the result: look for the peer's ``bye``; anything else is dropped."""
        while not self._control.peer_done:
            try:
                raw = self._frames.next_envelope()
            except RemoteProtocolError:
                self._frames = FrameBuffer()
                return
            if raw is None:
                return
            self._control.on_farewell(raw)

    def farewell(self) -> bytes:
        """A signed ``bye`` (framed, outside the chain): we hold the whole game.

        Sent once the result is co-signed; the peer that receives it knows our
        last message arrived.  A side keeps answering reconnections until it
        gets the peer's ``bye``.
        """
        if self.stage is not Stage.DONE:
            raise LocalProtocolError("bye comes after the co-signed result")
        return frame(self._control.farewell())

    @property
    def reconnecting(self) -> bool:
        """True between :meth:`reconnect` and the peer's valid ``resume``."""
        return self._control.reconnecting

    def reconnect(self, nonce: bytes, *, dialer: bool) -> None:
        """Start over on a new connection after the old one was lost.

        Drops the old connection's partial input and unsent output (whatever the
        peer lacks is resent once it says how far it got), then expects the
        peer's signed ``resume`` as the first message.  The ``dialer`` (the side
        that opened the new connection) sends its ``resume`` at once; the other
        side answers the dialer's, echoing its ``nonce`` (16 fresh random bytes
        from the caller).  Read :meth:`data_to_send` afterwards.  A connection
        whose first message is not a valid resume raises
        :class:`ResumeRefusedError` from :meth:`next_event` and leaves the game
        intact: call :meth:`reconnect` again for the next connection.
        """
        if not self.resumable:
            raise LocalProtocolError(f"nothing to resume: session is {self.stage.value}")
        resume = self._control.reconnect(nonce, dialer=dialer)
        self._frames = FrameBuffer()
        self._outbox.clear()
        if resume is not None:
            self._outbox.append(resume)

    def _on_resume(self, raw: bytes) -> None:
        try:
            event, out = self._control.on_resume(raw)
        except ResumeRefusedError:
            self._frames = FrameBuffer()  # the connection is condemned, not the game
            raise
        except RemoteProtocolError as exc:
            self._fail(exc)
            raise
        self._outbox.extend(out)
        self._events.append(event)

    def _on_refuse(self, env: Envelope) -> None:
        """The host's signed refusal of our hello."""
        self._events.append(self._control.refusal(env))
        if not self.game_id:
            self.stage = Stage.ABORTED

    @classmethod
    def restore(
        cls,
        envelopes: Iterable[bytes],
        *,
        identity: Ed25519PrivateKey,
        role: Player,
        secret: bytes,
        ruleset: Ruleset | None = None,
        name: str = "player",
        audit: str = "game",
        record: Callable[[bytes], None] | None = None,
        deck: str | None = None,
        pipeline: bool | None = None,
        resign: bool | None = None,
        early: bool | None = None,
        rest_final: bool | None = None,
        series: Series | None = None,
        early_redeal: bool | None = None,
        heartbeat: bool | None = None,
    ) -> Session:
        """Rebuild a session by replaying its transcript with the same local secret.

        Own messages are regenerated (Ed25519 signatures and every deck secret
        are deterministic) and must match the transcript byte for byte; the
        peer's are processed as when they arrived.  Pending events are
        discarded; ``record`` is attached after the replay.  Own automatic
        messages the replay produces past the transcript's end (the process died
        between recording the peer's message and its answer, e.g. a D2) are then
        recorded; :meth:`reconnect` sends them.  ``deck`` defaults to the version
        named by this player's hello in the transcript, ``resign`` to whether that
        hello announced resignation (``rest_final`` and ``heartbeat`` likewise).
        """
        envelopes = list(envelopes)
        deck, pipeline, early = deck_settings(envelopes, Player(role), deck, pipeline, early)
        if resign is None:
            resign = own_features(envelopes, Player(role)) & FEATURE_RESIGN != 0
        if rest_final is None:
            rest_final = own_features(envelopes, Player(role)) & FEATURE_REST_FINAL != 0
        if early_redeal is None:
            early_redeal = own_features(envelopes, Player(role)) & FEATURE_EARLY_REDEAL != 0
        if heartbeat is None:
            heartbeat = own_features(envelopes, Player(role)) & FEATURE_HEARTBEAT != 0
        if series is None:
            series = own_series(envelopes, Player(role))
        session = cls(
            identity=identity,
            role=role,
            secret=secret,
            ruleset=ruleset,
            name=name,
            audit=audit,
            deck=deck,
            pipeline=pipeline,
            resign=resign,
            early=early,
            rest_final=rest_final,
            series=series,
            early_redeal=early_redeal,
            heartbeat=heartbeat,
        )
        replay(session, envelopes, record)
        return session

    # ------------------------------------------------------------------ internals

    def _derive(self, label: bytes) -> bytes:
        return local_value(self._secret, label)

    @property
    def _coin(self) -> bytes:
        return self._derive(b"coin")

    def _seed(self, hand: int) -> bytes:
        return local_seed(self._secret, hand)

    def _options(self) -> dict[str, Any]:
        return session_options(self.audit_mode, self.deck, self.pipeline, self.early, self.series)

    def _hello_payload(self, coin: bytes) -> dict[str, Any]:
        return {
            "name": self.name,
            "key": self._public,
            "nonce": hello_nonce(self._secret, self._features()),
            "ruleset": dict(self.ruleset.to_dict()),
            "options": self._options(),
            "coin": coin,
        }

    def _features(self) -> int:
        """The feature mask our hello nonce announces (wire.md section 8.1)."""
        mask = FEATURE_RESIGN if self.resign_feature else 0
        mask |= FEATURE_REST_FINAL if self.rest_final_feature else 0
        mask |= FEATURE_EARLY_REDEAL if self.early_redeal_feature else 0
        return mask | (FEATURE_HEARTBEAT if self.heartbeat_feature else 0)

    @property
    def heartbeats_agreed(self) -> bool:
        """Whether both hellos announce heartbeats (wire.md sections 11.1 and 13.6):
        only then does the joiner send them.  ``False`` until the peer's hello."""
        return self.heartbeat_feature and bool(self._peer_features & FEATURE_HEARTBEAT)

    @property
    def rest_final(self) -> bool:
        """Whether the rest-final rule is agreed (both hellos announce it, wire.md
        section 6b): no pre-deal is owed while "my rest" decides the hand."""
        return self.rest_final_feature and bool(self._peer_features & FEATURE_REST_FINAL)

    @property
    def early_redeal(self) -> bool:
        """Whether early redeal cards are agreed (both hellos announce them, wire.md
        section 6a): the non-dealer's shares for the dealer's redealt cards follow the
        ``accept-redeal`` at once, in a ``v2redeal``."""
        return (
            self.deck == "v2"
            and self.early_redeal_feature
            and bool(self._peer_features & FEATURE_EARLY_REDEAL)
        )

    def _fail(self, exc: ProtocolError) -> None:
        self._error = exc
        self.stage = Stage.ERROR
        # Events are queued one envelope at a time, so any still queued came from
        # the rejected envelope (e.g. the cards of a bad deck4): drop them.
        self._events.clear()

    def _emit(self, mtype: str, payload: dict[str, Any]) -> None:
        raw = sign_envelope(
            self._identity,
            game_id=self.game_id,
            seq=self._chain.seq,
            prev=self._chain.prev,
            sender=int(self.me),
            type=mtype,
            payload=payload,
        )
        self._tally(raw)
        if self._record is not None:
            self._record(raw)
        if not self._control.reconnecting:  # else it is resent once the peer says what it lacks
            self._outbox.append(raw)
        if self._sent_log is not None:
            self._sent_log.append(raw)
        self._mark(mtype)
        self._chain.append(int(self.me), raw, envelope_hash(raw))
        if mtype == MessageType.ABORT:
            return
        env = decode_envelope(raw)
        self._apply(env, mine=True)

    def _tally(self, raw: bytes) -> None:
        self._recorded[0] += 1
        self._recorded[1] += FRAME_HEADER + len(raw)

    def _receive(self, raw: bytes) -> None:
        position = self._chain.seq  # where ``raw`` sits in the transcript
        self._tally(raw)
        if self._record is not None:
            self._record(raw)
        try:
            env = decode_envelope(raw, message_no=position)
            if env.type == MessageType.REFUSE and self.stage is Stage.HELLO_RESPONDER:
                self._on_refuse(env)
                return
            self._chain.check_equivocation(env, int(self.me.other), self._peer_key)
            self._check_envelope(env)
            self._mark(env.type)
            self._chain.append(env.sender, raw, env.hash)
            if env.type == MessageType.ABORT and env.payload["reason"] == "resign":
                self._on_resign(env)
                return
            if env.type == MessageType.ABORT:
                refused = (
                    self.stage in (Stage.REVEAL_FIRST, Stage.REVEAL_SECOND)
                    and self._expected_sender() == self.me.other
                )
                self.stage = Stage.ABORTED
                if refused:
                    raise AuditRefusedError(
                        "peer aborted instead of revealing its seeds: the audit is refused "
                        f"({env.payload['reason']} {env.payload['detail']})".rstrip(),
                        step="reveal",
                        evidence=(raw,),
                        message_no=env.seq,
                    )
                self._events.append(
                    PeerAborted(
                        reason=env.payload["reason"], detail=env.payload["detail"], envelope=raw
                    )
                )
                return
            self._apply(env, mine=False)
        except RemoteProtocolError as exc:
            if exc is self._error:  # put-off deck work failed: it names its own message
                raise
            if not exc.evidence:
                exc.evidence = (raw,)
            # Name the envelope by its place in the transcript (as the verifier
            # does), never by the sequence number it claims.
            exc.message_no = position
            self._fail(exc)
            raise

    def _resign_hand(self) -> int:
        """The hand a resignation now is in (from 1).  Deck v1 counts the hands whose
        ``deck1`` is on the chain, which a verifier without the seeds can count too;
        deck v2 the hands started (the verifier replays every v2 hand)."""
        return max(1, self._v1_deals) if self.deck == "v1" else self._hand + 1

    def _mark(self, mtype: str) -> None:
        """Note, before the next chain position, what a resignation there would record;
        ``mtype`` is the type of the envelope that takes the position."""
        game = self._game
        self._marks.append(
            (
                resignable(self.stage, game),
                game.scores if game is not None else None,
                self._resign_hand(),
            )
        )
        self._v1_deals += mtype == MessageType.DECK1

    def _on_resign(self, env: Envelope) -> None:
        """The peer's signed resignation (wire.md section 8): the game is ours.

        It is valid only if both hellos announced resignation and, on the chain
        before it (its ``seq`` may be earlier than our last message when our move
        crossed it), the game was under way and not decided.
        """
        if not self.resign_agreed:
            raise MalformedMessageError(
                "abort reason 'resign' was not announced in both hellos", message_no=env.seq
            )
        allowed, scores, hand = self._marks[env.seq]
        if not allowed or scores is None:
            raise UnexpectedMessageError(
                "a resignation before the game started or after it was decided",
                message_no=env.seq,
            )
        self.stage = Stage.ABORTED
        self.resignation = Resignation(
            game_id=self.game_id,
            by=self.me.other,
            winner=self.me,
            scores=scores,
            hand=hand,
            detail=env.payload["detail"],
            envelope=env.raw,
        )
        self._events.append(
            PeerResigned(
                reason="resign",
                detail=env.payload["detail"],
                envelope=env.raw,
                resignation=self.resignation,
            )
        )

    def _check_envelope(self, env: Envelope) -> None:
        """Signature, sender, game id, sequence, chain, turn and payload shape."""
        evidence = (env.raw,)
        n = env.seq
        if self.stage is Stage.ERROR:  # pragma: no cover - next_event raises first
            raise LocalProtocolError("session is in error")
        if env.type == MessageType.HELLO and self._peer_key is None:
            key_bytes = env.payload.get("key")
            if not isinstance(key_bytes, bytes) or len(key_bytes) != 32:
                raise MalformedMessageError("hello without a 32-byte key", message_no=n)
            if key_bytes == self._public:
                raise MalformedMessageError("peer presents our own key", message_no=n)
            try:
                key = Ed25519PublicKey.from_public_bytes(key_bytes)
            except ValueError:
                raise MalformedMessageError("hello key is not an Ed25519 key") from None
            verify_signature(env, key)
        elif self._peer_key is None:
            raise UnexpectedMessageError(
                f"{env.type!r} before the peer's hello", evidence=evidence, message_no=n
            )
        else:
            verify_signature(env, self._peer_key)
        if env.sender != int(self.me.other):
            raise OutOfTurnError(
                f"message claims sender {env.sender}", evidence=evidence, message_no=n
            )
        if env.game_id != self.game_id:
            raise WrongGameError("envelope names another game", evidence=evidence, message_no=n)
        if env.type == MessageType.ABORT:
            validate_payload(env.type, env.payload, evidence=evidence, message_no=n)
            self._chain.check_abort(env, int(self.me))
            return
        self._chain.check_next(env)
        validate_payload(env.type, env.payload, evidence=evidence, message_no=n)
        if self.stage not in STAGES:
            raise UnexpectedMessageError(
                f"{env.type!r} after the game ended", evidence=evidence, message_no=n
            )
        due = self._due_stage()
        _, mtype, _ = STAGES[due]
        if expected_sender(due, self._game, self._hand_ender) != self.me.other:
            raise OutOfTurnError(
                f"{env.type!r} while it is our turn ({self.stage.value})",
                evidence=evidence,
                message_no=n,
            )
        if env.type != mtype:
            raise UnexpectedMessageError(
                f"{env.type!r} where {mtype!r} is due", evidence=evidence, message_no=n
            )

    def _expected_sender(self) -> Player:
        return expected_sender(self.stage, self._game, self._hand_ender)

    # -- applying messages ---------------------------------------------------------

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

    def _advance(self, holds: dict[Cond, bool] | None = None) -> None:
        self.stage = next_stage(self.stage, holds or {})

    def _on_hello(self, env: Envelope, mine: bool) -> None:
        self._hellos.append(env.raw)
        if not mine:
            p = env.payload
            peer_fingerprint = fingerprint(p["key"])
            if self._expected_peer is not None and peer_fingerprint != self._expected_peer:
                # Checked before anything else is sent: an impostor learns nothing.
                raise PeerKeyMismatchError(
                    f"peer key fingerprint {peer_fingerprint} is not the expected "
                    f"{self._expected_peer}",
                    message_no=env.seq,
                )
            self._peer_key = Ed25519PublicKey.from_public_bytes(p["key"])
            self._peer_features = nonce_features(p["nonce"])
            self.peer_name = p["name"]
            self.peer_fingerprint = peer_fingerprint
            self._peer_coin = p["coin"]
            try:
                theirs = Ruleset.from_dict(p["ruleset"])
            except ValueError as exc:
                raise MalformedMessageError(f"bad ruleset: {exc}", message_no=env.seq) from None
            # Malformed before any comparison, as the verifier judges it (one function).
            early = check_options(p["options"], message_no=env.seq)[3]
            theirs_series = self.peer_series = series_of(p["options"])
            if (
                self.me is Player.P1
                and self._accept_series is not None
                and theirs_series is not None
                and theirs_series != self.series
                and self._accept_series(theirs_series, peer_fingerprint)
            ):
                self.series = theirs_series  # answered in our hello (wire.md 4.1)
            if self.me is Player.P1:
                # Early cards are on when both propose them: we answer with the key only
                # if the initiator's hello has it (an old initiator never sees it).
                self.early = self.early and early
                # Answer first so the initiator sees our settings, then complain.
                self._advance()
                self._emit(MessageType.HELLO, self._hello_payload(self._coin))
                agree = answer_agrees(p["options"], self._options())
            elif early and not self.early:
                raise RulesetMismatchError(
                    "the responder turned on early cards, which we did not propose",
                    message_no=env.seq,
                )
            else:
                agree = answer_agrees(self._options(), p["options"])
                self.early = early  # negotiated down when the responder lacks it
            if theirs != self.ruleset or not agree:
                raise RulesetMismatchError(
                    f"peer proposes ruleset {theirs.to_dict()} options {p['options']}, "
                    f"we use {self.ruleset.to_dict()} options {self._options()}",
                    message_no=env.seq,
                )
            if self.me is Player.P1:
                return
        self._advance()
        if len(self._hellos) == 2:
            self.game_id = game_id_of(self._hellos[0], self._hellos[1])
            assert self._peer_key is not None
            self._control.bind(self.game_id, self._peer_key)
            if self.me is Player.P0:
                self._emit(MessageType.COIN, {"coin": self._coin})

    def _on_coin(self, env: Envelope, mine: bool) -> None:
        if self.series.dealer is not None:  # a linked game: the dealers alternate (4.1)
            first = self.series.dealer
            if not mine and coin_commitment(env.payload["coin"]) != self._peer_coin:
                raise CheatDetectedError(
                    "coin does not open the initiator's commitment",
                    step="coin",
                    message_no=env.seq,
                )
        elif mine:
            first = first_dealer_from_coins(self._coin, self._peer_coin)
        else:
            if coin_commitment(env.payload["coin"]) != self._peer_coin:
                raise CheatDetectedError(
                    "coin does not open the initiator's commitment",
                    step="coin",
                    message_no=env.seq,
                )
            first = first_dealer_from_coins(env.payload["coin"], self._coin)
        self._game = Game(self.ruleset, first_dealer=first, view=self.me)
        assert self.peer_name is not None and self.peer_fingerprint is not None
        self._events.append(
            GameStarted(
                game_id=self.game_id,
                me=self.me,
                peer_name=self.peer_name,
                peer_fingerprint=self.peer_fingerprint,
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
        deck = DeckSide(role, self._seed(self._hand), game_id=self.game_id, hand=self._hand)
        self._current = self._hands[self._hand] = HandState(self._hand, deck)
        if role is Role.DEALER:
            self._emit(MessageType.DECK1, {"deck": list(deck.d1()), "commitment": deck.commitment})

    def _new_v2_hand(self, index: int, role: Role, context: bytes) -> HandStateV2:
        side = DeckSideV2(
            role,
            local_seed_v2(self._secret, index),
            game_id=self.game_id,
            hand=index,
            context=context,
        )
        hand = self._hands[index] = HandStateV2(index, side, context)
        return hand

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
            rest_final=self.rest_final,
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
        if not self.early or self.stage is not Stage.V2_DECK3:
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

    # -- deck v2 deal ----------------------------------------------------------------

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
        if early and not self.early:
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

    # -- deck v1 deal ----------------------------------------------------------------

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
            early_redeal=self.early_redeal,
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

    # -- audit and result ----------------------------------------------------------

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
            game_id=self.game_id,
            winner=outcome.winner,
            scores=outcome.scores,
            reason=outcome.reason.value,
            hands=self._hand + 1,
            envelopes=(self._result_envs[0], self._result_envs[1]),
        )
        self._events.append(GameFinished(result=self.result))
