"""How long a player waits to be handed its turn: process CPU spent from receiving
the peer's bytes until the session returns ``YourTurn``, over in-memory games.

    python benchmarks/turn_latency.py [--games N] [--json]

Heuristic bots play games to 12 with the pipelined deal. While a player
"thinks" the driver calls ``Session.work()`` and sends what it made, as the
trio game loop does (wire.md 6b), so the next hand's deck work does not count
as waiting; everything the session does between the peer's bytes arriving and
the turn does. What is left is opening a pre-dealt hand (checking the dealer's
shares) and the classic deal of a hand too short to pre-deal.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from truc_p2p.bots import make_bot
from truc_p2p.memory_pair import make_pair
from truc_p2p.protocol import CLOSED, NEED_DATA, SessionOptions, YourTurn
from truc_p2p.rules import Player, Ruleset


def game(seed: int) -> list[float]:
    """Milliseconds of CPU before each turn of one game, both players."""
    sessions = make_pair(SessionOptions(ruleset=Ruleset(target=12), pipeline=True))
    bots = {p: make_bot("heuristic", seed * 2 + int(p)) for p in Player}
    inbox = {p: sessions[p.other].data_to_send() for p in Player}
    waits: list[float] = []
    closed: set[Player] = set()
    while len(closed) < 2:
        for me in Player:
            if me in closed:
                continue
            s = sessions[me]
            start = time.process_time()
            if inbox[me]:
                s.receive_data(inbox[me])
                inbox[me] = b""
            while (event := s.next_event()) is not NEED_DATA and event is not CLOSED:
                if isinstance(event, YourTurn):
                    break
            spent = time.process_time() - start
            inbox[me.other] += s.data_to_send()
            if event is CLOSED:
                closed.add(me)
            elif isinstance(event, YourTurn):
                waits.append(spent * 1000)
                s.work()  # the player thinks
                inbox[me.other] += s.data_to_send()
                inbox[me.other] += s.send(bots[me].choose(s.game))
    return waits


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    waits = sorted(w for seed in range(args.games) for w in game(seed))

    def quantile(f: float) -> float:
        return waits[min(len(waits) - 1, int(f * len(waits)))]

    report = {
        "turns": len(waits),
        "median_ms": round(statistics.median(waits), 2),
        "p90_ms": round(quantile(0.9), 2),
        "p99_ms": round(quantile(0.99), 2),
        "max_ms": round(waits[-1], 2),
    }
    if args.json:
        print(json.dumps(report))
    else:
        print(
            f"{report['turns']} turns: CPU before the turn is handed over: median "
            f"{report['median_ms']} ms, p90 {report['p90_ms']} ms, p99 {report['p99_ms']} ms, "
            f"max {report['max_ms']} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
