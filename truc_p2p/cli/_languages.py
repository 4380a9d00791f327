"""``truc-p2p languages``: the languages the game speaks and how complete each is."""

from __future__ import annotations

import argparse
import json
from typing import Any

from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.i18n import _, completeness, current

__all__ = ["register"]


def register(subparsers: Any) -> None:
    languages = subparsers.add_parser(
        "languages",
        help=_(COMMAND_HELP["languages"]),
        description=_(
            "List the languages the game speaks: code, own name and completeness "
            "(translated messages / all messages, from the shipped catalogs).  Choose one with "
            "--lang CODE or the environment (LANGUAGE, LC_ALL, LC_MESSAGES, LANG)."
        ),
    )
    languages.add_argument("--json", action="store_true", help=_("print one JSON array"))
    languages.set_defaults(func=_languages)


def _languages(args: argparse.Namespace) -> int:
    rows = completeness()
    if args.json:
        # language-neutral: codes and counts, no sentence
        print(
            json.dumps(
                [
                    {
                        "code": row.code,
                        "name": row.name,
                        "translated": row.translated,
                        "total": row.total,
                        "complete": row.translated == row.total,
                    }
                    for row in rows
                ],
                ensure_ascii=False,
            )
        )
        return 0
    for row in rows:
        mark = "*" if row.code == current() else " "
        print(
            f"{mark} {row.code:<3} {row.name:<12} "
            + _(
                "{translated}/{total} messages ({percent}%)",
                translated=row.translated,
                total=row.total,
                percent=f"{row.percent:.0f}",
            )
        )
    return 0
