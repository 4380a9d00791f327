"""Two sessions wired back to back in memory (real crypto, real signatures).

Used by ``truc-p2p demo --in-memory``, the tests and the benchmarks: the
shape of h11's ``ConnectionPair`` test helper, as a public utility.
"""

from __future__ import annotations

import secrets as _secrets
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from truc_p2p.bots import Bot
from truc_p2p.crypto import SigningKey
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    AnyEvent,
    GameResult,
    Session,
    SessionOptions,
    YourTurn,
)
from truc_p2p.rules import Player

__all__ = ["PairResult", "SessionOptions", "make_pair", "run_pair"]

#: Called with (player, event) for every event either session produces.
EventHook = Callable[[Player, AnyEvent], None]


@dataclass
class PairResult:
    """Both sides' view of a finished in-memory game."""

    results: dict[Player, GameResult | None]
    sessions: dict[Player, Session]
    messages: int = 0
    nbytes: int = 0
    transcripts: dict[Player, list[bytes]] = field(default_factory=dict)


def make_pair(
    options: SessionOptions = SessionOptions(),
    *,
    names: tuple[str, str] = ("alice", "bob"),
    identities: tuple[SigningKey, SigningKey] | None = None,
    secrets: tuple[bytes, bytes] | None = None,
    records: tuple[Callable[[bytes], None] | None, Callable[[bytes], None] | None] = (None, None),
) -> dict[Player, Session]:
    """Two fresh sessions (initiator P0 and responder P1) with the same settings
    ``options`` (the game: ruleset, deck, audit, ...), each under its own name of
    ``names``; ``identities``, ``secrets`` and ``records`` give each its own (fresh
    keys and secrets by default)::

        sessions = make_pair(SessionOptions(deck="v1", ruleset=Ruleset(target=6)))
    """
    keys = identities or (SigningKey.generate(), SigningKey.generate())
    seeds = secrets or (_secrets.token_bytes(32), _secrets.token_bytes(32))
    return {
        p: Session(
            identity=keys[p],
            role=p,
            secret=seeds[p],
            record=records[p],
            options=replace(options, name=names[p]),
        )
        for p in (Player.P0, Player.P1)
    }


def run_pair(
    sessions: dict[Player, Session],
    bots: dict[Player, Bot],
    *,
    on_event: EventHook | None = None,
    max_steps: int = 1_000_000,
) -> PairResult:
    """Pump messages between two sessions until both are closed.

    Each bot chooses from its own session's view of the game.  Remote errors
    propagate to the caller (the pair holds two honest sessions, so any error
    is a bug).
    """
    result = PairResult(results={}, sessions=sessions)
    closed: set[Player] = set()
    for _ in range(max_steps):
        progressed = False
        for me in (Player.P0, Player.P1):
            if me in closed:
                continue
            session, peer = sessions[me], sessions[me.other]
            event = session.next_event()
            out = session.data_to_send()
            if out:
                peer.receive_data(out)
                progressed = True
            if event is NEED_DATA:
                continue
            progressed = True
            if event is CLOSED:
                closed.add(me)
                continue
            if on_event is not None:
                on_event(me, event)
            if isinstance(event, YourTurn):
                action = bots[me].choose(session.game)
                data = session.send(action)
                peer.receive_data(data)
        if len(closed) == 2:
            break
        if not progressed:
            raise RuntimeError("in-memory pair is stuck: both sessions need data")
    result.results = {p: sessions[p].result for p in (Player.P0, Player.P1)}
    # The game's messages and bytes, as its transcript holds them (not the flights).
    result.messages = sessions[Player.P0].transcript_messages
    result.nbytes = sessions[Player.P0].transcript_bytes
    return result
