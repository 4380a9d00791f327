"""How long ``truc-p2p review`` takes for a 12-point game.

Plays ``--games`` seeded 12-point games of ``--player`` against
``--opponent`` in memory, then times the review of the player's decisions
(``truc_p2p.bots.review_game``: every decision the solved round covers
judged, every legal action's expected points), CPU and wall time.  With
``FILE`` it times the whole command on that transcript instead (reading and
checking the transcript, rebuilding your cards from its key, the review).
Run::

    nice -n 15 python benchmarks/review_time.py --games 10
    python benchmarks/review_time.py ~/truc-games/game-....truc
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import time

from truc_p2p.bots import make_bot, review_game
from truc_p2p.bots._review import record_game
from truc_p2p.rules import Player


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", help="time the command on this transcript")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--player", default="medium")
    parser.add_argument("--opponent", default="hard")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.file:
        from truc_p2p.cli import main as cli

        wall, cpu = time.perf_counter(), time.process_time()
        with contextlib.redirect_stdout(io.StringIO()) as out:
            status = cli(["review", args.file])
        print(out.getvalue().splitlines()[0] if out.getvalue() else "")
        print(
            f"review {args.file}: exit {status}, {time.perf_counter() - wall:.2f} s wall, "
            f"{time.process_time() - cpu:.2f} s CPU"
        )
        return
    walls, cpus, hands, judged = [], [], [], []
    for i in range(args.games):
        seed = args.seed * 1000 + i
        me = Player(i % 2)
        bots = [make_bot(args.player, seed), make_bot(args.opponent, seed + 1)]
        if me is Player.P1:
            bots.reverse()
        log, dealt = record_game(*bots, seed=seed, me=me)
        wall, cpu = time.perf_counter(), time.process_time()
        out = review_game(log, dealt, me)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        hands.append(len({g.round_no for g, _, _ in log}))
        judged.append(len(out))
    print(
        f"{args.games} games of {args.player} (reviewed) against {args.opponent}: "
        f"{statistics.mean(hands):.1f} hands and {statistics.mean(judged):.1f} judged decisions "
        f"a game; review {statistics.median(cpus):.2f} s CPU median, {max(cpus):.2f} s max; "
        f"wall {statistics.median(walls):.2f} s median, {max(walls):.2f} s max"
    )


if __name__ == "__main__":
    main()
