"""How long ``truc-p2p verify`` takes to start, against a bare ``python -c pass``.

    python benchmarks/bench_startup.py [--runs N] [--json]

Both commands run ``N`` times, alternating (so a busy machine slows both alike);
the figures are the median wall time of each and their difference, and the same
for the CPU time (user + system) of the child, which a machine busy with other
work inflates far less than the wall time.  ``verify``
is given a file that does not exist: everything it imports and its argument
parsing count, no verification work does.  The goal (issue 31) is a difference
of at most 0.15 s.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

BARE = [sys.executable, "-c", "pass"]
VERIFY = [sys.executable, "-m", "truc_p2p.cli", "verify", "no-such-transcript.truc"]


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _seconds(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command``."""
    start, cpu = time.perf_counter(), _cpu()
    subprocess.run(command, capture_output=True, check=False)
    return time.perf_counter() - start, _cpu() - cpu


def measure(runs: int) -> dict[str, float]:
    """Median wall and CPU seconds of ``python -c pass`` and of ``truc-p2p verify``,
    and the differences."""
    bare: list[tuple[float, float]] = []
    verify: list[tuple[float, float]] = []
    _seconds(VERIFY)  # warm the file cache and the bytecode
    for _ in range(runs):
        bare.append(_seconds(BARE))
        verify.append(_seconds(VERIFY))
    figures = {}
    for i, kind in enumerate(("wall", "cpu")):
        b = statistics.median(x[i] for x in bare)
        v = statistics.median(x[i] for x in verify)
        figures |= {f"python_c_pass_{kind}": b, f"verify_{kind}": v, f"difference_{kind}": v - b}
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each (default 15)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    figures = measure(max(1, args.runs))
    if args.json:
        print(json.dumps({k: round(v, 4) for k, v in figures.items()}))
    else:
        print("                 wall      cpu")
        for label, key in (
            ("python -c pass", "python_c_pass"),
            ("truc-p2p verify", "verify"),
            ("difference", "difference"),
        ):
            print(f"{label:<16} {figures[key + '_wall']:.3f} s  {figures[key + '_cpu']:.3f} s")
        print("(goal: a difference of at most 0.150 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
