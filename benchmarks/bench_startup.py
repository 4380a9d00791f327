"""How long ``truc-p2p verify`` and ``truc-p2p --help`` take to start, against a bare
``python -c pass``, and which of the package's modules they load.

    python benchmarks/bench_startup.py [--runs N] [--file GAME.truc] [--modules] [--json]

Both commands run ``N`` times, alternating (so a busy machine slows both alike);
the figures are the median wall time of each and their difference, and the same
for the CPU time (user + system) of the child, which a machine busy with other
work inflates far less than the wall time.  Without ``--file``, ``verify`` is given
a file that does not exist: everything it imports and its argument parsing count,
no verification work does (the start-up); with ``--file`` a real game's
verification counts too.  The goal (issues 31 and 47) is a start-up difference of
at most 0.15 s, measured from a normal (non-editable) ``pip install .``: run this
script with that environment's python.  ``--modules`` lists the package's modules
``verify`` loads (their count is always printed).  ``truc-p2p --help`` is measured
alike (issue 47: the top-level parser is built without importing any command's
module): its figures and its module count are printed on their own rows.
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
MISSING = "no-such-transcript.truc"
#: ``verify FILE`` in a child, then the package's modules it loaded, one line.
PROBE = (
    "import sys\n"
    "from truc_p2p.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit:\n"
    "    pass\n"
    "print('\\nLOADED', ' '.join(sorted(m for m in sys.modules if m.startswith('truc_p2p'))))\n"
)


def _verify(file: str) -> list[str]:
    return [sys.executable, "-m", "truc_p2p.cli", "verify", file]


#: ``truc-p2p --help``: the top-level parser alone.
HELP = [sys.executable, "-m", "truc_p2p.cli", "--help"]


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _seconds(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command``."""
    start, cpu = time.perf_counter(), _cpu()
    subprocess.run(command, capture_output=True, check=False)
    return time.perf_counter() - start, _cpu() - cpu


def measure(runs: int, file: str = MISSING) -> dict[str, float]:
    """Median wall and CPU seconds of ``python -c pass`` and of ``truc-p2p verify``,
    and the differences."""
    bare: list[tuple[float, float]] = []
    verify: list[tuple[float, float]] = []
    helps: list[tuple[float, float]] = []
    _seconds(_verify(file))  # warm the file cache and the bytecode
    _seconds(HELP)
    for _ in range(runs):
        bare.append(_seconds(BARE))
        verify.append(_seconds(_verify(file)))
        helps.append(_seconds(HELP))
    figures = {}
    for i, kind in enumerate(("wall", "cpu")):
        b = statistics.median(x[i] for x in bare)
        v = statistics.median(x[i] for x in verify)
        h = statistics.median(x[i] for x in helps)
        figures |= {f"python_c_pass_{kind}": b, f"verify_{kind}": v, f"difference_{kind}": v - b}
        figures |= {f"help_{kind}": h, f"help_difference_{kind}": h - b}
    return figures


def loaded_modules(file: str = MISSING, *words: str) -> list[str]:
    """The package's modules that ``truc-p2p verify FILE`` (or ``truc-p2p WORDS``) loads."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *(words or ("verify", file))],
        capture_output=True,
        text=True,
    )
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("LOADED ")]
    return line.removeprefix("LOADED ").split()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each (default 15)")
    parser.add_argument(
        "--file", default=MISSING, help="a game to verify (default: none, the start-up only)"
    )
    parser.add_argument("--modules", action="store_true", help="list the modules verify loads")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    figures = measure(max(1, args.runs), args.file)
    modules = loaded_modules(args.file)
    help_modules = loaded_modules(MISSING, "--help")
    if args.json:
        print(
            json.dumps(
                {k: round(v, 4) for k, v in figures.items()}
                | {"modules": len(modules), "module_names": modules}
                | {"help_modules": len(help_modules)}
            )
        )
        return 0
    print("                 wall      cpu")
    for label, key in (
        ("python -c pass", "python_c_pass"),
        ("truc-p2p verify", "verify"),
        ("difference", "difference"),
        ("truc-p2p --help", "help"),
        ("difference", "help_difference"),
    ):
        print(f"{label:<16} {figures[key + '_wall']:.3f} s  {figures[key + '_cpu']:.3f} s")
    print("(goal: a start-up difference of at most 0.150 s)")
    print(f"package modules loaded by verify: {len(modules)}, by --help: {len(help_modules)}")
    if args.modules:
        print(" ".join(modules))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
