"""Shared helpers for the protocol tests: a stepping in-memory pair, forgers, checks.

:class:`Pair` is the h11 ``ConnectionPair`` of this suite: two real sessions
(real keys, real signatures) whose envelopes sit in explicit in-flight queues,
so a test can stop the game just before any envelope is delivered, replace it
with a forged one and watch the receiver react.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack
import pytest

from truc_p2p.bots import Bot, make_bot
from truc_p2p.crypto import SigningKey
from truc_p2p.deck import Role
from truc_p2p.deck.legacy_v1 import _group as group
from truc_p2p.deck.legacy_v1._secrets import Secrets, derive_secrets
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    AnyEvent,
    FrameBuffer,
    GameStarted,
    LocalProtocolError,
    RemoteProtocolError,
    Session,
    SessionOptions,
    Stage,
    VerifyReport,
    YourTurn,
    decode_envelope,
    frame,
    verify_transcript,
)
from truc_p2p.protocol._wire import PROTOCOL_VERSION, envelope_hash, sign_envelope
from truc_p2p.rules import Action, ActionKind, Game, Player, Ruleset

P0, P1 = Player.P0, Player.P1

#: Envelope predicate: (sender, raw envelope) -> stop before delivering it?
Stop = Callable[[Player, bytes], bool]


def digest(tag: str) -> bytes:
    return hashlib.sha256(b"truc-p2p protocol tests/" + tag.encode()).digest()


def identity(tag: str) -> SigningKey:
    """A fixed Ed25519 identity named by ``tag``."""
    return SigningKey.from_bytes(digest("key/" + tag))


class ScriptedBot:
    """Plays the first legal action whose kind comes first in ``prefer``.

    Among plays it picks the card with the lowest index; if no preferred kind is
    legal it takes the first legal action.  Fully deterministic.
    """

    name = "scripted"

    def __init__(self, *prefer: ActionKind) -> None:
        self.prefer = prefer

    def choose(self, game: Game) -> Action:
        legal = list(game.legal_actions())
        assert legal, "scripted bot asked to act out of turn"
        for kind in self.prefer:
            options = [a for a in legal if a.kind is kind]
            if options:
                return min(options, key=lambda a: a.card.index if a.card else -1)
        return legal[0]


#: Plays cards whenever it can: hands are only ended by the last card of a trick.
PLAYER = ScriptedBot(ActionKind.PLAY, ActionKind.ACCEPT, ActionKind.DECLINE_REDEAL)
#: Folds at its first turn of every round.
FOLDER = ScriptedBot(ActionKind.FOLD)
#: Asks for and accepts every redeal, then plays.
REDEALER = ScriptedBot(
    ActionKind.ASK_REDEAL, ActionKind.ACCEPT_REDEAL, ActionKind.PLAY, ActionKind.ACCEPT
)


def bot(name: str, seed: int) -> Bot:
    if name == "player":
        return PLAYER
    if name == "folder":
        return FOLDER
    if name == "redealer":
        return REDEALER
    return make_bot(name, seed)


@functools.cache
def secrets_for(tag: str, first_dealer: Player | None = None) -> tuple[bytes, bytes]:
    """Two session secrets named by ``tag`` whose coin flip makes ``first_dealer`` deal.

    The coin flip is run through the public API: a handshake of two throwaway
    sessions, read from their ``GameStarted`` event.
    """
    for attempt in range(64):
        secrets = (digest(f"secret/{tag}/{attempt}/0"), digest(f"secret/{tag}/{attempt}/1"))
        if first_dealer is None:
            return secrets
        probe = Pair(secrets=secrets, bots={P0: None, P1: None}, tag="coin-probe")

        def dealt(_s: object, _e: object, pr: Pair = probe) -> bool:
            return any(pr.started(p) for p in Player)

        probe.run(until=dealt)
        started = probe.started(P0) or probe.started(P1)
        assert started is not None
        if started.first_dealer is first_dealer:
            return secrets
    raise AssertionError("no secrets found for that first dealer")  # pragma: no cover


@dataclass
class Pair:
    """Two sessions back to back, with the envelopes in flight kept in queues.

    ``bots[p]`` answers ``YourTurn`` for ``p``; ``None`` leaves the turn
    pending (the test acts itself).  ``records[p]`` is p's transcript.
    """

    ruleset: Ruleset | None = None
    audit: str = "game"
    bots: dict[Player, Bot | None] = field(default_factory=dict)
    tag: str = "pair"
    first_dealer: Player | None = None
    secrets: tuple[bytes, bytes] | None = None
    rulesets: tuple[Ruleset | None, Ruleset | None] | None = None
    audits: tuple[str, str] | None = None
    names: tuple[str, str] = ("alice", "bob")
    #: deck version of both sessions (the v1 suites predate v2 and pin "v1")
    deck: str = "v1"
    decks: tuple[str, str] | None = None
    #: pipelined deal (deck v2); None: the session's default
    pipeline: bool | None = None
    pipelines: tuple[bool | None, bool | None] | None = None
    #: whether each session announces resignation (False: a peer of the older spec)
    resigns: tuple[bool, bool] = (True, True)
    #: whether each session announces early redeal cards (None: as ``resigns``)
    early_redeals: tuple[bool, bool] | None = None
    #: early cards (deck v2, wire.md 6a); None: the session's default
    early: bool | None = None
    earlies: tuple[bool | None, bool | None] | None = None
    #: players that *think*: handed a turn, they call ``work()`` and send what it
    #: made before their bot answers (as the trio game loop does)
    think: frozenset[Player] = frozenset()

    def __post_init__(self) -> None:
        self.keys = {P0: identity(self.tag + "/0"), P1: identity(self.tag + "/1")}
        if self.secrets is None:
            self.secrets = secrets_for(self.tag, self.first_dealer)
        rulesets = self.rulesets or (self.ruleset, self.ruleset)
        audits = self.audits or (self.audit, self.audit)
        decks = self.decks or (self.deck, self.deck)
        pipelines = self.pipelines or (self.pipeline, self.pipeline)
        earlies = self.earlies or (self.early, self.early)
        self.records: dict[Player, list[bytes]] = {P0: [], P1: []}
        self.sessions = {
            p: Session(
                identity=self.keys[p],
                role=p,
                secret=self.secrets[p],
                record=self.records[p].append,
                # a peer of the older spec announces neither
                options=SessionOptions(
                    ruleset=rulesets[p] or Ruleset(),
                    name=self.names[p],
                    audit=audits[p],
                    deck=decks[p],
                    pipeline=pipelines[p] if decks[p] == "v2" else None,
                    resign=self.resigns[p],
                    rest_final=self.resigns[p],
                    early_redeal=(self.early_redeals or self.resigns)[p],
                    early=earlies[p] if decks[p] == "v2" else None,
                ),
            )
            for p in Player
        }
        for p in Player:
            self.bots.setdefault(p, make_bot("random", 0))
        self.inflight: dict[Player, deque[bytes]] = {P0: deque(), P1: deque()}
        self.events: dict[Player, list[AnyEvent]] = {P0: [], P1: []}
        self.waiting: dict[Player, YourTurn | None] = {P0: None, P1: None}
        self.closed: set[Player] = set()
        self.collect(P0)

    # -- plumbing -------------------------------------------------------------------

    def collect(self, p: Player, data: bytes | None = None) -> list[bytes]:
        """Queue the envelopes in ``data`` (default: p's ``data_to_send()``) as sent by p."""
        if data is None:
            data = self.sessions[p].data_to_send()
        envelopes = split(data)
        self.inflight[p].extend(envelopes)
        return envelopes

    def pull(self, p: Player) -> bool:
        """Drain p's events, letting its bot answer its turns; True if anything happened."""
        session = self.sessions[p]
        progressed = False
        while True:
            event = session.next_event()
            self.collect(p)
            if event is NEED_DATA:
                return progressed
            if event is CLOSED:
                if p not in self.closed:
                    self.closed.add(p)
                    progressed = True
                return progressed
            progressed = True
            self.events[p].append(event)
            if isinstance(event, YourTurn):
                if p in self.think:
                    session.work()
                    self.collect(p)
                player = self.bots[p]
                if player is None:
                    self.waiting[p] = event
                    continue
                self.act(p, player.choose(session.game))

    def act(self, p: Player, action: Action) -> list[bytes]:
        """``send`` for p and queue what it returns."""
        self.waiting[p] = None
        return self.collect(p, self.sessions[p].send(action))

    def peek(self) -> tuple[Player, bytes] | None:
        for p in Player:
            if self.inflight[p]:
                return p, self.inflight[p][0]
        return None

    def deliver(self, p: Player, replacement: bytes | None = None) -> bytes:
        """Deliver p's next in-flight envelope to the peer (or ``replacement`` instead)."""
        original = self.inflight[p].popleft()
        raw = original if replacement is None else replacement
        self.sessions[p.other].receive_data(frame(raw))
        return raw

    def inject(self, sender: Player, raw: bytes) -> bytes:
        """Deliver an extra envelope from ``sender`` (nothing is taken off its queue)."""
        self.sessions[sender.other].receive_data(frame(raw))
        return raw

    def run(
        self,
        until: Stop | None = None,
        *,
        when: Callable[[], bool] | None = None,
        max_steps: int = 100_000,
    ) -> tuple[Player, bytes]:
        """Pump until ``until`` holds for the next envelope (left undelivered and returned),
        or until ``when()`` holds between two deliveries, or (neither given) until both
        sessions are closed."""
        for _ in range(max_steps):
            progressed = self.pull(P0)
            progressed = self.pull(P1) or progressed
            if when is not None and when():
                return self.peek() or (P0, b"")
            nxt = self.peek()
            if nxt is None:
                if len(self.closed) == 2 and until is None and when is None:
                    return P0, b""
                if not progressed:
                    raise AssertionError("the pair is stuck or over before the stop point")
                continue
            if until is not None and until(*nxt):
                return nxt
            self.deliver(nxt[0])
        raise AssertionError("the pair did not finish")  # pragma: no cover

    def finish(self) -> None:
        self.run()

    def run_to_turn(self, p: Player) -> YourTurn:
        """Pump until p (whose bot must be ``None``) has a turn pending."""
        assert self.bots[p] is None
        self.run(when=lambda: self.waiting[p] is not None)
        turn = self.waiting[p]
        assert turn is not None
        return turn

    # -- queries --------------------------------------------------------------------

    def started(self, p: Player) -> GameStarted | None:
        return next((e for e in self.events[p] if isinstance(e, GameStarted)), None)

    def forge_next(
        self, sender: Player, mtype: str, payload: dict[str, Any], **changes: Any
    ) -> bytes:
        """A correctly chained envelope from ``sender`` as the peer's next message."""
        receiver = self.records[sender.other]
        fields: dict[str, Any] = {
            "game_id": self.sessions[sender.other].game_id,
            "seq": len(receiver),
            "prev": envelope_hash(receiver[-1]),
            "sender": int(sender),
            "type": mtype,
            "payload": payload,
        }
        fields.update(changes)
        return sign_envelope(self.keys[sender], **fields)


def split(data: bytes) -> list[bytes]:
    buf = FrameBuffer()
    buf.feed(data)
    out = []
    while (env := buf.next_envelope()) is not None:
        out.append(env)
    assert buf.pending == 0
    return out


def is_type(mtype: str, sender: Player | None = None) -> Stop:
    return lambda s, raw: (sender is None or s is sender) and decode_envelope(raw).type == mtype


def is_action(sender: Player, act: str | None = None, *, nth: int = 1) -> Stop:
    """The ``nth`` action of ``sender`` (an ``action``/``v2action`` or the action inside
    ``deck4``/``v2deck3``)."""
    seen = [0]

    def stop(s: Player, raw: bytes) -> bool:
        if s is not sender:
            return False
        env = decode_envelope(raw)
        bundled = env.type in ("deck4", "v2deck3")
        payload: Any = env.payload.get("action") if bundled else env.payload
        kinds = ("action", "deck4", "v2action", "v2deck3")
        if env.type not in kinds or (act is not None and payload["act"] != act):
            return False
        seen[0] += 1
        return seen[0] == nth

    return stop


def resign(key: SigningKey, raw: bytes, **changes: Any) -> bytes:
    """``raw`` with some body fields changed, signed again with ``key``."""
    env = decode_envelope(raw)
    fields: dict[str, Any] = {
        "game_id": env.game_id,
        "seq": env.seq,
        "prev": env.prev,
        "sender": env.sender,
        "type": env.type,
        "payload": env.payload,
    }
    fields.update(changes)
    return sign_envelope(key, **fields)


def body_fields(raw: bytes) -> list[Any]:
    """The seven body fields of an envelope, as a list."""
    env = decode_envelope(raw)
    return [env.version, env.game_id, env.seq, env.prev, env.sender, env.type, env.payload]


def sign_body(key: SigningKey, body: bytes) -> bytes:
    """Any body bytes followed by a valid signature over them."""
    return body + key.sign(body)


def pack_body(fields: Sequence[Any]) -> bytes:
    packed: bytes = msgpack.packb(list(fields), use_bin_type=True)
    return packed


def with_payload(raw: bytes, key: SigningKey, edit: Callable[[dict[str, Any]], Any]) -> bytes:
    """``raw`` re-signed after ``edit`` changed (a copy of) its payload in place."""
    payload = decode_envelope(raw).payload
    edit(payload)
    return resign(key, raw, payload=payload)


def drain(session: Session) -> list[AnyEvent]:
    """``next_event`` until NEED_DATA or CLOSED (remote errors propagate)."""
    events: list[AnyEvent] = []
    while (event := session.next_event()) not in (NEED_DATA, CLOSED):
        events.append(event)
    return events


@dataclass
class Caught:
    error: RemoteProtocolError
    report: VerifyReport
    index: int  # position of the offending envelope in the receiver's transcript
    #: the verifier's report with the victim's session secret (its own view)
    local_report: VerifyReport | None = None


def deliver_and_expect(
    pair: Pair, sender: Player, forged: bytes, cls: type[RemoteProtocolError]
) -> Caught:
    """Deliver ``forged`` in place of ``sender``'s next envelope; see :func:`expect_remote`."""
    pair.deliver(sender, forged)
    return expect_remote(pair, sender.other, cls, offending=forged)


def expect_remote(
    pair: Pair,
    victim: Player,
    cls: type[RemoteProtocolError],
    *,
    offending: bytes | None = None,
    recorded: bool = True,
) -> Caught:
    """The victim must raise exactly ``cls`` from ``next_event`` and be dead afterwards.

    The offending envelope (``offending``, else the victim's last record) is the
    last envelope of the victim's transcript, is named by ``message_no`` and is
    part of the evidence.  The victim's transcript must not verify.
    """
    session = pair.sessions[victim]
    records = pair.records[victim]
    with pytest.raises(RemoteProtocolError) as info:
        drain(session)
    exc = info.value
    assert type(exc) is cls, f"expected {cls.__name__}, got {type(exc).__name__}: {exc}"
    assert exc.code == cls.code
    if recorded:
        if offending is not None:
            assert records[-1] == offending
        assert exc.evidence and exc.evidence[0] == records[-1]
        assert exc.message_no == len(records) - 1
    assert_dead(session, exc)
    report = verify_transcript(records)
    assert not report.valid
    assert report.error is not None and report.error_code is not None
    assert report.audit != "passed"
    local = None
    if pair.secrets is not None:
        local = verify_transcript(records, local_secret=pair.secrets[victim])
        assert not local.valid and local.audit != "passed"
    return Caught(exc, report, len(records) - 1, local)


def assert_dead(session: Session, exc: RemoteProtocolError) -> None:
    """After a remote error: ERROR stage, the same error again, no way to act."""
    assert session.stage is Stage.ERROR
    assert session.error is exc
    assert session.finished
    assert session.result is None
    with pytest.raises(type(exc)) as again:
        session.next_event()
    assert again.value is exc
    for action in (Action.FOLD, Action.RAISE, Action.ACCEPT):
        with pytest.raises(LocalProtocolError):
            session.send(action)
    assert session.data_to_send() == b""


def transcript_types(records: Iterable[bytes]) -> list[str]:
    return [decode_envelope(r).type for r in records]


def index_of(records: Sequence[bytes], mtype: str, nth: int = 1) -> int:
    """Transcript position of the ``nth`` envelope of type ``mtype``."""
    hits = [i for i, t in enumerate(transcript_types(records)) if t == mtype]
    return hits[nth - 1]


# -- the deck secrets a session derives (wire.md section 9, deck.md) ----------------------

N = group.ORDER


def local_seed(secret: bytes, hand: int) -> bytes:
    """The deck seed of ``hand`` that a session derives from its 32-byte secret."""
    label = b"truc-p2p/v1/local/seed" + hand.to_bytes(4, "big")
    return hmac.new(secret, label, hashlib.sha256).digest()


def deck_secrets(pair: Pair, p: Player, role: Role, hand: int = 0) -> Secrets:
    """p's keys and permutation for ``hand``, where p plays ``role``."""
    assert pair.secrets is not None
    seed = local_seed(pair.secrets[p], hand)
    return derive_secrets(seed, game_id=pair.sessions[p].game_id, hand=hand, role=role)


def scalar(k: int) -> bytes:
    return (k % N).to_bytes(32, "big")


def mul(k: int, x: bytes) -> bytes:
    """x(k * lift(x)) on P-256."""
    return group.mul(k % N, group.decode(x))


def not_a_point() -> bytes:
    """An x-coordinate with no P-256 point."""
    for i in range(1000):
        x = digest(f"not a point {i}")
        try:
            group.decode(x)
        except ValueError:
            return x
    raise AssertionError("unreachable")  # pragma: no cover


__all__ = [
    "FOLDER",
    "P0",
    "P1",
    "PLAYER",
    "PROTOCOL_VERSION",
    "REDEALER",
    "Caught",
    "N",
    "Pair",
    "ScriptedBot",
    "assert_dead",
    "body_fields",
    "bot",
    "deck_secrets",
    "deliver_and_expect",
    "digest",
    "drain",
    "expect_remote",
    "identity",
    "index_of",
    "is_action",
    "is_type",
    "local_seed",
    "mul",
    "not_a_point",
    "pack_body",
    "resign",
    "scalar",
    "secrets_for",
    "sign_body",
    "split",
    "transcript_types",
    "with_payload",
]
