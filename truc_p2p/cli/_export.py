"""``truc-p2p export FILE``: a game as a short plain-text record, like PGN for chess
(the format: :func:`truc_p2p.history.export_record`, ``protocol_spec/record.md``).

Exit status: 0 when the record was written and the transcript verifies; 1
when it was written but the transcript does not verify (the record says so
in its ``Verified`` tag and stops where the verifier did); 2 when the file
cannot be read or is not a transcript.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.history import UnreadableGame, export_record, read_game
from truc_p2p.i18n import _

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export",
        help=_(COMMAND_HELP["export"]),
        description=_(
            "Print the game of a transcript as a plain-text record: players, rules, "
            "each hand's moves and result, the final result, the game id (format: "
            "protocol_spec/record.md). Exit 0 when the transcript verifies, 1 when it does not "
            "(the record says so), 2 when the file cannot be read or is not a transcript."
        ),
    )
    parser.add_argument("file", metavar="FILE", help=_("transcript file (.truc)"))
    parser.add_argument("-o", "--output", metavar="PATH", help=_("write to PATH, not stdout"))
    parser.set_defaults(func=_export)


def _export(args: argparse.Namespace) -> int:
    try:
        record = read_game(args.file)
    except UnreadableGame as exc:
        print(
            _("truc-p2p export: cannot read {file}: {reason}", file=args.file, reason=exc.reason),
            file=sys.stderr,
        )
        return 2
    text = export_record(record)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            print(
                _(
                    "truc-p2p export: cannot write {file}: {reason}",
                    file=args.output,
                    reason=exc.strerror or exc,
                ),
                file=sys.stderr,
            )
            return 2
    else:
        sys.stdout.write(text)
    return 0 if record.verifies else 1
