"""``truc-p2p hosts``: list the games announced on the LAN (mDNS/DNS-SD)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from truc_p2p.cli._common import positive_seconds
from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.i18n import _

if TYPE_CHECKING:
    from truc_p2p.net import FoundGame

__all__ = ["describe", "register"]


def register(subparsers: Any) -> None:
    hosts = subparsers.add_parser(
        "hosts",
        help=_(COMMAND_HELP["hosts"]),
        description=_(
            "Listen for games announced on the LAN by truc-p2p host (mDNS/DNS-SD, "
            "_truc._tcp) and list them: name, fingerprint, settings and invite."
        ),
    )
    hosts.add_argument(
        "--wait", type=positive_seconds, default=2.0, metavar="S", help=_("listen S seconds (2)")
    )
    hosts.add_argument("--json", action="store_true", help=_("print one JSON array"))
    hosts.set_defaults(func=_hosts)


def describe(game: FoundGame) -> str:
    """One line for a person: name, fingerprint prefix, settings, address."""
    from truc_p2p.net import host_port

    settings = " ".join(f"{k}={v}" for k, v in sorted(game.settings.items()))
    where = host_port(game.addresses[0], game.port)
    return f"{game.name}  key {game.fingerprint[:16]}…  {settings}  at {where}"


def _hosts(args: argparse.Namespace) -> int:
    import trio  # here, not at the top: ``hosts --help`` and bad arguments stay light

    from truc_p2p.net import find_games

    games = trio.run(find_games, args.wait)
    if args.json:
        print(json.dumps([g.to_json() for g in games]), flush=True)
        return 0
    if not games:
        print(_("no game found on this LAN"), file=sys.stderr)
        return 1
    for i, game in enumerate(games, 1):
        print(f"{i}. {describe(game)}")
        print(f"   {game.invite}")
    return 0
