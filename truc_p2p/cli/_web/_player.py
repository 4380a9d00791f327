"""The browser player: a :class:`~truc_p2p.net.Strategy` and an event hook, like
the terminal player, whose screen and keyboard are a page.

Theory of operation
-------------------
The player keeps a mirror of its own view of the game (a rules engine with
``view=me``, fed the same events the session produced), so the page can be
updated when the opponent moves, not only when it is our turn.  At our turn
the session's own view replaces the mirror.  Every change is pushed to the
page as one ``state`` message holding the whole table; the page redraws
from it, so a reloaded page only needs the last one.

Messages to the page (JSON objects with a ``type``): ``state``, ``log``
(one line: a move, a trick, a round), ``peer_disconnected`` /
``peer_reconnected`` (the reconnect countdown), ``final`` (the end screen).
The page ignores types it does not know.  Messages from the page: ``act``
(``turn`` and ``action`` text) and ``quit`` (``turn``, or none while the
opponent thinks: the player leaves at once); a stale turn or an action that
is not legal is refused with a ``notice``.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Protocol

import trio

from truc_p2p.cli._narrate import describe_action
from truc_p2p.net import PeerDisconnected, PeerReconnected, QuitGame
from truc_p2p.protocol import (
    AuditPassed,
    CardsDealt,
    GameFinished,
    GameStarted,
    PeerAborted,
    SessionEvent,
)
from truc_p2p.rules import (
    Acted,
    Action,
    ActionError,
    ActionKind,
    Event,
    Game,
    GameEnded,
    Player,
    RoundEnded,
    RulesError,
    TrickEnded,
)

from ._view import card_json, seat, table_state

__all__ = ["Publisher", "WebPlayer"]

#: Log lines kept for a page that (re)connects.
LOG_SIZE = 40

_MY_WORDS = {
    ActionKind.RAISE: "ask “2 more?”",
    ActionKind.REST: "declare “my rest”",
    ActionKind.ACCEPT: "accept",
    ActionKind.REFUSE: "refuse",
    ActionKind.FOLD: "fold",
    ActionKind.ASK_REDEAL: "ask for a redeal",
    ActionKind.ACCEPT_REDEAL: "accept the redeal",
    ActionKind.DECLINE_REDEAL: "decline the redeal",
}
_ROUND_WHY = {
    "tricks": "on tricks",
    "spoiled": "every trick spoiled",
    "refused": "the raise was refused",
    "rest-refused": "“my rest” was refused",
    "folded": "a fold",
    "rest-won": "“my rest” was answered",
}


class Publisher(Protocol):
    """Where the player's messages go (the server, or a list in tests)."""

    def publish(self, message: dict[str, Any]) -> None: ...


class _Quit:
    """The page asked to leave the game."""


class WebPlayer:
    """A person playing in the browser: ``choose`` waits for a click, ``__call__``
    takes the game's events.  ``move_seconds`` is the per-move timeout shown."""

    def __init__(self, my_name: str, *, move_seconds: float | None = None) -> None:
        self.my_name = my_name
        self.move_seconds = move_seconds
        self.me = Player.P0
        self.names = {Player.P0: my_name, Player.P1: "opponent"}
        self.publisher: Publisher | None = None
        self._started: dict[str, Any] | None = None
        self._game: Game | None = None
        self._log: deque[dict[str, Any]] = deque(maxlen=LOG_SIZE)
        self._turn = 0
        self._legal: tuple[Action, ...] = ()
        self._picked: Action | _Quit | None = None
        self._answered = trio.Event()
        self._clock_start: float | None = None
        self._last_round: dict[str, Any] | None = None
        self._round_tricks: list[dict[str, Any]] = []
        self._audit = "not yet"
        self._disconnect_deadline: float | None = None
        self._final: dict[str, Any] | None = None
        #: Set when the player leaves while the opponent thinks (the command passes it
        #: to the game loop as its ``stop``: a signed quit, as with Ctrl-C).
        self.leave: trio.Event | None = None

    # -- what the page gets ----------------------------------------------------------

    def _now(self) -> float:
        try:
            return trio.current_time()
        except RuntimeError:  # outside trio (unit tests of the encoding)
            return 0.0

    def state(self) -> dict[str, Any]:
        """The ``state`` message: everything the table shows right now."""
        message: dict[str, Any] = {"type": "state", "started": self._started}
        game = self._game
        if game is not None:
            my_turn = bool(self._legal)
            message["table"] = table_state(
                game, self.me, legal=self._legal, turn=self._turn if my_turn else None
            )
        else:
            message["table"] = None
        message["last_round"] = self._last_round
        message["audit"] = self._audit
        left = None
        if self.move_seconds is not None and self._clock_start is not None:
            left = max(0.0, self._clock_start + self.move_seconds - self._now())
        message["seconds_left"] = left
        return message

    def snapshot(self) -> list[dict[str, Any]]:
        """Messages for a page that just connected."""
        messages = [self.state(), *self._log]
        if self._disconnect_deadline is not None:
            left = max(0.0, self._disconnect_deadline - self._now())
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
        self._send(line)

    def _name(self, player: Player | None) -> str:
        if player is None:
            return "nobody"
        return "you" if player is self.me else self.names[player]

    # -- the event hook --------------------------------------------------------------

    def __call__(self, event: Event | SessionEvent | object) -> None:
        """Take one game event; unknown events are ignored (never raises on them)."""
        try:
            self._on_event(event)
        except RulesError:  # the mirror is out of step: the next turn resyncs it
            self._game = None
        self._push()

    def _on_event(self, event: object) -> None:
        if isinstance(event, PeerDisconnected):
            self.on_disconnect(event.seconds_left)
            return
        if isinstance(event, PeerReconnected):
            self.on_reconnect()
            return
        if isinstance(event, GameStarted):
            self.me = event.me
            peer = event.peer_name
            if peer == self.my_name:
                peer = f"{peer} (opponent)"
            self.names = {event.me: self.my_name, event.me.other: peer}
            self._started = {
                "me": self.my_name,
                "opp": peer,
                "opp_fingerprint": event.peer_fingerprint,
                "game_id": event.game_id.hex(),
                "target": event.ruleset.target,
                "ruleset": event.ruleset.to_dict(),
                "audit_mode": event.audit,
                "deck": event.deck,
                "first_dealer": seat(event.first_dealer, event.me),
            }
            if event.deck == "v2":  # every deal message is proven on arrival: nothing to audit
                self._audit = "proofs"
            self._game = Game(event.ruleset, first_dealer=event.first_dealer, view=event.me)
            deals = "deal" if event.first_dealer is self.me else "deals"
            self._say(
                f"playing {peer}, first to {event.ruleset.target} points; "
                f"{self._name(event.first_dealer)} {deals} first"
            )
        elif isinstance(event, CardsDealt):
            if self._game is not None:
                self._game.deal({self.me: event.cards})
            what = "redeal" if event.redeal else f"hand {event.round_no + 1}"
            self._say(f"{what}: dealer {self._name(event.dealer)}")
            self._clock_start = self._now()
        elif isinstance(event, Acted):
            self._acted(event)
        elif isinstance(event, TrickEnded):
            self._round_tricks.append(_trick_json(event, self.me))
            who = "spoiled" if event.winner is None else f"won by {self._name(event.winner)}"
            self._say(f"trick {event.trick_no + 1} {who}")
        elif isinstance(event, RoundEnded):
            self._round_ended(event)
        elif isinstance(event, GameEnded):
            o = event.outcome
            self._say(f"game over: {self._name(o.winner)} won ({o.reason.value})")
        elif isinstance(event, AuditPassed):
            self._audit = "passed"
            self._say("deck audit passed: the shuffle was fair")
        elif isinstance(event, GameFinished):
            self._say("result co-signed by both players")
        elif isinstance(event, PeerAborted):
            self._say(f"{self.names[self.me.other]} ended the game: {event.reason}", "opp")

    def _acted(self, event: Acted) -> None:
        game = self._game
        first_play = (
            game is not None
            and event.action.kind is ActionKind.PLAY
            and game.trick_no == 0
            and not game.table
        )
        if first_play:
            self._last_round = None
        if game is not None:
            game.push(event.action, player=event.player)
        self._clock_start = self._now()
        action = event.action
        if event.player is self.me:
            words = (
                f"play {action.card.pretty()}"
                if action.card is not None
                else _MY_WORDS[action.kind]
            )
            self._say(f"you {words}", "me")
        else:
            self._say(f"{self.names[event.player]} {describe_action(action)}", "opp")

    def _round_ended(self, event: RoundEnded) -> None:
        why = _ROUND_WHY.get(event.reason.value, event.reason.value)
        if event.winner is None:
            text = f"hand {event.round_no + 1}: nobody scores ({why})"
        elif event.points:
            pts = f"{event.points} point{'s' if event.points != 1 else ''}"
            text = f"hand {event.round_no + 1}: {self._name(event.winner)} +{pts} ({why})"
        else:
            wins = "win" if event.winner is self.me else "wins"
            text = f"hand {event.round_no + 1}: {self._name(event.winner)} {wins} ({why})"
        self._last_round = {
            "text": text,
            "winner": seat(event.winner, self.me),
            "tricks": self._round_tricks,
        }
        self._round_tricks = []
        self._say(text)

    # -- the strategy ----------------------------------------------------------------

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        """Show the table with buttons for ``legal`` and wait for the page's answer."""
        self._game = game.copy()
        self._clock_start = self._now()
        self._turn += 1
        self._legal = tuple(legal)
        self._picked = None
        self._answered = trio.Event()
        self._push()
        try:
            await self._answered.wait()
        finally:
            self._legal = ()
            self._push()
        picked = self._picked
        if isinstance(picked, _Quit) or picked is None:
            raise QuitGame("the player left the game")
        return picked

    def receive(self, message: dict[str, Any]) -> None:
        """A message from the page: an action for the current turn, or leave."""
        kind = message.get("type")
        if kind not in ("act", "quit"):
            return
        if kind == "quit" and not self._legal and self._final is None and self.leave is not None:
            self.leave.set()  # not our turn: leave now, the opponent is told
            self._send({"type": "notice", "text": "leaving the game: the opponent is told"})
            return
        if not self._legal or message.get("turn") != self._turn:
            self._send({"type": "notice", "text": "that is not possible now"})
            return
        if kind == "quit":
            self._picked = _Quit()
            self._answered.set()
            return
        text = message.get("action")
        try:
            action = Action.from_str(text) if isinstance(text, str) else None
        except ActionError:
            action = None
        if action is None or action not in self._legal:
            self._send({"type": "notice", "text": f"{text!s:.40} is not possible now"})
            return
        self._picked = action
        self._legal = ()
        self._answered.set()

    # -- disconnection countdown and the end -----------------------------------------

    def on_disconnect(self, seconds_left: float) -> None:
        """The opponent's connection dropped; it has ``seconds_left`` to come back."""
        self._disconnect_deadline = self._now() + seconds_left
        self._send({"type": "peer_disconnected", "seconds_left": seconds_left})

    def on_reconnect(self) -> None:
        """The opponent is back."""
        self._disconnect_deadline = None
        self._send({"type": "peer_reconnected"})

    def finish(self, final: dict[str, Any]) -> None:
        """Show the end screen (``final`` is built by :func:`final_message`)."""
        self._legal = ()
        self._disconnect_deadline = None
        self._final = {"type": "final", **final}
        self._push()
        self._send(self._final)


def _trick_json(trick: TrickEnded, me: Player) -> dict[str, Any]:
    return {
        "winner": seat(trick.winner, me),
        "cards": [
            {"by": seat(trick.leader, me), **card_json(trick.cards[0])},
            {"by": seat(trick.leader.other, me), **card_json(trick.cards[1])},
        ],
    }
