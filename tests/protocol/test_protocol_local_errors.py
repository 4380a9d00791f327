"""Local errors: the embedding program misuses the session.

Every misuse raises :class:`LocalProtocolError`, sends nothing and leaves the
session exactly as it was, so the program can go on with a correct call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from helpers.protocol import P0, P1, PLAYER, Pair, digest, identity, is_type

from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    LocalProtocolError,
    RemoteProtocolError,
    Session,
    SessionOptions,
    Stage,
    verify_transcript,
)
from truc_p2p.rules import ALL_CARDS, Action, ActionKind, Game, Player, Ruleset


@dataclass
class Snapshot:
    stage: Stage
    game: Game | None
    records: int
    hands: int
    outbox: bytes

    @classmethod
    def of(cls, pair: Pair, p: Player) -> Snapshot:
        session = pair.sessions[p]
        try:
            game: Game | None = session.game
        except LocalProtocolError:
            game = None
        # data_to_send() empties the outbox: put what it held back in flight.
        outbox = session.data_to_send()
        pair.collect(p, outbox)
        return cls(session.stage, game, len(pair.records[p]), session.hands_dealt, outbox)


def refused(pair: Pair, p: Player, action: Any) -> None:
    """``send(action)`` must raise LocalProtocolError and change nothing at all."""
    session = pair.sessions[p]
    before = Snapshot.of(pair, p)
    queued = list(pair.inflight[p])
    with pytest.raises(LocalProtocolError):
        session.send(action)
    assert session.error is None
    assert session.data_to_send() == b""  # nothing was sent
    assert list(pair.inflight[p]) == queued
    after = Snapshot.of(pair, p)
    assert after == before


def finish_and_check(pair: Pair) -> None:
    """After the refused calls the game still ends co-signed and verified."""
    for p in Player:
        pair.bots[p] = PLAYER
        if pair.waiting[p] is not None:
            pair.act(p, PLAYER.choose(pair.sessions[p].game))
    pair.finish()
    r0, r1 = pair.sessions[P0].result, pair.sessions[P1].result
    assert r0 is not None and r0 == r1
    assert verify_transcript(pair.records[P0]).valid


@pytest.mark.parametrize("actor", list(Player), ids=lambda p: f"{p.name}-acts")
def test_acting_when_it_is_the_peers_turn(actor: Player, first_dealer: Player) -> None:
    pair = Pair(
        ruleset=Ruleset(target=1),
        tag="local",
        first_dealer=first_dealer,
        bots={actor.other: None, actor: PLAYER},
    )
    turn = pair.run_to_turn(actor.other)
    # The peer's own legal actions are not ours to play.
    for action in (*turn.legal_actions, Action.FOLD, Action.RAISE):
        refused(pair, actor, action)
    finish_and_check(pair)


@pytest.mark.parametrize("stage", ["before-hello", "deck2", "deck3", "reveal"])
def test_acting_outside_the_play(stage: str) -> None:
    pair = Pair(ruleset=Ruleset(target=1), tag="local", bots={P0: PLAYER, P1: PLAYER})
    if stage != "before-hello":
        pair.run(until=is_type(stage))
    for p in Player:
        for action in (Action.FOLD, Action.RAISE, Action.play(ALL_CARDS[0])):
            refused(pair, p, action)
    finish_and_check(pair)


def test_illegal_actions_at_ones_own_turn(first_dealer: Player) -> None:
    actor = P1
    pair = Pair(
        ruleset=Ruleset(target=1),
        tag="local",
        first_dealer=first_dealer,
        bots={actor: None, actor.other: PLAYER},
    )
    turn = pair.run_to_turn(actor)
    game = pair.sessions[actor].game
    held = set(game.hand(actor) or ())
    not_held = [c for c in ALL_CARDS if c not in held][:3]
    illegal = [Action.play(c) for c in not_held]
    illegal += [Action(k) for k in ActionKind if k is not ActionKind.PLAY]
    illegal = [a for a in illegal if a not in turn.legal_actions]
    assert len(illegal) >= 5
    for action in illegal:
        refused(pair, actor, action)
    for nonsense in ("fold", None, 3, ActionKind.FOLD):
        refused(pair, actor, nonsense)
    finish_and_check(pair)


def test_acting_after_the_end(finished_pair: Pair) -> None:
    for p in Player:
        session = finished_pair.sessions[p]
        assert session.stage is Stage.DONE
        for action in (Action.FOLD, Action.RAISE):
            refused(finished_pair, p, action)
        assert session.next_event() is CLOSED
        session.receive_data(b"")  # nothing is fine
        session.receive_data(b"\x00\x00\x00\x01junk")  # late peer bytes are dropped
        assert session.next_event() is CLOSED
        assert session.abort("quit") == b""
        assert session.stage is Stage.DONE and session.result is not None


def test_acting_after_an_abort() -> None:
    pair = Pair(ruleset=Ruleset(target=1), tag="local", bots={P0: None, P1: PLAYER})
    pair.run_to_turn(P0)
    data = pair.sessions[P0].abort("quit", "x" * 500)
    assert data and pair.sessions[P0].stage is Stage.ABORTED
    assert pair.sessions[P0].next_event() is CLOSED
    refused(pair, P0, Action.FOLD)
    assert pair.sessions[P0].abort("quit") == b""


def test_acting_after_a_remote_error() -> None:
    pair = Pair(ruleset=Ruleset(target=1), tag="local", bots={P0: None, P1: PLAYER})
    turn = pair.run_to_turn(P0)
    session = pair.sessions[P0]
    session.receive_data(b"\xff\xff\xff\xff")
    with pytest.raises(RemoteProtocolError):
        session.next_event()
    with pytest.raises(LocalProtocolError):
        session.send(turn.legal_actions[0])
    assert session.data_to_send() == b""


def test_abort_before_the_handshake_sends_nothing() -> None:
    responder = Session(identity=identity("a"), role=P1, secret=digest("s"))
    assert responder.abort("quit") == b""
    assert responder.stage is Stage.ABORTED and responder.next_event() is CLOSED


def test_the_game_before_it_starts() -> None:
    session = Session(identity=identity("a"), role=P0, secret=digest("s"))
    with pytest.raises(LocalProtocolError):
        _ = session.game
    assert session.outcome is None and session.hands_dealt == 0
    assert session.next_event() is NEED_DATA


@pytest.mark.parametrize(
    "kwargs",
    [
        {"secret": b"short"},
        {"secret": bytes(33)},
        {"audit": "never"},
        {"name": ""},
        {"name": "x" * 41},
        {"name": "tab\there"},
    ],
    ids=["secret-5", "secret-33", "audit-never", "empty-name", "long-name", "unprintable-name"],
)
def test_bad_session_options(kwargs: dict[str, Any]) -> None:
    keys: dict[str, Any] = {"identity": identity("a"), "role": P0, "secret": digest("s")}
    with pytest.raises(LocalProtocolError):
        Session(
            **(keys | {k: v for k, v in kwargs.items() if k in keys}),
            options=SessionOptions(**{k: v for k, v in kwargs.items() if k not in keys}),
        )
