"""The options of ``host``, ``join``, ``resume`` and ``play``: the argparse
definitions they share, and :class:`GameOptions`, what the command line said as
one typed, frozen value, read from argparse once at the edge (no ``args`` below)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, TextIO

from truc_p2p.cli._common import (
    StoreExplicit,
    add_bot_arg,
    add_pipeline_arg,
    add_ruleset_args,
    positive_seconds,
)
from truc_p2p.history import GAMES_FOLDER_HELP, default_games_folder
from truc_p2p.i18n import N_, _
from truc_p2p.net import (
    DEFAULT_BOT_TIMEOUT,
    DEFAULT_GRACE,
    DEFAULT_HELLO_TIMEOUT,
    DEFAULT_PORT,
    DEFAULT_TURN_TIMEOUT,
)
from truc_p2p.rules import DEFAULT_RULESET

__all__ = ["ClockOptions", "GameOptions", "Network", "RulesChoice", "Screen", "Who"]


#: Seconds a joiner who asked to play again waits for the host to listen again.
REMATCH_WAIT = 120.0


@dataclass(frozen=True, kw_only=True)
class Who:
    """Who plays: the name shown, the key, and the bot that plays for the player."""

    name: str | None = None
    identity: str | None = None
    bot: str | None = None
    think: float | None = None
    seed: int | None = None


@dataclass(frozen=True, kw_only=True)
class RulesChoice:
    """The game asked for (a joiner: as the invite or the lobby says the host plays):
    the ruleset, the deal, the match, and which of them the user gave."""

    target: int = DEFAULT_RULESET.target
    ladder: str = DEFAULT_RULESET.ladder.value
    rest_refused: str = DEFAULT_RULESET.rest_refused.value
    no_pipeline: bool = False
    match: int = 1
    #: The ruleset and match options given on the command line (dest names).
    explicit_options: frozenset[str] = frozenset()
    #: What the host plays, as its invite says (``None``: the session's default).
    host_audit: str | None = None
    host_deck: str | None = None

    @property
    def given(self) -> frozenset[str]:
        """The ruleset options the user actually gave, and ``no_pipeline`` when
        ``--no-pipeline`` was given: what a joiner insists on (connect.md 1.1)."""
        return self.explicit_options | ({"no_pipeline"} if self.no_pipeline else frozenset())

    @property
    def pipeline(self) -> bool | None:
        """The session's ``pipeline``: False with ``--no-pipeline``, else the default."""
        return False if self.no_pipeline else None


@dataclass(frozen=True, kw_only=True)
class ClockOptions:
    """How long things may take: the opponent's moves (``--timeout``; ``resume``
    has none: ``None``), a hello, a comeback, a connection, and the waits between
    the games of a match."""

    timeout: float | None = None
    hello_timeout: float = DEFAULT_HELLO_TIMEOUT
    grace: float = DEFAULT_GRACE
    connect_timeout: float = 15.0
    again_wait: float = REMATCH_WAIT
    wait: float = 2.0

    @property
    def turn_timeout(self) -> float:
        """Seconds per move (``--timeout``; ``resume`` reads them from the game)."""
        return DEFAULT_TURN_TIMEOUT if self.timeout is None else self.timeout


@dataclass(frozen=True, kw_only=True)
class Screen:
    """What the player sees: the terminal's words and cards, or the web table."""

    json: bool = False
    quiet: bool = False
    verbose: bool = False
    ascii: bool = False
    lang: str | None = None
    web: bool = False
    web_port: int = 0
    no_browser: bool = False

    @property
    def info(self) -> TextIO:
        """Where the command's lines for a person go (stderr when stdout is JSON)."""
        return sys.stderr if self.json else sys.stdout


@dataclass(frozen=True, kw_only=True)
class Network:
    """Where a host listens and whom it admits, and what a joiner dials or picks."""

    bind: str | None = None
    port: int = DEFAULT_PORT
    advertise: str | None = None
    relay: str | None = None
    public: bool = False
    nostr: tuple[str, ...] | None = None
    #: ``host --turn turn:HOST:PORT`` and its long-term credential (connect.md §11)
    turn: str | None = None
    turn_user: str | None = None
    turn_password: str | None = field(default=None, repr=False)
    allow: tuple[str, ...] | None = None
    max_games: int | None = None
    forever: bool = False
    no_portmap: bool = False
    no_announce: bool = False
    invite: str | None = None
    pick: int | None = None
    #: ``join --bot``: the rematches the bot plays when the host plays again.
    rematches: int = 0


#: The groups of :class:`GameOptions`: its field name -> the group's type.
_GROUP_TYPES = {"who": Who, "rules": RulesChoice, "clocks": ClockOptions}
_GROUP_TYPES |= {"screen": Screen, "network": Network}


@dataclass(frozen=True, kw_only=True)
class GameOptions:
    """Everything a game command was told, typed, in groups.  An option the command
    does not have keeps the default here (``resume`` has no ``--timeout``: ``None``;
    ``play`` no ``--grace``: the protocol's); the parser's own defaults come in
    through :meth:`from_args`."""

    command: str
    #: The command line as typed (a match resumed after a crash goes on with it).
    argv: tuple[str, ...] = ()
    #: Where the transcripts go.
    out: str = "games"
    #: ``resume``: the transcript to go on with.
    transcript: str | None = None
    who: Who = field(default_factory=Who)
    rules: RulesChoice = field(default_factory=RulesChoice)
    clocks: ClockOptions = field(default_factory=ClockOptions)
    screen: Screen = field(default_factory=Screen)
    network: Network = field(default_factory=Network)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> GameOptions:
        """The options argparse parsed (the only place that reads its namespace)."""
        given = dict(vars(args))
        for key in ("argv", "allow", "nostr"):
            if given.get(key) is not None:
                given[key] = tuple(given[key])

        def picked(kind: type) -> dict[str, Any]:
            return {f.name: given[f.name] for f in fields(kind) if f.name in given}

        groups = {name: kind(**picked(kind)) for name, kind in _GROUP_TYPES.items()}
        top = {k: v for k, v in picked(cls).items() if k not in _GROUP_TYPES}
        return cls(**top, **groups)


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
        "--out",
        default=str(default_games_folder()),
        metavar="DIR",
        help=_(GAMES_FOLDER_HELP, path=str(default_games_folder()).replace("%", "%%")),
    )
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TURN_TIMEOUT,
        metavar="S",
        help=_(
            "seconds the opponent may take per move before the game ends by timeout "
            "(default {default} seconds; {bot} seconds is plenty for a bot)",
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
            "abandoned (default {default} seconds)",
            default=f"{DEFAULT_GRACE:g}",
        ),
    )
    parser.add_argument(
        "--hello-timeout",
        type=positive_seconds,
        default=DEFAULT_HELLO_TIMEOUT,
        metavar="S",
        help=_(
            "seconds a new connection has to send its first message (default {default} seconds)",
            default=f"{DEFAULT_HELLO_TIMEOUT:g}",
        ),
    )


#: The option groups of a game command's ``--help``, in order: title -> the dests in it.
#: What a player sets first comes first; an option in no group stays under "options".
_GROUPS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        N_("the game"),
        frozenset(
            {"opponent", "bot", "think", "seed", "name", "target", "ladder", "rest_refused"}
            | {"match", "timeout"}
        ),
    ),
    (
        N_("the connection"),
        frozenset(
            {"bind", "port", "relay", "public", "nostr", "advertise", "no_portmap", "no_announce"}
            | {"allow", "pick", "wait", "connect_timeout", "again_wait", "rematches"}
            | {"turn", "turn_user", "turn_password"}
        ),
    ),
    (
        N_("the screen"),
        frozenset({"web", "web_port", "no_browser", "ascii", "quiet", "verbose", "json"}),
    ),
    (
        N_("advanced"),
        frozenset(
            {"identity", "out", "no_pipeline", "grace", "hello_timeout", "forever"} | {"max_games"}
        ),
    ),
)


def group_options(parser: argparse.ArgumentParser) -> None:
    """Sort a game command's options, once all are added, into the groups of
    :data:`_GROUPS` (the game, the connection, the screen, advanced) for ``--help``."""
    groups = [(parser.add_argument_group(_(title)), dests) for title, dests in _GROUPS]
    for old in list(parser._action_groups):
        if any(old is group for group, _dests in groups):
            continue
        for action in list(old._group_actions):
            if not action.option_strings:
                continue  # positionals stay where they are
            for group, dests in groups:
                if action.dest in dests:
                    old._group_actions.remove(action)
                    group._group_actions.append(action)
                    break
        if not old._group_actions and old not in (parser._positionals, parser._optionals):
            parser._action_groups.remove(old)


def with_options(command: Callable[[GameOptions], int]) -> Callable[[argparse.Namespace], int]:
    """For ``set_defaults(func=...)``: ``command`` run with its options read from
    argparse once, here."""

    def run(args: argparse.Namespace) -> int:
        return command(GameOptions.from_args(args))

    return run
