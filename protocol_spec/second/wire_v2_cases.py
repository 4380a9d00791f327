"""vectors/wire_v2_cases.json: an action with both ``shares`` and ``open``, and
transcripts a receiver and the verifier reject (wire.md §1, §2, §6b, §8, §10, §12)."""

from __future__ import annotations

import hashlib
import struct
from typing import Any

import msgpack
from common import Ed25519, envelope
from game import Features, Play, play_game
from wire_v2 import DECK_NOTE, layout, setup
from wire_v2_more import PIPELINE_NOTE, pipelined_choice
from wire_v2_resign import game as resigned_game

FILE = "wire_v2_cases.json"
INDENT = 1
MAGIC = b"TRUC-P2P transcript v1\n"
DESCRIPTION = (
    "Cases no other vector covers (wire.md sections 1, 2, 6b, 10). 'game': "
    "a pipelined deck-v2 game (target 2) whose hand 0 ends with the non-dealer's "
    "fold right after its redeal was accepted: that v2action carries act, shares "
    "(its redeal shares) and open (its shares for hand 1, pre-dealt), in that key "
    "order; it is valid. 'rejected': transcripts derived from it, each with the "
    "error code and the message number a receiver and the verifier report; an "
    "altered envelope is signed again with its sender's fixed key. 'short-frame' "
    "is the bytes of a transcript file (magic line and frames). 'second-resignation' "
    "and 'resignation-after-quit' derive from bob's transcript of wire_v2_resign.json "
    "(its fixed keys): a game has one ending (section 8)."
)


def frame(raw: bytes) -> bytes:
    """wire.md §1: a 4-byte big-endian length, then the envelope."""
    return struct.pack("!I", len(raw)) + raw


def decode(raw: bytes) -> list[Any]:
    body: list[Any] = msgpack.unpackb(raw[:-64], raw=False)
    return body


def resigned(key: Ed25519, raw: bytes, payload: dict[str, Any]) -> bytes:
    """``raw`` with another payload, signed again by its sender's key."""
    _, game_id, seq, prev, sender, kind, _ = decode(raw)
    return envelope(key, game_id, seq, prev, sender, kind, payload)


def cases_choice(play: Play, player: int, legal: list[str], step: int) -> str:
    """The pipelined script, except that the non-dealer of hand 0 folds right after its
    redeal was accepted (the third action)."""
    return "fold" if step == 2 else pipelined_choice(play, player, legal, step)


def _second_endings() -> list[dict[str, Any]]:
    play, _, bob, _ = resigned_game()
    m = len(bob) - 1
    _, game_id, seq, prev, _, _, _ = decode(bob[m])

    def alice_resigns() -> bytes:
        payload = {"reason": "resign", "detail": "alice resigns too"}
        return envelope(play.keys[0], game_id, seq, prev, 0, "abort", payload)

    quit_ = resigned(play.keys[1], bob[m], {"reason": "quit", "detail": ""})
    return [
        {
            "case": "second-resignation",
            "detail": f"bob's transcript of the resigned game (his resignation is message "
            f"{m}), then alice's resignation chained to the same point (seq {m}): both "
            "resigned at once, and a second ending is unexpected-message",
            "envelopes": [r.hex() for r in [*bob, alice_resigns()]],
            "error": {"code": "unexpected-message", "message_no": m + 1},
        },
        {
            "case": "resignation-after-quit",
            "detail": f"bob's transcript with a quit in place of his resignation (message "
            f"{m}), then alice's resignation chained to the same point (seq {m})",
            "envelopes": [r.hex() for r in [*bob[:m], quit_, alice_resigns()]],
            "error": {"code": "unexpected-message", "message_no": m + 1},
        },
    ]


def build() -> dict[str, Any]:
    ruleset = {"target": 2, "ladder": "literal", "rest_refused": "game"}
    options = {"audit": "game", "deck": "v2", "pipeline": True}
    play = setup("v2/cases/", ruleset, options, (0, 0))
    result = play_game(play, cases_choice, Features(pipeline=True))
    game = layout(
        play, {"deck": "v2", "deck_note": DECK_NOTE + PIPELINE_NOTE, "pipeline": True}, result
    )
    raws = play.transcript
    bodies = [decode(r) for r in raws]
    (both,) = (
        i
        for i, b in enumerate(bodies)
        if b[5] == "v2action" and "shares" in b[6] and "open" in b[6]
    )
    pre = next(i for i, b in enumerate(bodies) if b[5] == "v2deck1" and b[6].get("hand", 0) > 0)
    no_hand = {k: v for k, v in bodies[pre][6].items() if k != "hand"}
    short = MAGIC + b"".join(frame(r) for r in raws[:2]) + frame(bytes(range(10)))
    other_coin = {"coin": hashlib.sha256(b"another coin").digest()}
    return {
        "schema": "schemas/wire_cases_v1.schema.json",
        "description": DESCRIPTION,
        "game": {**game, "both_shares_and_open": both},
        "rejected": [
            {
                "case": "missing-hand",
                "detail": f"message {pre}, a pre-dealt v2deck1 of a pipelined game, "
                "without its 'hand' field",
                "envelopes": [r.hex() for r in raws[:pre]]
                + [resigned(play.keys[bodies[pre][4]], raws[pre], no_hand).hex()],
                "error": {"code": "malformed", "message_no": pre},
            },
            {
                "case": "short-frame",
                "detail": "a frame of 10 bytes (a header declaring 10) after the two hellos",
                "file_hex": short.hex(),
                "error": {"code": "oversize", "message_no": 2},
            },
            {
                "case": "equivocation",
                "detail": "player 1 received player 0's coin (message 2) and sent its "
                "v2deck1 (message 3); then a second coin signed by player 0 for position "
                "2 arrives and is appended as message 4",
                "envelopes": [r.hex() for r in raws[:4]]
                + [resigned(play.keys[0], raws[2], other_coin).hex()],
                "error": {"code": "equivocation", "message_no": 4},
            },
            *_second_endings(),
        ],
    }
