"""Where did I lose it? Each of a player's decisions judged by the solved round.

Theory of operation
-------------------
At a decision of the player under review, the solved round's table
(:mod:`truc_p2p.bots._round_table`) gives the equilibrium's mixed strategy for
the player's information set (the round's public actions and its cards as
dealt).  To say what a choice cost, each of the legal actions gets its
*expected points* for the player: the average, over the opponent's possible
hands, of the round's points when both sides then play the table.  The
opponent's hands are weighted by the deal's chance given the player's own
cards (card removal) and by how likely the table makes the opponent's actions
so far with each hand (never below :data:`TREMBLE`: a person need not play
the equilibrium); the rest of the round is the exact expectation over both
tables' mixed strategies, leaving out the branches they take less than
:data:`PRUNE` of the time.  The *cost* of a choice is the best action's
expected points minus the choice's: what the difference was expected to
cost in points, in the table's model of the round (points per
hand; "my rest" counts as the game's 12 points).

Decisions the table does not cover (a redeal, a raise past its ladder, other
rules than the default) are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from truc_p2p.bots._cfr_game import HAND_INDEX, HANDS, prior
from truc_p2p.bots._round_game import (
    SHOW,
    End,
    Node,
    State,
    _size,
    locate,
    moves,
    showdown_winner,
    width,
)
from truc_p2p.bots._round_table import RoundTable, holding, load_table, round_path
from truc_p2p.bots._solved import letter_of
from truc_p2p.bots._solved import plain_action as action_of_letter
from truc_p2p.rules import DEFAULT_RULESET, Action, Card, Game, Player

__all__ = ["PRUNE", "TREMBLE", "Judged", "judge_decision", "review_game"]

#: The least weight the opponent's range gives any of its actions so far.
TREMBLE: Final = 0.05
#: Branches the tables take less often than this are left out of the expectation.
PRUNE: Final = 0.02


@dataclass(frozen=True, slots=True)
class Judged:
    """One decision of the player under review.

    ``hand`` counts from 0; ``values`` are the expected points of each legal
    action for the player (tree letters: a card is its strength's digit),
    ``strategy`` the table's mix, ``chosen`` the letter taken and ``cost`` its
    expected cost in points against the table's mix.
    """

    move: int
    hand: int
    action: Action
    chosen: str
    strategy: dict[str, float]
    values: dict[str, float]
    cost: float
    #: The action each letter of ``values`` stands for.
    options: dict[str, Action]

    @property
    def best(self) -> str:
        """The letter of the action with the most expected points."""
        return max(self.values, key=lambda x: self.values[x])


class _Deal:
    """The round's expected points for one deal, both sides playing the table."""

    def __init__(self, table: RoundTable, hands: tuple[int, int]) -> None:
        self.table = table
        self.ab = table.abstraction
        self.hands = hands
        self.memo: dict[int, float] = {}

    def column(self, seat: int, played: tuple[int, ...]) -> int:
        return holding(played).index(self.hands[seat])

    def value(
        self, state: Node, offset: int, played: tuple[tuple[int, ...], tuple[int, ...]]
    ) -> float:
        """Seat 0's expected points from the decision ``state`` (at ``offset``)."""
        found = self.memo.get(offset)
        if found is not None:
            return found
        acts = moves(state, self.ab)
        p = state.to_act
        col = self.column(p, played[p])
        base = offset + col * len(acts)
        row = self.table.strategies[base : base + len(acts)]
        child = offset + width(state.played(p), self.ab) * len(acts)
        rest = _remaining(HANDS[self.hands[p]], played[p])
        total = weights = 0.0
        for (letter, nxt), w in zip(acts, row, strict=True):
            size = 0 if isinstance(nxt, End) else _size(nxt, self.ab)[1]
            legal = not letter.isdigit() or int(letter) in rest
            if legal and w >= PRUNE * 255:
                total += w * self.after(nxt, child, played, p, letter)
                weights += w
            child += size
        if weights == 0:  # all below the cut: play on with the most likely
            total = weights = 1.0
            best = max(
                (w, i)
                for i, ((x, _), w) in enumerate(zip(acts, row, strict=True))
                if not x.isdigit() or int(x) in rest
            )[1]
            child = offset + width(state.played(p), self.ab) * len(acts)
            for i, (letter, nxt) in enumerate(acts):
                if i == best:
                    total = self.after(nxt, child, played, p, letter)
                    break
                child += 0 if isinstance(nxt, End) else _size(nxt, self.ab)[1]
        out = total / weights
        self.memo[offset] = out
        return out

    def after(
        self,
        nxt: Node | End,
        offset: int,
        played: tuple[tuple[int, ...], tuple[int, ...]],
        p: int,
        letter: str,
    ) -> float:
        """Seat 0's expected points after ``p`` took ``letter`` (leading to ``nxt``)."""
        if letter.isdigit():
            mine = tuple(sorted((*played[p], int(letter))))
            played = (mine, played[1]) if p == 0 else (played[0], mine)
        if isinstance(nxt, End):
            return self.end(nxt, played)
        return self.value(nxt, offset, played)

    def end(self, end: End, played: tuple[tuple[int, ...], tuple[int, ...]]) -> float:
        winner = end.winner
        if end.show:
            follower = 1 - end.leader
            last = _remaining(HANDS[self.hands[follower]], played[follower])
            winner = showdown_winner(end, last[0])
        if winner is None:
            return 0.0
        return float(end.points if winner == 0 else -end.points)


def _remaining(hand: Sequence[int], played: Iterable[int]) -> list[int]:
    rest = list(hand)
    for s in played:
        rest.remove(s)
    return rest


def _played(path: str, ab_max: int = 99) -> tuple[tuple[int, ...], tuple[int, ...]]:
    from truc_p2p.bots._round_game import Abstraction, root

    ab = Abstraction(max_raises=ab_max)
    out: tuple[list[int], list[int]] = ([], [])
    node: Node | End = root()
    for letter in path:
        assert isinstance(node, State)
        if letter.isdigit():
            out[node.to_act].append(int(letter))
        node = dict(moves(node, ab))[letter]
    return tuple(sorted(out[0])), tuple(sorted(out[1]))


def judge_decision(
    table: RoundTable, path: str, hand: tuple[int, ...], chosen: str
) -> tuple[str, dict[str, float], dict[str, float], float] | None:
    """``(chosen, strategy, values, cost)`` of taking ``chosen`` at ``path`` with
    ``hand`` (its strengths as dealt), or ``None`` outside the table (see the
    module doc); ``chosen`` comes back as the tree's letter (the third trick's
    last card is :data:`~truc_p2p.bots._round_game.SHOW`)."""
    found = locate(path, table.abstraction)
    strategy = table.strategy(path, hand)
    if strategy is not None and SHOW in strategy and chosen.isdigit():
        chosen = SHOW  # the last card of the third trick
    if found is None or isinstance(found, End) or strategy is None or chosen not in strategy:
        return None
    state, _, offset = found
    seat = state.to_act
    sign = 1.0 if seat == 0 else -1.0
    played = _played(path)
    me = HAND_INDEX[tuple(sorted(hand))]
    weights = _range(table, path, seat, me, played[1 - seat])
    acts = moves(state, table.abstraction)
    values = {letter: 0.0 for letter in strategy}
    total = sum(weights.values())
    deals = {g: _Deal(table, (me, g) if seat == 0 else (g, me)) for g in weights}
    child = offset + width(state.played(seat), table.abstraction) * len(acts)
    for letter, nxt in acts:
        if letter in values:
            v = 0.0
            for g, w in weights.items():
                v += w * deals[g].after(nxt, child, played, seat, letter)
            values[letter] = sign * v / total
        child += 0 if isinstance(nxt, End) else _size(nxt, table.abstraction)[1]
    return chosen, strategy, values, max(values.values()) - values[chosen]


def _range(
    table: RoundTable, path: str, seat: int, me: int, theirs: tuple[int, ...]
) -> dict[int, float]:
    """The opponent's hands and their weights at ``path`` (see the module doc)."""
    pri = prior()
    other = 1 - seat
    steps = []
    node: Node | End = locate("", table.abstraction)[0]  # type: ignore[index]
    for n, letter in enumerate(path):
        assert isinstance(node, State)
        if node.to_act == other:
            steps.append((path[:n], letter))
        node = dict(moves(node, table.abstraction))[letter]
    out = {}
    for g in holding(theirs):
        w = pri[me][g] if seat == 0 else pri[g][me]
        if w == 0:
            continue
        for prefix, letter in steps:
            s = table.strategy(prefix, HANDS[g])
            w *= max(TREMBLE, (s or {}).get(letter, 0.0))
        out[g] = w
    return out


def review_game(
    moves_: Iterable[tuple[Game, Player, Action]],
    hands: Sequence[Sequence[Card]],
    me: Player,
) -> list[Judged]:
    """Judge ``me``'s decisions: ``moves_`` are (the game before the move, who
    moved, the action) in order, ``hands`` ``me``'s cards of each deal in order
    (a redeal's too)."""
    table = load_table()
    out: list[Judged] = []
    if table is None:
        return out
    deal = -1
    deal_actions: list[tuple[Player, Action]] = []
    last_round = -1
    for no, (before, player, action) in enumerate(moves_):
        new_deal = before.round_no != last_round or (
            deal_actions and deal_actions[-1][1] == Action.ACCEPT_REDEAL
        )
        if new_deal:
            deal += 1
            deal_actions = []
            last_round = before.round_no
        if player is me and before.ruleset == DEFAULT_RULESET and 0 <= deal < len(hands):
            path = round_path(deal_actions, before.dealer)
            seat = 0 if me is before.dealer.other else 1
            letter = letter_of(action)
            if path is not None and letter is not None and _to_act(path, table) == seat:
                hand = tuple(sorted(c.strength for c in hands[deal]))
                judged = judge_decision(table, path, hand, letter)
                if judged is not None:
                    letter, strategy, values, cost = judged
                    held = sorted(hands[deal], key=lambda c: c.index)
                    mine = [a.card for p, a in deal_actions if p is me and a.card is not None]
                    left = [c for c in held if c not in mine]
                    out.append(
                        Judged(
                            move=no,
                            hand=before.round_no,
                            action=action,
                            chosen=letter,
                            strategy=strategy,
                            values=values,
                            cost=cost,
                            options={x: _option(x, left) for x in values},
                        )
                    )
        deal_actions.append((player, action))
    return out


def _option(letter: str, left: Sequence[Card]) -> Action:
    if letter == SHOW:
        return Action.play(left[0])
    if letter.isdigit():
        return Action.play(next(c for c in left if c.strength == int(letter)))
    found = action_of_letter(letter)
    assert found is not None
    return found


def _to_act(path: str, table: RoundTable) -> int | None:
    found = locate(path, table.abstraction)
    return found[0].to_act if isinstance(found, tuple) else None


class _Recorder:
    """Wraps a bot: every decision goes to ``log`` as (the game before, who, the action)."""

    def __init__(self, bot: Any, log: list[tuple[Game, Player, Action]], hands: dict[int, Any]):
        self.bot = bot
        self.name = getattr(bot, "name", "?")
        self.log = log
        self.hands = hands

    def choose(self, game: Game) -> Action:
        me = game.to_act
        assert me is not None
        deal = _deal_of(self.log, game)
        if deal not in self.hands:  # the cards as dealt: held, and played so far
            held = list(game.hand(me) or ())
            held += [c for p, c in game.table if p is me]
            for trick in game.tricks:
                held.append(trick.cards[0] if trick.leader is me else trick.cards[1])
            self.hands[deal] = held
        action: Action = self.bot.choose(game)
        self.log.append((game.copy(), me, action))
        return action


def _deal_of(log: list[tuple[Game, Player, Action]], game: Game) -> int:
    """The number of the deal ``game`` is in, counting the deals of ``log``'s moves."""
    deal = -1
    last_round = -1
    prev: Action | None = None
    for before, _, action in [*log, (game, Player.P0, Action.FOLD)]:
        if before.round_no != last_round or prev == Action.ACCEPT_REDEAL:
            deal += 1
            last_round = before.round_no
        prev = action
    return deal


def record_game(
    bot0: Any, bot1: Any, *, seed: int, me: Player
) -> tuple[list[tuple[Game, Player, Action]], list[list[Card]]]:
    """Play a local game and return its moves and ``me``'s cards of each deal,
    as :func:`review_game` takes them (a deal without a decision of ``me``
    gets an empty hand)."""
    from truc_p2p.bots._local import play_local_game

    log: list[tuple[Game, Player, Action]] = []
    hands: dict[int, list[Card]] = {}
    spare: dict[int, list[Card]] = {}
    bots = [
        _Recorder(bot0, log, hands if me is Player.P0 else spare),
        _Recorder(bot1, log, hands if me is Player.P1 else spare),
    ]
    play_local_game(*bots, seed=seed)
    count = max([*hands, *spare, -1]) + 1
    return log, [sorted(hands.get(d, []), key=lambda c: c.index) for d in range(count)]
