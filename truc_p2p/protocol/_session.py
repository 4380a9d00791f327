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

The session is built from parts, each an object that owns its state: the
:class:`~._play.HandPlay` (``_play``: the hands, this player's view of the rules
engine and the handler of every message on the chain, with its own parts: the
:class:`~._deal_v2.DealV2`, the :class:`~._pipeline.Pipeline` that pre-deals hand
n + 1 while hand n is played, the :class:`~._ending.Ending` with the result and
the peer's abort, and the :class:`~._referee_core.RefereeCore`, the one referee,
which holds the stage and judges the order of our messages and the peer's, as the
verifier's does), the :class:`~._inbox.Inbox` (``_inbox``: the peer's frames read
and its envelopes checked, and the error that ended the session), the
:class:`~._hello.Negotiation` (``_hello``: the hellos, their options and features,
the peer's identity and the game id), the :class:`~._chain.Chain`, the
:class:`~._control.ControlPlane` (``_control``: ``resume``, ``refuse``, ``bye``,
signed and outside the chain), the :class:`~._resignations.Resignations` (the
resignation that ended the game) and the :class:`~._link.Link` (``_link``: the
frames read, the envelopes to send and the transcript's record).  This facade
signs our messages (:meth:`Session._emit`) and answers the public API by reading
the parts.  Its settings are one :class:`~._options.SessionOptions`.

Every message, sent or received, goes through :meth:`HandPlay.apply`: its referee
judges it (no second ending, the turn: the stage table of :mod:`._state`), puts it
on the chain and runs its handler, which keeps the deck layer (a per-hand state
object per hand, :class:`~.legacy_v1._hand.HandState` for deck v1 and
:class:`~.v2._hand.HandStateV2` for deck v2) and this player's view of the rules
engine in step.  The deck version is negotiated in the hellos' ``options``; only
the deal (and v1's audit) differ by version.  Messages the protocol makes without
a decision (hellos, coin, deck steps, reveals, results) are queued automatically.
Any fault in peer input becomes a :class:`RemoteProtocolError` carrying the signed
envelope(s) as evidence and leaves the session in the ``ERROR`` stage.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from truc_p2p._text import printable
from truc_p2p.crypto import SigningKey, VerifyKey
from truc_p2p.protocol._chain import Chain
from truc_p2p.protocol._control import ControlPlane, ResumeClock
from truc_p2p.protocol._errors import (
    LocalProtocolError,
    ProtocolError,
)
from truc_p2p.protocol._events import (
    AnyEvent,
    GameResult,
    Resignation,
    SessionEvent,
)
from truc_p2p.protocol._hello import Agreed, Announced, Negotiation
from truc_p2p.protocol._inbox import Inbox
from truc_p2p.protocol._link import Link
from truc_p2p.protocol._messages import (
    ABORT_REASONS,
    DECK_VERSIONS,
    MessageType,
)
from truc_p2p.protocol._options import SessionOptions
from truc_p2p.protocol._play import HandPlay, Parts
from truc_p2p.protocol._resignations import Resignations
from truc_p2p.protocol._restore import Restoring, own_options, replay
from truc_p2p.protocol._state import (
    Stage,
)
from truc_p2p.protocol._values import (
    AUDIT_MODES,
    FEATURE_RESIGN,
    Series,
    coin_commitment,
    first_dealer_from_coins,
    game_id_of,
    local_seed,
    local_seed_v2,
    local_value,
    refusal,
    resignable,
)
from truc_p2p.protocol._wire import (
    decode_envelope,
    envelope_hash,
    fingerprint,
    frame,
    public_key_bytes,
    sign_envelope,
)
from truc_p2p.rules import (
    Action,
    Event,
    Game,
    Outcome,
    Player,
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
        identity: SigningKey,
        role: Player,
        secret: bytes,
        record: Callable[[bytes], None] | None = None,
        expected_peer_fingerprint: str | None = None,
        accept_series: Callable[[Series, str], bool] | None = None,
        options: SessionOptions = SessionOptions(),
    ) -> None:
        if len(secret) != 32:
            raise LocalProtocolError("secret must be 32 bytes of fresh randomness")
        #: the local settings this session was made with
        self.options = options
        self._identity = identity
        self._public = public_key_bytes(identity.public_key())
        self.me = Player(role)
        self._take_options(options)
        self._link = Link(record)
        self._events: deque[AnyEvent] = deque()
        #: the events a restore replayed from the transcript (see :meth:`take_history`)
        self._history: list[SessionEvent | Event] = []
        self._chain = Chain()
        # resume, refuse and bye: signed, outside the chain.
        self._control = ControlPlane(
            identity=identity,
            me=self.me,
            expected_peer=expected_peer_fingerprint,
            chain=self._chain,
        )
        # The hellos: what ours proposes, the peer's identity, the game id.
        self._hello = Negotiation(
            options=options,
            me=self.me,
            public=self._public,
            secret=secret,
            coin=local_value(secret, b"coin"),
            expected_peer=expected_peer_fingerprint,
            accept_series=accept_series,
        )
        # What a resignation before each chain position would record, and the one
        # that ended the game.
        self._resignations = Resignations(me=self.me)
        parts = Parts(
            hello=self._hello,
            control=self._control,
            chain=self._chain,
            resignations=self._resignations,
        )
        self._play = HandPlay(
            options=options,
            me=self.me,
            secret=secret,
            parts=parts,
            events=self._events,
            emit=lambda mtype, payload: self._emit(mtype, payload),
            fail=lambda exc: self._inbox.fail(exc),
        )
        # The peer's input: read, judged, put on the chain; the error that ended us.
        self._inbox = Inbox(
            me=self.me,
            public=self._public,
            link=self._link,
            parts=parts,
            play=self._play,
            events=self._events,
        )
        if self.me is Player.P0:
            self._emit(MessageType.HELLO, self._hello.hello())

    def _take_options(self, options: SessionOptions) -> None:
        """The settings as the attributes callers read (``session.deck``, ...)."""
        self.ruleset = options.ruleset
        self.name = options.name
        self.audit_mode = options.audit
        #: the deck version: "v1" (seed audit) or "v2" (proofs at every message)
        self.deck = options.deck
        #: deck v2 only: deal hand n + 1 while hand n is played (wire.md section 6b)
        self.pipeline = bool(options.pipeline)

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
    def stage(self) -> Stage:
        """The stage of the game (wire.md section 5; ``DONE``, ``ABORTED`` or ``ERROR``
        once it ended)."""
        return self._play.referee.stage

    @property
    def result(self) -> GameResult | None:
        """The co-signed result, once both ``result`` messages are on the chain."""
        return self._play.ending.result

    @property
    def outcome(self) -> Outcome | None:
        """The rules outcome once the last action is played (before the audit)."""
        return self._play.outcome

    @property
    def game(self) -> Game:
        """A copy of this player's view of the rules engine (after the coin flip)."""
        if self._play.game is None:
            raise LocalProtocolError("the game has not started yet")
        return self._play.game.copy()

    @property
    def hands_dealt(self) -> int:
        return self._play.hand + 1

    @property
    def transcript_messages(self) -> int:
        """Envelopes of this game in this side's transcript: every one sent or received,
        once, over every connection and restart (``resume`` and ``bye`` are not in it).
        What ``verify`` counts as the transcript's messages."""
        return self._link.messages

    @property
    def transcript_bytes(self) -> int:
        """Bytes of those envelopes framed as in the transcript (4-byte length each)."""
        return self._link.nbytes

    @property
    def error(self) -> ProtocolError | None:
        """The error that ended the session, if any."""
        return self._inbox.error

    @property
    def finished(self) -> bool:
        return self.stage in (Stage.DONE, Stage.ABORTED, Stage.ERROR)

    def receive_data(self, data: bytes) -> None:
        """Buffer bytes received from the peer; process them with :meth:`next_event`.

        Bytes that arrive after the game ended (finished, aborted, or ended by
        the peer's error) are peer input the game no longer needs: they are
        dropped, never an error, and never buffered.
        """
        self._inbox.feed(data)

    def next_event(self) -> AnyEvent:
        """Return the next event, :data:`NEED_DATA` or :data:`CLOSED`.

        Raises :class:`RemoteProtocolError` (and keeps raising it) once the peer
        broke the protocol.
        """
        return self._inbox.next_event()

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
        if self._inbox.error is not None:
            raise self._inbox.error
        made = self._play.make_owed_predeal() or self._play.deal_v2.make_early_d3()
        return self._play.pipeline.work() or made

    def send(self, action: Action) -> bytes:
        """Play ``action`` (it must be legal and your turn); returns the bytes to send.

        The returned bytes include any queued automatic message.
        """
        if self._inbox.error is not None or self.finished:
            raise LocalProtocolError(f"cannot act: session is {self.stage.value}")
        self._play.play_own(action)
        return self.data_to_send()

    @property
    def started(self) -> bool:
        """Whether the game began from our side: hellos exchanged and the coin flipped."""
        return self._play.game is not None

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
        options: SessionOptions | None = None,
    ) -> Session:
        """Rebuild a session by replaying its transcript with the same local secret.

        Own messages are regenerated (Ed25519 signatures and every deck secret
        are deterministic) and must match the transcript byte for byte; the
        peer's are processed as when they arrived.  Pending events are
        discarded; ``record`` is attached after the replay.  Own automatic
        messages the replay produces past the transcript's end (the process died
        between recording the peer's message and its answer, e.g. a D2) are then
        recorded; :meth:`reconnect` sends them.  ``options`` ``None`` takes the
        settings our own hello in the transcript was made with (:func:`own_options`;
        the defaults before it is recorded); given, they are used as they are.
        """
        envelopes = list(envelopes)
        if options is None:
            options = own_options(envelopes, Player(role)) or SessionOptions()
        session = cls(identity=identity, role=role, secret=secret, options=options)
        parts = Restoring(
            play=session._play, link=session._link, chain=session._chain, events=session._events
        )
        session._history = replay(session, parts, envelopes, record)
        return session

    # ------------------------------------------------------------------ ending, reconnecting

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
        detail = printable(detail, 200)
        hellos = self._hello.hellos
        if not hellos or (len(hellos) < 2 and self._hello.peer_key is None):
            self._play.referee.end(Stage.ABORTED)
            return b""
        self._emit(MessageType.ABORT, {"reason": reason, "detail": detail})  # it ends the game
        return self.data_to_send()

    @property
    def can_resign(self) -> bool:
        """Whether :meth:`resign` would give the game away now: resignation is agreed,
        the game started and is not decided, and no reveal or result is due."""
        return (
            self._inbox.error is None
            and self._hello.agreed(FEATURE_RESIGN)
            and resignable(self.stage, self._play.game)
        )

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
                if not self._hello.agreed(FEATURE_RESIGN)
                else (f"not in stage {self.stage.value}")
            )
            raise LocalProtocolError(f"cannot resign now: {why}")
        game = self._play.game
        assert game is not None
        detail = printable(detail, 200)
        scores, hand = game.scores, self._play.referee.resignation_hand()
        self._emit(MessageType.ABORT, {"reason": "resign", "detail": detail})  # it ends the game
        self._resignations.ours(
            game_id=self._hello.game_id,
            scores=scores,
            hand=hand,
            detail=detail,
            envelope=self._chain.raw(self._chain.seq - 1),
        )
        return self.data_to_send()

    @property
    def resignation(self) -> Resignation | None:
        """The signed resignation that ended the game (ours or the peer's), if any."""
        return self._resignations.resignation

    @property
    def ending(self) -> str:
        """How the game ended, in the words of a second ending's error: ``"a
        resignation"``, ``"an abort"`` or ``"the co-signed result"``."""
        return self._play.referee.ending

    @property
    def peer_played(self) -> bool:
        """Whether the peer signed a message of the game beyond its hello and an abort
        (a host that turns our options down after its hello played nothing)."""
        return self._chain.signed_beyond_hello(int(self.me.other))

    @property
    def resumable(self) -> bool:
        """Whether a lost connection can be resumed: the game id exists and the game was
        neither aborted nor broken (a finished game still resends its last messages)."""
        return bool(self._hello.game_id) and self.stage not in (Stage.ABORTED, Stage.ERROR)

    @property
    def peer_done(self) -> bool:
        """The peer said ``bye``: it holds the whole game, nothing is owed to it."""
        return self._control.peer_done

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

    def reconnect(self, nonce: bytes, *, dialer: bool, clock: ResumeClock | None = None) -> None:
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

        ``clock`` is our view of the turn clock and the away time, which our resume
        carries when both hellos announce the clock in resume (wire.md 13.1,
        :attr:`resume_clock_agreed`); the peer's comes back in :class:`Resumed`.
        """
        if not self.resumable:
            raise LocalProtocolError(f"nothing to resume: session is {self.stage.value}")
        resume = self._control.reconnect(nonce, dialer=dialer, clock=clock)
        self._link.new_connection()
        if resume is not None:
            self._link.outbox.append(resume)

    # ------------------------------------------------------------------ our messages

    def data_to_send(self) -> bytes:
        """Framed bytes of every message queued since the last call."""
        return self._link.take()

    def _emit(self, mtype: str, payload: dict[str, Any]) -> None:
        """Sign, record, queue and chain one of our messages, then act on it."""
        raw = sign_envelope(
            self._identity,
            game_id=self._hello.game_id,
            seq=self._chain.seq,
            prev=self._chain.prev,
            sender=int(self.me),
            type=mtype,
            payload=payload,
        )
        self._link.keep(raw)
        # while reconnecting it is resent once the peer says what it lacks
        self._link.send(raw, hold=self._control.reconnecting)
        place = partial(self._chain.append, int(self.me), raw, envelope_hash(raw))
        self._play.apply(decode_envelope(raw), mine=True, place=place)
