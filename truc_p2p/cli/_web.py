"""``--web`` for ``play``, ``host`` and ``join``: the few hooks the commands call."""

from __future__ import annotations

import argparse
import ipaddress
import sys
import webbrowser
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

import trio

from truc_p2p.cli._common import transcript_report, verdict_words
from truc_p2p.net import GameOutcome, Invite
from truc_p2p.rules import Player
from truc_p2p.ui import (
    Voice,
    WebPlayer,
    _,
    bind_table,
    headline_key,
    ngettext,
    outcome_text,
    score_label,
    serve_table,
)
from truc_p2p.ui import headline as headline_text

__all__ = [
    "add_web_args",
    "bot_level",
    "final_message",
    "show_invite",
    "show_web_result",
    "web_player",
    "with_web",
]


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("not a port number: {text}", text=repr(text))) from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(
            _("must be from {low} to {high}, not {value}", low=0, high=65535, value=value)
        )
    return value


def add_web_args(parser: argparse.ArgumentParser) -> None:
    """``--web``, ``--web-port N`` and ``--no-browser``."""
    group = parser.add_argument_group(_("web table"))
    group.add_argument(
        "--web",
        action="store_true",
        help=_("play in your browser: serve the table on 127.0.0.1 and open it"),
    )
    group.add_argument(
        "--web-port",
        type=_port,
        default=0,
        metavar="N",
        help=_("port of the web table on 127.0.0.1 (default: a free one)"),
    )
    group.add_argument(
        "--no-browser", action="store_true", help=_("with --web: only print the table's URL")
    )


class WebOptions(Protocol):
    """The command-line options the web table reads (a game command's typed options)."""

    @property
    def command(self) -> str: ...
    @property
    def web(self) -> bool: ...
    @property
    def web_port(self) -> int: ...
    @property
    def no_browser(self) -> bool: ...
    @property
    def json(self) -> bool: ...
    @property
    def lang(self) -> str | None: ...
    @property
    def timeout(self) -> float | None: ...
    @property
    def match(self) -> int: ...


class LevelOptions(Protocol):
    """What :func:`bot_level` reads: the bot chosen and the command line as typed."""

    @property
    def bot(self) -> str | None: ...
    @property
    def argv(self) -> Sequence[str]: ...


def web_player(args: WebOptions, name: str) -> WebPlayer | None:
    """The browser player when ``--web`` was given, else ``None``."""
    if not args.web:
        return None
    return WebPlayer(
        name,
        move_seconds=args.timeout,
        lang_pinned=args.lang is not None,
        match_games=args.match,
    )


def bot_level(args: LevelOptions, player: object, *, resumed: bool = False) -> bool:
    """``play --web``: let the page choose the bot's level.  The end screen offers the
    levels for a rematch when the bot is one; returns whether the page's start panel
    must ask first (no ``--bot`` nor ``--think`` on the command line, not a match
    going on after a crash)."""
    if not isinstance(player, WebPlayer):
        return False
    from truc_p2p.bots import LEVELS

    words = [str(w).split("=", 1)[0] for w in args.argv]
    chosen = "--bot" in words or "--think" in words
    if args.bot in LEVELS:
        player.level = args.bot
    return player.level is not None and not chosen and not resumed


async def ask_bot_level(player: object, stop: trio.Event) -> bool:
    """The start panel: wait for the player's level (then in ``player.level``);
    ``False`` when the player left first."""
    return isinstance(player, WebPlayer) and await player.ask_level(stop)


def with_web(
    args: WebOptions, player: object, main: Callable[[trio.Event], Awaitable[int]]
) -> Callable[[trio.Event], Awaitable[int]]:
    """``main`` run beside the web table's server when ``player`` is a :class:`WebPlayer`."""
    if not isinstance(player, WebPlayer):
        if args.web:
            print(_("(--web ignored: a bot plays for you)"), file=sys.stderr)
        return main
    out = sys.stderr if args.json else sys.stdout

    async def run(stop: trio.Event) -> int:
        try:
            listeners = await bind_table(args.web_port)
        except OSError as exc:
            print(
                f"truc-p2p {args.command}: "
                + _(
                    "cannot serve the web table on 127.0.0.1 port {port}: {reason}",
                    port=args.web_port,
                    reason=exc.strerror or exc,
                ),
                file=sys.stderr,
            )
            return 2
        async with serve_table(player, listeners) as server:
            player.publisher = server
            print(_("web table: {url}", url=server.url), file=out, flush=True)
            print(_("(open it in a browser on this machine; the link is yours alone)"), file=out)
            if not args.no_browser and not await trio.to_thread.run_sync(
                webbrowser.open, server.url
            ):
                print(_("(no browser could be started: open the link yourself)"), file=out)
            # Leaving from the page while the opponent thinks stops the game like Ctrl-C.
            leaving = trio.Event()
            player.leave = leaving
            either = trio.Event()

            async def forward(event: trio.Event) -> None:
                await event.wait()
                either.set()

            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(forward, stop)
                    nursery.start_soon(forward, leaving)
                    status = await main(either)
                    nursery.cancel_scope.cancel()
                await server.drain()
            finally:
                player.publisher = None
                player.leave = None
        return status

    return run


#: Headlines (besides a won result) that the end screen shows as a win.
_WON = frozenset({"opponent-resigned", "opponent-gone", "opponent-timeout"})

#: ``final_message``'s default: verify the transcript now.
_VERIFY_NOW: Any = object()


def final_message(outcome: GameOutcome, report: object = _VERIFY_NOW) -> dict[str, Any]:
    """The end screen: result, co-signed status and the verifier's verdict, in the
    language in use (``report``: the transcript's :func:`transcript_report`, when it
    was verified already: the end screen is told again after a change of language).

    ``verdict.status`` tells a complete game from an unfinished one (left, timed
    out, connection lost: every move up to there checks) and from a violation;
    ``verdict.line`` / ``cosigned_line`` are the sentences the page shows."""
    me = outcome.me
    names = outcome.names
    scores = outcome.scores
    key, _hand = headline_key(outcome)
    # the headline names the reason from the viewer's side (one table of them)
    headline = headline_text(outcome)
    won = key.startswith("won-") or key in _WON
    verdict: dict[str, Any] | None = None
    path = outcome.transcript
    if path is not None:
        verdict = _verify(transcript_report(path) if report is _VERIFY_NOW else report)
    voice = Voice({p: names[p] or (_("you") if p is me else _("opponent")) for p in Player}, me)
    score_line = score_label(outcome, voice.score(scores)) if scores is not None else None
    message = outcome_text(outcome)
    cosigned_line = (
        _("✔ result co-signed by both players")
        if outcome.valid
        else _("no co-signed result: the game did not reach its end")
    )
    resignation = outcome.resignation
    if outcome.valid and outcome.result is not None:
        # the headline, the score and the co-signed line say the rest
        message = ngettext("{n} hand played", "{n} hands played", outcome.result.hands)
    elif outcome.complete and resignation is not None:
        # a signed resignation ends the game: no co-signed result is owed; the headline
        # says who resigned and when, the points are labelled as the score then
        message = ngettext("{n} hand played", "{n} hands played", resignation.hand)
        cosigned_line = _("✔ the resignation is signed: the game is over")
    return {
        "headline": headline,
        "message": message,
        "outcome": outcome.end.value,
        "won": won,
        "score": {"me": scores[me], "opp": scores[me.other]} if scores is not None else None,
        "score_line": score_line,
        "hands": outcome.hands,
        "cosigned": outcome.valid or (outcome.complete and resignation is not None),
        "cosigned_line": cosigned_line,
        "verdict": verdict,
        "transcript": str(path) if path is not None else None,
    }


#: What the end screen says of the transcript, by ``verdict.status``.
_VERDICT_LINES = {
    "complete": lambda: _("✔ verified: the transcript replays as a fair, complete game"),
    "unfinished": lambda: _(
        "unfinished: the game stopped before its end; every move up to there checks"
    ),
    "violation": lambda: _("✘ the verifier found a violation in this transcript"),
    "unreadable": lambda: _("the transcript could not be read"),
}
#: Verifier error codes that only mean "stopped early", not a fault.
_UNFINISHED = frozenset({"incomplete", "aborted"})


def _verify(report: object) -> dict[str, Any]:
    """The verifier's verdict, in ``truc-p2p verify``'s own words and statuses."""
    verdict = verdict_words(report)
    status = str(verdict["status"])
    line = _VERDICT_LINES.get(status)
    return {
        "valid": bool(verdict["valid"]),
        "status": status,
        "line": line() if line is not None else status,
        "headline": verdict["headline"],
        "summary": verdict["summary"],
    }


def show_invite(player: object, invite: Invite, *, relay: str | None = None) -> None:
    """``host --web``: put the invite on the page, with how a friend reaches us."""
    if not isinstance(player, WebPlayer):
        return
    hint: str | None
    if invite.relay is not None:
        hint = _(
            "registered with the relay {relay}: your friend can join from behind NAT, "
            "no port forwarding needed",
            relay=relay or f"{invite.relay[0]}:{invite.relay[1]}",
        )
    else:
        try:
            address = ipaddress.ip_address(invite.host)
        except ValueError:
            address = None
        # the page says the one road a person in a browser can take (a relay, no
        # router settings); the terminal that started it also names --advertise
        if address is not None and address.is_loopback:
            hint = _(
                "this invite only works on this machine; to play over the internet, host "
                "through a relay: {command}",
                command="truc-p2p host --web --relay HOST:PORT",
            )
        elif address is not None and address.is_private:
            hint = _(
                "this invite works on your local network; to play over the internet, host "
                "through a relay: {command}",
                command="truc-p2p host --web --relay HOST:PORT",
            )
        else:
            hint = None
    player.invite(str(invite), hint)


async def show_web_result(player: object, outcome: GameOutcome) -> None:
    """Send the end screen to the page (the transcript is verified in a thread)."""
    if isinstance(player, WebPlayer):
        path = outcome.transcript
        report = None if path is None else await trio.to_thread.run_sync(transcript_report, path)
        player.finish(final_message(outcome, report), retell=lambda: final_message(outcome, report))
