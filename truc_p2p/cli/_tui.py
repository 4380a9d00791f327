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
import os
import sys
import threading
from collections.abc import Iterable
from typing import Protocol, TextIO

import trio

from truc_p2p.cli._narrate import Narrator, describe_action, plain
from truc_p2p.net import NetEvent, QuitGame
from truc_p2p.protocol import CardsDealt, GameStarted, SessionEvent
from truc_p2p.rules import (
    Acted,
    Action,
    ActionError,
    ActionKind,
    Event,
    Game,
    Player,
    RulesetError,
)

__all__ = [
    "HELP",
    "LineSource",
    "ScriptedLines",
    "StdinLines",
    "TerminalPlayer",
    "keymap",
    "parse_choice",
]

HELP = """\
Le Truc for two, in short (protocol_spec/rules.md has every detail)
  * 32 cards; suits never matter. Strength, high to low: 7 8 A K Q J 10 9.
  * Each hand: three cards each, up to three tricks. Win two tricks (or the
    first trick won, when the others are spoiled) to win the round.
    Equal ranks spoil a trick: nobody wins it, the leader leads again.
  * A round is worth 1 point. Before playing a card you may ask "2 more?"
    (raise, key r): accepted, the round is worth more (1, 2, 6, 8, 10...);
    refused, you score the value before the request and the round ends.
  * "My rest" (key m) stakes the whole game on this round; refused, its
    declarer wins the game.
  * Fold (key f) at any of your turns: the opponent scores the round value.
  * The non-dealer's very first action may ask for a redeal (key d); the
    dealer accepts (d) or declines (n).
  * First to the target score (12 by default) wins.
Keys: 1-3 play the card with that number, r raise, m my rest, a accept,
x refuse, f fold, d redeal, n decline redeal, ? this help, q quit."""

_KEYS: dict[ActionKind, str] = {
    ActionKind.RAISE: "r",
    ActionKind.REST: "m",
    ActionKind.ACCEPT: "a",
    ActionKind.REFUSE: "x",
    ActionKind.FOLD: "f",
    ActionKind.ASK_REDEAL: "d",
    ActionKind.ACCEPT_REDEAL: "d",
    ActionKind.DECLINE_REDEAL: "n",
}


_MY_WORDS: dict[ActionKind, str] = {
    ActionKind.RAISE: "ask “2 more?”",
    ActionKind.REST: "declare “my rest”",
    ActionKind.ACCEPT: "accept",
    ActionKind.REFUSE: "refuse",
    ActionKind.FOLD: "fold",
    ActionKind.ASK_REDEAL: "ask for a redeal",
    ActionKind.ACCEPT_REDEAL: "accept the redeal",
    ActionKind.DECLINE_REDEAL: "decline the redeal",
}


def _my_action(action: Action, *, ascii: bool) -> str:
    if action.card is not None:
        return f"play {action.card.pretty(ascii=ascii)}"
    return _MY_WORDS[action.kind]


class LineSource(Protocol):
    """Where the terminal player's input comes from."""

    async def readline(self) -> str | None:
        """The next line without its newline, or ``None`` at end of input."""
        ...


class ScriptedLines:
    """Lines from a list (tests, scripted play)."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = list(lines)

    async def readline(self) -> str | None:
        await trio.lowlevel.checkpoint()
        return self._lines.pop(0) if self._lines else None


class StdinLines:
    """Lines from a file descriptor (stdin), read by one daemon thread.

    The thread uses ``os.read`` (no Python-level buffer lock, so it never
    blocks interpreter shutdown) and hands complete lines to trio, so waiting
    for input can be cancelled at any time without losing a line.
    """

    def __init__(self, fd: int = 0) -> None:
        self._fd = fd
        self._send, self._recv = trio.open_memory_channel[str | None](math.inf)
        self._started = False
        self._eof = False

    def _start(self) -> None:
        token = trio.lowlevel.current_trio_token()
        send = self._send.send_nowait

        def deliver(item: str | None) -> bool:
            try:
                token.run_sync_soon(send, item)
            except trio.RunFinishedError:
                return False
            return True

        def worker() -> None:
            buf = b""
            while True:
                try:
                    chunk = os.read(self._fd, 4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    if buf:
                        deliver(buf.decode(errors="replace"))
                    deliver(None)
                    return
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if not deliver(line.decode(errors="replace").rstrip("\r")):
                        return

        threading.Thread(target=worker, name="truc-p2p-stdin", daemon=True).start()
        self._started = True

    async def readline(self) -> str | None:
        if self._eof:
            await trio.lowlevel.checkpoint()
            return None
        if not self._started:
            self._start()
        line = await self._recv.receive()
        if line is None:
            self._eof = True
        return line


def keymap(game: Game, legal: Iterable[Action]) -> dict[str, Action]:
    """Key -> legal action: digits for the cards in hand order, letters for the rest."""
    legal = tuple(legal)
    keys: dict[str, Action] = {}
    me = game.view if game.view is not None else game.to_act
    hand = game.hand(me) if me is not None else None
    for i, card in enumerate(hand or ()):
        action = Action.play(card)
        if action in legal:
            keys[str(i + 1)] = action
    for action in legal:
        key = _KEYS.get(action.kind)
        if key is not None:
            keys[key] = action
    return keys


def _label(action: Action, game: Game) -> str:
    kind = action.kind
    if kind is ActionKind.RAISE:
        try:
            return f"“2 more?” (to {game.ruleset.next_value(game.round_value)})"
        except RulesetError:  # pragma: no cover - the engine only offers reachable raises
            return "“2 more?”"
    if kind is ActionKind.REST:
        return "“my rest”"
    if kind is ActionKind.ACCEPT:
        return "accept (“my rest” too)" if game.pending is ActionKind.REST else "accept"
    if kind is ActionKind.REFUSE:
        return "refuse"
    if kind is ActionKind.FOLD:
        return "fold"
    if kind is ActionKind.ASK_REDEAL:
        return "ask for a redeal"
    if kind is ActionKind.ACCEPT_REDEAL:
        return "accept the redeal"
    if kind is ActionKind.DECLINE_REDEAL:
        return "decline the redeal"
    return str(action)


def parse_choice(line: str, game: Game, legal: tuple[Action, ...]) -> Action | str:
    """The action a line of input picks, or a message to show (help, or why not).

    Raises :class:`QuitGame` for ``q``.
    """
    text = line.strip()
    key = text.lower()
    if key in ("q", "quit", "exit"):
        raise QuitGame("the player quit")
    if key in ("?", "h", "help"):
        return HELP
    if not key:
        return "type a key from the list (? for help)"
    keys = keymap(game, legal)
    if key in keys:
        return keys[key]
    if key.isdigit():
        return f"no card {key} to play now; choose from: {', '.join(keys)}"
    try:
        action = Action.from_str(text)
    except ActionError:
        return f"unknown key {text!r}; choose from: {', '.join(keys)} (? for help)"
    if action in legal:
        return action
    return f"{action} is not possible now; choose from: {', '.join(keys)} (? for help)"


class TerminalPlayer(Narrator):
    """A human at a terminal: an ``on_event`` hook (call it) and a :class:`Strategy`."""

    def __init__(
        self,
        lines: LineSource,
        my_name: str,
        *,
        ascii: bool = False,
        out: TextIO | None = None,
        echo: bool = False,
    ) -> None:
        super().__init__(my_name, ascii=ascii, out=out)
        self.lines = lines
        #: Repeat each input line after the prompt (input from a pipe is not echoed).
        self.echo = echo

    def _name(self, player: Player) -> str:
        return "you" if player is self.me else self.names[player]

    def __call__(self, event: Event | SessionEvent | NetEvent) -> None:
        if isinstance(event, GameStarted):
            self.start(event)
            self.names[event.me] = "you"  # the terminal player reads about itself
            peer = self.names[event.me.other]
            self.write(
                f"playing against {peer} (key {event.peer_fingerprint[:16]}…), "
                f"first to {event.ruleset.target} points; "
                f"first dealer: {self._name(event.first_dealer)}. Type ? for help."
            )
            return
        if isinstance(event, CardsDealt):
            what = "redeal" if event.redeal else f"hand {event.round_no + 1}"
            cards = "  ".join(c.pretty(ascii=self.ascii) for c in event.cards)
            self.write(f"\n-- {what}, dealer {self._name(event.dealer)}: you get {cards}")
            return
        if isinstance(event, Acted):
            if event.player is self.me:
                self.write(f"   you {_my_action(event.action, ascii=self.ascii)}")
            else:
                text = describe_action(event.action, ascii=self.ascii)
                self.write(f">> {self.names[event.player]} {text}")
            return
        super().__call__(event)

    def render(self, game: Game, legal: tuple[Action, ...]) -> str:
        """The screen shown before each decision."""
        me = self.me
        opp = self.names[me.other]
        scores = game.scores
        head = (
            f"hand {game.round_no + 1}, trick {game.trick_no + 1} · round worth "
            f"{game.round_value} · score: you {scores[me]} – {opp} {scores[me.other]} "
            f"(first to {game.ruleset.target}) · dealer: {self._name(game.dealer)}"
        )
        table = game.table
        if table:
            on_table = ", ".join(
                f"{self._name(p)} played {c.pretty(ascii=self.ascii)}" for p, c in table
            )
        else:
            lead = "you lead" if game.leader is me else f"{opp} leads"
            on_table = f"empty ({lead})"
        lines = [head, f"   table: {on_table}"]
        if game.requester is not me.other:
            pass
        elif game.pending is ActionKind.RAISE:
            lines.append(f"   {opp} asks “2 more?” — answer: a accept, x refuse, f fold")
        elif game.pending is ActionKind.REST:
            lines.append(f"   {opp} declares “my rest” — answer: a accept, x refuse, f fold")
        elif game.pending is ActionKind.ASK_REDEAL:
            lines.append(f"   {opp} asks for a redeal — answer: d accept, n decline, f fold")
        hand = game.hand(me) or ()
        cards = "  ".join(f"[{i + 1}] {c.pretty(ascii=self.ascii)}" for i, c in enumerate(hand))
        lines.append(f"   your hand: {cards}")
        keys = keymap(game, legal)
        digits = [k for k in keys if k.isdigit()]
        menu = []
        if digits:
            menu.append(f"[{digits[0]}-{digits[-1]}] play" if len(digits) > 1 else "[1] play")
        menu += [f"[{k}] {_label(a, game)}" for k, a in keys.items() if not k.isdigit()]
        menu += ["[?] help", "[q] quit"]
        lines.append("   your move: " + "  ".join(menu))
        screen = "\n".join(lines)
        return plain(screen) if self.ascii else screen

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        self.write(self.render(game, legal))
        while True:
            self.prompt()
            line = await self.lines.readline()
            if line is None:
                self.write("(end of input: leaving the game)")
                raise QuitGame("end of input")
            if self.echo:
                self.write(line)
            choice = parse_choice(line, game, legal)
            if isinstance(choice, Action):
                return choice
            self.write(choice)

    def prompt(self) -> None:
        out = self.out or sys.stdout
        out.write("> ")
        out.flush()

    def write(self, line: str) -> None:
        super().write(plain(line) if self.ascii else line)
