"""vectors/linked_games.json: rematch and match hellos (wire.md §4, §4.1)."""

from __future__ import annotations

import hashlib
from typing import Any

from common import Ed25519, handshake

FILE = "linked_games.json"
INDENT = 1
NAMES = ("bob", "ann")
BASE: dict[str, Any] = {"audit": "game", "deck": "v2", "pipeline": True, "early": True}


def _digest(tag: str) -> bytes:
    return hashlib.sha256(b"truc-p2p linked-games vector/" + tag.encode()).digest()


KEYS = (Ed25519(_digest("key/0")), Ed25519(_digest("key/1")))


def _game(tag: str, linked: dict[str, Any]) -> dict[str, Any]:
    secrets = (_digest(f"secret/{tag}/0"), _digest(f"secret/{tag}/1"))
    options = {**BASE, **linked}
    # resignation only: the vector predates the later nonce bits (wire.md §4.1)
    made = handshake(KEYS, NAMES, secrets, options, (1, 1))
    return {
        "secrets": [s.hex() for s in secrets],
        "options": {k: (v.hex() if isinstance(v, bytes) else v) for k, v in options.items()},
        "hello_initiator": made["hellos"][0].hex(),
        "hello_responder": made["hellos"][1].hex(),
        "coin": made["coin"].hex(),
        "game_id": made["game_id"].hex(),
        "coin_dealer": made["coin_dealer"],
        "first_dealer": linked.get("dealer", made["coin_dealer"]),
    }


def build() -> dict[str, Any]:
    first = _game("first", {})
    rematch = _game(
        "rematch", {"prev": bytes.fromhex(first["game_id"]), "dealer": 1 - first["first_dealer"]}
    )
    match1 = _game("match-1", {"match": 3})
    match2 = _game(
        "match-2",
        {
            "match": 3,
            "prev": bytes.fromhex(match1["game_id"]),
            "dealer": 1 - match1["first_dealer"],
        },
    )
    rejected = [
        {**BASE, "match": 1},
        {**BASE, "match": 100},
        {**BASE, "match": "3"},
        {**BASE, "dealer": 1},
        {**BASE, "prev": "00" * 32, "dealer": 1},
        {**BASE, "prev": {"bin": "00" * 31}, "dealer": 0},
        {**BASE, "prev": {"bin": "00" * 32}, "dealer": 2},
        {**BASE, "prev": {"bin": "00" * 32}},
    ]
    return {
        "schema": "schemas/linked_games_v1.schema.json",
        "seeds": {
            "names": list(NAMES),
            "key": [_digest(f"key/{p}").hex() for p in (0, 1)],
            "rest_final": False,
            "early_redeal": False,
        },
        "first": first,
        "rematch": rematch,
        "match_game_1": match1,
        "match_game_2": match2,
        "rejected": rejected,
    }
