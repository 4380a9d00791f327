"""vectors/wire_v2.json: the scripted deck v2 game (wire.md §12)."""

from __future__ import annotations

import hashlib
from typing import Any

from common import Ed25519
from game import Play, play_classic

FILE = "wire_v2.json"
INDENT = 1
DESCRIPTION = (
    "A scripted game: fixed identities and session secrets produce these "
    "envelopes byte for byte. Player 0 is the initiator. Private keys are raw Ed25519 "
    "seeds; secrets are the 32-byte session secrets every local random value is "
    "derived from (see wire.md, 'Local secrets')."
)
DECK_NOTE = (
    "Deck v2 (deck_v2.md): the deck seed of hand h is "
    "HMAC-SHA256(secret, 'truc-p2p/v1/local/v2seed' || BE32(h)), never revealed; "
    "every proof of a hand is bound to the context = SHA-256 of the envelope just "
    "before the hand's v2deck1."
)


def fixed(label: str) -> bytes:
    return hashlib.sha256(b"truc-p2p/v1/test-vector/" + label.encode()).digest()


def script_choice(play: Play, player: int, legal: list[str], step: int) -> str:
    """Redeal first, then raise once (up to step 3), accept what is asked, and play
    the lowest card index held."""
    for preferred in ("redeal", "accept-redeal", "raise", "accept"):
        if preferred in legal and not (preferred == "raise" and step > 3):
            return preferred
    return next(a for a in legal if a.startswith("play "))


def setup(
    tag: str, ruleset: dict[str, Any], options: dict[str, Any], masks: tuple[int, int]
) -> Play:
    return Play(
        keys=(Ed25519(fixed(f"{tag}identity0")), Ed25519(fixed(f"{tag}identity1"))),
        names=("alice", "bob"),
        secrets=(fixed(f"{tag}secret0"), fixed(f"{tag}secret1")),
        ruleset=ruleset,
        options=options,
        masks=masks,
    )


def layout(play: Play, extra: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    import msgpack

    return {
        "schema": "schemas/wire_game_v1.schema.json",
        **extra,
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
        "result": result,
        "envelopes": [
            {"seq": i, "type": msgpack.unpackb(raw[:-64])[5], "hex": raw.hex()}
            for i, raw in enumerate(play.transcript)
        ],
    }


def build() -> dict[str, Any]:
    ruleset = {"target": 2, "ladder": "literal", "rest_refused": "game"}
    play = setup("v2/", ruleset, {"audit": "game", "deck": "v2"}, (0, 0))
    result = play_classic(play, script_choice)
    return layout(play, {"deck": "v2", "deck_note": DECK_NOTE}, result)
