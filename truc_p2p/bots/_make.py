"""Bot names: levels for people, ``random``, ``heuristic``, ``search[:LEVEL]``,
``expert[:LEVEL]``, ``cfr[:LEVEL]``.

Levels a person chooses from (:data:`LEVELS`), each an alias of a bot below,
calibrated by a round robin (``benchmarks/bot_levels.py``, the table in the
README):

* ``easy`` — the heuristic bot acting like a beginner three times in four
  (any card, raise or answer, but it never folds nor stakes the game); the
  one level that may give away a hand it cannot lose (:data:`EASY_SLIP`);
* ``medium`` — the heuristic bot staking a near-certain round at any score
  (``stake_sure``): raises on good hands, refuses bad ones, and a round as
  good as won is played for the game (against a blind raiser, issue 32);
* ``hard`` — the expert bot on a small budget, racing (``expert:fast+race``);
* ``strongest`` — the solved bot (``solved``): the whole round from the CFR+
  equilibrium of :mod:`truc_p2p.bots._round_game` (every card, raise, "my
  rest", answer and fold of the three tricks; ``tools/solve_round.py``), the
  CFR bot where the table has no answer (redeals, a raise past its ladder).
  It does not race: without "my rest" before 6 points the table is exploitable
  by 1.7 points a hand (the header's ``exploitability_no_rest``), and the
  strongest level is the strongest.  The earlier strongest is ``cfr+race``.

Every bot but ``random`` passes its choices through one gate
(:mod:`truc_p2p.bots._gate`): a hand it cannot lose is never given up.

*Racing* (the ``+race`` suffix of an expert, CFR or solved bot's name): the bot
declares "my rest" only once a player has :data:`RACE_REST_FROM` points.
Without it the expert and CFR bots stake the game whenever their cards make
that the best bet, and most of their games are over in two or three rounds;
racing, a game is a race to 12 over several rounds of raises, bluffs and
counting, as people play it (``benchmarks/bot_race.py`` measures both).

A search, expert or CFR bot's name may carry its budget: ``:fast``/``:default``/
``:strong`` (fixed iteration budgets, reproducible under a seed), ``:N``
(N iterations per decision) or ``:Ss`` (S seconds of thinking per decision,
e.g. ``expert:0.5s``); the CFR bot's budget is its search's.  ``search`` is
the earlier search bot, kept as it was to measure against; ``expert`` the
information-set search valuing every stake by its effect on winning the game
(``strongest`` before the CFR bot).
"""

from __future__ import annotations

import math
from typing import Final

from truc_p2p.bots._base import Bot, RandomBot
from truc_p2p.bots._gate import guard
from truc_p2p.bots._heuristic import HeuristicBot
from truc_p2p.bots._search import STRENGTHS, SearchBot, SearchOptions, Strength

__all__ = [
    "BOT_NAMES",
    "DEFAULT_OPPONENT",
    "LEVELS",
    "RACE",
    "make_bot",
    "parse_bot_name",
    "racing",
    "with_think",
]

#: The levels for people, weakest first, and the bot each one is.
LEVELS: Final[dict[str, str]] = {
    "easy": "easy",
    "medium": "medium",
    "hard": "expert:fast+race",
    "strongest": "solved",
}

#: The suffix of an expert or CFR bot that races to the target: it declares
#: "my rest" only once a player has :data:`RACE_REST_FROM` points.
RACE: Final = "+race"
#: The score (of either player, out of 12) from which a racing bot may stake the game.
RACE_REST_FROM: Final = 6

#: The names :func:`make_bot` accepts (plus ``search:N``, ``search:Ss``, ``expert:N``…).
BOT_NAMES: Final[tuple[str, ...]] = (
    "easy",
    "medium",
    "hard",
    "strongest",
    "random",
    "heuristic",
    "search",
    "search:fast",
    "search:strong",
    "expert",
    "expert:fast",
    "expert:strong",
    "cfr",
    "cfr:fast",
    "cfr:strong",
    "expert+race",
    "cfr+race",
    "solved",
    "solved+race",
)

#: The default opponent of ``truc-p2p play``: see the README ("Levels").
DEFAULT_OPPONENT: Final = "medium"

#: How often the easy level acts like a beginner (see ``HeuristicBot._novice``).
EASY_BLUNDER: Final = 0.75
#: The share of its blunders in a round it cannot lose (refusing, folding, a
#: redeal, a card that throws a sure round away) that the easy level makes on
#: purpose, as a beginner would; every other bot but ``random`` makes none
#: (the gate, :mod:`truc_p2p.bots._gate`; ``benchmarks/bot_blunders.py`` counts them).
EASY_SLIP: Final = 0.25
#: The expert bot's game model: skill edge in ordinary rounds and prior chance
#: that a round ends the game by "my rest" (tuned against search, heuristic and
#: stake:0.5 over 200-game runs; see the README).
EXPERT_EDGE: Final = 0.2
EXPERT_ENDS: Final = 0.12
#: How much better than the next best action the expert's "my rest" must look.
EXPERT_REST_MARGIN: Final = 0.05
#: The expert bot's mixing margin and bluff chance (see ``SearchBot._pick``).
EXPERT_MIX: Final = 0.01
EXPERT_BLUFF: Final = 0.05

_KINDS: Final = ("random", "heuristic", "easy", "medium")


def _resolve(name: str) -> str:
    """The bot a level name stands for (other names unchanged)."""
    return LEVELS.get(name, name)


def _race(name: str) -> tuple[str, bool]:
    """``name`` without its :data:`RACE` suffix, and whether it had one."""
    if name.endswith(RACE):
        return name[: -len(RACE)], True
    return name, False


def racing(name: str) -> bool:
    """Whether the bot called ``name`` races to the target (see :data:`RACE`)."""
    return _race(_resolve(name))[1]


def parse_bot_name(name: str) -> tuple[str, Strength | None]:
    """``(kind, budget)`` of a bot name; raises :class:`ValueError` for unknown names.

    ``budget`` is ``None`` except for the search, expert and CFR bots.
    """
    if not isinstance(name, str):
        raise ValueError(f"a bot name must be a str, not {type(name).__name__}")
    from truc_p2p.bots._exploit import is_exploiter

    if is_exploiter(name):
        return name.partition(":")[0], None
    resolved, race = _race(_resolve(name))
    kind, colon, level = resolved.partition(":")
    if race and kind not in ("expert", "cfr", "solved"):
        raise ValueError(f"only an expert or CFR bot races ({RACE}), not {name!r}")
    if kind in _KINDS and not colon:
        return kind, None
    if kind in ("search", "expert", "cfr", "solved"):
        if not colon:
            return kind, STRENGTHS["default"]
        if level in STRENGTHS:
            return kind, STRENGTHS[level]
        try:
            if level.endswith("s"):
                seconds = float(level[:-1])
                if math.isfinite(seconds) and seconds > 0:
                    return kind, Strength(iterations=1, think=seconds)
            elif level.isdigit() and int(level) > 0:
                return kind, Strength(iterations=int(level))
        except ValueError:
            pass
        raise ValueError(
            f"bad {kind} level {level!r}: use {', '.join(STRENGTHS)}, "
            f"a number of iterations ({kind}:5000) or seconds ({kind}:0.5s)"
        )
    raise ValueError(f"unknown bot {name!r}; choose from {', '.join(BOT_NAMES)}")


def with_think(name: str, seconds: float) -> str:
    """The search, expert or CFR bot ``name`` made to think ``seconds`` per decision."""
    kind, _ = parse_bot_name(name)
    if kind not in ("search", "expert", "cfr", "solved"):
        raise ValueError(f"only a search, expert or CFR bot thinks for a set time, not {name!r}")
    return f"{kind}:{seconds:g}s" + (RACE if racing(name) else "")


def make_bot(name: str, seed: int | None = None) -> Bot:
    """Build the bot called ``name`` (see :data:`BOT_NAMES`), seeded for reproducibility."""
    from truc_p2p.bots._exploit import is_exploiter, make_exploiter

    if is_exploiter(name):
        return make_exploiter(name, seed)
    kind, budget = parse_bot_name(name)
    bot: Bot
    if kind == "random":
        bot = RandomBot(seed)
    elif kind == "heuristic":
        bot = HeuristicBot(seed)
    elif kind == "medium":
        bot = HeuristicBot(seed, stake_sure=True)
    elif kind == "easy":
        bot = HeuristicBot(seed, samples=8, blunder=EASY_BLUNDER)
    else:
        assert budget is not None
        if kind in ("expert", "cfr", "solved"):
            options = SearchOptions(
                game_model=True,
                model_edge=EXPERT_EDGE,
                model_ends=EXPERT_ENDS,
                mix=EXPERT_MIX,
                bluff=EXPERT_BLUFF,
                rest_margin=EXPERT_REST_MARGIN,
                rest_from=RACE_REST_FROM if racing(name) else None,
            )
            bot = SearchBot(seed, iterations=budget.iterations, think=budget.think, options=options)
            if kind in ("cfr", "solved"):
                from truc_p2p.bots._cfr import CfrBot

                bot = CfrBot(None if seed is None else seed + 7_000_003, bot)
            if kind == "solved":
                from truc_p2p.bots._solved import SolvedBot

                bot = SolvedBot(
                    None if seed is None else seed + 5_000_011,
                    bot,
                    rest_from=RACE_REST_FROM if racing(name) else None,
                )
        else:
            bot = SearchBot(seed, iterations=budget.iterations, think=budget.think)
    bot.name = name
    if kind != "random":  # the uniform baseline stays uniform (Elo's zero)
        guard(bot, slip=EASY_SLIP if kind == "easy" else 0.0, seed=seed)
    return bot
