"""The interop cases (``protocol_spec/interop.md``): what each side does.

Both the runner and the reference peer (:mod:`truc_p2p.interop.peer`) read the
same :class:`Case`: the deal options, the scripted decisions of each side and
how many linked games are played.  What passes is judged by
:mod:`truc_p2p.interop._runner`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import trio

from truc_p2p.bots import make_bot
from truc_p2p.net import BotStrategy, End, GameOutcome, QuitGame, Strategy
from truc_p2p.protocol import Series
from truc_p2p.rules import Action, ActionKind, Game, Player
from truc_p2p.transcript import verify_transcript_file

__all__ = [
    "CASES",
    "CASE_NAMES",
    "SLOW_THINK",
    "Case",
    "Scripted",
    "play_series",
    "reference_strategy",
]

#: Seconds the runner thinks once in the ``slow`` case (the issue's 30 s: more than
#: the 20 s after which a side without heartbeats declares a link dead, wire.md 13.6).
SLOW_THINK = 30.0


@dataclass(frozen=True)
class Case:
    """One interop case.  ``pipeline``/``early``: the deal options both sides use
    (``None``: the default, on); ``games``: ``"one"``, ``"match3"`` or ``"rematch"``;
    ``peer_wants``/``runner_wants``: an action kind the side plays at its first
    chance; ``peer_resigns``/``runner_resigns``: the decision (counted from 1) at which
    the side resigns; ``runner_thinks``: the runner thinks :data:`SLOW_THINK` once;
    ``link``: what the relay does (``cut``, ``damage``, ``forge``)."""

    name: str
    summary: str
    pipeline: bool | None = None
    early: bool | None = None
    games: str = "one"
    peer_wants: ActionKind | None = None
    peer_resigns: int | None = None
    runner_resigns: int | None = None
    runner_thinks: bool = False
    link: str | None = None
    #: the runner neither raises nor says "my rest" and folds when asked, so that no
    #: round decides the game and the peer's chance (the non-dealer's first action
    #: of a round, or any turn) surely comes
    runner_timid: bool = False


CASES: dict[str, Case] = {
    case.name: case
    for case in (
        Case("basic", "one game with the pipelined deal and early cards, any moves"),
        Case("classic", "one game without the pipelined deal", pipeline=False),
        Case("no-early", "one game without early cards", early=False),
        Case(
            "redeal",
            "the peer asks for a redeal at its first chance",
            peer_wants=ActionKind.ASK_REDEAL,
            runner_timid=True,
        ),
        Case("resign-peer", "the peer resigns at its third decision", peer_resigns=3),
        Case("resign-runner", "the runner resigns at its third decision", runner_resigns=3),
        Case(
            "rest",
            "the peer declares 'my rest' at its first chance",
            peer_wants=ActionKind.REST,
            runner_timid=True,
        ),
        Case("match3", "a match of three games (first to win two)", games="match3"),
        Case("rematch", "two linked games: a game and its rematch", games="rematch"),
        Case("resume", "the runner cuts the connection mid-game; the peer resumes", link="cut"),
        Case(
            "slow",
            "the runner thinks 30 s once; heartbeats keep the link",
            runner_thinks=True,
        ),
        Case("bad-frame", "the runner damages one frame; the game goes on", link="damage"),
        Case(
            "cheat",
            "the runner sends an invalid shuffle proof; the peer ends the game as a cheat",
            link="forge",
        ),
    )
}
CASE_NAMES: tuple[str, ...] = tuple(CASES)


class Scripted:
    """A bot with a script: ``wants`` at its first chance, resign at decision
    ``resign_at``, think ``think`` seconds at decision ``think_at``; until the
    opponent played ``timid``, never raise or say "my rest" and fold when asked."""

    def __init__(
        self,
        inner: Strategy,
        *,
        wants: ActionKind | None = None,
        resign_at: int | None = None,
        think: float = 0.0,
        think_at: int = 2,
        timid: ActionKind | None = None,
    ) -> None:
        self.inner = inner
        self.wants = wants
        self.resign_at = resign_at
        self.think = think
        self.think_at = think_at
        self.timid = timid
        self.decisions = 0
        self.done = False
        #: (start, end) of the think, in ``trio.current_time()``
        self.thought: tuple[float, float] | None = None

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        self.decisions += 1
        if self.resign_at is not None and self.decisions == self.resign_at:
            raise QuitGame
        if self.think and self.decisions == self.think_at:
            start = trio.current_time()
            await trio.sleep(self.think)
            self.thought = (start, trio.current_time())
        if self.wants is not None and not self.done:
            for action in legal:
                if action.kind is self.wants:
                    self.done = True
                    return action
        action = await self.inner.choose(game, legal)
        me = game.to_act
        timid = self.timid is not None and not any(
            p is not me and a.kind is self.timid for p, a in game.history
        )
        if timid and action.kind in (ActionKind.RAISE, ActionKind.REST):
            plays = [a for a in legal if a.kind is ActionKind.PLAY]
            action = plays[0] if plays else action
        if timid and action.kind is ActionKind.ACCEPT and Action.FOLD in legal:
            action = Action.FOLD
        return action


def reference_strategy(seed: int) -> Strategy:
    """The moves of both reference sides: the heuristic bot."""
    return BotStrategy(make_bot("heuristic", seed))


def _winner(outcome: GameOutcome) -> Player | None:
    if outcome.transcript is None:
        return None
    _scan, report = verify_transcript_file(outcome.transcript, torn=False)
    return None if report.winner is None else Player(report.winner)


async def play_series(
    case: Case, play_one: Callable[[Series | None], Awaitable[GameOutcome]]
) -> list[GameOutcome]:
    """Play the games of ``case``: one, a match of three (until a player won two)
    or a game and its rematch; each game after the first names the one before and
    its first dealer is the other player (wire.md 4.1)."""
    match = 3 if case.games == "match3" else 1
    total = {"one": 1, "match3": 3, "rematch": 2}[case.games]
    series: Series | None = Series(match=3) if match == 3 else None
    outcomes: list[GameOutcome] = []
    wins = {Player.P0: 0, Player.P1: 0}
    while len(outcomes) < total:
        outcome = await play_one(series)
        outcomes.append(outcome)
        if outcome.end not in (End.FINISHED, End.RESIGNED, End.OPPONENT_RESIGNED):
            break
        if outcome.game_id is None or outcome.first_dealer is None:
            break
        winner = _winner(outcome)
        if winner is not None:
            wins[winner] += 1
        if match == 3 and max(wins.values()) >= 2:
            break
        series = Series(match=match, prev=outcome.game_id, dealer=outcome.first_dealer.other)
    return outcomes
