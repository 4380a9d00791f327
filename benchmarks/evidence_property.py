"""The evidence property with a large budget (issue 46, wire.md 13.8).

    python benchmarks/evidence_property.py [--examples 300] [--steps 40] [--json]

Runs the stateful property test of ``tests/protocol/test_protocol_evidence_property.py``
(an honest player against an adversary that equivocates, replays messages of other
games between the same keys, cuts the link, lies in or replays its resume at any
point, and files any message it saw as evidence behind its ``abort`` ``cheat``)
with ``--examples`` games of up to ``--steps`` adversary moves each.  It fails
(exit 1) if ``verify`` ever holds the honest player responsible: a finding that
is a proof against it, or a violation whose culprit it is.

Prints the number of examples, of adversary moves tried (by kind), the verdicts
(``filed``: transcripts judged; ``nothing``: an evidence entry that proves
nothing; ``word-against-honest``: findings the honest side gets that are only
the accuser's word; ``proof-against-adversary``: the adversary's own lies;
``transcript-*``: the verifier's status of the filed transcript), why evidence
proved nothing, and the time taken.  The suite runs the same machine with a
small budget.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path.insert(0, str(TESTS))  # helpers
sys.path.insert(1, str(TESTS / "protocol"))

from helpers.evidence import TALLY  # noqa: E402
from test_protocol_evidence_property import run  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=300, help="games (hypothesis examples)")
    parser.add_argument("--steps", type=int, default=40, help="adversary moves per game, at most")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    failure = None
    try:
        run(args.examples, args.steps)
    except AssertionError as exc:  # the property failed: say so, with the counts so far
        failure = str(exc)
    seconds = time.perf_counter() - start
    report = {
        "examples": TALLY.examples,
        "moves": sum(TALLY.moves.values()),
        "moves_by_kind": dict(sorted(TALLY.moves.items())),
        "verdicts": dict(sorted(TALLY.verdicts.items())),
        "proved_nothing_because": dict(TALLY.why.most_common(8)),
        "proof_against_honest": TALLY.verdicts["proof-against-honest"],
        "seconds": round(seconds, 1),
        "failure": failure,
    }
    print(f"evidence property: {TALLY.line()}")
    print(
        f"  in {seconds:.1f} s; proofs against the honest player: 0"
        if failure is None
        else f"  FAILED: {failure}"
    )
    for why, n in TALLY.why.most_common(8):
        print(f"  proved nothing ({n}): {why}")
    if args.json:
        print(json.dumps(report))
    return 0 if failure is None else 1


if __name__ == "__main__":
    sys.exit(main())
