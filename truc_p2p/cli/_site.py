"""``truc-p2p site build DIR`` and ``truc-p2p site check URL|DIR``: the static web client."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.i18n import _, ngettext

__all__ = ["register"]


def register(subparsers: Any) -> None:
    site = subparsers.add_parser(
        "site",
        help=_(COMMAND_HELP["site"]),
        description=_(
            "The site is the game in a browser, with nothing to install: any static host "
            "can serve the folder that 'site build' writes.  Every download is pinned and "
            "checked against its hash, and cached."
        ),
    )
    commands = site.add_subparsers(dest="site_command", metavar="COMMAND", required=True)
    build = commands.add_parser(
        "build",
        help=_("write the site into a folder"),
        description=_("Write the site into DIR, with a manifest of every file's SHA-256."),
    )
    build.add_argument("dir", metavar="DIR", type=Path, help=_("the folder to write"))
    check = commands.add_parser(
        "check",
        help=_("compare a deployed site with this build"),
        description=_(
            "Compare the site at URL or in DIR with this build, file by file: one line per "
            "difference; exit status 0 when identical, 1 otherwise."
        ),
    )
    check.add_argument("target", metavar="URL|DIR", help=_("the site's address or folder"))
    for command in (build, check):
        command.add_argument(
            "--offline",
            action="store_true",
            help=_("use only the downloads already in the cache"),
        )
    site.set_defaults(func=_site)


def _site(args: argparse.Namespace) -> int:
    from truc_p2p.site import (
        SiteError,
        check_site,
        check_target,
        reader_for,
        site_files,
        write_site,
    )

    try:
        if args.site_command == "build":
            check_target(args.dir)  # before the work of a build
            built = site_files(offline=args.offline)
            write_site(built, args.dir)
            print(
                ngettext(
                    "wrote the site into {dir}: {count} file, {size} MB (build {build})",
                    "wrote the site into {dir}: {count} files, {size} MB (build {build})",
                    len(built.files),
                    dir=str(args.dir),
                    count=len(built.files),
                    size=f"{built.size / 1e6:.1f}",
                    build=built.build[:16],
                )
            )
            return 0
        read = reader_for(args.target)
        report = check_site(read, site_files(offline=args.offline))
    except SiteError as exc:
        print(f"truc-p2p site: {exc}", flush=True)
        return 1
    for line in report.differences:
        print(line)
    if report.identical:
        print(
            ngettext(
                "identical to this build: {count} file checked",
                "identical to this build: {count} files checked",
                report.checked,
                count=report.checked,
            )
        )
        return 0
    print(
        ngettext(
            "{differences} difference from this build ({count} files checked)",
            "{differences} differences from this build ({count} files checked)",
            len(report.differences),
            differences=len(report.differences),
            count=report.checked,
        )
    )
    return 1
