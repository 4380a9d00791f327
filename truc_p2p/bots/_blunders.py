"""The free-point checker: how often does a bot give away a round it cannot lose?

Theory of operation
-------------------
:func:`positions` plays seeded games between *generator* bots chosen to make
the decisions that matter come up often (a blind raiser, a bot that raises at
every chance, one that stakes the game, a random one, against the heuristic
and medium bots) and keeps every decision of either player as that player's
view (a copy of its :class:`~truc_p2p.rules.Game`); wherever the player to act
could raise or declare "my rest", its opponent's view after that request is
kept too (the answer a blind raiser probes for).  The set is the same on every
run.  :func:`check` then asks a bot for its action in each position where the
player to act cannot lose the round (:func:`~truc_p2p.rules.sure_round`;
elsewhere no action gives a decided round away) and counts the blunders
:func:`~truc_p2p.bots._gate.blunder` names: giving the round up (refusing,
folding, a redeal: each costs more than any outcome of playing on, a win or
nobody scoring), or, in a round sure to be won, a card after which it may not
be.  Each position is answered by a new bot seeded from the position's number,
so a position's answer does not depend on the ones before it.

``own=True`` asks the bot's own choice, before the gate
(:mod:`truc_p2p.bots._gate`): how the level plays without it, as it did before
the gate existed.  ``benchmarks/bot_blunders.py`` prints both for every bot.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from truc_p2p.bots._base import Bot
from truc_p2p.bots._gate import blunder, own_choice
from truc_p2p.bots._local import LocalTable
from truc_p2p.rules import (
    DEFAULT_RULESET,
    Action,
    Game,
    Phase,
    Player,
    sure_round,
)

__all__ = ["GENERATORS", "BlunderReport", "Position", "check", "describe", "kinds", "positions"]

#: The pairs of bots whose games give the positions (seat P0, seat P1), in turn.
GENERATORS: Final[tuple[tuple[str, str], ...]] = (
    ("blind-raise", "medium"),
    ("heuristic", "always-raise"),
    ("random", "heuristic"),
    ("stake:0.5", "blind-raise"),
    ("always-raise", "random"),
    ("redeal-spam", "heuristic"),
)


@dataclass(frozen=True, slots=True)
class Position:
    """One decision: the view of the player to act, and whether it cannot lose."""

    game: Game
    decided: bool
    #: Whether a raise, "my rest" or a redeal request is pending (an answer).
    answer: bool


def _play(bots: dict[Player, Bot], seed: int, out: list[Game]) -> None:
    """Play one seeded game as :func:`~truc_p2p.bots.play_local_game` does, keeping
    every decision's view, and the opponent's view of each raise or "my rest"
    the player to act could make (the positions a blind raiser probes)."""
    rng = random.Random(seed)
    table = LocalTable(DEFAULT_RULESET, Player(rng.randrange(2)), rng)
    referee, views = table.referee, table.views
    for _ in range(10_000):
        if referee.phase is Phase.OVER:
            return
        if referee.phase is Phase.DEAL:
            table.deal()
            continue
        actor = referee.to_act
        assert actor is not None
        view = views[actor]
        out.append(view.copy())
        if view.pending is None:
            for probe in (Action.RAISE, Action.REST):
                if probe in view.legal_actions():
                    answer = views[actor.other].copy()
                    answer.push(probe, player=actor)
                    out.append(answer)
        table.push(bots[actor].choose(view), actor)
    raise RuntimeError("game not over after 10000 steps")


def positions(games: int, seed: int = 0) -> list[Position]:
    """Every decision of ``games`` seeded games between the :data:`GENERATORS`,
    and every raise or "my rest" the player to act could have made there, as
    its opponent's decision (see the module doc)."""
    from truc_p2p.bots._make import make_bot

    views: list[Game] = []
    for i in range(games):
        a, b = GENERATORS[i % len(GENERATORS)]
        bot_seed = (seed * 100_003 + i) * 2
        bots = {Player.P0: make_bot(a, bot_seed), Player.P1: make_bot(b, bot_seed + 1)}
        _play(bots, seed * 100_003 + i, views)
    out = []
    for view in views:
        me = view.to_act
        assert me is not None
        out.append(
            Position(
                game=view,
                decided=sure_round(view, me).cannot_lose,
                answer=view.pending is not None,
            )
        )
    return out


@dataclass(slots=True)
class BlunderReport:
    """How a bot did on the decided positions of a set."""

    name: str
    positions: int = 0
    decided: int = 0
    #: Decided positions where an answer (raise, rest, redeal) was pending.
    answers: int = 0
    #: Blunders, by what :func:`~truc_p2p.bots._gate.blunder` says.
    blunders: dict[str, int] = field(default_factory=dict)
    #: A few of them, for a person to look at: (the view, the action).
    examples: list[tuple[Game, Action]] = field(default_factory=list)

    @property
    def total(self) -> int:
        """All the blunders."""
        return sum(self.blunders.values())

    @property
    def rate(self) -> float:
        """Blunders per decided position."""
        return self.total / self.decided if self.decided else 0.0


def check(
    name: str,
    of: Sequence[Position],
    *,
    seed: int = 0,
    own: bool = False,
) -> BlunderReport:
    """Count ``name``'s blunders over the decided positions of ``of`` (see the
    module doc); ``own``: the bot's own choice, before the gate."""
    from truc_p2p.bots._make import make_bot

    report = BlunderReport(name=name, positions=len(of))
    for i, pos in enumerate(of):
        if not pos.decided:
            continue
        report.decided += 1
        report.answers += pos.answer
        bot = make_bot(name, seed * 1_000_003 + i)
        game = pos.game.copy()
        action = own_choice(bot, game) if own else bot.choose(game)
        if pos.game.to_act is None or action not in game.legal_actions():
            raise AssertionError(f"{name} chose an illegal {action} in {game!r}")
        why = blunder(game, action)
        if why is not None:
            report.blunders[why] = report.blunders.get(why, 0) + 1
            if len(report.examples) < 5:
                report.examples.append((game, action))
    return report


def describe(game: Game, action: Action) -> str:
    """One line on a blunder: the hand, the tricks, the table, what was pending, the action."""
    me = game.to_act
    assert me is not None
    hand = " ".join(str(c) for c in game.hand(me) or ())
    said = {None: "=", me: "won", me.other: "lost"}
    tricks = " ".join(f"{t.cards[0]}-{t.cards[1]}:{said[t.winner]}" for t in game.tricks)
    table = " ".join(str(c) for _, c in game.table)
    pending = game.pending.value if game.pending is not None else "-"
    return (
        f"hand {hand} | tricks {tricks or '-'} | table {table or '-'} | "
        f"pending {pending} | value {game.round_value} | chose {action}"
    )


def kinds(of: Iterable[Position]) -> dict[str, int]:
    """How many decided positions wait for each kind of answer (or a card: ``play``)."""
    out: dict[str, int] = {}
    for pos in of:
        if pos.decided:
            key = pos.game.pending.value if pos.game.pending is not None else "play"
            out[key] = out.get(key, 0) + 1
    return out
