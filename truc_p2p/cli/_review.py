"""``truc-p2p review FILE``: where did I lose it? Your decisions against the solved round.

For each of your decisions in one of your transcripts (your cards come from
the secret and key beside it), what the solved round's strategy
(:mod:`truc_p2p.bots._review`) would have done and the points your choice was
expected to cost; the three biggest costs first, then (``--all``) every
decision in order.  Exit status: 0 when the review was shown, 2 when the file
cannot be read, is not a transcript or is not yours.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from truc_p2p.i18n import _, ngettext
from truc_p2p.rules import Action, ActionKind
from truc_p2p.ui import Voice

__all__ = ["register"]

#: How many of the biggest costs come first.
TOP = 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "review",
        help=_("where did I lose it? your decisions in a game against the solved round"),
        description=_(
            "For each of your decisions in one of your games: what the solved round's "
            "strategy would have done and the points your choice was expected to cost, "
            "the three biggest costs first."
        ),
    )
    parser.add_argument("file", metavar="FILE", help=_("transcript file (.truc)"))
    parser.add_argument(
        "--all", action="store_true", help=_("also list every judged decision in order")
    )
    parser.set_defaults(func=_review)


def _review(args: argparse.Namespace) -> int:
    from truc_p2p.bots import Judged, review_game
    from truc_p2p.history import UnreadableGame, own_hands, public_moves, read_game

    try:
        record = read_game(args.file)
    except UnreadableGame as exc:
        print(
            _("truc-p2p review: cannot read {file}: {reason}", file=args.file, reason=exc.reason),
            file=sys.stderr,
        )
        return 2
    hands = own_hands(record)
    if hands is None or record.owner is None:
        print(
            _(
                "truc-p2p review: {file} is not one of your games with its key and secret "
                "beside it: the review needs your cards",
                file=args.file,
            ),
            file=sys.stderr,
        )
        return 2
    voice = Voice(record.names(), me=record.owner)

    def action_label(action: Action) -> str:
        """The action's short name, as on the table's keys."""
        if action.card is not None:
            return _("play {card}", card=voice.card(action.card))
        return {
            ActionKind.RAISE: _("“2 more?”"),
            ActionKind.ACCEPT: _("accept"),
            ActionKind.REST: _("“my rest”"),
            ActionKind.REFUSE: _("refuse"),
            ActionKind.FOLD: _("fold"),
        }.get(action.kind, str(action))

    moves = [(m.before, m.player, m.action) for m in public_moves(record)]
    judged = review_game(moves, [h.cards for h in hands], record.owner)
    lost = sum(j.cost for j in judged)
    print(
        ngettext(
            "{n} of your decisions judged by the solved round: {points} points expected lost.",
            "{n} of your decisions judged by the solved round: {points} points expected lost.",
            len(judged),
            points=f"{lost:.1f}",
        )
    )

    def line(j: Judged) -> str:
        best = j.best
        return _(
            "hand {hand}: you chose {chosen}; the solved round: {best} "
            "(expected cost {cost} points)",
            hand=j.hand + 1,
            chosen=action_label(j.action),
            best=action_label(j.options[best]),
            cost=f"{j.cost:.2f}",
        )

    top = sorted((j for j in judged if j.cost >= 0.005), key=lambda j: -j.cost)[:TOP]
    if top:
        print(_("Your biggest costs:"))
        for n, j in enumerate(top, 1):
            print(f"  {n}. {line(j)}")
    else:
        print(_("No decision of yours cost points against the solved round."))
    if args.all:
        print(_("Every judged decision, in order:"))
        for j in judged:
            print(f"  {line(j)}")
    return 0
