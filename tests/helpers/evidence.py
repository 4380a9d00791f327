"""Helpers for the evidence tests (wire.md 13.8): honest resumes taken from real
sessions, an accuser's signed ``abort`` ``cheat``, and a duel between an honest
player and an adversary that keeps every message it ever saw.

Everything runs on :class:`helpers.protocol.Pair` (real keys, real signatures, deck
v1 for speed); two pairs with one ``tag`` share both identity keys, so pairs with
other secrets are other games (a rematch, another game of a match) between the
same two players.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from helpers.protocol import P0, P1, Pair, digest, split
from truc_p2p.protocol import (
    MessageType,
    Resumed,
    decode_envelope,
    frame,
)
from truc_p2p.protocol._values import game_id_of
from truc_p2p.protocol._wire import GENESIS, envelope_hash, sign_envelope
from truc_p2p.rules import Player, Ruleset

__all__ = [
    "accusation",
    "chain_of",
    "game",
    "honest_cut",
    "resign_tail",
]

#: A short game: the property test and the benchmark play many.
RULESET = Ruleset(target=3)


def game(tag: str, number: int = 0, **options: Any) -> Pair:
    """Game ``number`` between the two players of ``tag`` (same keys, own secrets)."""
    pair_secrets = (digest(f"evidence/{tag}/{number}/0"), digest(f"evidence/{tag}/{number}/1"))
    options.setdefault("ruleset", RULESET)
    return Pair(tag=f"evidence/{tag}", secrets=pair_secrets, **options)


def chain_of(records: list[bytes]) -> list[bytes]:
    """The chain envelopes of a transcript (an ``abort`` is recorded off the chain)."""
    return [raw for raw in records if decode_envelope(raw).type != MessageType.ABORT]


def accusation(
    pair: Pair,
    accuser: Player,
    chain: list[bytes],
    code: str,
    *,
    seq: int | None = None,
) -> bytes:
    """The accuser's signed ``abort`` ``cheat`` citing ``code``, at ``seq`` (default:
    after the whole ``chain``), chained to the envelope before it."""
    at = len(chain) if seq is None else seq
    return sign_envelope(
        pair.keys[accuser],
        game_id=game_id_of(chain[0], chain[1]),
        seq=at,
        prev=envelope_hash(chain[at - 1]) if at else GENESIS,
        sender=int(accuser),
        type="abort",
        payload={"reason": "cheat", "detail": f"{code}: the peer's resume contradicts the chain"},
    )


def resign_tail(
    pair: Pair,
    signer: Player,
    chain: list[bytes],
    start: int,
    change: Callable[[dict[str, Any]], dict[str, Any]],
) -> list[bytes]:
    """``chain`` with its envelopes from ``start`` on (all ``signer``'s)
    replaced by others of that signer, each payload passed through ``change``, re-chained:
    what an equivocating player writes in its own transcript."""
    out = list(chain[:start])
    for raw in chain[start:]:
        env = decode_envelope(raw)
        out.append(
            sign_envelope(
                pair.keys[signer],
                game_id=env.game_id,
                seq=len(out),
                prev=envelope_hash(out[-1]),
                sender=env.sender,
                type=str(env.type),
                payload=change(dict(env.payload)),
            )
        )
    return out


def honest_cut(pair: Pair) -> tuple[bytes, bytes]:
    """The link drops (what is in flight is lost) and both sides resume honestly: the
    joiner (player 0) dials.  Returns the joiner's ``resume`` and the host's answer;
    the answer and what the host resends are queued in flight."""
    for p in (P0, P1):
        pair.inflight[p].clear()
    dialer, listener = pair.sessions[P0], pair.sessions[P1]
    dialer.reconnect(secrets.token_bytes(16), dialer=True)
    (dial,) = split(dialer.data_to_send())
    listener.reconnect(secrets.token_bytes(16), dialer=False)
    listener.receive_data(frame(dial))
    pair.pull(P1)
    answer = pair.inflight[P1][0]
    assert decode_envelope(answer).type == MessageType.RESUME
    assert any(isinstance(e, Resumed) for e in pair.events[P1])
    return dial, answer
