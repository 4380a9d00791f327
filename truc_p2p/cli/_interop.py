"""The ``truc-p2p interop`` command: the runner itself is :mod:`truc_p2p.interop`."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["register"]


def register(subparsers: Any) -> None:
    from truc_p2p.cli._common import positive_seconds
    from truc_p2p.cli._parser import COMMAND_HELP
    from truc_p2p.i18n import _
    from truc_p2p.interop import CASES, DEFAULT_CASE_TIMEOUT, SLOW_THINK

    parser = subparsers.add_parser(
        "interop",
        help=_(COMMAND_HELP["interop"]),
        description=_(
            "Run COMMAND with sh -c once for each case and role, with the TRUC_* "
            "variables of protocol_spec/interop.md, play the other side and print the "
            "verdicts as a table. Exit 0 when no case failed, 1 otherwise."
        ),
    )
    parser.add_argument(
        "--peer", required=True, metavar="COMMAND", help=_("the command of the peer under test")
    )
    parser.add_argument(
        "--case",
        action="append",
        choices=tuple(CASES),
        default=None,
        metavar="NAME",
        help=_("only this case (repeatable; default: all of them, in protocol_spec/interop.md)"),
    )
    parser.add_argument(
        "--role",
        action="append",
        choices=("host", "join"),
        default=None,
        metavar="ROLE",
        help=_("only this role of the peer, host or join (repeatable; default: both)"),
    )
    parser.add_argument(
        "--json", action="store_true", help=_("print the result as one JSON object")
    )
    parser.add_argument(
        "--work",
        default=None,
        metavar="DIR",
        help=_("directory for the files of each case (default: a new temporary directory)"),
    )
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_CASE_TIMEOUT,
        metavar="S",
        help=_(
            "seconds a case may take before it fails (default {default})",
            default=f"{DEFAULT_CASE_TIMEOUT:g}",
        ),
    )
    parser.add_argument(
        "--slow-think",
        type=positive_seconds,
        default=SLOW_THINK,
        metavar="S",
        help=_(
            "seconds the runner thinks once in the slow case (default {default})",
            default=f"{SLOW_THINK:g}",
        ),
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help=_("also run the adversarial cases of SHOULD-level rows"),
    )
    parser.add_argument(
        "--junit", default=None, metavar="FILE", help=_("also write a JUnit XML report to FILE")
    )
    parser.add_argument(
        "--error-map",
        default=None,
        metavar="FILE",
        help=_("the peer's error codes and unsupported cases (protocol_spec/interop.md 8.3)"),
    )
    parser.set_defaults(func=_interop)


def _interop(args: argparse.Namespace) -> int:
    from truc_p2p.interop import (
        NO_MAP,
        RunnerConfig,
        default_cases,
        dumps,
        junit,
        matrix_text,
        read_error_map,
        run_cases,
    )

    errors = NO_MAP
    if args.error_map:
        try:
            errors = read_error_map(Path(args.error_map))
        except ValueError as exc:
            print(f"truc-p2p interop: {exc}", file=sys.stderr)
            return 2
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="truc-interop-"))
    cfg = RunnerConfig(peer=args.peer, work=work, timeout=args.timeout, slow_think=args.slow_think)
    cases = list(dict.fromkeys(args.case or default_cases(strict=args.strict)))
    roles = list(dict.fromkeys(args.role or ("host", "join")))
    results = run_cases(cfg, cases, roles, errors)
    if args.junit:
        try:
            Path(args.junit).write_text(junit(results), encoding="utf-8")
        except OSError as exc:
            print(f"truc-p2p interop: cannot write {args.junit}: {exc}", file=sys.stderr)
    if args.json:
        print(dumps(results))
    else:
        print(matrix_text(results))
        print(f"files: {work}", file=sys.stderr)
    return 1 if any(r.result == "fail" for r in results) else 0
