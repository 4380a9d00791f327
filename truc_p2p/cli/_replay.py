"""``truc-p2p replay FILE``: watch a game again, hand by hand, from a transcript.

In the terminal it reads whole lines, so it works the same from a pipe:
Enter shows the next step, ``n`` / ``p`` the next / previous hand, a number
jumps to that hand, ``q`` (or the end of input) quits; ``--all`` prints the
whole replay at once.  ``--web`` shows the same steps on a page in the
browser (:func:`truc_p2p.history.serve_replay`).  Only cards that were played are ever shown,
and in the replay of one's own transcript one's own hand: whole when the secret
and key beside it rebuild the game (:func:`truc_p2p.history.own_hands`), else the cards played
later in the deal (see :func:`truc_p2p.history.build_replay`).

Exit status: 0 when the replay was shown and the transcript verifies; 1 when
it was shown but the transcript does not verify (unfinished, cut, or a
violation: the replay stops where the verifier did); 2 when the file cannot
be read or is not a transcript, or the web page cannot be served.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any, TextIO

from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.history import (
    Replay,
    ReplayStep,
    UnreadableGame,
    build_replay,
    own_hands,
    read_game,
)
from truc_p2p.i18n import N_, _, ngettext, use_ascii

__all__ = ["port_number", "register", "render_step"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay",
        help=_(COMMAND_HELP["replay"]),
        description=_(
            "Step through a game: Enter next step, n/p next/previous hand, a number "
            "jumps to that hand, q quits (works from a pipe). Exit 0 when the transcript "
            "verifies, 1 when it does not (shown up to where the verifier stopped), 2 when the "
            "file cannot be read or is not a transcript."
        ),
    )
    parser.add_argument("file", metavar="FILE", help=_("transcript file (.truc)"))
    parser.add_argument("--all", action="store_true", help=_("print the whole replay at once"))
    parser.add_argument("--ascii", action="store_true", help=_("cards as 7S, not 7♠"))
    web = parser.add_argument_group(_("web page"))
    web.add_argument("--web", action="store_true", help=_("show the replay in your browser"))
    web.add_argument(
        "--web-port",
        type=port_number,
        default=0,
        metavar="N",
        help=_("port on 127.0.0.1 (default: free)"),
    )
    web.add_argument("--no-browser", action="store_true", help=_("with --web: only print the URL"))
    parser.set_defaults(func=_replay)


def port_number(text: str) -> int:
    """argparse type: a TCP port, 0 for a free one."""
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(_("not a port in 0..65535: {text}", text=repr(text)))
    return int(text)


def _seat_name(replay: Replay, view_seat: str, me_name: str, opp_name: str) -> str:
    if view_seat == "me":
        return _("you") if replay.voice.me is not None else me_name
    return opp_name


def render_step(replay: Replay, index: int) -> list[str]:
    """The lines that show step ``index``."""
    step: ReplayStep = replay.steps[index]
    v = step.view
    voice = replay.voice
    out = [
        voice.out(
            _(
                "[hand {hand}/{hands} · step {i}/{n}] {score} · {worth}",
                hand=step.hand + 1,
                hands=replay.hands,
                i=index + 1,
                n=len(replay.steps),
                score=v.score_line,
                worth=v.worth,
            )
        )
    ]
    out += [f"  {line}" for line in step.lines]
    if step.proof and step.kind == "end" and not replay.valid:
        out.append(voice.out(_("  ✘ {proof}", proof=step.proof)))
    elif step.proof:
        out.append(voice.out(_("  ✔ {proof}", proof=step.proof)))
    table = v.table
    if not table and step.kind == "move" and v.last_trick is not None:
        table = v.last_trick.cards  # the trick this move ended
    if table:
        cards = "  ".join(
            _(
                "{name} {card}",
                name=_seat_name(replay, s, v.me_name, v.opp_name),
                card=voice.card(c),
            )
            for s, c in table
        )
        out.append(voice.out(_("  on the table: {cards}", cards=cards)))
    out += _own_hand(replay, step)
    return [part for line in out for part in _wrap(line)]


def _own_hand(replay: Replay, step: ReplayStep) -> list[str]:
    """The owner's own hand in the replay of its own transcript: the cards the step
    holds face up (its whole hand, or those it played later in this deal), the rest
    (never played, never shown) counted."""
    held = step.held["me"]
    if replay.voice.me is None or held == 0:
        return []
    cards = " ".join(replay.voice.card(c) for c in step.mine)
    unseen = held - len(step.mine)
    if not unseen:
        return [replay.voice.out(_("  your hand: {cards}", cards=cards))]
    if not cards:
        return [
            replay.voice.out(
                ngettext(
                    "  your hand: {n} card you did not play",
                    "  your hand: {n} cards you did not play",
                    unseen,
                )
            )
        ]
    return [
        replay.voice.out(
            ngettext(
                "  your hand: {cards} and {n} card you did not play",
                "  your hand: {cards} and {n} cards you did not play",
                unseen,
                cards=cards,
            )
        )
    ]


#: Columns of the terminal replay: longer lines wrap, words never split.
WIDTH = 80


def _wrap(line: str) -> list[str]:
    indent = " " * (len(line) - len(line.lstrip()) + 2)
    return textwrap.wrap(
        line,
        WIDTH,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [line]


def _hand_banner(replay: Replay, hand: int) -> str:
    return replay.voice.out(_("== hand {hand} of {hands} ==", hand=hand + 1, hands=replay.hands))


def print_all(replay: Replay, out: TextIO) -> None:
    for line in replay.header:
        print(line, file=out)
    if not replay.steps:
        print(_("nothing to replay: the transcript stops before the first hand"), file=out)
    shown = -1
    for i, step in enumerate(replay.steps):
        if step.hand != shown:
            shown = step.hand
            print(_hand_banner(replay, step.hand), file=out)
        for line in render_step(replay, i):
            print(line, file=out)


_KEYS_HELP = N_("Enter: next step · n/p: next/previous hand · 1-{hands}: that hand · q: quit")


def interactive(replay: Replay, inp: TextIO, out: TextIO, prompt: TextIO | None) -> None:
    """Step through ``replay`` reading one command per line from ``inp``."""
    for line in replay.header:
        print(line, file=out)
    if not replay.steps:
        print(_("nothing to replay: the transcript stops before the first hand"), file=out)
        return
    starts = replay.hand_starts()
    keys = replay.voice.out(_(_KEYS_HELP, hands=replay.hands))
    print(keys, file=out)
    i = 0

    def show(index: int, *, banner: bool) -> None:
        if banner:
            print(_hand_banner(replay, replay.steps[index].hand), file=out)
        for line in render_step(replay, index):
            print(line, file=out, flush=True)

    show(0, banner=True)
    while True:
        if prompt is not None:
            print("> ", end="", file=prompt, flush=True)
        line = inp.readline()
        if not line:
            return
        command = line.strip().lower()
        hand = replay.steps[i].hand
        if command in ("q", "quit", "exit"):
            return
        if command == "":
            if i + 1 >= len(replay.steps):
                print(_("end of the replay (q quits, p or a number goes back)"), file=out)
                continue
            i += 1
            show(i, banner=replay.steps[i].hand != hand)
        elif command in ("n", "p") or command.isdigit():
            if command == "n":
                target = hand + 1
            elif command == "p":
                target = hand - 1 if i == starts[hand] else hand
            else:
                target = int(command) - 1
            if target not in starts:
                print(
                    replay.voice.out(
                        _(
                            "no hand {hand}: the game has hands 1 to {hands}",
                            hand=target + 1,
                            hands=replay.hands,
                        )
                    ),
                    file=out,
                )
                continue
            i = starts[target]
            show(i, banner=True)
        else:
            print(keys, file=out)


def _replay(args: argparse.Namespace) -> int:
    try:
        record = read_game(args.file)
    except UnreadableGame as exc:
        print(
            _("truc-p2p replay: cannot read {file}: {reason}", file=args.file, reason=exc.reason),
            file=sys.stderr,
        )
        return 2
    own = own_hands(record)  # the owner's whole hands, when its secret and key are beside it
    replay = build_replay(record, ascii=use_ascii(args.ascii), own=own)
    status = 0 if replay.valid else 1
    if args.web:
        from truc_p2p.cli._review import review_or_none
        from truc_p2p.history import serve_replay

        served = serve_replay(
            record,
            replay,
            own=own,
            port=args.web_port,
            browser=not args.no_browser,
            lang_pinned=getattr(args, "lang", None) is not None,
            ascii=use_ascii(args.ascii),
            review=review_or_none,  # one of the reader's games: its review under the replay
        )
        return served if served else status
    if args.all:
        print_all(replay, sys.stdout)
    else:
        prompt = sys.stderr if sys.stdin.isatty() else None
        interactive(replay, sys.stdin, sys.stdout, prompt)
    return status
