"""``truc-p2p verify FILE``: check a finished game's transcript offline."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from truc_p2p.protocol import TranscriptFormatError, verify_transcript
from truc_p2p.transcript import read_transcript


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="verify a game transcript: signatures, chain, rules, deck audit, result",
        description="Exit 0 when the transcript is a complete, fair, co-signed game; "
        "1 with the first violation when not; 2 when the file cannot be read.",
    )
    parser.add_argument("file", help="transcript file (.truc)")
    parser.add_argument(
        "--secret",
        metavar="PATH",
        help="your session secret for this game (FILE.secret, written beside your "
        "transcript): replays hands whose seeds were never revealed from your side, "
        "so a cheat in a game that stopped before its audit is pinpointed too",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=_verify)


def _verify(args: argparse.Namespace) -> int:
    try:
        envelopes = read_transcript(args.file)
    except (OSError, TranscriptFormatError) as exc:
        if args.json:
            print(json.dumps({"valid": False, "error": f"cannot read transcript: {exc}"}))
        else:
            print(f"truc-p2p verify: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    secret = None
    if args.secret is not None:
        try:
            secret = Path(args.secret).read_bytes()
        except OSError as exc:
            print(f"truc-p2p verify: cannot read {args.secret}: {exc}", file=sys.stderr)
            return 2
        if len(secret) != 32:
            print(f"truc-p2p verify: {args.secret} is not a 32-byte secret", file=sys.stderr)
            return 2
    report = verify_transcript(envelopes, local_secret=secret)
    if args.json:
        print(json.dumps(report.to_json()))
        return 0 if report.valid else 1
    print(report.summary())
    beside = Path(args.file + ".secret")
    if secret is None and report.error_code in ("aborted", "incomplete") and beside.exists():
        print(
            f"hint: 'truc-p2p verify {args.file} --secret {beside}' replays the hands "
            "never revealed from your side"
        )
    return 0 if report.valid else 1
