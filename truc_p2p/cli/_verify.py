"""``truc-p2p verify FILE``: check a finished game's transcript offline.

Exit status: 0 for a complete, fair, co-signed game; 1 when the file is a
transcript (it starts with the magic line) whose content does not verify,
including a transcript cut inside a frame by a crash or a full disk (torn:
the whole messages before the cut are checked and the cut is reported) and
one damaged in a way no writer produces (corrupt); 2 when the file cannot be
read or is not a transcript at all (missing, a directory, permission denied,
empty, bad magic line), or ``--secret`` cannot be used.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from truc_p2p.evidence import evidence_lines
from truc_p2p.protocol import TranscriptFormatError, VerifyReport, verify_transcript
from truc_p2p.transcript import TranscriptScan, scan_transcript_file


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="verify a game transcript: signatures, chain, rules, deck audit, result",
        description="Exit 0 when the transcript is a complete, fair, co-signed game; "
        "1 when it is not (the first violation is named; a transcript cut inside a "
        "message by a crash is checked up to the cut and reported as incomplete); "
        "2 when the file cannot be read or is not a transcript.",
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


def _unreadable(args: argparse.Namespace, exc: OSError | TranscriptFormatError) -> int:
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    if args.json:
        print(json.dumps({"valid": False, "error": f"cannot read transcript: {reason}"}))
    print(f"truc-p2p verify: cannot read {args.file}: {reason}", file=sys.stderr)
    return 2


def _damage_line(scan: TranscriptScan) -> str:
    """One sentence on a torn or corrupt transcript: where, and what was still checked."""
    n = len(scan.envelopes)
    checked = f"the {n} whole message{'' if n == 1 else 's'} before it were checked"
    if scan.torn:
        return (
            f"the transcript is incomplete: {scan.detail} (a crash or a full disk while "
            f"writing?); {checked}"
        )
    return f"the transcript is corrupt: {scan.detail}; {checked}"


def _with_damage(report: VerifyReport, scan: TranscriptScan) -> VerifyReport:
    """A damaged file is never valid, even when its whole messages are."""
    if scan.damage is None or not report.valid:
        return report
    return dataclasses.replace(
        report, valid=False, error=_damage_line(scan), error_code=scan.damage
    )


def _read_secret(path: Path) -> bytes:
    """At most 33 bytes of a regular file (enough to tell a 32-byte secret); a device
    or a pipe is refused at once."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file")
        return f.read(33)


def _verify(args: argparse.Namespace) -> int:
    try:
        scan = scan_transcript_file(args.file)
    except (OSError, ValueError) as exc:  # ValueError: TranscriptFormatError, NUL in path
        if not isinstance(exc, OSError | TranscriptFormatError):
            exc = TranscriptFormatError(str(exc))
        return _unreadable(args, exc)
    envelopes = scan.envelopes
    secret = None
    if args.secret is not None:
        try:
            secret = _read_secret(Path(args.secret))
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            print(f"truc-p2p verify: cannot read {args.secret}: {reason}", file=sys.stderr)
            return 2
        if len(secret) != 32:
            print(f"truc-p2p verify: {args.secret} is not a 32-byte secret", file=sys.stderr)
            return 2
    report = _with_damage(verify_transcript(envelopes, local_secret=secret), scan)
    if args.json:
        obj = report.to_json()
        obj["damage"] = (
            None
            if scan.damage is None
            else {
                "kind": scan.damage,
                "message": scan.cut_message,
                "offset": scan.good_length,
                "dropped_bytes": scan.dropped,
                "detail": scan.detail,
            }
        )
        obj["evidence"] = evidence_lines(Path(args.file), envelopes)  # wire.md 13.8
        print(json.dumps(obj))
        return 0 if report.valid else 1
    if scan.damage is not None and report.error_code != scan.damage:
        print(_damage_line(scan))  # else the summary's violation line says it
    print(report.summary())
    for line in evidence_lines(Path(args.file), envelopes):  # wire.md 13.8
        print(line)
    beside = Path(args.file + ".secret")
    if secret is None and report.error_code in ("aborted", "incomplete") and beside.exists():
        print(
            f"hint: 'truc-p2p verify {args.file} --secret {beside}' replays the hands "
            "never revealed from your side"
        )
    return 0 if report.valid else 1
