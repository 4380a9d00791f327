"""The ``truc-p2p interop`` command (registered by ``truc_p2p/cli/_interop.py``)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["register"]


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value < 1e6:
        raise argparse.ArgumentTypeError("seconds must be above 0")
    return value


def register(subparsers: Any) -> None:
    from truc_p2p.interop._cases import CASE_NAMES, SLOW_THINK
    from truc_p2p.interop._runner import DEFAULT_CASE_TIMEOUT

    parser = subparsers.add_parser(
        "interop",
        help="test another implementation (or build) against this one, case by case",
        description=(
            "Run COMMAND with sh -c once per case and role, with the TRUC_* variables of "
            "protocol_spec/interop.md, and play the other side with this program; print "
            "the matrix of pass, FAIL and unsupported (exit 127 of the peer). Exit 0 when "
            "no case failed, 1 otherwise."
        ),
    )
    parser.add_argument("--peer", required=True, metavar="COMMAND", help="the peer to test")
    parser.add_argument(
        "--case",
        action="append",
        choices=CASE_NAMES,
        default=None,
        metavar="NAME",
        help="only this case (repeatable): " + ", ".join(CASE_NAMES),
    )
    parser.add_argument(
        "--role",
        action="append",
        choices=("host", "join"),
        default=None,
        help="only this role of the peer (repeatable; default both)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--work",
        default=None,
        metavar="DIR",
        help="directory for each case's transcripts and peer output (default: a new "
        "temporary directory, kept)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_CASE_TIMEOUT,
        metavar="S",
        help=f"seconds a case may take before it fails (default {DEFAULT_CASE_TIMEOUT:g}; "
        "slow adds its think)",
    )
    parser.add_argument(
        "--slow-think",
        type=_seconds,
        default=SLOW_THINK,
        metavar="S",
        help=f"the runner's think in the slow case (default {SLOW_THINK:g}; shorter "
        "scales the heartbeat clocks down and passes TRUC_HEARTBEAT)",
    )
    parser.set_defaults(func=_interop)


def _interop(args: argparse.Namespace) -> int:
    from truc_p2p.interop._cases import CASE_NAMES
    from truc_p2p.interop._runner import RunnerConfig, dumps, matrix_text, run_cases

    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="truc-interop-"))
    cfg = RunnerConfig(peer=args.peer, work=work, timeout=args.timeout, slow_think=args.slow_think)
    cases = list(dict.fromkeys(args.case or CASE_NAMES))
    roles = list(dict.fromkeys(args.role or ("host", "join")))
    results = run_cases(cfg, cases, roles)
    if args.json:
        print(dumps(results))
    else:
        print(matrix_text(results))
        print(f"files: {work}", file=sys.stderr)
    return 1 if any(r.result == "fail" for r in results) else 0
