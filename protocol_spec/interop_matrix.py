"""Regenerate ``protocol_spec/interop-matrix.json``: ``truc-p2p interop --peer … --json``
for this program and every earlier build of ``tests/helpers/compat_builds.py``.

Usage::

    python protocol_spec/interop_matrix.py [--cases all|basic|adversarial] [--jobs N]
                                          [--peer NAME …] [--out FILE]

Each peer's run is one ``truc-p2p interop`` command (the earlier builds through
``tests/helpers/old_build_peer.py``, built and cached on first use); ``--jobs``
runs that many peers at once.  The file holds, per peer, the runner's ``--json``
object as it printed it, and which cases were asked.  A peer that could not be
run (a build that cannot be made) is recorded with its error.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from helpers.compat_builds import BUILDS  # noqa: E402

from truc_p2p.interop._cases import ADVERSARIAL_NAMES, CASE_NAMES  # noqa: E402

#: A few adversarial cases, one of each kind of fault, for the earlier builds (each
#: of their cases costs seconds of CPU: a whole install's start).
SAMPLE = (
    "wire-1-oversize-header-ffffffff",
    "wire-13.7-flipped-signature-coin",
    "wire-2-version-2-coin",
    "wire-2-duplicate-key-coin",
    "wire-2-seq-far-coin",
    "wire-5-unexpected-result-for-coin",
    "deck-7-deck-proof-bit",
    "wire-13.1-resume-bad-clock-left",
)
OUT = ROOT / "protocol_spec" / "interop-matrix.json"
PY = shlex.quote(sys.executable)


def peers() -> dict[str, str]:
    """Every peer's command: this program, then each earlier build."""
    found = {"program": f"exec {PY} -m truc_p2p.interop.peer"}
    adapter = shlex.quote(str(ROOT / "tests" / "helpers" / "old_build_peer.py"))
    tests = shlex.quote(f"PYTHONPATH={ROOT / 'tests'}")  # for its helpers.compat_builds
    for commit in BUILDS:
        found[commit] = f"{tests} exec {PY} {adapter} {commit}"
    return found


def run_peer(name: str, command: str, cases: list[str]) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix=f"truc-interop-matrix-{name}-"))
    args = [sys.executable, "-m", "truc_p2p.cli", "interop", "--peer", command, "--json"]
    args += ["--work", str(work)]
    for case in cases:
        args += ["--case", case]
    done = subprocess.run(args, capture_output=True, text=True, check=False, cwd=ROOT)
    try:
        result: dict[str, Any] = json.loads(done.stdout)
    except json.JSONDecodeError:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"interop exited {done.returncode}: {tail}"}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", choices=("all", "basic", "adversarial", "sample"), default="all")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--peer", action="append", default=None)
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args(argv)
    cases = {
        "all": [*CASE_NAMES, *ADVERSARIAL_NAMES],
        "basic": list(CASE_NAMES),
        "adversarial": list(ADVERSARIAL_NAMES),
        "sample": list(SAMPLE),
    }[args.cases]
    chosen = {k: v for k, v in peers().items() if args.peer is None or k in args.peer}
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {k: pool.submit(run_peer, k, v, cases) for k, v in chosen.items()}
        results = {k: f.result() for k, f in futures.items()}
    old: dict[str, Any] = {}
    with contextlib.suppress(OSError, json.JSONDecodeError):
        old = json.loads(Path(args.out).read_text(encoding="utf-8")).get("peers", {})
    matrix = {
        "comment": "truc-p2p interop --json against this program and every earlier build "
        "(protocol_spec/interop.md §7, §8); regenerate with "
        "python protocol_spec/interop_matrix.py",
        "peers": {
            **old,
            **{
                name: {"build": BUILDS.get(name, "this program"), "cases": args.cases, **result}
                for name, result in results.items()
            },
        },
    }
    Path(args.out).write_text(json.dumps(matrix, indent=1) + "\n", encoding="utf-8")
    for name, result in results.items():
        summary = result.get("error") or (
            f"{result['passed']} passed, {result['failed']} failed, "
            f"{result['unsupported']} unsupported"
        )
        print(f"{name}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
