"""Deliberately broken peers for the interop runner's own tests: the reference peer
(:func:`truc_p2p.interop.peer.run`) with one fault, named by the first argument.

* ``bad-signature`` -- every frame it sends has a damaged signature;
* ``wrong-order`` -- its shuffled deck has two cards swapped after the proof
  was made (it signs the changed message: a shuffle that is not the one proven);
* ``no-resume`` -- it gives up (exits 0) as soon as its link drops;
* ``no-heartbeat`` -- it never sends a heartbeat;
* ``illegal-move`` -- it signs an ``accept`` with nothing to accept in place of
  its first card played.

Usage: ``python tests/interop/broken_peer.py FAULT`` with the runner's ``TRUC_*``
variables.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any

from truc_p2p.crypto import SigningKey
from truc_p2p.interop.peer import run
from truc_p2p.net import PeerDisconnected
from truc_p2p.protocol import MessageType, decode_envelope
from truc_p2p.protocol._wire import sign_envelope

FAULTS = ("bad-signature", "wrong-order", "no-resume", "no-heartbeat", "illegal-move")


def _resign(key: SigningKey, raw: bytes, payload: dict[str, Any]) -> bytes:
    env = decode_envelope(raw)
    return sign_envelope(
        key,
        game_id=env.game_id,
        seq=env.seq,
        prev=env.prev,
        sender=env.sender,
        type=env.type,
        payload=payload,
    )


def main(fault: str) -> int:
    key = SigningKey.generate()
    done: list[bool] = []

    def bad_signature(from_runner: bool, conn: int, n: int, raw: bytes) -> bytes:
        return raw if from_runner else raw[:-1] + bytes([raw[-1] ^ 0x01])

    def wrong_order(from_runner: bool, conn: int, n: int, raw: bytes) -> bytes:
        if from_runner or done:
            return raw
        env = decode_envelope(raw)
        if env.type not in (MessageType.V2DECK1, MessageType.V2DECK2):
            return raw
        payload = dict(env.payload)
        deck = list(payload["deck"])
        deck[0], deck[1] = deck[1], deck[0]
        payload["deck"] = deck
        done.append(True)
        return _resign(key, raw, payload)

    def illegal_move(from_runner: bool, conn: int, n: int, raw: bytes) -> bytes:
        if from_runner or done:
            return raw
        env = decode_envelope(raw)
        if env.type != MessageType.V2ACTION or env.payload.get("act") != "play":
            return raw
        done.append(True)
        return _resign(key, raw, {"act": "accept"})

    def give_up(event: object) -> None:
        if isinstance(event, PeerDisconnected):
            sys.stdout.flush()
            os._exit(0)  # claims success: the runner must not believe it

    if fault == "bad-signature":
        return run(hook=bad_signature, identity=key)
    if fault == "wrong-order":
        return run(hook=wrong_order, identity=key)
    if fault == "illegal-move":
        return run(hook=illegal_move, identity=key)
    if fault == "no-resume":
        return run(on_event=give_up)
    if fault == "no-heartbeat":
        return run(settings={"heartbeat": math.inf})
    print(f"unknown fault {fault!r}; one of {', '.join(FAULTS)}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else ""))
