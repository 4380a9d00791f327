"""``truc-p2p bench deck``: deck v1 and v2, per step, per hand and per role, against the floor.

Every figure is process CPU time (``time.process_time``), the median over the
hands run.  The **floor** of a step is counted primitive by primitive: the
step is run once more with every primitive wrapped in a counter, and each
count is charged the primitive's own cost, measured in the same run in small
batches interleaved with the hands (so other load skews both alike).

* v1 (P-256 through ``cryptography``): point decodings, key derivations,
  multiplications (an ECDH ``exchange`` with an existing key) and modular
  inversions, each at its own cost -- a multiplication is no longer charged a
  decode and a key derivation it did not do.
* v2 (secp256k1 through ``coincurve``): variable-base and fixed-base
  multiplications, additions (per call and per term), point decodings,
  negations, encodings, scalar and permutation derivations (HMAC) and
  SHA-256 hashing (per call and per byte).

The ratio ``hand / floor`` is the Python overhead around the crypto.

Each version is measured in its own module (``_deck_v1``, ``_deck_v2``, with the
shared timing helpers in ``_deck_timing``); the text report is ``_deck_report``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from truc_p2p.bench._deck_report import report_lines
from truc_p2p.bench._deck_v1 import bench_v1
from truc_p2p.bench._deck_v2 import bench_v2
from truc_p2p.i18n import _

# bench_v2 and report_lines are re-exported for bench game and the tests.
__all__ = ["BUDGET_MS", "bench_v1", "bench_v2", "main", "report_lines", "run"]

BUDGET_MS = {"peer": 300.0, "peer_stretch": 60.0, "verifier": 300.0}


def run(hands: int) -> dict[str, Any]:
    """Both versions; ``ok`` if v2 is within the issue's budget."""
    v1 = bench_v1(hands)
    v2 = bench_v2(hands)
    worst = max(v2["hand_ms"].values())
    return {
        "hands": hands,
        "cpu": "process time, medians",
        "v1": v1,
        "v2": v2,
        "budget_ms": BUDGET_MS,
        "ok": worst <= BUDGET_MS["peer"] and v2["verifier_ms"] <= BUDGET_MS["verifier"],
        "stretch_ok": worst <= BUDGET_MS["peer_stretch"],
    }


def main(hands: int, as_json: bool) -> int:
    """Run over ``hands`` hands; print text or one JSON object."""
    if hands < 1:
        print(
            "truc-p2p bench: " + _("--hands must be at least 1, not {n}", n=hands),
            file=sys.stderr,
        )
        return 2
    result = run(hands)
    if as_json:
        print(json.dumps(result, sort_keys=True))
        return 0
    print("\n".join(report_lines(result)))
    return 0
