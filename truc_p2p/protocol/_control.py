"""The control plane of a session: the link-level messages outside the chain.

A connection can be lost and resumed, a host can refuse a hello or a
resume, and a finished game ends with each side's ``bye``.  These messages
are signed but not chained (wire.md section 13): they say where the chain
stands, they never extend it.  :class:`ControlPlane` holds their state
(a reconnection in progress, the resume nonces already answered, whether
the peer said ``bye``), builds our ``resume`` and ``bye`` envelopes, checks
the peer's ``resume``, ``refuse`` and ``bye``, and picks which chain
envelopes to resend after a resume.

The session owns one, bound to the game once both hellos are in, and keeps
everything else: framing, the outbox, events and stages.  The control plane
reads the session's :class:`~._chain.Chain` and returns what the session
should queue; its errors tell the session what to do:
:class:`ResumeRefusedError` condemns the connection, any other
:class:`RemoteProtocolError` the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from truc_p2p.crypto import SigningKey, VerifyKey
from truc_p2p.protocol._chain import Chain
from truc_p2p.protocol._errors import (
    BadSignatureError,
    LocalProtocolError,
    MalformedMessageError,
    PeerKeyMismatchError,
    RemoteProtocolError,
    ResumeChainError,
    ResumeRefusedError,
    ResumeSequenceError,
)
from truc_p2p.protocol._events import Refused, Resumed
from truc_p2p.protocol._messages import (
    CONTROL,
    MAX_CLOCK_MS,
    RESUME_CLOCK,
    RESUME_NONCE_SIZE,
    MessageType,
    validate_fields,
)
from truc_p2p.protocol._wire import (
    Envelope,
    decode_envelope,
    fingerprint,
    public_key_bytes,
    sign_envelope,
    verify_signature,
)
from truc_p2p.rules import Player

__all__ = ["ControlPlane", "ResumeClock"]


@dataclass(frozen=True, kw_only=True)
class ResumeClock:
    """Our view of the clock for a ``resume`` (wire.md 13.1, feature bit 4).

    ``left_ms`` is what our turn clock left the player it times (the peer) when it
    stopped at the drop, ``None`` when we time nobody (we are to act, or we restarted
    and have no clock); ``away_ms`` the away time we counted before this drop.  Both
    are whole milliseconds in 0..:data:`MAX_CLOCK_MS` (:class:`LocalProtocolError`
    otherwise): the caller clamps.
    """

    left_ms: int | None = None
    away_ms: int = 0

    def __post_init__(self) -> None:
        for value in (self.left_ms, self.away_ms):
            if value is not None and not (type(value) is int and 0 <= value <= MAX_CLOCK_MS):
                raise LocalProtocolError(f"a resume clock is 0..{MAX_CLOCK_MS} ms, not {value!r}")


class _Reconnecting:
    """A reconnection in progress: our nonce, whether we dialled, our clock."""

    __slots__ = ("clock", "dialer", "nonce")

    def __init__(self, nonce: bytes, dialer: bool, clock: ResumeClock) -> None:
        self.nonce = nonce
        self.dialer = dialer
        self.clock = clock


class ControlPlane:
    """One player's side of ``resume``, ``refuse`` and ``bye``.

    ``chain`` is the session's, only read here.  ``expected_peer`` is the
    pinned fingerprint a refusal must come from, if any.
    """

    def __init__(
        self,
        *,
        identity: SigningKey,
        me: Player,
        expected_peer: str | None,
        chain: Chain,
    ) -> None:
        self._identity = identity
        self._me = me
        self._expected_peer = expected_peer
        self._chain = chain
        self._game_id = b""
        self._peer_key: VerifyKey | None = None
        self._reconnecting: _Reconnecting | None = None
        self._clock = False  # both hellos announce the clock in resume
        self._seen_resume_nonces: set[bytes] = set()
        #: The peer said ``bye``: it holds the whole game, nothing is owed to it.
        self.peer_done = False

    def bind(self, game_id: bytes, peer_key: VerifyKey, *, clock: bool = False) -> None:
        """The game exists (both hellos are in): resumes and byes name it; ``clock``:
        both hellos announce the clock in resume (its fields go in every resume)."""
        self._game_id = game_id
        self._peer_key = peer_key
        self._clock = clock

    @property
    def reconnecting(self) -> bool:
        """True between :meth:`reconnect` and the peer's valid ``resume``."""
        return self._reconnecting is not None

    def _signed(self, mtype: str, payload: dict[str, Any]) -> bytes:
        # Signed, not chained: seq says how many chain envelopes we hold and
        # prev names the last of them, so the peer can check we share its chain.
        return sign_envelope(
            self._identity,
            game_id=self._game_id,
            seq=self._chain.seq,
            prev=self._chain.prev,
            sender=int(self._me),
            type=mtype,
            payload=payload,
        )

    def resume_envelope(
        self, nonce: bytes, *, echo: bytes, clock: ResumeClock | None = None
    ) -> bytes:
        """Our signed ``resume`` (unframed): ``echo`` is the dialer's nonce, or empty.
        With the clock in resume agreed, ``clock`` follows (``left``, ``away``);
        without it the payload is {nonce, echo} exactly, as older builds expect."""
        payload: dict[str, Any] = {"nonce": nonce, "echo": echo}
        if self._clock:
            clock = clock if clock is not None else ResumeClock()
            payload.update(left=clock.left_ms, away=clock.away_ms)
        return self._signed(MessageType.RESUME, payload)

    def farewell(self) -> bytes:
        """Our signed ``bye`` (unframed)."""
        return self._signed(MessageType.BYE, {})

    def reconnect(
        self, nonce: bytes, *, dialer: bool, clock: ResumeClock | None = None
    ) -> bytes | None:
        """Expect the peer's ``resume`` next; returns ours if we dialled, else None.
        ``clock`` is our view of the clock, sent in our resume (or our answer)."""
        if len(nonce) != RESUME_NONCE_SIZE:
            raise LocalProtocolError(f"nonce must be {RESUME_NONCE_SIZE} fresh random bytes")
        clock = clock if clock is not None else ResumeClock()
        self._reconnecting = _Reconnecting(nonce, dialer, clock)
        return self.resume_envelope(nonce, echo=b"", clock=clock) if dialer else None

    def on_resume(self, raw: bytes) -> tuple[Resumed | Refused, list[bytes]]:
        """Check the first message on a new connection; returns its event and the
        envelopes to queue (our answering ``resume``, then the chain envelopes of
        ours the peer lacks).

        Raises :class:`ResumeRefusedError` when the message is not a fresh,
        valid ``resume`` (nor, for the dialer, a valid refusal; nor a dialer's
        resume that may be stale), and :class:`ResumeChainError` or
        :class:`ResumeSequenceError` when a valid one claims a chain that
        contradicts ours: signed lies that condemn the game (``abort`` ``cheat``).
        """
        state = self._reconnecting
        assert state is not None and self._peer_key is not None
        try:
            env = decode_envelope(raw)
        except RemoteProtocolError as exc:
            raise _refuse(raw, f"first message does not decode: {exc.args[0]}") from None
        if env.type == MessageType.REFUSE and state.dialer:
            try:
                return self.on_refuse(env), []
            except RemoteProtocolError as exc:
                raise _refuse(raw, f"bad refusal: {exc.args[0]}") from None
        if env.type != MessageType.RESUME:
            raise _refuse(raw, f"{env.type!r} where a resume is due")
        if env.sender != int(self._me.other) or env.game_id != self._game_id:
            raise _refuse(raw, "resume for another game or seat")
        try:
            verify_signature(env, self._peer_key)
        except BadSignatureError:
            raise _refuse(raw, "resume not signed by the opponent's key") from None
        # With the clock in resume agreed its fields are due (a value out of range is
        # malformed); without it the payload is {nonce, echo} exactly (wire.md 13.1).
        fields = RESUME_CLOCK if self._clock else CONTROL[MessageType.RESUME]
        problems = validate_fields(env.payload, fields, "resume")
        if problems:
            raise _refuse(raw, "; ".join(problems))
        nonce, echo = env.payload["nonce"], env.payload["echo"]
        if state.dialer and echo != state.nonce:
            raise _refuse(raw, "the answer does not echo our nonce (a replayed resume?)")
        if not state.dialer and (echo or nonce in self._seen_resume_nonces):
            raise _refuse(raw, "a replayed resume")
        # Fresh and signed by the opponent: from here its claims bind it.
        chain, mine = self._chain, int(self._me)
        have, held = env.seq, chain.seq
        if have <= held:
            if env.prev != chain.hash_before(have):
                raise ResumeChainError(
                    f"the peer's resume names another message {have - 1} than ours",
                    evidence=(raw,),
                )
            lost = [p for p in range(have, held) if chain.sender(p) != mine]
            if lost and not state.dialer:
                # A dialer's resume echoes nothing of ours: it may be an old one that
                # waited in a queue or on the path while its sender redialled and
                # played on (signatures carry no time).  It proves nothing: the
                # connection is refused, never the game (wire.md section 13.8).
                raise _refuse(raw, f"a stale resume: it lacks message {lost[0]} of its sender")
            if lost:
                # The answer to our fresh nonce: signed after it saw our resume, when
                # its sender held every message it had signed.  A signed lie.
                raise ResumeSequenceError(
                    f"the peer says it lacks its own signed message {lost[0]}",
                    evidence=(raw,),
                )
        self._reconnecting = None
        out = []
        if not state.dialer:
            self._seen_resume_nonces.add(nonce)
            out.append(self.resume_envelope(state.nonce, echo=nonce, clock=state.clock))
        resend = [chain.raw(p) for p in range(have, held) if chain.sender(p) == mine]
        out.extend(resend)
        resumed = Resumed(
            peer_has=have,
            we_have=held,
            resent=len(resend),
            peer_left=env.payload.get("left"),
            peer_away=env.payload.get("away"),
        )
        return resumed, out

    def on_refuse(self, env: Envelope) -> Refused:
        """The host's signed refusal of our hello or our resume."""
        evidence, n = (env.raw,), env.seq
        problems = validate_fields(env.payload, CONTROL[MessageType.REFUSE], "refuse")
        if problems or env.sender != 1 or self._me is not Player.P0:
            raise MalformedMessageError(
                "; ".join(problems) or "refuse from the wrong seat", evidence=evidence
            )
        key_bytes = env.payload["key"]
        try:
            key = VerifyKey.from_bytes(key_bytes)
        except ValueError:
            raise MalformedMessageError("refuse key is not an Ed25519 key") from None
        verify_signature(env, key)
        pinned = self._expected_peer
        if self._peer_key is not None and key_bytes != public_key_bytes(self._peer_key):
            raise PeerKeyMismatchError("refused by another key than the opponent's", message_no=n)
        if pinned is not None and fingerprint(key_bytes) != pinned:
            raise PeerKeyMismatchError(
                f"refused by key {fingerprint(key_bytes)}, not the expected {pinned}",
                message_no=n,
            )
        return Refused(reason=env.payload["reason"], detail=env.payload["detail"])

    def on_bye(self, raw: bytes) -> None:
        """After the result: the peer's valid ``bye`` sets :attr:`peer_done`;
        anything else is ignored."""
        try:
            env = decode_envelope(raw)
            if env.type != MessageType.BYE or env.sender != int(self._me.other):
                return
            assert self._peer_key is not None
            verify_signature(env, self._peer_key)
        except RemoteProtocolError:
            return
        if env.game_id == self._game_id:
            self.peer_done = True


def _refuse(raw: bytes, why: str) -> ResumeRefusedError:
    return ResumeRefusedError(why, evidence=(raw,))
