"""How a game command runs: under trio until Ctrl-C (a first one leaves cleanly, a
second gives up), its exit status, and the last lines of a game."""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from truc_p2p.i18n import _
from truc_p2p.rules import Player

if TYPE_CHECKING:  # imported where used
    import trio

    from truc_p2p.net import GameOutcome

__all__ = ["CONFIRM_WINDOW", "exit_status", "print_outcome", "run_until_interrupted"]


def print_outcome(outcome: GameOutcome, *, as_json: bool, quiet: bool = False) -> None:
    """The last lines of host, join and play."""
    from truc_p2p.ui import Voice, fit, fit_for, headline, outcome_text, score_label, screen_width

    if as_json:
        print(json.dumps(outcome.to_json()), flush=True)
        return
    stream = sys.stdout if outcome.complete else sys.stderr
    if outcome.kind or outcome.complete:  # the web end screen's headline: why it ended
        line = headline(outcome)  # at a terminal, wrapped at its width between words
        print(fit_for(line, stream), file=stream)
    result = outcome.result
    if outcome.valid and result is not None:
        names = {
            p: outcome.names[p] or (_("opponent") if p is not outcome.me else _("you"))
            for p in Player
        }
        voice = Voice(names, outcome.me)  # the headline said who won: the points, signed
        points = score_label(outcome, voice.score(result.scores))
        line = voice.signed_points(points, hands=result.hands)
        print(fit_for(line, stream), file=stream)
    elif outcome.complete and outcome.resignation is not None:
        # the headline said who resigned and who won: the points are those of then
        r = outcome.resignation
        names = {
            p: outcome.names[p] or (_("opponent") if p is not outcome.me else _("you"))
            for p in Player
        }
        print(score_label(outcome, Voice(names, outcome.me).score(r.scores)), file=stream)
    elif outcome.complete:
        print(fit(outcome_text(outcome), screen_width(stream)), file=stream)
    else:
        print(_("game not finished: {why}", why=outcome_text(outcome)), file=stream)
    if outcome.transcript is not None:
        # whole, as the terminal list always printed them: a path to copy
        print(_("transcript: {path}", path=outcome.transcript), flush=True)
        if not quiet:
            print(
                _("verify it with: {command}", command=f"truc-p2p verify {outcome.transcript}"),
                flush=True,
            )


#: The signals that set the stop event in this run (none when the player left
#: another way, e.g. from the web table).
_stopped_by: list[int] = []


def exit_status(outcome: GameOutcome, stop: trio.Event) -> int:
    """The command's exit status: 128 + the signal when one made us leave (quit or
    resign), else the outcome's (1 when the player left from the web table or with
    ``q``: resigning is not a crash, but the command did not finish the game)."""
    from truc_p2p.net import End

    if outcome.end in (End.QUIT, End.RESIGNED) and stop.is_set() and _stopped_by:
        return 128 + _stopped_by[-1]  # 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP
    return outcome.exit_code


#: Seconds within which a second Ctrl-C confirms leaving a game played at the terminal.
CONFIRM_WINDOW = 3.0


def run_until_interrupted(
    main: Callable[[trio.Event], Awaitable[int]],
    *,
    confirm: bool | Callable[[], bool] = False,
    stopping: str | None = None,
    match_cost: Callable[[], tuple[str, str] | None] | None = None,
) -> int:
    """Run ``main(stop)`` under trio; the first Ctrl-C sets ``stop`` (leave cleanly and
    tell the opponent), a second one gives up at once (exit 130).

    With ``confirm`` (a person playing at the terminal), a lone Ctrl-C only asks:
    leaving resigns the game, so it takes a second Ctrl-C within
    :data:`CONFIRM_WINDOW` seconds (``stopping`` says what the command does then,
    by default "leaving the game..."); a callable ``confirm`` says whether a game is
    on (a host still waiting for its opponent stops at once: nothing to resign).
    In a match, ``match_cost`` gives who then wins the match and the games score:
    the question says the match is left, not only the game.  SIGTERM and SIGHUP
    never ask."""

    import trio

    from truc_p2p.ui import fit_for

    async def runner() -> int:
        _stopped_by.clear()
        stop = trio.Event()
        status: list[int] = []
        async with trio.open_nursery() as nursery:

            async def watch_signals() -> None:
                # SIGTERM and SIGHUP (a closed terminal) leave like Ctrl-C: a signed quit.
                with trio.open_signal_receiver(
                    signal.SIGINT, signal.SIGTERM, signal.SIGHUP
                ) as signals:
                    asked: float | None = None
                    async for signum in signals:
                        playing = confirm() if callable(confirm) else confirm
                        waiting = callable(confirm) and not playing
                        if waiting and signum == signal.SIGINT and not stop.is_set():
                            _stopped_by.append(signum)
                            print(
                                "\n" + _("interrupted: no game started, stopping"),
                                file=sys.stderr,
                            )
                            stop.set()
                            continue
                        if playing and signum == signal.SIGINT and not stop.is_set():
                            now = trio.current_time()
                            if asked is None or now - asked > CONFIRM_WINDOW:
                                asked = now
                                cost = match_cost() if match_cost is not None else None
                                seconds = f"{CONFIRM_WINDOW:g}"
                                question = (
                                    _(
                                        "press Ctrl-C again within {seconds} s to leave "
                                        "the match: you resign it, {name} wins the "
                                        "match, {score}",
                                        seconds=seconds,
                                        name=cost[0],
                                        score=cost[1],
                                    )
                                    if cost is not None
                                    else _(
                                        "press Ctrl-C again within {seconds} s to leave: "
                                        "you resign the game",
                                        seconds=seconds,
                                    )
                                )
                                question = fit_for(question, sys.stderr)
                                print("\n" + question, file=sys.stderr, flush=True)
                                continue
                        if stop.is_set():
                            print("\n" + _("interrupted again: giving up"), file=sys.stderr)
                            status.append(128 + signum)
                            nursery.cancel_scope.cancel()
                            return
                        _stopped_by.append(signum)
                        what = signal.Signals(signum).name
                        what = _("interrupted") if signum == signal.SIGINT else what
                        said = stopping or _("leaving the game...")
                        print("\n" + _("{what}: {doing}", what=what, doing=said), file=sys.stderr)
                        stop.set()

            nursery.start_soon(watch_signals)
            status.append(await main(stop))
            nursery.cancel_scope.cancel()
        return status[0]

    return trio.run(runner)
