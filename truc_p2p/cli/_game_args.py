"""The options ``host``, ``join``, ``resume`` and ``play`` share (argparse only)."""

from __future__ import annotations

import argparse

from truc_p2p.cli._common import (
    StoreExplicit,
    add_bot_arg,
    add_pipeline_arg,
    add_ruleset_args,
    positive_seconds,
)
from truc_p2p.net import (
    DEFAULT_BOT_TIMEOUT,
    DEFAULT_GRACE,
    DEFAULT_HELLO_TIMEOUT,
    DEFAULT_TURN_TIMEOUT,
)
from truc_p2p.ui._i18n import _

__all__: list[str] = []


#: Seconds a joiner who asked to play again waits for the host to listen again.
REMATCH_WAIT = 120.0


def _common_args(parser: argparse.ArgumentParser, *, human: bool = True) -> None:
    if human:
        add_bot_arg(
            parser,
            default=None,
            help=_("let this bot play for you (default: you play in the terminal)"),
        )
    parser.add_argument("--seed", type=int, default=None, help=_("seed the bot's choices"))
    parser.add_argument("--name", default=None, help=_("your name shown to the opponent"))
    parser.add_argument(
        "--out", default="games", help=_("directory for the transcript (default games/)")
    )
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TURN_TIMEOUT,
        metavar="S",
        help=_(
            "seconds the opponent may take per move before the game ends by timeout "
            "(default {default}; {bot} is plenty for a bot)",
            default=f"{DEFAULT_TURN_TIMEOUT:g}",
            bot=f"{DEFAULT_BOT_TIMEOUT:g}",
        ),
    )
    parser.add_argument(
        "--json", action="store_true", help=_("print the result as one JSON object")
    )
    parser.add_argument("--quiet", action="store_true", help=_("do not narrate a bot's game"))
    parser.add_argument("--ascii", action="store_true", help=_("plain-ASCII cards (7S, not 7♠)"))
    parser.add_argument(
        "--verbose",
        action="store_true",
        help=_("also show keys, game ids and how the peers are connected"),
    )
    add_ruleset_args(parser)
    add_pipeline_arg(parser)
    parser.add_argument(
        "--match",
        type=_match_length,
        default=1,
        action=StoreExplicit,
        metavar="N",
        help=_(
            "play a match (partie liée) of N games: the first to win ceil(N/2) games "
            "wins it; the opponent must ask for the same N (default 1: one game)"
        ),
    )


def _match_length(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("not a number of games: {text}", text=repr(text))
        ) from None
    if not 1 <= n <= 99:
        raise argparse.ArgumentTypeError(_("a match is 1 to 99 games"))
    return n


def _network_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--grace",
        type=positive_seconds,
        default=DEFAULT_GRACE,
        metavar="S",
        help=_(
            "seconds a disconnected opponent has to come back before the game counts as "
            "abandoned (default {default})",
            default=f"{DEFAULT_GRACE:g}",
        ),
    )
    parser.add_argument(
        "--hello-timeout",
        type=positive_seconds,
        default=DEFAULT_HELLO_TIMEOUT,
        metavar="S",
        help=_(
            "seconds a new connection has to send its first message (default {default})",
            default=f"{DEFAULT_HELLO_TIMEOUT:g}",
        ),
    )
