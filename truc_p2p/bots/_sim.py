"""A compact simulator of one round, for the search bot.

Theory of operation
-------------------
Suits never matter in Le Truc, so a round is simulated on card *strengths*
(0 for a nine … 7 for a seven) held in small lists, and actions are small
ints (:data:`PLAY` + strength for a card, then the other kinds).  This is the
whole round as the rules engine plays it — requests, answers, folds, the
redeal, early round ends, "my rest" — but nothing beyond the round's end:
the search scores that end with the game-winning chances of the scores it
leaves (:mod:`truc_p2p.bots._equity`).  A property test plays many random
games through both this simulator and :class:`~truc_p2p.rules.Game` and checks
that they agree on every legal action set and every round result.

:func:`from_view` builds the round of a player's view, given a guess of the
opponent's hand (and of the cards a redeal would bring); the view itself is
never mutated and the guess is all the simulator knows of hidden cards.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from truc_p2p.rules import (
    Action,
    ActionKind,
    Card,
    Game,
    Ladder,
    Player,
    RestRefused,
    round_result,
)

__all__ = [
    "ACCEPT",
    "ACCEPT_REDEAL",
    "ASK_REDEAL",
    "DECLINE_REDEAL",
    "FOLD",
    "RAISE",
    "REFUSE",
    "REST",
    "SPOILED",
    "Progress",
    "RoundSim",
    "Variant",
    "code_of",
    "from_view",
]

# Action codes: 0..7 play a card of that strength, then the card-less kinds.
PLAY_MAX: Final = 7
RAISE: Final = 8
REST: Final = 9
ACCEPT: Final = 10
REFUSE: Final = 11
FOLD: Final = 12
ASK_REDEAL: Final = 13
ACCEPT_REDEAL: Final = 14
DECLINE_REDEAL: Final = 15

#: Trick result of a spoiled trick (a winner is 0 or 1).
SPOILED: Final = 2

_KIND_CODE: Final[dict[ActionKind, int]] = {
    ActionKind.RAISE: RAISE,
    ActionKind.REST: REST,
    ActionKind.ACCEPT: ACCEPT,
    ActionKind.REFUSE: REFUSE,
    ActionKind.FOLD: FOLD,
    ActionKind.ASK_REDEAL: ASK_REDEAL,
    ActionKind.ACCEPT_REDEAL: ACCEPT_REDEAL,
    ActionKind.DECLINE_REDEAL: DECLINE_REDEAL,
}
_ANSWER_REQUEST: Final = (ACCEPT, REFUSE, FOLD)
_ANSWER_REDEAL: Final = (ACCEPT_REDEAL, DECLINE_REDEAL, FOLD)


def code_of(action: Action) -> int:
    """The simulator code of an engine action."""
    if action.card is not None:
        return action.card.strength
    return _KIND_CODE[action.kind]


@functools.cache
def _decided(results: tuple[int, ...]) -> tuple[bool, int]:
    """``(decided, winner)``; the winner is ``SPOILED`` when nobody wins."""
    decided, winner = round_result([None if r == SPOILED else Player(r) for r in results])
    return decided, SPOILED if winner is None else int(winner)


@dataclass(frozen=True, slots=True)
class Variant:
    """The ruleset's options a round depends on besides the target."""

    #: The ladder is 1 → 2 → 4 → 6 … (else the literal 1 → 2 → 6 → 8 …).
    even_ladder: bool = False
    #: A refused (or folded-on) "my rest" wins its declarer the game.
    rest_wins_game: bool = True


#: The default ruleset's variant.
DEFAULT_VARIANT: Final = Variant()


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a round stands besides the hands, the seats and the scores.

    The defaults are a fresh round: nothing on the table, no trick played, worth
    1, nothing pending nor requested, no redeal possible.
    """

    #: The strength led to the trick under way (-1: none yet).
    table: int = -1
    #: The tricks' results so far: the winner (0 or 1) or :data:`SPOILED`.
    results: tuple[int, ...] = ()
    value: int = 1
    #: The pending request's code (0: none) and who made it.
    pending: int = 0
    requester: int = 0
    rest_answered: bool = False
    #: Whether each player made its request of the trick under way.
    requested: tuple[bool, bool] = (False, False)
    #: Whether the non-dealer may still ask for a redeal.
    can_redeal: bool = False


#: A round that has not started.
FRESH: Final = Progress()


class RoundSim:
    """One round in progress, on strengths; :meth:`apply` until :attr:`done`.

    When the round is over, :attr:`winner` is the round winner (or ``-1``),
    :attr:`scores` the scores after it and :attr:`game_winner` the game's
    winner (``-1`` while the game goes on).
    """

    __slots__ = (
        "can_redeal",
        "dealer",
        "done",
        "even_ladder",
        "game_winner",
        "hands",
        "leader",
        "pending",
        "redeal_hands",
        "requested",
        "requester",
        "rest_answered",
        "rest_wins_game",
        "results",
        "scores",
        "table",
        "target",
        "value",
        "winner",
    )

    def __init__(
        self,
        *,
        hands: tuple[list[int], list[int]],
        dealer: int,
        leader: int,
        scores: tuple[int, int],
        target: int,
        variant: Variant = DEFAULT_VARIANT,
        progress: Progress = FRESH,
        redeal_hands: tuple[list[int], list[int]] | None = None,
    ) -> None:
        self.hands = hands
        self.dealer = dealer
        self.leader = leader
        self.scores = list(scores)
        self.target = target
        self.even_ladder = variant.even_ladder
        self.rest_wins_game = variant.rest_wins_game
        self.table = progress.table
        self.results = progress.results
        self.value = progress.value
        self.pending = progress.pending
        self.requester = progress.requester
        self.rest_answered = progress.rest_answered
        self.requested = list(progress.requested)
        self.can_redeal = progress.can_redeal
        #: The hands a redeal would deal, indexed by player.
        self.redeal_hands = redeal_hands
        self.done = False
        self.winner = -1
        self.game_winner = -1

    def copy(self) -> RoundSim:
        """An independent copy."""
        new = RoundSim.__new__(RoundSim)
        new.hands = (list(self.hands[0]), list(self.hands[1]))
        new.dealer = self.dealer
        new.leader = self.leader
        new.scores = list(self.scores)
        new.target = self.target
        new.even_ladder = self.even_ladder
        new.rest_wins_game = self.rest_wins_game
        new.table = self.table
        new.results = self.results
        new.value = self.value
        new.pending = self.pending
        new.requester = self.requester
        new.rest_answered = self.rest_answered
        new.requested = list(self.requested)
        new.can_redeal = self.can_redeal
        new.redeal_hands = self.redeal_hands
        new.done = self.done
        new.winner = self.winner
        new.game_winner = self.game_winner
        return new

    @property
    def to_act(self) -> int:
        """The player to act (meaningless once :attr:`done`)."""
        if self.pending:
            return 1 - self.requester
        return self.leader if self.table < 0 else 1 - self.leader

    def legal(self) -> list[int]:
        """The legal action codes, cards first (one per distinct strength)."""
        if self.done:
            return []
        pending = self.pending
        if pending == ASK_REDEAL:
            return list(_ANSWER_REDEAL)
        if pending:
            return list(_ANSWER_REQUEST)
        actor = self.leader if self.table < 0 else 1 - self.leader
        out = sorted(set(self.hands[actor]))
        if not self.rest_answered and not self.requested[actor]:
            out += (RAISE, REST)
        out.append(FOLD)
        if self.can_redeal and actor != self.dealer:
            out.append(ASK_REDEAL)
        return out

    def next_value(self) -> int:
        """The round value after one more accepted raise."""
        value = self.value
        if value == 1:
            return 2
        if value == 2:
            return 4 if self.even_ladder else 6
        return value + 2

    def apply(self, code: int) -> None:
        """Apply a legal action code of the player to act."""
        actor = self.to_act
        self.can_redeal = False
        if code <= PLAY_MAX:
            self._play(actor, code)
        elif code in (RAISE, REST):
            self.pending = code
            self.requester = actor
            self.requested[actor] = True
        elif code == ACCEPT:
            if self.pending == RAISE:
                self.value = self.next_value()
            else:
                self.rest_answered = True
            self.pending = 0
        elif code == REFUSE:
            if self.pending == RAISE:
                self._end(self.requester, self.value)
            else:
                self._rest_refused(self.requester)
        elif code == FOLD:
            winner = 1 - actor
            if self.pending == REST:
                self._rest_refused(winner)
            elif self.rest_answered:
                self._end_game(winner)
            else:
                self._end(winner, self.value)
        elif code == ASK_REDEAL:
            self.pending = ASK_REDEAL
            self.requester = actor
        elif code == ACCEPT_REDEAL:
            assert self.redeal_hands is not None
            self.hands = (list(self.redeal_hands[0]), list(self.redeal_hands[1]))
            self.redeal_hands = None
            self.pending = 0
        else:  # DECLINE_REDEAL
            self.pending = 0

    def _play(self, actor: int, strength: int) -> None:
        self.hands[actor].remove(strength)
        lead = self.table
        if lead < 0:
            self.table = strength
            return
        leader = self.leader
        if lead > strength:
            result = leader
        elif strength > lead:
            result = 1 - leader
        else:
            result = SPOILED
        self.results = results = (*self.results, result)
        self.table = -1
        self.requested = [False, False]
        if result != SPOILED:
            self.leader = result
        decided, winner = _decided(results)
        if not decided:
            return
        if winner == SPOILED:
            self.done = True
        elif self.rest_answered:
            self._end_game(winner)
        else:
            self._end(winner, self.value)

    def _rest_refused(self, declarer: int) -> None:
        if self.rest_wins_game:
            self._end_game(declarer)
        else:
            self._end(declarer, self.value)

    def _end_game(self, winner: int) -> None:
        self.done = True
        self.winner = winner
        self.game_winner = winner

    def _end(self, winner: int, points: int) -> None:
        self.done = True
        self.winner = winner
        self.scores[winner] += points
        if self.scores[winner] >= self.target:
            self.game_winner = winner


def strengths(cards: Sequence[Card]) -> list[int]:
    """The strengths of ``cards``, sorted."""
    return sorted(c.strength for c in cards)


def from_view(
    game: Game,
    opponent_hand: Sequence[int],
    redeal_hands: tuple[list[int], list[int]] | None = None,
) -> RoundSim:
    """The round of ``game`` (a view, or the omniscient game) in the simulator.

    The player to act is the one whose cards are taken from ``game``; the
    other's unplayed cards are ``opponent_hand`` (strengths) — the simulator's
    only knowledge of hidden cards.  ``redeal_hands`` are the hands a redeal
    would deal (needed only while a redeal can still be accepted).
    """
    me = game.to_act
    if me is None:
        raise ValueError("nobody is to act in this game")
    own = game.hand(me)
    if own is None:
        raise ValueError(f"this view cannot see {me}'s hand")
    if len(opponent_hand) != game.hand_size(me.other):
        raise ValueError("the opponent's hand has the wrong size")
    hands: list[list[int]] = [[], []]
    hands[me] = strengths(own)
    hands[me.other] = sorted(opponent_hand)
    pending = game.pending
    rules = game.ruleset
    return RoundSim(
        hands=(hands[0], hands[1]),
        dealer=int(game.dealer),
        leader=int(game.leader),
        scores=game.scores,
        target=rules.target,
        variant=Variant(
            even_ladder=rules.ladder is Ladder.EVEN,
            rest_wins_game=rules.rest_refused is RestRefused.GAME,
        ),
        progress=Progress(
            table=game.table[0][1].strength if game.table else -1,
            results=tuple(SPOILED if t.winner is None else int(t.winner) for t in game.tricks),
            value=game.round_value,
            pending=0 if pending is None else _KIND_CODE[pending],
            requester=0 if game.requester is None else int(game.requester),
            rest_answered=game.rest_answered,
            requested=(game.requested(Player.P0), game.requested(Player.P1)),
            can_redeal=pending is None and Action.ASK_REDEAL in game.legal_actions(),
        ),
        redeal_hands=redeal_hands,
    )
