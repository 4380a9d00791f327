"""The session and the verifier judge whose turn it is alike (issue 31).

One function decides whether a message comes from the player due and is of the
type due (``check_turn`` in :mod:`truc_p2p.protocol._judge`): the receiving
session's envelope check and the verifier's referee both call it.  Here, at every
position of a played game (plain and pipelined deck v2, whose pre-deal
interjections make the due message depend on more than the stage), two forged
envelopes go to both: the message due, sent by the other player instead
(``out-of-turn``), and a message of another type from the player due
(``unexpected-message``).  Each is correctly signed and chained, with a payload
of its type's shape taken from the same game, so the turn check is what judges
it.  The receiving session (restored from the transcript before that position)
and :func:`verify_transcript` (given that transcript and the forged envelope)
must raise the same error code with the same text.  Where the session has made
its own message for that position already (an automatic deck message), a
forged one crosses it and the session judges the chain instead: those
positions are left out, and the test checks that enough remain.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import pytest
from helpers.matrix import fast_first
from helpers.protocol import P0, PLAYER, Pair

from truc_p2p.crypto import SigningKey
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    RemoteProtocolError,
    Session,
    decode_envelope,
    frame,
    verify_transcript,
)
from truc_p2p.protocol._wire import envelope_hash, sign_envelope
from truc_p2p.rules import Player, Ruleset

RULESET = Ruleset(target=2)
#: deck mode -> (deck, pipeline)
MODES = {"v2": ("v2", False), "v2p": ("v2", True)}
#: never forged here: hellos carry the key, aborts end the game on their own path
SKIPPED = {"hello", "abort", "refuse"}


@dataclass(frozen=True)
class Game:
    """A finished game: its transcript, the players' keys and secrets."""

    records: tuple[bytes, ...]
    keys: dict[Player, SigningKey]
    secrets: tuple[bytes, bytes]
    names: tuple[str, str]
    deck: str
    pipeline: bool


@functools.cache
def game(mode: str) -> Game:
    deck, pipeline = MODES[mode]
    pair = Pair(
        ruleset=RULESET,
        tag="turns-" + mode,
        first_dealer=P0,
        bots={p: PLAYER for p in Player},
        deck=deck,
        pipeline=pipeline,
    )
    pair.finish()
    assert pair.secrets is not None
    return Game(
        records=tuple(pair.records[P0]),
        keys=pair.keys,
        secrets=pair.secrets,
        names=pair.names,
        deck=deck,
        pipeline=pipeline,
    )


def forge(g: Game, k: int, sender: Player, template: bytes) -> bytes:
    """``template``'s type and payload as message ``k`` of ``g``, from ``sender``."""
    env = decode_envelope(template)
    return sign_envelope(
        g.keys[sender],
        game_id=decode_envelope(g.records[k]).game_id,
        seq=k,
        prev=envelope_hash(g.records[k - 1]),
        sender=int(sender),
        type=env.type,
        payload=env.payload,
    )


def session_verdict(g: Game, k: int, victim: Player, raw: bytes) -> tuple[str, str] | None:
    """The (code, text) the victim's session raises on ``raw`` as message ``k``; ``None``
    when it made its own message ``k`` first (the forged one would cross it)."""
    session = Session.restore(
        g.records[:k],
        identity=g.keys[victim],
        role=victim,
        secret=g.secrets[victim],
    )
    while session.next_event() not in (NEED_DATA, CLOSED):
        pass
    if session._chain.seq != k:  # its own message k is made (it is never sent twice)
        return None
    session.receive_data(frame(raw))
    try:
        while session.next_event() not in (NEED_DATA, CLOSED):
            pass
    except RemoteProtocolError as exc:
        return exc.code, str(exc.args[0])
    raise AssertionError(f"the session took a forged message {k}")


def verifier_verdict(g: Game, k: int, raw: bytes) -> tuple[str, str]:
    report = verify_transcript([*g.records[:k], raw])
    assert report.status == "violation", report.headline()
    assert report.error_message_no == k, report.headline()
    assert report.error_code is not None and report.error is not None
    return report.error_code, report.error


def templates(g: Game) -> dict[str, bytes]:
    """One genuine envelope of each forgeable type of the game."""
    out: dict[str, bytes] = {}
    for raw in g.records:
        out.setdefault(decode_envelope(raw).type, raw)
    return {t: raw for t, raw in out.items() if t not in SKIPPED}


@pytest.mark.parametrize("mode", fast_first(MODES))
def test_a_message_from_the_player_not_due_is_out_of_turn_for_both(mode: str) -> None:
    g = game(mode)
    judged = 0
    for k in range(2, len(g.records)):
        genuine = decode_envelope(g.records[k])
        if genuine.type in SKIPPED:
            continue
        due = Player(genuine.sender)
        raw = forge(g, k, due.other, g.records[k])
        live = session_verdict(g, k, due, raw)
        if live is None:
            continue
        assert live == verifier_verdict(g, k, raw), (k, genuine.type)
        assert live[0] == "out-of-turn", (k, live)
        judged += 1
    assert judged >= 10, judged


@pytest.mark.parametrize("mode", fast_first(MODES))
def test_a_message_of_another_type_is_unexpected_for_both(mode: str) -> None:
    g = game(mode)
    kinds = templates(g)
    assert len(kinds) >= 6, sorted(kinds)
    judged = 0
    for k in range(2, len(g.records)):
        genuine = decode_envelope(g.records[k])
        if genuine.type in SKIPPED:
            continue
        due = Player(genuine.sender)
        # the next type after the genuine one, so that every type is tried somewhere
        names = sorted(kinds)
        other = names[(names.index(genuine.type) + 1 + k) % len(names)]
        if other == genuine.type:
            continue
        raw = forge(g, k, due, kinds[other])
        live = session_verdict(g, k, due.other, raw)
        if live is None:
            continue
        assert live == verifier_verdict(g, k, raw), (k, genuine.type, other)
        assert live[0] == "unexpected-message", (k, other, live)
        judged += 1
    assert judged >= 10, judged
