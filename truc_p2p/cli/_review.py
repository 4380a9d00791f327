"""``truc-p2p review FILE``: where did I lose it? Your decisions against the solved round.

For each of your decisions in one of your transcripts (your cards come from
the secret and key beside it), what the solved round's strategy
(:mod:`truc_p2p.bots._review`) would have done and the points your choice was
expected to cost; the three biggest costs first, then (``--all``) every
decision in order.  ``--json`` prints the same result as one JSON object, and
the web replay page (``replay --web``, ``games --web``) shows it too: all three
read :func:`review_json`, the one place the review is made.  Exit status: 0
when the review was shown, 2 when the file cannot be read, is not a
transcript or is not yours.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.i18n import _, ngettext
from truc_p2p.rules import Action, ActionKind
from truc_p2p.ui import Voice

if TYPE_CHECKING:
    from truc_p2p.history import GameFile

__all__ = ["NotYourGame", "register", "review_json", "review_or_none"]

#: How many of the biggest costs come first.
TOP = 3
#: Costs below this (points) count as none: the table's own rounding.
_NO_COST = 0.005


class NotYourGame(ValueError):
    """The transcript is not one of the reader's games with its key and secret beside
    it: the review needs the reader's cards."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "review",
        help=_(COMMAND_HELP["review"]),
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
    parser.add_argument(
        "--json", action="store_true", help=_("print the review as one JSON object")
    )
    parser.set_defaults(func=_review)


def review_json(record: GameFile) -> dict[str, Any]:
    """The review of ``record`` (one of the reader's games), in the language in use:
    ``summary`` (how many decisions, the points expected lost), ``top`` (the
    :data:`TOP` biggest costs, biggest first, under ``title``; ``none`` when no
    decision cost anything) and ``decisions`` (every judged decision in order).
    Each decision: its ``hand`` (from 1), the ``message`` of the transcript that
    carries it, the action ``chosen`` and the solved round's ``best`` (words and
    ``chosen_action`` / ``best_action`` as the engine writes them), its ``cost`` in
    points and its ``line``.  Raises :class:`NotYourGame`."""
    from truc_p2p.bots import Judged, review_game
    from truc_p2p.history import own_hands, public_moves

    hands = own_hands(record)
    if hands is None or record.owner is None:
        raise NotYourGame(record.path)
    voice = Voice(record.names(), me=record.owner)

    def label(action: Action) -> str:
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

    moves = list(public_moves(record))
    judged = review_game(
        [(m.before, m.player, m.action) for m in moves], [h.cards for h in hands], record.owner
    )

    def decision(j: Judged) -> dict[str, Any]:
        best = j.options[j.best]
        cost = round(j.cost, 2)
        return {
            "hand": j.hand + 1,
            "move": j.move,
            "message": moves[j.move].message,
            "chosen": label(j.action),
            "chosen_action": str(j.action),
            "best": label(best),
            "best_action": str(best),
            "cost": cost,
            "line": _(
                "hand {hand}: you chose {chosen}; the solved round: {best} "
                "(expected cost {cost} points)",
                hand=j.hand + 1,
                chosen=label(j.action),
                best=label(best),
                cost=f"{cost:.2f}",
            ),
        }

    lost = sum(j.cost for j in judged)
    top = sorted((j for j in judged if j.cost >= _NO_COST), key=lambda j: -j.cost)[:TOP]
    return {
        "judged": len(judged),
        "lost": round(lost, 2),
        "summary": ngettext(
            "{n} of your decisions judged by the solved round: {points} points expected lost.",
            "{n} of your decisions judged by the solved round: {points} points expected lost.",
            len(judged),
            points=f"{lost:.1f}",
        ),
        "title": _("Your biggest costs:"),
        "none": None if top else _("No decision of yours cost points against the solved round."),
        "top": [decision(j) for j in top],
        "every": _("Every judged decision, in order:"),
        "decisions": [decision(j) for j in judged],
    }


def review_or_none(record: GameFile) -> dict[str, Any] | None:
    """:func:`review_json`, or ``None`` for a game that is not the reader's (a replay
    page shows no review then)."""
    try:
        return review_json(record)
    except NotYourGame:
        return None


def _review(args: argparse.Namespace) -> int:
    from truc_p2p.history import UnreadableGame, read_game

    try:
        record = read_game(args.file)
    except UnreadableGame as exc:
        print(
            _("truc-p2p review: cannot read {file}: {reason}", file=args.file, reason=exc.reason),
            file=sys.stderr,
        )
        return 2
    try:
        review = review_json(record)
    except NotYourGame:
        print(
            _(
                "truc-p2p review: {file} is not one of your games with its key and secret "
                "beside it: the review needs your cards",
                file=args.file,
            ),
            file=sys.stderr,
        )
        return 2
    if args.json:
        print(json.dumps(review, ensure_ascii=False))
        return 0
    print(review["summary"])
    if review["top"]:
        print(review["title"])
        for n, d in enumerate(review["top"], 1):
            print(f"  {n}. {d['line']}")
    else:
        print(review["none"])
    if args.all:
        print(review["every"])
        for d in review["decisions"]:
            print(f"  {d['line']}")
    return 0
