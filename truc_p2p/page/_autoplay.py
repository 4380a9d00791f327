"""The page's player played by a bot: how ``truc-p2p interop`` tests the page as a peer.

The browser adapter (:mod:`truc_p2p.interop.browser_peer`) runs the real site in
Chromium and installs an :class:`Autoplay` on the worker's :class:`~.PageApp`
(:func:`install`, called through Pyodide): from then on every turn of the page's
player is answered by the reference peer's bot, with the case's scripted decision
(``protocol_spec/interop.md`` §4: an action at its first chance, or a resignation
at a decision), the linked games of the case are played on, and each finished
game's transcript is kept for the adapter to write to ``TRUC_OUT``.  Everything
else is the page's own: the relay handshake over its WebSockets, the session, the
frame gate, heartbeats and resuming a lost link.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from truc_p2p.rules import Action, ActionKind, Game

if TYPE_CHECKING:
    from truc_p2p.bots import Bot

    from ._feed import PageFeed
    from ._glue import WorkerGlue

__all__ = ["Autoplay", "install", "report"]

#: How the reference peer's series end (``interop._cases.play_series``): these ends
#: let the next linked game follow; any other stops the case.
_GOES_ON = ("finished", "resigned", "opponent-resigned")


@dataclass
class Autoplay:
    """The case's player: ``bot`` (a level of :mod:`truc_p2p.bots`), ``wants`` an
    action kind (its value, e.g. ``"redeal"``) at its first chance, resign at
    decision ``resign_at`` (from 1); ``games``: ``"one"``, ``"match3"`` or
    ``"rematch"``."""

    bot: Bot
    wants: str | None = None
    resign_at: int | None = None
    games: str = "one"
    decisions: int = 0
    done_wanted: bool = False
    #: Each ended game: its end, its transcript's file name and bytes (maybe empty).
    ended: list[dict[str, Any]] = field(default_factory=list)
    wins: dict[int, int] = field(default_factory=lambda: {0: 0, 1: 0})
    #: The case is over: the adapter writes the transcripts and exits.
    finished: bool = False
    #: A linked game follows the one that just ended (``PageApp`` starts it).
    next_game: bool = False
    #: The table's one-line notices (the relay's steps, a dropped link), for the log.
    notices: list[str] = field(default_factory=list)

    def choose(self, game: Game, legal: tuple[Action, ...]) -> Action | None:
        """The answer to a turn; ``None``: resign (leave with a signed resignation)."""
        self.decisions += 1
        if self.resign_at is not None and self.decisions == self.resign_at:
            return None
        if self.wants is not None and not self.done_wanted:
            for action in legal:
                if action.kind.value == self.wants:
                    self.done_wanted = True
                    return action
        action = self.bot.choose(game)
        return action if action in legal else legal[0]

    def game_over(self, end: str, winner: int | None, name: str, data: bytes) -> None:
        """A game ended: keep its transcript; whether the series goes on."""
        self.ended.append({"end": end, "name": name, "b64": base64.b64encode(data).decode()})
        if winner is not None:
            self.wins[winner] += 1
        total = {"one": 1, "match3": 3, "rematch": 2}.get(self.games, 1)
        more = end in _GOES_ON and len(self.ended) < total
        if self.games == "match3" and max(self.wins.values()) >= 2:
            more = False
        self.next_game = more
        self.finished = not more


def install(glue: WorkerGlue, spec_json: str) -> str:
    """Put an :class:`Autoplay` on the worker's app; ``spec_json``: ``{"seed", "bot",
    "wants", "resign_at", "games", "pipeline", "early", "heartbeat", "dead_after",
    "turn_timeout"}`` (all optional).  Returns the page's fingerprint."""
    from truc_p2p.bots import make_bot

    from ._games import NetOptions

    spec = json.loads(spec_json)
    wants = spec.get("wants")
    if wants is not None:
        ActionKind(wants)  # a known action kind, else ValueError
    app = glue.app
    app.autoplay = auto = Autoplay(
        bot=make_bot(str(spec.get("bot") or "heuristic"), seed=int(spec.get("seed") or 0)),
        wants=wants,
        resign_at=spec.get("resign_at"),
        games=str(spec.get("games") or "one"),
    )
    clocks: dict[str, float] = {}
    for key in ("heartbeat", "dead_after", "turn_timeout"):
        if spec.get(key):
            clocks[key] = float(spec[key])
    made = app._new_feed

    def new_feed() -> PageFeed:  # each table's notices go to the log too
        feed = made()
        shown = feed.notice

        def notice(text: str) -> None:
            auto.notices.append(text)
            shown(text)

        feed.notice = notice  # type: ignore[method-assign]
        return feed

    app._new_feed = new_feed  # type: ignore[method-assign]
    app.net_options = NetOptions(pipeline=spec.get("pipeline"), early=spec.get("early"), **clocks)
    return app.fingerprint


def report(glue: WorkerGlue) -> str:
    """What the adapter polls: the games ended so far, whether the case is over, and
    a host's invite link once it has one."""
    app = glue.app
    auto = app.autoplay
    game = app.game
    link = getattr(game, "link", None)
    return json.dumps(
        {
            "finished": auto.finished if auto is not None else False,
            "ended": auto.ended if auto is not None else [],
            "notices": auto.notices if auto is not None else [],
            "link": link,
            "error": getattr(game, "error", None),
        }
    )
