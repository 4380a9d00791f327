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

The session is built in layers, one job each: :class:`~._session_core.SessionCore`
(the shared state and the door our messages go out by), :class:`~._play.HandPlay`
(the hands' deal, play, audit and result), :class:`~._session_control.ControlSide`
(abort, resignation, resume, bye) and this facade, which reads and checks the
peer's bytes.  The hellos are a composed part, the session's
:class:`~._hello.Negotiation`: it judges each hello and returns what the session
sends; the facade's hello facts (:attr:`Session.game_id`, :attr:`Session.peer_name`,
the features agreed, ...) read it.  What a resignation records is another,
:class:`~._resignations.Resignations` (:attr:`Session.resignation`).  Its settings
are one :class:`~._options.SessionOptions` (or the same keywords).

Every message, sent or received, goes through :meth:`HandPlay._apply`, which keeps
the chain (a :class:`~._chain.Chain` and the game id), the stage table of
:mod:`._state`, the deck layer (one per-hand state object per hand: a
:class:`~.legacy_v1._hand.HandState` around :class:`~truc_p2p.deck.DeckSide` for deck
v1, a :class:`~.v2._hand.HandStateV2` around
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
:class:`~._control.ControlPlane`; the session frames them and queues what it
returns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, Unpack

from truc_p2p.crypto import SigningKey, VerifyKey
from truc_p2p.protocol._chain import hello_key
from truc_p2p.protocol._errors import (
    AuditRefusedError,
    LocalProtocolError,
    OutOfTurnError,
    ProtocolError,
    RemoteProtocolError,
    ResumeRefusedError,
    UnexpectedMessageError,
)
from truc_p2p.protocol._events import (
    CLOSED,
    NEED_DATA,
    AnyEvent,
    PeerAborted,
    SessionEvent,
)
from truc_p2p.protocol._hello import FEATURES, Agreed, Announced, Feature
from truc_p2p.protocol._judge import audit_refusal, check_turn
from truc_p2p.protocol._messages import (
    DECK_VERSIONS,
    MessageType,
    validate_payload,
)
from truc_p2p.protocol._options import RestoreKnobs, SessionKnobs, SessionOptions
from truc_p2p.protocol._restore import deck_settings, own_features, own_series, replay
from truc_p2p.protocol._session_control import ControlSide
from truc_p2p.protocol._state import (
    ACTION_STAGES,
    Stage,
)
from truc_p2p.protocol._values import (
    AUDIT_MODES,
    FEATURE_REST_FINAL,
    Series,
    coin_commitment,
    first_dealer_from_coins,
    game_id_of,
    local_seed,
    local_seed_v2,
    local_value,
    refusal,
)
from truc_p2p.protocol._wire import (
    Envelope,
    FrameBuffer,
    decode_envelope,
    fingerprint,
    verify_signature,
)
from truc_p2p.rules import (
    Action,
    Event,
    Game,
    Player,
    RulesError,
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


class Session(ControlSide):
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
        identity: SigningKey,
        role: Player,
        secret: bytes,
        record: Callable[[bytes], None] | None = None,
        expected_peer_fingerprint: str | None = None,
        accept_series: Callable[[Series, str], bool] | None = None,
        options: SessionOptions | None = None,
        **knobs: Unpack[SessionKnobs],
    ) -> None:
        if options is None:
            options = SessionOptions.of(knobs)
        elif knobs:
            raise LocalProtocolError(f"options given twice: {', '.join(sorted(knobs))}")
        super().__init__(
            identity=identity,
            role=role,
            secret=secret,
            options=options,
            record=record,
            expected_peer=expected_peer_fingerprint,
            accept_series=accept_series,
        )
        if self.me is Player.P0:
            self._emit(MessageType.HELLO, self._hello.hello())

    # ------------------------------------------------------------------ public API

    @property
    def fingerprint(self) -> str:
        """This player's key fingerprint."""
        return fingerprint(self._public)

    @property
    def peer_key(self) -> VerifyKey | None:
        """The opponent's public key, once its hello is in (the transport checks
        signatures with it to tell a damaged frame from a signed one)."""
        return self._hello.peer_key

    # The hellos' features (the table :data:`~._hello.FEATURES`): whether ours
    # announces each (settable until our hello is made), whether both agreed it.
    resign_feature = Announced()
    rest_final_feature = Announced()
    early_redeal_feature = Announced()
    heartbeat_feature = Announced()
    resume_clock_feature = Announced()
    resign_agreed = Agreed()
    rest_final = Agreed()
    early_redeal = Agreed()
    heartbeats_agreed = Agreed()
    resume_clock_agreed = Agreed()

    @property
    def game_id(self) -> bytes:
        """The game id both hellos make (wire.md section 4); ``b""`` until then."""
        return self._hello.game_id

    @game_id.setter
    def game_id(self, game_id: bytes) -> None:
        self._hello.game_id = game_id

    @property
    def peer_name(self) -> str | None:
        """The name the peer's hello gives, once it is in."""
        return self._hello.peer_name

    @property
    def peer_fingerprint(self) -> str | None:
        """The fingerprint of the peer's key, once its hello is in."""
        return self._hello.peer_fingerprint

    @property
    def peer_series(self) -> Series | None:
        """The series the peer's hello names (wire.md 4.1; ``None``: not yet, or malformed)."""
        return self._hello.peer_series

    @property
    def series(self) -> Series:
        """The linked games this one belongs to (rematch, match; wire.md section 4.1):
        ours, or as responder the initiator's when ``accept_series`` took it."""
        return self._hello.series

    @property
    def early(self) -> bool:
        """Deck v2 only: whether the non-dealer may send its v2deck3 shares before its
        first action (wire.md section 6a).  What we propose; after the hellos, what both
        agreed (negotiated down when the peer's hello lacks it, wire.md section 4)."""
        return self._hello.early

    @property
    def early_proposed(self) -> bool:
        """What our hello proposed for early cards (:attr:`early` may be negotiated down)."""
        return self._hello.early_proposed

    @property
    def game(self) -> Game:
        """A copy of this player's view of the rules engine (after the coin flip)."""
        if self._game is None:
            raise LocalProtocolError("the game has not started yet")
        return self._game.copy()

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

    @classmethod
    def restore(
        cls,
        envelopes: Iterable[bytes],
        *,
        identity: SigningKey,
        role: Player,
        secret: bytes,
        record: Callable[[bytes], None] | None = None,
        **knobs: Unpack[RestoreKnobs],
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
        hello announced resignation (``rest_final``, ``heartbeat`` and ``resume_clock``
        likewise).
        """
        envelopes = list(envelopes)
        me = Player(role)
        deck, pipeline, early = deck_settings(
            envelopes, me, knobs.get("deck"), knobs.get("pipeline"), knobs.get("early")
        )
        features = own_features(envelopes, me)

        def feature(row: Feature) -> bool:
            given: bool | None = knobs.get(row.option)  # type: ignore[assignment]
            return features & row.bit != 0 if given is None else given

        series = knobs.get("series")
        options = SessionOptions.of(
            SessionKnobs(
                ruleset=knobs.get("ruleset"),
                name=knobs.get("name", "player"),
                audit=knobs.get("audit", "game"),
                deck=deck,
                pipeline=pipeline,
                early=early,
                series=series if series is not None else own_series(envelopes, me),
            )
        )
        announced: dict[str, Any] = {row.option: feature(row) for row in FEATURES}
        options = replace(options, **announced)
        session = cls(identity=identity, role=role, secret=secret, options=options)
        replay(session, envelopes, record)
        return session

    # ------------------------------------------------------------------ reading the peer

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
            self._check_envelope(env)
            self._mark(env.type)
            self._chain.append(env.sender, raw, env.hash)
            if env.type == MessageType.ABORT and env.payload["reason"] == "resign":
                self._on_resign(env)
                return
            if env.type == MessageType.ABORT:
                refused = audit_refusal(self.stage, self._game, self._hand_ender, env)
                self.stage = Stage.ABORTED
                if refused is not None and refused[0] == self.me.other:
                    raise AuditRefusedError(
                        f"the peer {refused[1]}: the audit is refused "
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

    def _check_envelope(self, env: Envelope) -> None:
        """Signature, sender, then the chain's one judgement (game id, position,
        equivocation: :meth:`~._chain.Chain.check_link`), payload shape and turn."""
        evidence = (env.raw,)
        n = env.seq
        if self.stage is Stage.ERROR:  # pragma: no cover - next_event raises first
            raise LocalProtocolError("session is in error")
        key = self._hello.peer_key
        if env.type == MessageType.HELLO and key is None:
            key = hello_key(env, taken=self._public)
        elif key is None:
            raise UnexpectedMessageError(
                f"{env.type!r} before the peer's hello", evidence=evidence, message_no=n
            )
        verify_signature(env, key)
        if env.sender != int(self.me.other):
            raise OutOfTurnError(
                f"message claims sender {env.sender}", evidence=evidence, message_no=n
            )
        self._chain.check_link(env, self._hello.game_id)
        validate_payload(env.type, env.payload, evidence=evidence, message_no=n)
        if env.type == MessageType.ABORT:
            return
        check_turn(
            self.stage,
            env,
            game=self._game,
            hand_ender=self._hand_ender,
            predeal=self._pipeline.on_chain,
            rest_final=self._hello.agreed(FEATURE_REST_FINAL),
            message_no=n,
        )

    # -- applying messages ---------------------------------------------------------

    # -- deck v2 deal ----------------------------------------------------------------

    # -- deck v1 deal ----------------------------------------------------------------

    # -- audit and result ----------------------------------------------------------
