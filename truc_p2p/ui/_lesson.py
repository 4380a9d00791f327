"""The guided first hand (``truc-p2p learn``): two short hands against a scripted tutor.

The deal is fixed so that every lesson comes up: the card order, a redeal, a
spoiled trick, "2 more?" asked and answered, "my rest".  The moves go through
the real rules engine (:class:`~truc_p2p.rules.Game`) and the screen is the
terminal game's own (:class:`~._tui.TerminalPlayer`); there is no shuffle and
no network, the lesson is about the rules.  Each step says what is happening,
then waits for the one move it teaches: any other move is refused with a hint.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from truc_p2p.i18n import N_, _
from truc_p2p.net import QuitGame
from truc_p2p.protocol import CardsDealt, GameStarted, SessionEvent
from truc_p2p.rules import DEFAULT_RULESET, Action, Card, Dealt, Event, Game, Player
from truc_p2p.ui._texts import SURE_REST, help_fitted, help_text
from truc_p2p.ui._tui import LineSource, TerminalPlayer, parse_choice

if TYPE_CHECKING:
    from truc_p2p.ui._web import WebPlayer

__all__ = ["LESSON_STEPS", "run_lesson", "run_web_lesson"]

#: The learner's seat and the tutor's.
ME, TUTOR = Player.P0, Player.P1


def _cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.from_str(c) for c in text.split())


@dataclass(frozen=True)
class _Deal:
    mine: tuple[Card, ...]
    tutors: tuple[Card, ...]
    redeal: bool = False


@dataclass(frozen=True)
class _Say:
    text: str


@dataclass(frozen=True)
class _You:
    """The learner's move, what the step says before it and the hint when refused."""

    action: Action
    text: str
    hint: str


@dataclass(frozen=True)
class _Tutor:
    action: Action


_Item = _Deal | _Say | _You | _Tutor

#: The whole lesson.  Texts are marked here and translated when shown.
_SCRIPT: tuple[_Item, ...] = (
    _Say(
        N_(
            "A guided hand of Le Truc against a scripted tutor. The cards are fixed so that "
            "every lesson comes up; there is no shuffle and no network here, only the rules "
            "(the real rules engine). Type ? at any time for the rules in short, q to stop."
        )
    ),
    _Deal(_cards("9H 10C JD"), _cards("QS 9S 10D")),
    _You(
        Action.ASK_REDEAL,
        N_(
            "Le Truc is played with 32 cards, 7 to ace; suits never matter. Strength, high "
            "to low: 7 8 A K Q J 10 9. Your 9, 10 and J are the weakest ranks. The tutor "
            "dealt, so you are the non-dealer: your very first action may ask for a redeal, "
            "which the dealer accepts or declines. Type d to ask for one."
        ),
        N_("type d to ask for a redeal"),
    ),
    _Tutor(Action.ACCEPT_REDEAL),
    _Deal(_cards("KH 7C 10S"), _cards("KS 8D 9C"), redeal=True),
    _You(
        Action.play("KH"),
        N_(
            "The tutor accepted: three new cards each (one redeal at most per hand). The "
            "non-dealer leads the first trick: play your king (type its number)."
        ),
        N_("play your king"),
    ),
    _Tutor(Action.play("KS")),
    _Say(
        N_(
            "Two kings: equal ranks spoil the trick. Nobody wins it and the player who led it "
            "leads again. With the first trick spoiled, the next trick won decides the hand."
        )
    ),
    _You(
        Action.RAISE,
        N_(
            "Your 7 is the strongest rank: raise the stake. Before playing a card you may make "
            "one request per trick; ask “2 more?” with r."
        ),
        N_("type r to ask “2 more?”"),
    ),
    _Tutor(Action.ACCEPT),
    _You(
        Action.play("7C"),
        N_(
            "The tutor accepted: the hand is worth 2 now. Had it refused, the hand would have "
            "ended at once and you would have scored 1, its value before the request. Now "
            "play your 7."
        ),
        N_("play your 7"),
    ),
    _Tutor(Action.play("8D")),
    _Say(
        N_(
            "Your 7 beats the 8: the first trick spoiled and the second won, the hand is "
            "yours and worth 2 points. The deal alternates: you deal the next hand, so the "
            "tutor leads."
        )
    ),
    _Deal(_cards("7S AH 9D"), _cards("8S KD 10H")),
    _Tutor(Action.RAISE),
    _You(
        Action.ACCEPT,
        N_(
            "The tutor asks “2 more?”. Accept (a) and the hand is worth 2; refuse (x) and the "
            "hand ends now, the tutor scoring 1; fold (f) gives up the hand. Your cards are "
            "good: accept."
        ),
        N_("type a to accept"),
    ),
    _Tutor(Action.play("8S")),
    _You(
        Action.REST,
        N_(
            "The tutor led an 8. You need not follow suit: any card may be played. Before "
            "playing you may make your own request: “my rest” (m) stakes the whole game on "
            "this hand. Refused, you win the game; answered, whoever wins the hand wins the "
            "game. Type m."
        ),
        N_("type m for “my rest”"),
    ),
    _Tutor(Action.ACCEPT),
    _You(
        Action.play("7S"),
        N_("The tutor answered “my rest” too: this hand decides the game. Beat its 8 with your 7."),
        N_("play your 7"),
    ),
    _You(
        Action.play("AH"),
        N_(
            "You won the trick, so you lead the next one; win it and the hand is yours. "
            "Play your ace."
        ),
        N_("play your ace"),
    ),
    _Tutor(Action.play("KD")),
    _Say(SURE_REST),
    _Say(
        N_(
            "You won the hand and, with “my rest”, the game. That is the lesson. Play a real "
            "game against a bot with truc-p2p play, or with a friend with truc-p2p host and "
            "truc-p2p join."
        )
    ),
)

#: How many steps the lesson shows (each text once): the tests check that all are reached.
LESSON_STEPS = sum(1 for item in _SCRIPT if isinstance(item, _Say | _You))


async def run_lesson(
    lines: LineSource,
    *,
    out: TextIO | None = None,
    ascii: bool = False,
    echo: bool = False,
) -> int:
    """Play the lesson at a terminal; 0 when it was played to its end, 1 when left."""
    out = out or sys.stdout
    player = TerminalPlayer(lines, _("you"), ascii=ascii, out=out, echo=echo, confirm_quit=False)
    player.tell_game_end = True  # no command's ending follows the lesson

    def say(text: str) -> None:
        player.write("")
        player.write("** " + text)

    async def wait(step: _You) -> bool:
        return await _wait_for(player, step)

    status = await _lesson(player, say, wait)
    if status:
        player.write(_("(lesson left: type truc-p2p learn to start it again)"))
    return status


async def run_web_lesson(player: WebPlayer) -> int:
    """Play the lesson on the web table (``learn --web``): each step is a panel above
    the hand (its number, what happens and what to do), as an online game's tutorial
    shows it, and a line of the table's log; a refused move's hint goes in the panel."""
    shown = 0
    told: list[str] = []  # the texts since the learner's last move: one panel

    def say(text: str) -> None:
        nonlocal shown
        shown += 1
        told.append(text)
        player.lesson = {
            "step": _("step {i} of {n}", i=shown, n=LESSON_STEPS),
            "texts": list(told),
            "hint": None,
        }
        player._say(text, "info")
        player._push()

    async def wait(step: _You) -> bool:
        mirror = player.model.game
        assert mirror is not None
        legal = tuple(mirror.legal_actions())
        while True:
            try:
                action = await player.choose(mirror, legal)
            except QuitGame:
                return False
            if action == step.action:
                told.clear()  # the next step's panel starts afresh
                return True
            hint = _("not in this lesson: {hint}", hint=_(step.hint))
            if player.lesson is not None:
                player.lesson = {**player.lesson, "hint": hint}
            player._say(hint, "info")
            player._push()

    return await _lesson(player, say, wait)


async def _lesson(
    player: Callable[[Event | SessionEvent], None],
    say: Callable[[str], None],
    wait: Callable[[_You], Awaitable[bool]],
) -> int:
    """The script, told to ``player`` (its event hook); 0 at its end, 1 when left."""
    game = Game(DEFAULT_RULESET, first_dealer=TUTOR)
    player(
        GameStarted(
            game_id=bytes(16),
            me=ME,
            peer_name=_("tutor"),
            peer_fingerprint="",
            ruleset=DEFAULT_RULESET,
            audit="",
            first_dealer=TUTOR,
        )
    )
    shown = 0

    def tell(events: list[Event]) -> None:
        for event in events:
            if not isinstance(event, Dealt):  # the deal is told by CardsDealt
                player(event)

    for item in _SCRIPT:
        if isinstance(item, _Say):
            say(_(item.text))
            shown += 1
        elif isinstance(item, _Deal):
            round_no = game.round_no
            game.deal({ME: item.mine, TUTOR: item.tutors})
            player(
                CardsDealt(
                    round_no=round_no,
                    dealer=game.dealer,
                    cards=item.mine,
                    redeal=item.redeal,
                )
            )
        elif isinstance(item, _Tutor):
            tell(game.push(item.action, player=TUTOR))
        else:
            say(_(item.text))
            shown += 1
            if not await wait(item):
                return 1
            tell(game.push(item.action, player=ME))
    assert shown == LESSON_STEPS
    return 0


async def _wait_for(player: TerminalPlayer, step: _You) -> bool:
    """Show the table and read lines until the step's move; ``False`` if the learner left."""
    mirror = player.model.game
    assert mirror is not None
    legal = tuple(mirror.legal_actions())
    player.model.begin_turn(mirror, legal)
    player.write(player.render(mirror, legal))
    try:
        while True:
            player.prompt()
            line = await player.lines.readline()
            if line is None:
                return False
            if player.echo:
                player.write(line)
            try:
                choice = parse_choice(line, mirror, legal)
            except QuitGame:
                return False
            if choice == step.action:
                return True
            if isinstance(choice, Action):
                player.write(_("not in this lesson: {hint}", hint=_(step.hint)))
            elif choice == help_text():  # the help, then the hand and the choices again
                player.write(help_fitted(player.width))
                player.write(player.render(mirror, legal))
            else:
                player.write(choice)
                player.write(_("(lesson: {hint})", hint=_(step.hint)))
    finally:
        player.model.end_turn()
