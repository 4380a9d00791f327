"""The state the layers of a :class:`~._session.Session` share, and the chain's
two doors: :meth:`SessionCore._emit` (our messages) and the bookkeeping of every
message (what a resignation before it would record, the transcript's size).

The session is built in layers, each a class with one job, each on top of this one:
:class:`~._play.HandPlay` (the coin, the hands' deal, play, audit and result),
:class:`~._session_control.ControlSide` (aborts, resignations, reconnection and
farewells) and :class:`~._session.Session`, the public facade that reads and
checks the peer's bytes.  Three parts are composed objects that own their state:
the session's :class:`~._hello.Negotiation` (``_hello``: the hellos, their
options and features, the peer's identity and the game id), whose verdicts the
hand play layer acts on, its :class:`~._control.ControlPlane` (``_control``: the
signed messages outside the chain) and its :class:`~._resignations.Resignations`
(``_resignations``: what a resignation at each chain position records, and the one
that ended the game), which the control layer drives.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from truc_p2p.crypto import SigningKey
from truc_p2p.deck import DeckSideV2, Role
from truc_p2p.protocol._chain import Chain
from truc_p2p.protocol._control import ControlPlane
from truc_p2p.protocol._errors import (
    LocalProtocolError,
    ProtocolError,
)
from truc_p2p.protocol._events import (
    AnyEvent,
    GameResult,
    SessionEvent,
)
from truc_p2p.protocol._hello import Negotiation
from truc_p2p.protocol._messages import (
    MessageType,
)
from truc_p2p.protocol._options import SessionOptions
from truc_p2p.protocol._pipeline import Pipeline
from truc_p2p.protocol._resignations import Resignations
from truc_p2p.protocol._state import (
    Cond,
    Stage,
    expected_sender,
    next_stage,
)
from truc_p2p.protocol._values import (
    Series,
    local_seed,
    local_seed_v2,
    local_value,
)
from truc_p2p.protocol._wire import (
    FRAME_HEADER,
    Envelope,
    FrameBuffer,
    decode_envelope,
    envelope_hash,
    frame,
    public_key_bytes,
    sign_envelope,
)
from truc_p2p.protocol.legacy_v1._audit import SeedAudit
from truc_p2p.protocol.legacy_v1._hand import HandState
from truc_p2p.protocol.v2._hand import HandStateV2
from truc_p2p.rules import (
    Event,
    Game,
    Outcome,
    Player,
)

__all__ = ["SessionCore"]


class SessionCore:
    """The session's shared state and the door our messages go out by; see the module
    docstring."""

    def __init__(
        self,
        *,
        identity: SigningKey,
        role: Player,
        secret: bytes,
        options: SessionOptions,
        record: Callable[[bytes], None] | None,
        expected_peer: str | None,
        accept_series: Callable[[Series, str], bool] | None,
    ) -> None:
        if len(secret) != 32:
            raise LocalProtocolError("secret must be 32 bytes of fresh randomness")
        #: the local settings this session was made with
        self.options = options
        self._identity = identity
        self._public = public_key_bytes(identity.public_key())
        self.me = Player(role)
        self._secret = secret
        self._take_options(options)
        self._record = record
        # Envelopes recorded (or, without ``record``, that would be) and their framed bytes.
        self._recorded = [0, 0]
        # What a resignation before each chain position would record, and the one
        # that ended the game.
        self._resignations = Resignations(me=self.me, deck=self.deck)

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
            expected_peer=expected_peer,
            chain=self._chain,
        )
        # The hellos: what ours proposes, the peer's identity, the game id.
        self._hello = Negotiation(
            options=options,
            me=self.me,
            public=self._public,
            secret=secret,
            coin=self._coin,
            expected_peer=expected_peer,
            accept_series=accept_series,
        )

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

    def _take_options(self, options: SessionOptions) -> None:
        """The settings as the attributes callers read (``session.deck``, ...)."""
        self.ruleset = options.ruleset
        self.name = options.name
        self.audit_mode = options.audit
        #: the deck version: "v1" (seed audit) or "v2" (proofs at every message)
        self.deck = options.deck
        #: deck v2 only: deal hand n + 1 while hand n is played (wire.md section 6b)
        self.pipeline = bool(options.pipeline)

    @property
    def outcome(self) -> Outcome | None:
        """The rules outcome once the last action is played (before the audit)."""
        return self._game.outcome() if self._game is not None else None

    def data_to_send(self) -> bytes:
        """Framed bytes of every message queued since the last call."""
        out = b"".join(frame(env) for env in self._outbox)
        self._outbox.clear()
        return out

    def _apply(self, env: Envelope, *, mine: bool) -> None:
        """Act on a message now on the chain (the hand play layer's dispatch)."""
        raise NotImplementedError

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

    def _derive(self, label: bytes) -> bytes:
        return local_value(self._secret, label)

    @property
    def _coin(self) -> bytes:
        return self._derive(b"coin")

    def _seed(self, hand: int) -> bytes:
        return local_seed(self._secret, hand)

    def _fail(self, exc: ProtocolError) -> None:
        self._error = exc
        self.stage = Stage.ERROR
        # Events are queued one envelope at a time, so any still queued came from
        # the rejected envelope (e.g. the cards of a bad deck4): drop them.
        self._events.clear()

    def _emit(self, mtype: str, payload: dict[str, Any]) -> None:
        raw = sign_envelope(
            self._identity,
            game_id=self._hello.game_id,
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

    def _mark(self, mtype: str) -> None:
        """Note, before the next chain position, what a resignation there would record;
        ``mtype`` is the type of the envelope that takes the position."""
        self._resignations.note(mtype, self.stage, self._game, self._hand)

    def _advance(self, holds: dict[Cond, bool] | None = None) -> None:
        self.stage = next_stage(self.stage, holds or {})

    def _expected_sender(self) -> Player:
        return expected_sender(self.stage, self._game, self._hand_ender)
