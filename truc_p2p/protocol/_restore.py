"""Crash restore: rebuild a session from its secret and its transcript.

Everything a session signs is a function of its secret and the chain, so a
fresh session fed the transcript again regenerates its own messages byte
for byte (wire.md sections 9 and 13.3).  :func:`replay` drives it as its caller did:
the peer's envelopes go through ``receive_data`` / ``next_event``, our
decisions are replayed with ``send`` / ``abort``, and every own envelope
the session makes (automatic or decided) is checked against the
transcript.  :meth:`Session.restore` builds the session and calls it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from truc_p2p.protocol._errors import LocalProtocolError, RemoteProtocolError
from truc_p2p.protocol._events import CLOSED, NEED_DATA, AnyEvent, SessionEvent, YourTurn
from truc_p2p.protocol._hello import FEATURES
from truc_p2p.protocol._messages import MessageType
from truc_p2p.protocol._options import SessionOptions
from truc_p2p.protocol._state import ACTION_STAGES
from truc_p2p.protocol._values import (
    nonce_features,
    parse_options,
    series_of,
)
from truc_p2p.protocol._wire import decode_envelope, frame
from truc_p2p.rules import Action, ActionKind, Card, Event, Player, Ruleset

if TYPE_CHECKING:
    from truc_p2p.protocol._chain import Chain
    from truc_p2p.protocol._link import Link
    from truc_p2p.protocol._play import HandPlay
    from truc_p2p.protocol._session import Session

__all__ = ["Restoring", "own_options", "replay"]


@dataclass(frozen=True)
class Restoring:
    """The parts of a new session a restore drives besides its public API: the table
    (the owed messages, the game), the link (what the replay made, the record), the
    chain and the session's event queue."""

    play: HandPlay
    link: Link
    chain: Chain
    events: deque[AnyEvent]


def replay(
    session: Session,
    parts: Restoring,
    envelopes: Sequence[bytes],
    record: Callable[[bytes], None] | None,
) -> list[SessionEvent | Event]:
    """Replay ``envelopes`` into a new ``session``, then attach ``record``; returns the
    events the replay produced, for :meth:`Session.take_history`.

    Raises :class:`LocalProtocolError` when an own envelope differs from
    what the session makes, and ``unexpected-message`` for any envelope after
    the game ended (a second ending, judged by the session's referee as by the
    verifier's: :meth:`~._referee_core.RefereeCore.check_not_ended`).  The events
    the replay produced are returned, in order (every one but the turns already
    taken); only the :class:`YourTurn` that is due stays pending.  Own automatic
    messages made past the transcript's end are recorded, not sent:
    :meth:`Session.reconnect` sends them.
    """
    play, link = parts.play, parts.link
    sent = link.sent_log = list(link.outbox)
    history: list[SessionEvent | Event] = []
    cursor = 0
    for n, raw in enumerate(envelopes):
        env = decode_envelope(raw, message_no=n)
        sender = env.sender
        if sender != session.me or cursor >= len(sent):  # not one the replay made already
            try:  # one ending per game (wire.md 8): a transcript that goes on is refused
                play.referee.check_not_ended(env)
            except RemoteProtocolError as exc:
                exc.message_no = n
                raise
        if sender == session.me:
            if cursor >= len(sent):
                play.make_owed_predeal()  # an owed pre-deal comes first
            if cursor >= len(sent) and _is_early_d3(raw):
                play.deal_v2.make_early_d3()  # made while the player thought (wire.md 6a)
            if cursor >= len(sent):
                _replay_own_decision(session, play, raw)
            produced = sent[cursor]
            cursor += 1
            if produced != raw:
                raise LocalProtocolError(
                    f"transcript message {parts.chain.seq - 1} differs from what this "
                    "identity and secret produce"
                )
        else:
            session.receive_data(frame(raw))
            while (event := session.next_event()) not in (NEED_DATA, CLOSED):
                if isinstance(event, SessionEvent | Event) and not isinstance(event, YourTurn):
                    history.append(event)
    # Automatic messages the replay produced after the transcript's end (the
    # process died between recording the peer's message and its answer) were
    # never recorded: record them now, before anything can send them.
    unrecorded = sent[cursor:]
    link.sent_log = None
    link.outbox.clear()
    # our last decisions' events (no peer envelope came after them to drain them)
    events = parts.events
    history += (
        e for e in events if isinstance(e, SessionEvent | Event) and not isinstance(e, YourTurn)
    )
    events.clear()
    game = play.game
    if game is not None and game.to_act == session.me:
        events.append(YourTurn(legal_actions=tuple(game.legal_actions())))
    link.record = record
    if record is not None:
        for raw in unrecorded:
            record(raw)
    return history


def _replay_own_decision(session: Session, play: HandPlay, raw: bytes) -> None:
    """Make again the decision (an action or an abort) that produced ``raw``."""
    env = decode_envelope(raw)
    bundled = env.type in (MessageType.DECK4, MessageType.V2DECK3)
    payload = env.payload.get("action") if bundled else env.payload
    if env.type == MessageType.ABORT:
        session.abort(env.payload.get("reason", "quit"), env.payload.get("detail", ""))
        return
    if not isinstance(payload, dict) or env.type not in ACTION_STAGES.values():
        raise LocalProtocolError(f"transcript message {env.seq} is not ours to make now")
    kind = ActionKind(payload["act"])
    if kind is ActionKind.PLAY:
        game = play.game
        assert game is not None
        index = play.cur.my_cards(game.redealt)[payload["pos"]]
        action = Action.play(Card.from_index(index))
    else:
        action = Action(kind)
    session.send(action)


def _is_early_d3(raw: bytes) -> bool:
    """Whether ``raw`` is a ``v2deck3`` without ``action`` (early cards, wire.md 6a)."""
    env = decode_envelope(raw)
    return env.type == MessageType.V2DECK3 and "action" not in env.payload


def own_options(envelopes: Sequence[bytes], role: Player) -> SessionOptions | None:
    """The :class:`SessionOptions` this player's hello in ``envelopes`` was made with
    (its name, ruleset, options and features), ``None`` before it is recorded.

    For early cards the hello names what we proposed, or as responder what was
    agreed: the replayed hello is the same either way."""
    for raw in envelopes[:2]:
        env = decode_envelope(raw)
        if env.type != MessageType.HELLO or env.sender != int(role):
            continue
        p = env.payload
        options = p.get("options")
        nonce = p.get("nonce")
        parsed = parse_options(options) if isinstance(options, dict) else None
        series = series_of(options) if isinstance(options, dict) else None
        if parsed is None or series is None or not isinstance(nonce, bytes):
            raise LocalProtocolError(f"message {env.seq}: our own hello is malformed")
        try:
            ruleset = Ruleset.from_dict(p.get("ruleset"))
        except ValueError as exc:
            raise LocalProtocolError(f"our own hello's ruleset: {exc}") from None
        audit, deck, pipeline, early = parsed
        features = nonce_features(nonce)
        announced = {row.option: features & row.bit != 0 for row in FEATURES}
        return SessionOptions(
            ruleset=ruleset,
            name=str(p.get("name")),
            audit=audit,
            deck=deck,
            pipeline=pipeline,
            early=early,
            series=series,
            **announced,
        )
    return None
