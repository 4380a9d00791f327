"""The web table's model: what a person playing in a page sees, trio-free.

One model fed by session events, for both pages: ``--web``'s
:class:`~truc_p2p.ui._web._player.WebPlayer` (trio, a local WebSocket) and the
site's in-page game (:mod:`truc_p2p.page`, in a Web Worker).  The messages are
:mod:`._player`'s (see its docstring): ``texts``, ``invite``, ``state``, ``log``,
``log_all``, ``peer_disconnected`` / ``peer_reconnected``, ``final``, ``levels``,
``new_game``, ``notice``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from truc_p2p.bots import LEVELS
from truc_p2p.i18n import LANGUAGES, _, current, from_accept_language, use_language
from truc_p2p.protocol import SessionEvent
from truc_p2p.rules import Action, ActionError, Event, Game, Player
from truc_p2p.ui._table import TableModel, TableView, seat
from truc_p2p.ui._texts import move_clock_words

from ._view import GUARD_SECONDS, invite_json, page_texts, view_json

__all__ = ["GUARD_SECONDS", "LOG_SIZE", "Publisher", "TableFeed"]

#: Log lines kept for a page that (re)connects.
LOG_SIZE = 40


class Publisher(Protocol):
    """Where the player's messages go (the server, or a list in tests)."""

    def publish(self, message: dict[str, Any]) -> None: ...


class TableFeed:
    """What a person playing in a page sees, fed the game's events (``__call__``) and
    the page's messages (:meth:`receive`), sending the page its messages (``publisher``).

    No trio and no clock: ``now`` tells the time (the table's move clock).  How an
    answer reaches the game is the subclass's: :meth:`_picked`, :meth:`_answer_again`,
    :meth:`_answer_level` and :meth:`_leave_now` (the ``--web`` player wakes its trio
    tasks; the page's :class:`~truc_p2p.page.PageApp` acts at once)."""

    def __init__(
        self,
        my_name: str,
        *,
        move_seconds: float | None = None,
        lang_pinned: bool = False,
        match_games: int = 1,
        now: Callable[[], float] | None = None,
    ) -> None:
        self._clock = now
        self.my_name = my_name
        #: The match's length (1: a single game, then rematches) and this game's number
        #: (the log's headings, "game 1 of 3" on the table).
        self.match_games = match_games
        self.game_no = 1
        #: ``--lang`` was given, or the page chose a language: the browser's
        #: ``Accept-Language`` no longer decides.
        self.lang_pinned = lang_pinned
        self.move_seconds = move_seconds
        self.model = TableModel(my_name, move_seconds=move_seconds, now=self._now)
        self.publisher: Publisher | None = None
        self._log: deque[dict[str, Any]] = deque(maxlen=LOG_SIZE)
        #: The events of the games whose lines are in the log (the last is this game's),
        #: and how many lines each said: the log is told again in another language.
        self._games: list[list[object]] = [[]]
        self._said: list[int] = [0]
        self._final: dict[str, Any] | None = None
        #: The end screen's texts and the match line made again in the language in use
        #: (after a change of language).
        self._final_retell: Callable[[], dict[str, Any]] | None = None
        self._match_retell: Callable[[], str] | None = None
        self._invite: dict[str, Any] | None = None
        #: the match score ("match: you 1 – bob 0"), shown on the table and the end screen
        self.match_line: str | None = None
        #: ``play``: the bot's level (one of ``LEVELS``), which the start panel and the
        #: end screen let the player change for the next game; ``None``: no choice.
        self.level: str | None = None
        #: In a match, the page's ``{"type": "quit", "concede": true}`` concedes only
        #: this game (the signed detail says the match goes on; wire.md 4.1): at its
        #: turn through :attr:`concedes`, between turns through :meth:`_concede_now`.
        self.concedes = False
        #: In a match: who wins it if the player leaves now and the games score then
        #: (the terminal's leave question's, :func:`~truc_p2p.cli._after.tell_match_cost`);
        #: the leave question names the match and a button concedes only this game.
        self.match_cost: Callable[[], tuple[str, str]] | None = None
        #: The start panel offers the levels now (``levels`` with ``ask``).
        self.asking_level = False
        #: The start panel: whether it offers the levels, and the name it asks for
        #: (filled in; ``None``: not asked), then :attr:`name_given` the name typed.
        self.choose_level = True
        self.name_asked: str | None = None
        self.name_given: str | None = None
        #: The start panel: the rule variants it offers (``play``: those whose option
        #: was not given, see :mod:`truc_p2p.ui._variants`), then those the player ticked.
        self.variants_offered: frozenset[str] = frozenset()
        self.variants_chosen: frozenset[str] = frozenset()
        #: The end screen asks "play again?" now.
        self.asking_again = False
        #: ``learn --web``: the lesson's step now (``step``: "step 2 of 9", ``texts``: what
        #: happened since the last move and what to do now, ``hint``: why the last move
        #: was refused), shown as a panel above the hand; ``None`` outside the lesson.
        self.lesson: dict[str, Any] | None = None

    @property
    def me(self) -> Player:
        return self.model.me

    @property
    def names(self) -> dict[Player, str]:
        return self.model.names

    @property
    def _legal(self) -> tuple[Action, ...]:
        return self.model.legal

    # -- what the page gets ----------------------------------------------------------

    def _now(self) -> float:
        return self._clock() if self._clock is not None else 0.0

    def state(self) -> dict[str, Any]:
        """The ``state`` message: everything the table shows right now."""
        message: dict[str, Any] = {
            "type": "state",
            "started": self._started,
            "match_line": self.match_line,
            "game_line": self._game_heading(self.game_no),
        }
        view = self.model.view()
        message["table"] = view_json(view) if view is not None else None
        result = self.model.hand_result
        message["last_round"] = (
            {"text": result.text, "winner": result.winner, "seq": result.seq}
            if result is not None
            else None
        )
        message["audit"] = self.model.audit
        message["lesson"] = self.lesson
        # the clock of every move, said at the start as the terminal says it
        seconds = self.model.move_seconds
        message["clock_note"] = move_clock_words(seconds) if seconds is not None else None
        message["guard_ms"] = round(GUARD_SECONDS * 1000)
        message["seconds_left"] = self.model.seconds_left()
        message["status_template"] = self._status_template(view)
        message["title"] = (
            _("(your turn) truc-p2p") if self.model.legal else _("Le Truc — truc-p2p")
        )
        message["texts"] = self._leave_texts()
        return message

    def _leave_texts(self) -> dict[str, str]:
        """The leave question, and in a match game the concede button and its question."""
        if self._started is None:
            return {"leave_confirm": _("Stop and leave? No game has started yet.")}
        opponent = self.model.opp_name
        if self.match_cost is None or self.match_games < 2 or self._final is not None:
            return {
                "leave_confirm": _(
                    "Leave the game? You resign: {name} wins the game.", name=opponent
                )
            }
        name, score = self.match_cost()
        return {
            "leave_confirm": _(
                "Leave the match? You resign it: {name} wins the match, {score}.",
                name=name,
                score=score,
            ),
            "concede_button": _("concede this game"),
            "concede_confirm": _(
                "Concede this game? {name} wins it, and the match goes on with the next one.",
                name=opponent,
            ),
        }

    def _game_heading(self, number: int) -> str | None:
        """ "game 2 of 3" in a match, "game 2" for a rematch, nothing for a lone game."""
        if self.match_games > 1:
            return _("game {n} of {games}", n=number, games=self.match_games)
        return _("game {n}", n=number) if number > 1 else None

    def _status_template(self, view: TableView | None) -> str | None:
        """The status line with ``{time}`` where the page ticks the clock itself
        (``None`` when no clock runs)."""
        if view is None or self.model.over:
            return None
        return view.status_template

    def snapshot(self) -> list[dict[str, Any]]:
        """Messages for a page that just connected."""
        messages: list[dict[str, Any]] = [{"type": "texts", **page_texts()}]
        if self._invite is not None and self._started is None:
            messages.append(self._invite)
        if self.asking_level:
            messages.append(self._levels_message(True))
        messages += [self.state(), *self._log]
        if self.model.away_until is not None:
            left = max(0.0, self.model.away_until - self._now())
            messages.append({"type": "peer_disconnected", "seconds_left": left})
        if self._final is not None:
            messages.append(self._final)
        return messages

    def _send(self, message: dict[str, Any]) -> None:
        if self.publisher is not None:
            self.publisher.publish(message)

    def _push(self) -> None:
        self._send(self.state())

    def _say(self, text: str, who: str = "info") -> None:
        line = {"type": "log", "who": who, "text": text}
        self._log.append(line)
        self._said[-1] += 1
        self._send(line)

    # -- the event hook --------------------------------------------------------------

    def __call__(self, event: Event | SessionEvent | object) -> None:
        """Take one game event; unknown events are ignored (never raises on them)."""
        self._on_event(event)
        self._push()

    def _on_event(self, event: object) -> None:
        # the model follows the event and tells it; the page is sent what it holds
        self._games[-1].append(event)
        lines = self.model.feed(event)
        for line in lines:
            if line.kind == "start":  # the log tells each game of a series apart
                heading = self._game_heading(self.game_no)
                if heading is not None:
                    self._say(heading, "game")
            self._say(line.text, line.who)
        if any(line.kind == "link" for line in lines):  # the countdown on the table
            self._tell_link()

    def _tell_link(self) -> None:
        away = self.model.away_until
        if away is not None:
            self._send({"type": "peer_disconnected", "seconds_left": away - self._now()})
        else:
            self._send({"type": "peer_reconnected"})

    @property
    def _started(self) -> dict[str, Any] | None:
        """The game's start as the page shows it (``None`` before it)."""
        event = self.model.started
        if event is None:
            return None
        return {
            "me": self.my_name,
            "opp": self.model.opp_name,  # as the table names it
            "opp_fingerprint": event.peer_fingerprint,
            "game_id": event.game_id.hex(),
            "target": event.ruleset.target,
            "ruleset": event.ruleset.to_dict(),
            "audit_mode": event.audit,
            "deck": event.deck,
            "first_dealer": seat(event.first_dealer, event.me),
        }

    def _relog(self) -> None:
        """Say the log again in the language now in use: the events of the games whose
        lines are still in it are told again to a fresh table (nothing is sent)."""
        lines: list[dict[str, Any]] = []
        model = TableModel(self.my_name, move_seconds=self.move_seconds)
        first = self.game_no - len(self._games) + 1  # the number of the oldest game kept
        for number, events in enumerate(self._games, start=first):
            model = TableModel(self.my_name, move_seconds=self.move_seconds)
            for event in events:
                for line in model.feed(event):
                    heading = self._game_heading(number) if line.kind == "start" else None
                    if heading is not None:
                        lines.append({"type": "log", "who": "game", "text": heading})
                    lines.append({"type": "log", "who": line.who, "text": line.text})
        self._log = deque(lines, maxlen=LOG_SIZE)
        # what the table still shows of the last trick and hand, in the new language
        self.model.last_trick = model.last_trick
        self.model.hand_result = model.hand_result

    # -- the strategy ----------------------------------------------------------------

    def offer(self, game: Game, legal: tuple[Action, ...]) -> None:
        """Our turn: show the table with buttons for ``legal`` (the answer comes
        through :meth:`receive` to :meth:`_picked`)."""
        self.model.begin_turn(game, legal)
        self._push()

    def withdraw(self) -> None:
        """The turn is over (answered, or the game moved on): no buttons."""
        self.model.end_turn()
        self._push()

    def _picked(self, choice: Action | None) -> None:
        """The page's answer to the turn: an action, or ``None`` to leave (resign)."""

    def _answer_again(self, yes: bool) -> None:
        """The end screen's answer (the level, if offered, is in :attr:`level`)."""

    def _answer_level(self) -> None:
        """The start panel's "start" (the choice is in :attr:`level`)."""

    def _leave_now(self) -> bool:
        """The player leaves while the opponent thinks; ``False``: cannot now."""
        return False

    def _concede_now(self) -> bool:
        """The player concedes this game of a match while the opponent thinks;
        ``False``: cannot now."""
        return False

    def greet(self, accept_language: str) -> None:
        """A page connects: speak the browser's language unless one was chosen (the
        log, said before the page came, is told again in it)."""
        code = from_accept_language(accept_language)
        if not self.lang_pinned and code is not None and code != current():
            use_language(code)
            self._relog()

    def switch_language(self, code: object) -> None:
        """The page's language menu: every text again in ``code``, the log's lines
        too (a ``log_all`` message).  The catalog is the process's, so the terminal's
        few lines follow too."""
        if not isinstance(code, str) or code not in LANGUAGES:
            return
        use_language(code)
        self.lang_pinned = True
        self._relog()
        self._send({"type": "texts", **page_texts()})
        self._send({"type": "log_all", "lines": list(self._log)})
        self._retell_final()
        self._push()
        if self._final is not None:
            self._send(self._final)

    def _retell_final(self) -> None:
        """The end screen's texts (headline, verdict, match line) in the language now
        in use; what the player chose there (again, level) stays."""
        if self._match_retell is not None:
            self.match_line = self._match_retell()
        if self._final is None:
            return
        if self._final_retell is not None:
            kept = {k: v for k, v in self._final.items() if k in ("again", "level", "match_line")}
            self._final = {"type": "final", **self._final_retell(), **kept}
        if self._match_retell is not None and "match_line" in self._final:
            self._final["match_line"] = self.match_line

    def receive(self, message: dict[str, Any]) -> None:
        """A message from the page: an action for the current turn, leave, or a language."""
        kind = message.get("type")
        if kind == "lang":
            self.switch_language(message.get("lang"))
        if kind == "again" and self.asking_again:
            yes = message.get("yes") is True
            level = message.get("level")
            offered = self._final is not None and self._final.get("level") is not None
            if yes and offered and level in LEVELS:
                self.level = str(level)  # the end screen's choice for the rematch
            self._answer_again(yes)
            return
        if kind == "level" and self.asking_level:
            level = message.get("level")
            name = message.get("name")
            if self.name_asked is not None and isinstance(name, str):
                name = name.strip()
                self.name_given = name if 1 <= len(name) <= 40 and name.isprintable() else None
            ticked = message.get("variants")
            if isinstance(ticked, list):
                self.variants_chosen = self.variants_offered & {
                    v for v in ticked if isinstance(v, str)
                }
            if not self.choose_level:  # the name only: the level stays the command's
                self._answer_level()
            elif level in LEVELS:
                self.level = str(level)
                self._answer_level()
            return
        if kind not in ("act", "quit"):
            return
        if kind == "quit" and self.match_games > 1 and message.get("concede") is True:
            self.concedes = True
            if not self._legal and self._final is None and self._concede_now():
                return  # not our turn: this game ends now, the match goes on
        if kind == "quit" and not self._legal and self._final is None and self._leave_now():
            # not our turn: leave now, the opponent is told
            self._send({"type": "notice", "text": _("leaving the game: the opponent is told")})
            return
        if not self._legal or message.get("turn") != self.model.turn:
            self._send({"type": "notice", "text": _("that is not possible now")})
            return
        if kind == "quit":
            self._picked(None)
            return
        text = message.get("action")
        try:
            action = Action.from_str(text) if isinstance(text, str) else None
        except ActionError:
            action = None
        if action is None or action not in self._legal:
            self._send(
                {
                    "type": "notice",
                    "text": _("{action} is not possible now", action=f"{text!s:.40}"),
                }
            )
            return
        self.model.end_turn()
        self._picked(action)

    def invite(self, text: str, hint: str | None = None) -> None:
        """``host --web``: show the invite (with ``hint``) until the game
        starts."""
        self._invite = invite_json(text, hint)
        self._send(self._invite)

    # -- disconnection countdown and the end -----------------------------------------

    def on_disconnect(self, seconds_left: float) -> None:
        """The opponent's connection dropped; it has ``seconds_left`` to come back
        (the countdown only: :class:`~truc_p2p.net.PeerDisconnected` tells it too)."""
        self.model.link_lost(seconds_left)
        self._tell_link()

    def on_reconnect(self) -> None:
        """The opponent is back."""
        self.model.link_back()
        self._tell_link()

    def show_levels(self, ask: bool) -> None:
        """The start panel: offer the bot's levels (``ask``) or stop offering them."""
        self.asking_level = ask
        self._send(self._levels_message(ask))

    def _levels_message(self, ask: bool) -> dict[str, Any]:
        """The start panel: the levels (unless the command chose one) and, on a first
        game, a name field filled with :attr:`name_asked` (issue 43)."""
        message = {
            "type": "levels",
            "ask": ask,
            "level": self.level,
            "choose_level": self.choose_level,
            "name": self.name_asked,
        }
        if self.variants_offered:  # the longer game's variants, none ticked at first
            message["variants"] = sorted(self.variants_offered)
        return message

    def offer_again(self, *, next_game: bool = False) -> None:
        """The end screen offers "play again" (``next_game``: "next game" of a match);
        a rematch against a bot offers its levels too."""
        self.asking_again = True
        if self._final is not None:
            self._final["again"] = "next" if next_game else True
            self._final["level"] = None if next_game else self.level
            self._send(self._final)

    def new_game(self, match_line: str | None = None) -> None:
        """A fresh table for the next game: the page drops the end screen."""
        turn = self.model.turn  # turns go on counting: game 1's last click is stale
        self.model = TableModel(self.my_name, move_seconds=self.move_seconds, now=self._now)
        self.model.turn = turn
        self.concedes = False
        self._final = None
        self._final_retell = None
        self._match_retell = None
        self.match_line = match_line
        self.game_no += 1
        self._games.append([])
        self._said.append(0)
        while len(self._games) > 1 and sum(self._said[1:]) >= LOG_SIZE:
            del self._games[0], self._said[0]  # none of its lines is in the log any more
        self._send({"type": "new_game", "match_line": match_line})
        self._push()

    def show_match(self, line: str, retell: Callable[[], str] | None = None) -> None:
        """The match score after a game, on the end screen (``retell`` says it again
        in another language)."""
        self.match_line = line
        self._match_retell = retell
        if self._final is not None:
            self._final["match_line"] = line
            self._send(self._final)

    def finish(
        self, final: dict[str, Any], retell: Callable[[], dict[str, Any]] | None = None
    ) -> None:
        """Show the end screen (``final`` is built by :func:`final_message`; ``retell``
        builds it again, in the language in use after a change)."""
        self._final_retell = retell
        self.model.end_turn()
        self.model.over = True
        self.model.away_until = None
        self._final = {"type": "final", **final}  # show_match adds this game's match line
        self._push()
        self._send(self._final)
