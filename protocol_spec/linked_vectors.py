"""Generate (or check) the test vector of linked games (wire.md section 4.1).

    python protocol_spec/linked_vectors.py          # rewrite vectors/linked_games.json
    python protocol_spec/linked_vectors.py --check  # exit 1 if it is out of date

Two sessions with fixed identity keys and secrets start three games: a
single first game, a rematch of it, and game 2 of a 3-game match.  For each,
the vector holds the hello ``options`` both players send (``prev`` in hex),
both raw hello envelopes and the initiator's ``coin`` (hex), the game id,
the dealer the coins draw and the first dealer the game actually has.  With
``prev`` the coins are still exchanged, but ``dealer`` decides.  ``rejected``
lists option maps a peer must refuse as malformed.

What reproduces every byte is in the vector too: ``seeds`` holds each
player's name and 32-byte Ed25519 seed (player 0, the initiator, first) and
the hello features (``rest_final`` and ``early_redeal`` off); each game holds both players'
32-byte session ``secrets``.  Every hello nonce, coin and signature then
follows deterministically (``SHA-256("truc-p2p linked-games vector/" + tag)``
is how this script chose them: ``key/0``, ``key/1``, ``secret/<game>/<p>``).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from truc_p2p.crypto import SigningKey
from truc_p2p.protocol import NEED_DATA, FrameBuffer, GameStarted, Series, Session, SessionOptions
from truc_p2p.protocol._values import first_dealer_from_coins, parse_options
from truc_p2p.protocol._wire import decode_envelope
from truc_p2p.rules import Player

VECTOR = Path(__file__).resolve().parent / "vectors" / "linked_games.json"
#: The players' names: player 0 (the initiator, the joiner), player 1.
NAMES = ("bob", "ann")


def _digest(tag: str) -> bytes:
    return hashlib.sha256(b"truc-p2p linked-games vector/" + tag.encode()).digest()


def _start(series: Series | None, tag: str) -> dict[str, Any]:
    sides = [
        Session(
            identity=SigningKey.from_bytes(_digest(f"key/{p}")),
            role=Player(p),
            secret=_digest(f"secret/{tag}/{p}"),
            # the vector predates the rest-final feature bit
            # and the early-redeal one
            options=SessionOptions(
                name=NAMES[p], series=series or Series(), rest_final=False, early_redeal=False
            ),
        )
        for p in (0, 1)
    ]
    sent: list[bytes] = []
    started: dict[int, GameStarted] = {}
    for _ in range(10):
        for p in (0, 1):
            data = sides[p].data_to_send()
            if data:
                sent.append(data)
                sides[1 - p].receive_data(data)
        for p in (0, 1):
            event = sides[p].next_event()
            while event is not NEED_DATA and p not in started:
                if isinstance(event, GameStarted):
                    started[p] = event
                event = sides[p].next_event()
        if len(started) == 2:
            break
    assert len(started) == 2, "the handshake did not complete"
    hellos = list(sides[0]._hello.hellos)  # raw hello envelopes, initiator first
    coin = next(e for e in _envelopes(b"".join(sent)) if decode_envelope(e).type == "coin")
    c0 = decode_envelope(coin).payload["coin"]
    c1 = decode_envelope(hellos[1]).payload["coin"]
    options = decode_envelope(hellos[0]).payload["options"]
    return {
        "secrets": [_digest(f"secret/{tag}/{p}").hex() for p in (0, 1)],
        "options": {k: (v.hex() if isinstance(v, bytes) else v) for k, v in options.items()},
        "hello_initiator": hellos[0].hex(),
        "hello_responder": hellos[1].hex(),
        "coin": coin.hex(),
        "game_id": sides[0].game_id.hex(),
        "coin_dealer": int(first_dealer_from_coins(c0, c1)),
        "first_dealer": int(started[0].first_dealer),
    }


def _envelopes(stream: bytes) -> list[bytes]:
    frames = FrameBuffer()
    frames.feed(stream)
    out = []
    while (raw := frames.next_envelope()) is not None:
        out.append(raw)
    return out


def linked_vector() -> dict[str, Any]:
    first = _start(None, "first")
    prev = bytes.fromhex(first["game_id"])
    dealer = Player(first["first_dealer"]).other
    rematch = _start(Series(prev=prev, dealer=dealer), "rematch")
    match1 = _start(Series(match=3), "match-1")
    match2 = _start(
        Series(
            match=3,
            prev=bytes.fromhex(match1["game_id"]),
            dealer=Player(match1["first_dealer"]).other,
        ),
        "match-2",
    )
    base = {"audit": "game", "deck": "v2", "pipeline": True, "early": True}
    rejected = [
        {**base, "match": 1},
        {**base, "match": 100},
        {**base, "match": "3"},
        {**base, "dealer": 1},
        {**base, "prev": "00" * 32, "dealer": 1},
        {**base, "prev": {"bin": "00" * 31}, "dealer": 0},
        {**base, "prev": {"bin": "00" * 32}, "dealer": 2},
        {**base, "prev": {"bin": "00" * 32}},
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


def _options_of(data: dict[str, Any]) -> dict[str, Any]:
    """A ``rejected`` entry as a hello would carry it ({"bin": hex} is bytes)."""
    return {k: bytes.fromhex(v["bin"]) if isinstance(v, dict) else v for k, v in data.items()}


def check_rejected(vector: dict[str, Any]) -> list[str]:
    """The ``rejected`` option maps that this implementation does accept (should be none)."""
    return [json.dumps(o) for o in vector["rejected"] if parse_options(_options_of(o)) is not None]


def main(argv: list[str]) -> int:
    text = json.dumps(linked_vector(), indent=1) + "\n"
    if "--check" in argv:
        if not VECTOR.exists() or VECTOR.read_text() != text:
            print(f"out of date: {VECTOR}")
            return 1
        return 0
    VECTOR.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
