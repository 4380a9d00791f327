"""Review: a one-sided replay still audits the revealer's shown keys (wire.md section 10).

When only one player revealed its seeds, the verifier replays the game from
that player's view and promises to recompute the revealer's messages.  The
key a revealer sends to show a played card was not checked at all in that
mode: a forged transcript (the forger holds both keys) in which the revealer
shows a card with a wrong key was blamed on the other player's refused audit
instead of on the revealer's bad message.
"""

from __future__ import annotations

import hashlib
from typing import Any

from helpers.protocol import PLAYER, Pair, is_type

from truc_p2p.protocol import decode_envelope, verify_transcript
from truc_p2p.protocol._wire import envelope_hash, sign_envelope
from truc_p2p.rules import Player, Ruleset


def _rechain(pair: Pair, envelopes: list[bytes], start: int, payload: Any) -> list[bytes]:
    """Message ``start`` gets ``payload``; it and every later one are signed again."""
    out = list(envelopes[:start])
    for i, raw in enumerate(envelopes[start:], start):
        env = decode_envelope(raw)
        out.append(
            sign_envelope(
                pair.keys[Player(env.sender)],
                game_id=env.game_id,
                seq=i,
                prev=envelope_hash(out[-1]),
                sender=env.sender,
                type=env.type,
                payload=payload if i == start else env.payload,
            )
        )
    return out


def _abort(pair: Pair, envelopes: list[bytes], sender: Player) -> list[bytes]:
    last = decode_envelope(envelopes[-1])
    abort = sign_envelope(
        pair.keys[sender],
        game_id=last.game_id,
        seq=len(envelopes),
        prev=envelope_hash(envelopes[-1]),
        sender=int(sender),
        type="abort",
        payload={"reason": "quit", "detail": ""},
    )
    return [*envelopes, abort]


def test_revealers_bad_show_key_is_caught_in_a_one_sided_replay() -> None:
    pair = Pair(
        ruleset=Ruleset(target=1),
        tag="review-view-show",
        bots={Player.P0: PLAYER, Player.P1: PLAYER},
    )
    revealer, reveal = pair.run(until=is_type("reveal"))
    other = revealer.other
    envelopes = [*pair.records[other], reveal]  # the other then aborts instead of revealing
    honest = verify_transcript(_abort(pair, envelopes, other))
    assert honest.error_code == "audit-refused"

    at, payload = next(
        (i, env.payload)
        for i, env in enumerate(map(decode_envelope, envelopes))
        if env.sender == revealer
        and env.type in ("action", "deck4")
        and (env.payload.get("action") or env.payload).get("act") == "play"
    )
    bad_key = hashlib.sha256(b"not the revealer's key").digest()
    if "action" in payload:
        payload = {**payload, "action": {**payload["action"], "key": bad_key}}
    else:
        payload = {**payload, "key": bad_key}
    forged = _abort(pair, _rechain(pair, envelopes, at, payload), other)
    report = verify_transcript(forged)
    assert not report.valid
    assert report.error_code == "audit-failed", report.summary()
    assert report.error_message_no == at
