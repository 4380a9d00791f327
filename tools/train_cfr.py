"""Build the CFR bot's table: the opening solved by CFR+ for every score.

    python tools/train_cfr.py                  # writes truc_p2p/bots/cfr_opening.bin
    python tools/train_cfr.py --game-ends 0.5 --out /tmp/t.bin   # rounds often end the game
    python tools/train_cfr.py --iterations 50 --out /tmp/t.bin

The training is deterministic (CFR+ on the whole opening tree, no sampling),
so the same command always writes the same bytes.  It needs numpy (in the
test extra); the bot itself reads the table with the standard library.
See ``truc_p2p/bots/_cfr.py`` for the theory of operation.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

from cfr_train import build_table

from truc_p2p.bots._cfr import TABLE_FILE
from truc_p2p.bots._cfr_game import GAME_ENDS

DEFAULT_ITERATIONS = 150
#: The bot's skill edge in the rounds to come, in W (see _cfr_game.terminal_utility).
DEFAULT_EDGE = 0.3
#: How much each player trembles in the training (off-path answers, see tools/cfr_train.py).
DEFAULT_TREMBLE = 0.05


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    parser.add_argument("--edge", type=float, default=DEFAULT_EDGE)
    parser.add_argument("--tremble", type=float, default=DEFAULT_TREMBLE)
    parser.add_argument(
        "--game-ends",
        type=float,
        default=GAME_ENDS,
        help=f"W's chance that a round to come ends the game by 'my rest' (default {GAME_ENDS})",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parents[1] / "truc_p2p" / "bots" / TABLE_FILE,
    )
    args = parser.parse_args()
    started = time.perf_counter()
    data = build_table(
        args.iterations, args.edge, args.tremble, progress=True, game_ends=args.game_ends
    )
    args.out.write_bytes(data)
    print(
        f"{args.out}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()[:16]}, "
        f"{time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
