"""The deal on the critical path, classic deck v2 deal vs the pipelined one (wire.md 6b).

    python benchmarks/bench_pipeline.py [--games N] [--target T] [--json]

Plays N in-memory games per mode (heuristic and random bots, real crypto) and
reports, per hand boundary (the envelopes strictly between the last action of
a hand and the first action of the next): deal messages, heavy deal messages
(``v2deck1``/``v2deck2``: a shuffle and its proofs) and deal flights (runs of
envelopes from one sender that carry only deal messages); and per hand: all
messages, bytes on the wire (frames) and CPU of both peers.  Boundaries are
split into "pre-dealt" (the pre-deal completed during the previous hand) and
the rest (a hand too short to pre-deal).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from truc_p2p.bots import make_bot
from truc_p2p.memory_pair import make_pair, run_pair
from truc_p2p.protocol import SessionOptions, decode_envelope
from truc_p2p.protocol._wire import Envelope
from truc_p2p.rules import Player, Ruleset

DEAL = {"v2deck1", "v2deck2", "v2open"}
BOTS = (("heuristic", "random"), ("random", "heuristic"), ("heuristic", "heuristic"))


def boundaries(records: list[bytes]) -> list[list[Envelope]]:
    envs = [decode_envelope(r) for r in records]
    starts = [i for i, e in enumerate(envs) if e.type == "v2deck3"]
    out = []
    for start in starts[1:]:
        last = max(i for i in range(start) if envs[i].type in ("v2action", "v2deck3"))
        out.append(envs[last : start + 1])
    return out


def figures(seg: list[Envelope]) -> tuple[int, int, int]:
    between = seg[1:-1]
    deal = [e for e in between if e.type in DEAL]
    heavy = sum(1 for e in deal if e.type != "v2open")
    flights: list[list[Envelope]] = []
    for env in seg:
        if flights and flights[-1][0].sender == env.sender:
            flights[-1].append(env)
        else:
            flights.append([env])
    deal_flights = sum(1 for f in flights if all(e.type in DEAL for e in f))
    return len(deal), heavy, deal_flights


def run(pipeline: bool, games: int, target: int) -> dict[str, Any]:
    hands = messages = nbytes = 0
    cpu = 0.0
    groups: dict[str, list[tuple[int, int, int]]] = {"pre-dealt": [], "other": []}
    for seed in range(games):
        names = BOTS[seed % len(BOTS)]
        records: list[bytes] = []
        sessions = make_pair(
            SessionOptions(ruleset=Ruleset(target=target), deck="v2", pipeline=pipeline),
            records=(records.append, None),
        )
        bots = {p: make_bot(names[int(p)], seed * 2 + int(p)) for p in Player}
        start = time.process_time()
        run_pair(sessions, bots)
        cpu += time.process_time() - start
        result = sessions[Player.P0].result
        assert result is not None
        hands += result.hands
        messages += len(records) - 3
        nbytes += sum(len(r) + 4 for r in records[3:])
        for seg in boundaries(records):
            opened = "open" in seg[0].payload or any(e.type == "v2open" for e in seg)
            key = "pre-dealt" if opened else "other"
            groups[key].append(figures(seg))
    every = groups["pre-dealt"] + groups["other"]

    def mean(rows: list[tuple[int, int, int]], i: int) -> float:
        return round(sum(r[i] for r in rows) / len(rows), 3) if rows else 0.0

    return {
        "pipeline": pipeline,
        "games": games,
        "hands": hands,
        "messages_per_hand": round(messages / hands, 2),
        "bytes_per_hand": round(nbytes / hands),
        "cpu_ms_per_hand_both_peers": round(1000 * cpu / hands, 1),
        "boundaries": {
            name: {
                "count": len(rows),
                "deal_messages": mean(rows, 0),
                "heavy_deal_messages": mean(rows, 1),
                "deal_flights": mean(rows, 2),
            }
            for name, rows in (("all", every), *groups.items())
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--target", type=int, default=12)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [run(p, args.games, args.target) for p in (False, True)]
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    for row in rows:
        print(
            f"{'pipelined' if row['pipeline'] else 'classic  '}: {row['hands']} hands, "
            f"{row['messages_per_hand']} msgs/hand, {row['bytes_per_hand']} B/hand, "
            f"{row['cpu_ms_per_hand_both_peers']} ms CPU/hand (both peers)"
        )
        for name, b in row["boundaries"].items():
            print(
                f"    {name:9} boundaries={b['count']:3}  deal msgs={b['deal_messages']:.2f}  "
                f"heavy={b['heavy_deal_messages']:.2f}  deal flights={b['deal_flights']:.2f}"
            )


if __name__ == "__main__":
    main()
