"""``truc-p2p verify FILE``: check a game's transcript offline.

The first line printed is the verdict in one sentence with the players' names
(:meth:`VerifyReport.headline`); the details follow.  Exit status (wire.md
section 10): 0 **complete** -- a fair game with a co-signed result, or one a
player resigned; 1 **violation** -- a message breaks the protocol (a cheat,
a forged or altered message, a refused audit), or the file is damaged in a
way no writer produces (corrupt); 2 the file cannot be read or is not a
transcript at all (missing, a directory, permission denied, empty, bad magic
line), or ``--secret`` cannot be used; 3 **unfinished** -- the game stops
before its end (a lost connection, a player who left without resigning, a
file cut inside a frame by a crash or a full disk) and every whole message
up to there checks.  A game that stopped is not a cheat, so it never exits 1.
4 **cannot judge** (wire.md section 11.2) -- the hellos agree on a feature this
build does not know: the envelopes are checked (a fault there is still 1) and
nothing else is judged, so an honest player of a later version is never blamed.
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

from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.evidence import check_evidence_file
from truc_p2p.i18n import _, ngettext
from truc_p2p.protocol import TranscriptFormatError, VerifyReport, verify_transcript
from truc_p2p.transcript import scan_transcript_file
from truc_p2p.verdict import (
    EXIT_STATUS,
    damage_line,
    evidence_said,
    scan_json,
    verify_summary,
    with_damage,
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify",
        help=_(COMMAND_HELP["verify"]),
        description=_(
            "Check every signature, the chain, every move and every card of a "
            "game's transcript; the first line says the verdict in plain words. Exit "
            "statuses: 0 complete (a fair game with a co-signed result, or one a player "
            "resigned); 1 violation (a message breaks the protocol: the first one is "
            "named, and nothing after it is claimed; also a corrupt file); 2 the file "
            "cannot be read or is not a transcript, or --secret cannot be used; 3 "
            "unfinished (the game stops before its end -- a lost connection, a player who "
            "left without resigning, a file cut by a crash -- and every message up to "
            "there checks)."
        )
        + " "
        + _(
            "4 cannot judge (the players agreed on a feature of a later version this build "
            "does not know, named in the first line: nobody is blamed; verify it with a "
            "build that knows it)."
        ),
    )
    parser.add_argument(
        "file", nargs="?", default=None, metavar="FILE", help=_("transcript file (.truc)")
    )
    parser.add_argument(
        "--match",
        metavar="FILE",
        default=None,
        help=_(
            "verify a match record (match-ID.json): every game it names verifies, "
            "same two players, each game follows the previous one, and the match result"
        ),
    )
    parser.add_argument(
        "--secret",
        metavar="PATH",
        help=_(
            "your session secret for this game (FILE.secret, written beside your "
            "transcript): replays hands whose seeds were never revealed from your side, "
            "so a cheat in a game that stopped before its audit is pinpointed too"
        ),
    )
    parser.add_argument("--json", action="store_true", help=_("print one JSON object"))
    parser.set_defaults(func=_verify)


def _unreadable(args: argparse.Namespace, exc: OSError | TranscriptFormatError) -> int:
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    if args.json:
        error = f"cannot read transcript: {reason}"
        print(json.dumps({"valid": False, "status": "unreadable", "error": error}))
    print(
        "truc-p2p verify: " + _("cannot read {path}: {reason}", path=args.file, reason=reason),
        file=sys.stderr,
    )
    return 2


def _secret_adds(envelopes: list[bytes], path: Path, report: VerifyReport) -> bool:
    """Whether the secret at ``path`` would replay more of the game than the transcript
    alone does (a deck v2 game, or a v1 game audited to its end, has no hand it could
    open: then ``--secret`` is not worth a hint)."""
    try:
        secret = _read_secret(path)
    except (OSError, ValueError):
        return False
    if len(secret) != 32:
        return False
    more = verify_transcript(envelopes, local_secret=secret)
    if more.local_secret_of is None:
        return False  # not this game's secret: the hint would only fail
    found = dataclasses.replace(more, local_secret_of=None)
    return found.to_json() != verify_transcript(envelopes).to_json() or found.moves != report.moves


def _read_secret(path: Path) -> bytes:
    """At most 33 bytes of a regular file (enough to tell a 32-byte secret); a device
    or a pipe is refused at once."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file")
        return f.read(33)


def _verify_match(args: argparse.Namespace) -> int:
    """``verify --match FILE``: 0 a valid match record, 1 rejected."""
    from truc_p2p.history import MatchError, verify_match

    try:
        report = verify_match(Path(args.match))
    except MatchError as exc:
        if args.json:
            print(json.dumps({"valid": False, "error": str(exc)}))
        else:
            print(_("match record rejected: {reason}", reason=exc.said()))
        return 1
    if args.json:
        print(
            json.dumps(
                {
                    "valid": True,
                    "headline": report.headline(),
                    "games": report.games,
                    "played": report.played,
                    "wins": list(report.wins),
                    "winner": report.decided,
                    "left": report.left,
                    "names": list(report.names),
                    "fingerprints": list(report.fingerprints),
                }
            )
        )
    else:
        print(report.said())
        print(
            ngettext(
                "match record: VALID ({n} game, each transcript verified)",
                "match record: VALID ({n} games, each transcript verified)",
                report.played,
            )
        )
    return 0


def _verify(args: argparse.Namespace) -> int:
    if args.match is not None:
        if args.file is not None:
            print(
                "truc-p2p verify: " + _("give a transcript or --match FILE, not both"),
                file=sys.stderr,
            )
            return 2
        return _verify_match(args)
    if args.file is None:
        print("truc-p2p verify: " + _("give a transcript file (or --match FILE)"), file=sys.stderr)
        return 2
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
            print(
                "truc-p2p verify: "
                + _("cannot read {path}: {reason}", path=args.secret, reason=reason),
                file=sys.stderr,
            )
            return 2
        if len(secret) != 32:
            print(
                "truc-p2p verify: " + _("{path} is not a 32-byte secret", path=args.secret),
                file=sys.stderr,
            )
            return 2
    if args.json:
        # one judgement with the site's verify page (ui.verify_json of a dropped file)
        evidence = check_evidence_file(Path(args.file), envelopes)  # wire.md 13.8
        obj = scan_json(scan, local_secret=secret, evidence=evidence)
        print(json.dumps(obj))
        return EXIT_STATUS[str(obj["status"])]
    report = with_damage(verify_transcript(envelopes, local_secret=secret), scan)
    summary = verify_summary(report, scan).split("\n")
    print(summary[0])  # the verdict in one sentence comes first
    if scan.damage is not None and report.error_code != scan.damage:
        print(damage_line(scan))  # else the summary's last line says it
    print("\n".join(summary[1:]))
    for line in evidence_said(check_evidence_file(Path(args.file), envelopes)):  # wire.md 13.8
        print(line)
    beside = Path(args.file + ".secret")
    if (
        secret is None
        and report.error_code in ("aborted", "incomplete")
        and beside.exists()
        and _secret_adds(envelopes, beside, report)
    ):
        print(
            _(
                "hint: '{command}' replays the hands never revealed from your side",
                command=f"truc-p2p verify {args.file} --secret {beside}",
            )
        )
    return EXIT_STATUS[report.status]
