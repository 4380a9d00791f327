"""The terminal player's input: where its lines come from, a list (tests, scripts)
or a file descriptor (stdin) read by one daemon thread per descriptor, and what
a line picks (:func:`parse_choice`).

Lines from a terminal carry when they were typed (trio time), so the terminal
player can drop what was typed ahead of a trick's end; a pipe's lines are a
script, never typed ahead of anything.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import ClassVar, Protocol

import trio

from truc_p2p.i18n import _
from truc_p2p.net import QuitGame
from truc_p2p.rules import Action, ActionError, Game
from truc_p2p.ui._choices import aliases, keymap
from truc_p2p.ui._texts import NOT_NOW, action_label, card_text, help_text

__all__ = ["LineSource", "ScriptedLines", "StdinLines", "parse_choice"]


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


class _FdReader:
    """The one reader thread of a file descriptor, shared by every :class:`StdinLines`
    of the process: a command that plays several games, each in its own
    ``trio.run`` (a match resumed after a crash), never has two threads racing for
    the same input, and a line read while no game listens waits for the next one.

    The thread uses ``os.read`` (no Python-level buffer lock, so it never blocks
    interpreter shutdown) and appends complete lines to a deque; whoever listens
    is woken through its trio token.
    """

    _readers: ClassVar[dict[int, _FdReader]] = {}
    _guard: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lock = threading.Lock()
        #: (line, when it arrived in trio time, or None until a listener stamps it);
        #: a line of None is the end of input
        self.lines: deque[tuple[str | None, float | None]] = deque()
        self._listener: tuple[trio.lowlevel.TrioToken, Callable[[], None]] | None = None
        #: A terminal: Ctrl-D ends one read, not the input (the player is asked first)
        self.tty = os.isatty(fd)
        #: The input is over for good (a pipe's end, a terminal hung up)
        self.ended = False
        threading.Thread(target=self._work, name=f"truc-p2p-fd{fd}", daemon=True).start()

    @classmethod
    def of(cls, fd: int) -> _FdReader:
        with cls._guard:
            if fd not in cls._readers:
                cls._readers[fd] = cls(fd)
            return cls._readers[fd]

    def listen(self, token: trio.lowlevel.TrioToken, wake: Callable[[], None]) -> None:
        with self.lock:
            self._listener = (token, wake)

    def _put(self, line: str | None) -> None:
        with self.lock:
            self.lines.append((line, None))
            listener = self._listener
        if listener is not None:
            # when that game is over, the line waits for the next one
            with contextlib.suppress(trio.RunFinishedError):
                listener[0].run_sync_soon(listener[1])

    def _work(self) -> None:
        buf = b""
        while True:
            failed = False
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:
                chunk, failed = b"", True
            if not chunk:
                if buf:
                    self._put(buf.decode(errors="replace"))
                    buf = b""
                if self.tty and not failed:
                    self._put(None)  # Ctrl-D: the terminal can still be read
                    continue
                self.ended = True
                self._put(None)
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self._put(line.decode(errors="replace").rstrip("\r"))


class StdinLines:
    """Lines from a file descriptor (stdin), read by one daemon thread per
    descriptor (:class:`_FdReader`); waiting for input can be cancelled at any
    time without losing a line."""

    def __init__(self, fd: int = 0) -> None:
        self._fd = fd
        self._reader: _FdReader | None = None
        self._event = trio.Event()
        #: Lines from a terminal carry when they were typed (for type-ahead); a pipe's
        #: lines are a script, never typed ahead of anything.
        self.stamped = os.isatty(fd)
        #: When the line last returned by :meth:`readline` arrived (trio time).
        self.stamp: float | None = None

    def _wake(self) -> None:
        """In trio: stamp what arrived, and wake :meth:`readline`."""
        reader = self._reader
        if reader is not None:
            now = trio.current_time()
            with reader.lock:
                for i, (line, stamp) in enumerate(reader.lines):
                    if stamp is None:
                        reader.lines[i] = (line, now)
        self._event.set()

    def start(self) -> None:
        """Start reading now (from trio), so that what a person types before its
        first turn is stamped with when it was typed."""
        if self._reader is None:
            self._reader = _FdReader.of(self._fd)
        self._reader.listen(trio.lowlevel.current_trio_token(), self._wake)

    @property
    def ended(self) -> bool:
        """No line will come any more (``readline`` returned ``None`` for good): not
        after a Ctrl-D at a terminal, which ends one read only."""
        reader = self._reader
        return reader is None or not reader.tty or reader.ended

    async def readline(self) -> str | None:
        self.start()
        reader = self._reader
        assert reader is not None
        while True:
            await trio.lowlevel.checkpoint()  # a cancel comes before a line is taken
            with reader.lock:
                if reader.lines:
                    line, stamp = reader.lines[0]
                    # the end of input stays for every later reader; a Ctrl-D does not
                    if line is not None or not reader.ended:
                        reader.lines.popleft()
                    break
                self._event = trio.Event()
            await self._event.wait()
        # nothing awaits from here on: a line taken is always returned
        self.stamp = (stamp if stamp is not None else trio.current_time()) if self.stamped else None
        return line


def parse_choice(line: str, game: Game, legal: tuple[Action, ...]) -> Action | str:
    """The action a line of input picks, or a message to show (help, or why not).

    Raises :class:`QuitGame` for ``q`` (the caller confirms it first).
    """
    text = line.strip()
    key = text.lower()
    if key in ("q", "quit", "exit"):
        raise QuitGame("the player quit")
    if key in ("?", "h", "help"):
        return help_text()  # in the language of now, not of import time
    keys = keymap(game, legal)
    choose = ", ".join(keys)
    if not key:
        return _("type a key from the list (? for help)")
    if key in keys:
        return keys[key]
    also = aliases(keys)
    if key in also:
        return also[key]
    if key.isdigit():
        return _("no card {key} to play now; choose from: {keys}", key=key, keys=choose)
    if key in NOT_NOW:
        return _("{why}; choose from: {keys}", why=_(NOT_NOW[key]), keys=choose)
    try:
        action = Action.from_str(text)
    except ActionError:
        return _("unknown key {key!r}; choose from: {keys} (? for help)", key=text, keys=choose)
    if action in legal:
        return action
    if action.card is not None:
        held = game.hand(game.view) if game.view is not None else None
        card = card_text(action.card)
        if held is not None and action.card not in held:
            return _("you do not hold {card}; choose from: {keys}", card=card, keys=choose)
        return _("you cannot play {card} now; choose from: {keys}", card=card, keys=choose)
    return _(
        "{action} is not possible now; choose from: {keys} (? for help)",
        action=action_label(action),
        keys=choose,
    )
