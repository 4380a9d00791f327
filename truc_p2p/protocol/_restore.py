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
from truc_p2p.protocol._hello import announced_by
from truc_p2p.protocol._judge import check_not_ended
from truc_p2p.protocol._messages import MessageType
from truc_p2p.protocol._options import SessionOptions
from truc_p2p.protocol._state import ACTION_STAGES
from truc_p2p.protocol._values import (
    Series,
    nonce_features,
    parse_options,
    series_of,
)
from truc_p2p.protocol._wire import decode_envelope, frame
from truc_p2p.rules import Action, ActionKind, Card, Event, Player

if TYPE_CHECKING:
    from truc_p2p.protocol._chain import Chain
    from truc_p2p.protocol._link import Link
    from truc_p2p.protocol._play import HandPlay
    from truc_p2p.protocol._session import Session

__all__ = ["Restoring", "deck_settings", "own_features", "own_series", "replay"]


def deck_settings(
    envelopes: Sequence[bytes],
    me: Player,
    deck: str | None,
    pipeline: bool | None,
    early: bool | None = None,
) -> tuple[str, bool | None, bool | None]:
    """(deck, pipeline, early) to restore with: those given, else what our hello named
    (for early cards the hello names what we proposed, or as responder what was agreed,
    so the replayed hello is the same either way)."""
    own = _options_of_own_hello(envelopes, me)
    if deck is None:
        deck = own[1] if own is not None else "v2"
    if own is not None and own[1] == deck:
        if pipeline is None:
            pipeline = own[2]
        if early is None:
            early = own[3]
    return deck, pipeline, early


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
    the game ended (a second ending: :func:`~._judge.check_not_ended`, as the
    verifier judges it).  The events the replay produced are returned, in
    order (every one but the turns already taken);
    only the :class:`YourTurn` that is due stays pending.  Own automatic
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
                check_not_ended(session.stage, session.ending, env)
            except RemoteProtocolError as exc:
                exc.message_no = n
                raise
        if sender == session.me:
            if cursor >= len(sent):
                play.make_owed_predeal()  # an owed pre-deal comes first
            if cursor >= len(sent) and _is_early_d3(raw):
                play.make_early_d3()  # made while the player thought (wire.md 6a)
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


def own_features(envelopes: Sequence[bytes], me: Player) -> int:
    """The features this player's hello in ``envelopes`` announces (wire.md section 8.1);
    a new game (no hello recorded yet) announces what new sessions do by default
    (resignation, the rest-final rule and early redeal cards)."""
    for raw in envelopes[:2]:
        env = decode_envelope(raw)
        if env.type == MessageType.HELLO and env.sender == int(me):
            nonce = env.payload.get("nonce")
            return nonce_features(nonce) if isinstance(nonce, bytes) else 0
    return announced_by(SessionOptions())


def _is_early_d3(raw: bytes) -> bool:
    """Whether ``raw`` is a ``v2deck3`` without ``action`` (early cards, wire.md 6a)."""
    env = decode_envelope(raw)
    return env.type == MessageType.V2DECK3 and "action" not in env.payload


def _options_of_own_hello(
    envelopes: Sequence[bytes], me: Player
) -> tuple[str, str, bool, bool] | None:
    """(audit, deck, pipeline, early) this player's hello in ``envelopes`` names, if any."""
    for raw in envelopes[:2]:
        env = decode_envelope(raw)
        if env.type == MessageType.HELLO and env.sender == int(me):
            options = env.payload.get("options")
            return parse_options(options) if isinstance(options, dict) else None
    return None


def own_series(envelopes: Sequence[bytes], me: Player) -> Series | None:
    """The linked games (wire.md section 4.1) this player's hello in ``envelopes`` names."""
    for raw in envelopes[:2]:
        env = decode_envelope(raw)
        if env.type == MessageType.HELLO and env.sender == int(me):
            options = env.payload.get("options")
            return series_of(options) if isinstance(options, dict) else None
    return None
