"""vectors/wire_v2_resign.json: a pipelined game bob resigns while alice's move crosses
his resignation (wire.md §8, §8.1)."""

from __future__ import annotations

from typing import Any

import msgpack
from common import envelope, sha256
from game import Features, play_game
from wire_v2 import setup
from wire_v2_more import PIPELINED_RULESET, pipelined_choice

FILE = "wire_v2_resign.json"
INDENT = 1
RESIGN_AFTER = 9  # bob resigns when alice is to act after this many actions
DESCRIPTION = (
    "A resigned game (wire.md section 8): fixed identities and session "
    "secrets produce these envelopes byte for byte. Both hellos announce resignation "
    "in the last 8 bytes of their nonce ('trc' 0x01, then the feature mask 00000001). "
    "After the listed actions bob (player 1) resigns while alice is to act; alice's "
    "last listed action crosses the resignation. Bob's transcript ends with his "
    "abort; alice's holds her crossed action and then bob's abort, whose seq and prev "
    "name the earlier position. Both verify: alice wins at the score before the "
    "resignation."
)


def game() -> tuple[Any, list[bytes], list[bytes], dict[str, Any]]:
    """(play, alice's transcript, bob's transcript, what the stop returned)."""
    options = {"audit": "game", "deck": "v2", "pipeline": True}
    play = setup("v2/resign/", PIPELINED_RULESET, options, (1, 1))
    stopped = play_game(
        play,
        pipelined_choice,
        Features(pipeline=True),
        stop=lambda p, player, action: len(p.actions) >= RESIGN_AFTER and player == 0,
    )
    player, kind, body = stopped["stopped"]
    assert player == 0
    k = len(play.transcript)
    prev = sha256(play.transcript[-1])
    crossed = envelope(play.keys[0], play.game_id, k, prev, 0, kind, body)
    resign = envelope(
        play.keys[1], play.game_id, k, prev, 1, "abort",
        {"reason": "resign", "detail": "bob resigns"},
    )  # fmt: skip
    alice = [*play.transcript, crossed, resign]
    bob = [*play.transcript, resign]
    return play, alice, bob, stopped


def build() -> dict[str, Any]:
    play, alice, bob, stopped = game()

    def listing(raws: list[bytes]) -> list[dict[str, Any]]:
        return [
            {"seq": i, "type": msgpack.unpackb(raw[:-64])[5], "hex": raw.hex()}
            for i, raw in enumerate(raws)
        ]

    return {
        "schema": "schemas/wire_resign_v1.schema.json",
        "deck": "v2",
        "pipeline": True,
        "description": DESCRIPTION,
        "protocol_version": 1,
        "identities": [k.seed.hex() for k in play.keys],
        "public_keys": [k.public.hex() for k in play.keys],
        "secrets": [s.hex() for s in play.secrets],
        "names": list(play.names),
        "ruleset": play.ruleset,
        "audit": "game",
        "actions": play.actions,
        "game_id": play.game_id.hex(),
        "resignation": {"by": 1, "seq": len(bob) - 1, "detail": "bob resigns"},
        "result": {
            "winner": 0,
            "resigned_by": 1,
            "scores": stopped["scores"],
            "reason": "resigned",
            "hands": stopped["hands"],
        },
        "transcripts": [listing(alice), listing(bob)],
    }
