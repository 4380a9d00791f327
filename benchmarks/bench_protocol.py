"""Protocol cost per hand: messages, bytes, CPU per peer, and the verifier's time.

    python benchmarks/bench_protocol.py [--games N] [--deck v1|v2|both] [--json]

Plays N games between two in-memory sessions (heuristic bots, real crypto),
timing each peer's own calls into its session with ``time.process_time`` so
each peer's CPU is measured separately, then times ``verify_transcript`` on
every transcript.  Prints medians.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import time
from collections.abc import Callable
from typing import Any, TypeVar

from truc_p2p.bots import make_bot
from truc_p2p.memory_pair import make_pair
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    Session,
    SessionOptions,
    YourTurn,
    decode_envelope,
    frame,
    verify_transcript,
)
from truc_p2p.rules import Player

T = TypeVar("T")


_HAND_START = {"v1": "deck1", "v2": "v2deck1"}
_HAND_TYPES = ("deck1", "deck2", "deck3", "deck4", "action", "v2deck1", "v2deck2", "v2deck3")


def _play(seed: int, deck: str) -> dict[str, Any]:
    transcript: list[bytes] = []
    sessions = make_pair(SessionOptions(deck=deck), records=(transcript.append, None))
    bots = {p: make_bot("heuristic", seed * 2 + p) for p in (Player.P0, Player.P1)}
    cpu = {Player.P0: 0.0, Player.P1: 0.0}

    def timed(p: Player, fn: Callable[[], T]) -> T:
        t = time.process_time()
        try:
            return fn()
        finally:
            cpu[p] += time.process_time() - t

    closed: set[Player] = set()
    while len(closed) < 2:
        for me in (Player.P0, Player.P1):
            if me in closed:
                continue
            s: Session = sessions[me]
            peer = sessions[me.other]
            event = timed(me, s.next_event)
            out = timed(me, s.data_to_send)
            if out:
                timed(me.other, functools.partial(peer.receive_data, out))
            if event is CLOSED:
                closed.add(me)
            elif isinstance(event, YourTurn):
                action = bots[me].choose(s.game)
                data = timed(me, functools.partial(s.send, action))
                timed(me.other, functools.partial(peer.receive_data, data))
            elif event is NEED_DATA:
                continue
    result = sessions[Player.P0].result
    assert result is not None
    t = time.perf_counter()
    report = verify_transcript(transcript)
    verify_ms = (time.perf_counter() - t) * 1000
    assert report.valid, report.summary()
    # Messages and bytes of each hand: from its first deal message up to (not including) the
    # next hand's or the first reveal/result; handshake and audit/result counted apart.
    per_hand_msgs: list[int] = []
    per_hand_bytes: list[int] = []
    for raw in transcript:
        kind = decode_envelope(raw).type
        if kind == _HAND_START[deck]:
            per_hand_msgs.append(0)
            per_hand_bytes.append(0)
        if kind in (*_HAND_TYPES, "v2action"):
            per_hand_msgs[-1] += 1
            per_hand_bytes[-1] += len(frame(raw))
    return {
        "hands": result.hands,
        "cpu_ms_per_hand": {int(p): cpu[p] * 1000 / result.hands for p in cpu},
        "verify_ms": verify_ms,
        "msgs": per_hand_msgs,
        "bytes": per_hand_bytes,
        "total_bytes": sum(len(frame(r)) for r in transcript),
        "total_msgs": len(transcript),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--deck", choices=["v1", "v2", "both"], default="both")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    decks = ["v1", "v2"] if args.deck == "both" else [args.deck]
    for deck in decks:
        _report(deck, [_play(seed, deck) for seed in range(args.games)], as_json=args.json)


def _report(deck: str, games: list[dict[str, Any]], *, as_json: bool) -> None:
    msgs = [m for g in games for m in g["msgs"]]
    nbytes = [b for g in games for b in g["bytes"]]
    figures = {
        "deck": deck,
        "games": len(games),
        "hands": sum(g["hands"] for g in games),
        "median_hands_per_game": statistics.median(g["hands"] for g in games),
        "median_messages_per_hand": statistics.median(msgs),
        "median_bytes_per_hand": statistics.median(nbytes),
        "median_messages_per_game": statistics.median(g["total_msgs"] for g in games),
        "median_bytes_per_game": statistics.median(g["total_bytes"] for g in games),
        "median_cpu_ms_per_hand_p0": statistics.median(g["cpu_ms_per_hand"][0] for g in games),
        "median_cpu_ms_per_hand_p1": statistics.median(g["cpu_ms_per_hand"][1] for g in games),
        "median_verify_ms_per_game": statistics.median(g["verify_ms"] for g in games),
        "median_verify_ms_per_hand": statistics.median(g["verify_ms"] / g["hands"] for g in games),
    }
    if as_json:
        print(json.dumps(figures))
    else:
        for k, v in figures.items():
            print(f"{k:30} {v:.2f}" if isinstance(v, float) else f"{k:30} {v}")


if __name__ == "__main__":
    main()
