"""The terminal player: shows the game and reads moves as short keys, one per line.

It reads whole lines, so it works the same in a terminal and with stdin on a
pipe (that is how the tests drive it).  End of input means "quit": the game
is left with a signed ``quit`` abort.  Keys::

    1-3 play that card   r "2 more?"   m "my rest"   a accept   x refuse
    f fold   d ask for / accept a redeal   n decline the redeal
    ? help   q quit

Full action texts (``play 7S``, ``raise``, ``accept-redeal``...) work too.
"""

from __future__ import annotations

import math
import sys
import textwrap
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TextIO

import trio

from truc_p2p.i18n import _, ngettext
from truc_p2p.net import NetEvent, QuitGame
from truc_p2p.protocol import SessionEvent
from truc_p2p.rules import Action, Event, Game, Player
from truc_p2p.ui._answers import is_no, is_yes, no_word, yes_word
from truc_p2p.ui._choices import keymap
from truc_p2p.ui._lines import LineSource, ScriptedLines, StdinLines, parse_choice
from truc_p2p.ui._table import Line, TableModel
from truc_p2p.ui._texts import (
    HELP,
    fit,
    help_fitted,
    help_text,
    plain,
    screen_width,
)

__all__ = [
    "HELP",
    "NO_CLOCKS",
    "Clocks",
    "LineSource",
    "ScriptedLines",
    "StdinLines",
    "TerminalPlayer",
    "keymap",
    "parse_choice",
    "with_terminal",
]


def _pack(items: list[str], width: int, indent: str, *, sep: str = "  ") -> list[str]:
    """Items on lines of at most ``width`` columns, never split inside an item."""
    lines: list[str] = []
    line = indent
    for item in items:
        if line.strip() and len(line) + len(sep) + len(item) > width:
            lines.append(line.rstrip())
            line = indent
        line += (sep if line.strip() else "") + item
    if line.strip():
        lines.append(line.rstrip())
    return lines


#: The key that concedes only this game of a match, in the leave question.
CONCEDE_KEY = "c"

#: The screen's width when the output is not a terminal (the layout never splits a word;
#: at a terminal, its own width: :func:`~._texts.screen_width`).
WIDTH = 80


@dataclass(frozen=True, kw_only=True)
class Clocks:
    """The terminal player's clocks, said once at the game's start: the time for each
    move (``None``: no clock) and how long the player may be away in all over a
    network game (``None``: not a network game)."""

    move_seconds: float | None = None
    away_seconds: float | None = None


#: No clock of either kind (a scripted game, the lesson).
NO_CLOCKS = Clocks()


class TerminalPlayer:
    """A human at a terminal: an ``on_event`` hook (call it) and a :class:`Strategy`.

    It renders the :class:`~._table.TableModel`: the narrated moves from the
    viewer's side, the table before each decision, and "waiting for Bob (4:59
    left)" whenever the turn passes.
    """

    def __init__(
        self,
        lines: LineSource,
        my_name: str,
        *,
        ascii: bool = False,
        out: TextIO | None = None,
        echo: bool = False,
        clocks: Clocks = NO_CLOCKS,
        verbose: bool = False,
        confirm_quit: bool | None = None,
    ) -> None:
        self.lines = lines
        move_seconds = clocks.move_seconds
        #: How long the player may be away over a network game (said once at its start).
        self.away_seconds = clocks.away_seconds
        self.ascii = ascii
        self.out = out
        #: Repeat each input line after the prompt (input from a pipe is not echoed).
        self.echo = echo
        #: Show keys, game ids and the transport (a person against a bot needs none).
        self.verbose = verbose
        #: Ask before leaving on ``q`` (default: when the input is a terminal).
        self.confirm_quit = (
            getattr(lines, "stamped", False) if confirm_quit is None else confirm_quit
        )
        self.model = TableModel(
            my_name, move_seconds=move_seconds, ascii=ascii, now=_now, verbose=verbose
        )
        #: Set when the player leaves between its turns (``q`` while the opponent thinks):
        #: the command passes it to the game loop as its ``stop``, a signed resignation.
        self.leave: trio.Event | None = None
        # Lines read by :meth:`pump` (when it runs) for :meth:`choose`, with their stamps.
        self._inbox_send, self._inbox = trio.open_memory_channel[tuple[str | None, float | None]](
            math.inf
        )
        self._pumped = False
        self._choosing = False
        self._confirming = False
        #: When the last trick or hand ended (type-ahead across it is dropped).
        self._boundary: float | None = None
        self._waiting_shown = False
        #: Say the game's result when it ends: for a game whose command prints no
        #: ending of its own (the lesson); ``play``, ``host`` and ``join`` print it once.
        self.tell_game_end = False
        #: In a match: what leaving it costs, said when the player asks to leave (who
        #: then wins the match and the games score, "you 0 – bob 1"); the question
        #: then offers to concede only this game.
        self.match_cost: Callable[[], tuple[str, str]] | None = None
        #: The player concedes only this game of the match (read by the game loop when
        #: it resigns: the signed detail says the match goes on).
        self.concedes = False
        self._concede_next = False
        #: Set when the player concedes between its turns: the command stops this game
        #: only (a resignation saying the match goes on), not the match.
        self.conceding: trio.Event | None = None

    # -- what the model is, seen from outside (tests, the web) ----------------

    @property
    def me(self) -> Player:
        return self.model.me

    @property
    def names(self) -> dict[Player, str]:
        return self.model.names

    @names.setter
    def names(self, names: dict[Player, str]) -> None:
        self.model.names = names

    @property
    def width(self) -> int:
        """The columns of the screen, asked each time (a terminal may be resized)."""
        return screen_width(self.out or sys.stdout)

    def write(self, text: str) -> None:
        """Print ``text``, each line wrapped at word boundaries to the screen's width."""
        text = fit(text, self.width)
        print(plain(text) if self.ascii else text, file=self.out or sys.stdout, flush=True)

    # -- events ----------------------------------------------------------------

    def __call__(self, event: Event | SessionEvent | NetEvent) -> None:
        model = self.model
        before = _progress(model.game)
        lines = model.feed(event)
        kinds = {line.kind for line in lines}
        if "start" in kinds:
            start = getattr(self.lines, "start", None)
            if getattr(self.lines, "stamped", False) and start is not None:
                start()  # type-ahead is stamped from now on
        if kinds & {"deal", "trick", "hand"}:
            self._boundary = _now()  # type-ahead across it is dropped
        for line in lines:
            self._show(line)
        if "start" in kinds and self.away_seconds is not None:
            minutes = max(1, round(self.away_seconds / 60))
            self.write(
                ngettext(
                    "if your connection drops, you may be away {n} minute in all during the game",
                    "if your connection drops, you may be away {n} minutes in all during the game",
                    minutes,
                )
            )
        if "deal" in kinds or "trick" in kinds:
            self._after_event()
        elif "move" in kinds and _progress(model.game) == before:
            self._after_event()  # else the trick's end says who is next

    def _show(self, line: Line) -> None:
        """One line of the model's, as the terminal prints it."""
        if line.kind == "deal":
            self.write("")
        if line.kind == "game":
            # the command's end tells the result once (headline, points, transcript);
            # only a game without one (the lesson) says it here
            self.write(line.mark + line.text if self.tell_game_end else "")
            return
        if line.kind == "hand" and line.ending:
            return  # the staked hand's end is the game's: its headline tells it once
        self.write(line.mark + line.text)
        if line.kind == "start":
            self.write(_("Type ? for help."))

    def _after_event(self) -> None:
        """Say "waiting for Bob (4:59 left)" once each time the turn passes to Bob."""
        model = self.model
        if model.waiting_for_opponent():
            if not self._waiting_shown:
                view = model.view()
                if view is not None:
                    self.write("   … " + view.status)
                self._waiting_shown = True
        else:
            self._waiting_shown = False

    # -- the screen --------------------------------------------------------------

    def render(self, game: Game, legal: tuple[Action, ...]) -> str:
        """The screen shown before each decision."""
        model = self.model
        if model.game is None or model.legal != tuple(legal):
            model.begin_turn(game, legal)
        view = model.view()
        assert view is not None
        voice = model.voice
        dealer = voice.name(model.me if view.dealer == "me" else model.me.other)
        head = _(
            "hand {hand}, trick {trick} · {worth} · score: {score} (first to {target}) · "
            "dealer: {dealer}",
            hand=view.hand_no,
            trick=view.trick_no,
            worth=view.worth,
            score=view.score_line,
            target=view.target,
            dealer=dealer,
        )
        width = self.width
        lines = _pack(head.split(" · "), width, "", sep=" · ")
        lines.append("   " + view.tricks_line)
        if view.table:
            on_table = ", ".join(
                _("you played {card}", card=voice.card(c))
                if voice.is_me(self._player(s))
                else _("{name} played {card}", name=voice.name(self._player(s)), card=voice.card(c))
                for s, c in view.table
            )
        else:
            lead = _("you lead") if view.leader == "me" else _("{name} leads", name=model.opp_name)
            on_table = _("empty ({lead})", lead=lead)
        if view.last_trick is not None and not view.table:
            last = view.last_trick
            played = ", ".join(
                _("{name} {card}", name=voice.name(self._player(s)), card=voice.card(c))
                for s, c in last.cards
            )
            lines.append(
                "   " + _("last trick: {cards} · {result}", cards=played, result=last.text)
            )
        lines.append("   " + _("table: {cards}", cards=on_table))
        if view.pending is not None and view.pending.by == "opp":
            lines.append("   " + view.pending.text)
        cards = "  ".join(f"[{i + 1}] {voice.card(c)}" for i, c in enumerate(view.hand))
        lines.append(
            "   "
            + (_("your hand: {cards}", cards=cards) if cards else _("your hand: (no cards left)"))
        )
        lines.append("   " + _("{status}:", status=view.status))
        answers = [
            (
                _("[{key}] {label}: {cost}", key=c.key, label=c.label, cost=c.cost)
                if c.cost
                else _("[{key}] {label}", key=c.key, label=c.label)
            )
            for c in view.choices
            if not c.key.isdigit()
        ]
        digits = [c.key for c in view.choices if c.key.isdigit()]
        if digits:
            lines.append(
                "     "
                + (
                    _("[{first}-{last}] play a card", first=digits[0], last=digits[-1])
                    if len(digits) > 1
                    else _("[{key}] play your card", key=digits[0])
                )
            )
        for item in answers:
            lines += _pack([item], width, "     ") if len(item) + 5 <= width else _wrap(item, width)
        lines += _pack([_("[?] help"), _("[q] leave (resign)")], width, "     ")
        screen = "\n".join(lines)
        return plain(screen) if self.ascii else screen

    def _player(self, side: str) -> Player:
        return self.model.me if side == "me" else self.model.me.other

    async def pump(self) -> None:
        """Read the player's lines all the time, not only at its turns (run beside the
        game): at a terminal, ``q`` while the opponent thinks asks, then leaves (sets
        :attr:`leave`); every other line waits for the next turn, stamped."""
        if not self.confirm_quit:
            return  # a script (a pipe): lines are read at the turns, none read ahead
        self._pumped = True
        while True:
            line = await self.lines.readline()
            stamp = getattr(self.lines, "stamp", None)
            ended = getattr(self.lines, "ended", True)
            if line is None and not ended and not self._choosing:
                # Ctrl-D while the opponent thinks: asked like q; a second one leaves
                if self._confirming:
                    self._confirming = False
                    if self.leave is not None:
                        self.write(_("(leaving the game: you resign)"))
                        self.leave.set()
                else:
                    self._confirming = True
                    self.write("")
                    self._ask_leave()
                continue
            between = not self._choosing and self.confirm_quit and line is not None
            if between and self._confirming:
                self._confirming = False
                assert line is not None
                answer = self._leave_answer(line)
                if answer == "leave" and self.leave is not None:
                    self.write(_("(leaving the game: you resign)"))
                    self.leave.set()
                elif answer == "concede":  # a resignation of this game only
                    self.write(_("(you concede this game: the match goes on with the next one)"))
                    if self.conceding is not None:
                        self.concedes = True
                        self.conceding.set()
                    else:  # at the next turn
                        self._concede_next = True
                else:
                    self.write(_("(you stay in the game)"))
                continue
            if between and line is not None and line.strip().lower() in ("q", "quit", "exit"):
                self._confirming = True
                self._ask_leave()
                continue
            self._inbox_send.send_nowait((line, stamp))
            if line is None and ended:
                return

    async def _read(self) -> tuple[str | None, float | None]:
        """The next line and when it was typed (``None``: not stamped)."""
        if self._pumped:
            return await self._inbox.receive()
        line = await self.lines.readline()
        return line, getattr(self.lines, "stamp", None)

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        self.model.begin_turn(game, legal)
        self._waiting_shown = False
        self._choosing = True
        self._confirming = False
        try:
            if self._concede_next:  # conceded while the opponent thought
                self.concedes = True
                raise QuitGame("conceded")
            self.write(self.render(game, legal))
            while True:
                self.prompt()
                line, stamp = await self._read()
                if line is None:
                    if not getattr(self.lines, "ended", True) and self.confirm_quit:
                        # Ctrl-D at a terminal: asked like q (a second Ctrl-D leaves)
                        self.write("")
                        if not await self._confirm_leave():
                            self.write(_("(you stay in the game)"))
                            continue
                        if self.concedes:
                            raise QuitGame("conceded")
                    self.write(_("(end of input: leaving the game)"))
                    raise QuitGame("end of input")
                if self.echo:
                    self.write(line)
                if stamp is not None and self._boundary is not None and stamp < self._boundary:
                    self.write(
                        _(
                            "(dropped {key!r}: it was typed before the last trick ended; "
                            "look at the table and choose again)",
                            key=line.strip(),
                        )
                    )
                    continue
                try:
                    choice = parse_choice(line, game, legal)
                except QuitGame:
                    if not self.confirm_quit or await self._confirm_leave():
                        raise
                    self.write(_("(you stay in the game)"))
                    continue
                if isinstance(choice, Action):
                    return choice
                if choice == help_text():  # the hand and the choices again, under the help
                    self.write(help_fitted(self.width))
                    self.write(self.render(game, legal))
                else:
                    self.write(choice)
        finally:
            self._choosing = False
            self.model.end_turn()

    def _ask_leave(self) -> None:
        if self.match_cost is not None:
            name, score = self.match_cost()
            self.write(
                _(
                    "leave the match? You resign it: {name} wins the match, {score}. Type "
                    "{y} to leave the match, {c} to concede only this game and play the "
                    "next one, anything else to stay.",
                    name=name,
                    score=score,
                    y=yes_word(),
                    c=CONCEDE_KEY,
                )
            )
        else:
            self.write(
                _(
                    "leave the game? You resign: {name} wins the game. Type {y} to leave, "
                    "anything else to stay.",
                    name=self.model.opp_name,
                    y=yes_word(),
                )
            )
        self.prompt()

    def _leave_answer(self, line: str | None) -> str:
        """What an answer to the leave question chose: ``leave``, ``concede`` (this game
        of a match only) or ``stay``."""
        if line is None or is_yes(line):
            return "leave"
        if self.match_cost is not None and line.strip().lower() == CONCEDE_KEY:
            return "concede"
        return "stay"

    async def _confirm_leave(self) -> bool:
        """Ask before leaving: ``True`` to leave (then :attr:`concedes` says whether only
        this game of the match is conceded)."""
        self._ask_leave()
        answer, _stamp = await self._read()
        chosen = self._leave_answer(answer)
        if chosen == "concede":
            self.concedes = True
            self.write(_("(you concede this game: the match goes on with the next one)"))
        return chosen != "stay"

    async def ask_again(self, *, next_game: bool = False) -> bool:
        """After a game: play another?  A word for yes (``y``, in French ``o``...) or
        Enter for yes; a word for no, ``q`` or the end of input for no (the same
        question for the next game of a match)."""
        self.write(
            _(
                "play again? Type {y} or press Enter to play again, {n} or q to stop.",
                y=yes_word(),
                n=no_word(),
            )
        )
        self._choosing = True  # the pump hands every line over, q included
        try:
            while True:
                self.prompt()
                line, _stamp = await self._read()
                if line is None:
                    return False
                if self.echo:
                    self.write(line)
                if not line.strip() or is_yes(line):
                    return True
                if is_no(line) or line.strip().lower() in ("q", "quit"):
                    return False
        finally:
            self._choosing = False

    def new_game(self, match_line: str | None = None) -> None:
        """A fresh table for the next game (a rematch or the next game of a match)."""
        model = self.model
        self.model = TableModel(
            model.my_name,
            move_seconds=model.move_seconds,
            ascii=model.ascii,
            now=_now,
            verbose=model.verbose,
        )
        self._boundary = None
        self._waiting_shown = False
        self.concedes = self._concede_next = False

    def show_match(self, line: str, retell: Callable[[], str] | None = None) -> None:
        """The match score after a game ("match: you 1 – bob 0")."""
        self.write(line)

    def prompt(self) -> None:
        out = self.out or sys.stdout
        out.write("> ")
        out.flush()


def _progress(game: Game | None) -> tuple[int, int] | None:
    """How far the hand is: (hand, tricks played)."""
    return (game.round_no, len(game.tricks)) if game is not None else None


def _wrap(item: str, width: int) -> list[str]:
    """A long choice on as many lines as it needs, split at word boundaries."""
    return textwrap.wrap(
        item,
        width,
        initial_indent="     ",
        subsequent_indent="         ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def _now() -> float:
    try:
        return trio.current_time()
    except RuntimeError:  # outside trio (unit tests of the screen)
        return 0.0


def with_terminal(
    player: object, main: Callable[[trio.Event], Awaitable[int]]
) -> Callable[[trio.Event], Awaitable[int]]:
    """``main`` with the terminal player's input read all along (:meth:`TerminalPlayer.pump`),
    so that leaving between turns stops the game like Ctrl-C: a signed resignation."""
    if not isinstance(player, TerminalPlayer):
        return main

    async def run(stop: trio.Event) -> int:
        leaving = trio.Event()
        player.leave = leaving
        either = trio.Event()

        async def forward(event: trio.Event) -> None:
            await event.wait()
            either.set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(forward, stop)
            nursery.start_soon(forward, leaving)
            nursery.start_soon(player.pump)
            status = await main(either)
            nursery.cancel_scope.cancel()
        player.leave = None
        return status

    return run
