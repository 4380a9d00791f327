"""The rules of Le Truc for two (rules.md), omniscient: enough to say who acts, what is
legal, and how rounds and the game end."""

from __future__ import annotations

from dataclasses import dataclass, field

RANKS = ["7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = "CDHS"
#: rules.md §1: trick strength, low to high: 9 < 10 < J < Q < K < A < 8 < 7
STRENGTH = {"9": 0, "10": 1, "J": 2, "Q": 3, "K": 4, "A": 5, "8": 6, "7": 7}


def card_name(index: int) -> str:
    """rules.md §1: index = suit × 8 + rank, written rank then suit."""
    return RANKS[index % 8] + SUITS[index // 8]


def strength(index: int) -> int:
    return STRENGTH[RANKS[index % 8]]


def ladder_next(value: int, ladder: str) -> int:
    """rules.md §5: literal 1 → 2 → 6 → 8 → …; even 1 → 2 → 4 → 6 → …"""
    if value == 1:
        return 2
    if ladder == "literal" and value == 2:
        return 6
    return value + 2


@dataclass
class Game:
    target: int
    ladder: str
    rest_refused: str
    dealer: int
    scores: list[int] = field(default_factory=lambda: [0, 0])
    round_no: int = 0
    over: bool = False
    winner: int | None = None
    reason: str | None = None
    hands: dict[int, list[int]] = field(default_factory=dict)
    dealt: bool = False
    redealt: bool = False
    redeal_asked: bool = False
    acted_this_round: bool = False  # the non-dealer has acted
    value: int = 1
    pending: str | None = None  # "raise", "rest", "redeal"
    requester: int | None = None
    requested: set[int] = field(default_factory=set)  # requests made in this trick
    rest_answered: bool = False
    tricks: list[int | None] = field(default_factory=list)
    leader: int = 0
    table: list[tuple[int, int]] = field(default_factory=list)  # (player, card)
    to_act: int = 0
    round_ended: bool = False  # the last action ended the round

    @property
    def nondealer(self) -> int:
        return 1 - self.dealer

    def deal(self, hands: dict[int, list[int]]) -> None:
        self.hands = {p: list(h) for p, h in hands.items()}
        self.dealt = True
        if not self.redealt:
            self.leader = self.nondealer
        self.to_act = self.nondealer

    def legal(self) -> list[str]:
        """The legal action kinds of the player to act, then its plays (``play XX``)."""
        p = self.to_act
        if self.pending is not None:
            if self.pending == "redeal":
                return ["accept-redeal", "decline-redeal", "fold"]
            return ["accept", "refuse", "fold"]
        kinds = []
        if p not in self.requested and not self.rest_answered:
            kinds += ["raise", "rest"]
        if p == self.nondealer and not self.acted_this_round and not self.redeal_asked:
            kinds.append("redeal")
        kinds.append("fold")
        return kinds + [f"play {card_name(c)}" for c in sorted(self.hands[p])]

    def _end_round(self, winner: int | None, points: int, reason: str | None = None) -> None:
        self.round_ended = True
        if winner is not None:
            self.scores[winner] += points
        if reason is not None:
            self._end_game(winner, reason)
        elif winner is not None and self.scores[winner] >= self.target:
            self._end_game(winner, "target")
        if not self.over:
            self.round_no += 1
            self.dealer = 1 - self.dealer
            self.dealt = False
            self.redealt = False
            self.redeal_asked = False
            self.acted_this_round = False
            self.value = 1
            self.pending = None
            self.requester = None
            self.requested = set()
            self.rest_answered = False
            self.tricks = []
            self.table = []

    def _end_game(self, winner: int | None, reason: str) -> None:
        self.over = True
        self.winner = winner
        self.reason = reason

    def push(self, action: str) -> None:
        p = self.to_act
        other = 1 - p
        self.round_ended = False
        if p == self.nondealer:
            self.acted_this_round = True
        if action in ("raise", "rest", "redeal"):
            self.pending, self.requester = action, p
            if action == "redeal":
                self.redeal_asked = True
            else:
                self.requested.add(p)
            self.to_act = other
        elif action == "accept-redeal":
            self.pending = None
            self.redealt = True
            self.dealt = False
            self.to_act = self.nondealer
        elif action == "decline-redeal":
            self.pending = None
            self.to_act = self.nondealer
        elif action == "accept":
            if self.pending == "raise":
                self.value = ladder_next(self.value, self.ladder)
            else:
                self.rest_answered = True
            self.pending = None
            self.to_act = other
        elif action == "refuse":
            self._refuse(p)
        elif action == "fold":
            if self.pending == "rest":
                self._refuse(p)
            elif self.rest_answered:
                self._end_round(other, 0, "rest-won")
            else:
                self._end_round(other, self.value)
        else:
            self._play(p, action.split()[1])

    def _refuse(self, p: int) -> None:
        declarer = 1 - p
        if self.pending == "rest" and self.rest_refused == "game":
            self._end_round(declarer, 0, "rest-refused")
        else:
            self._end_round(declarer, self.value)

    def _play(self, p: int, name: str) -> None:
        card = next(c for c in self.hands[p] if card_name(c) == name)
        self.hands[p].remove(card)
        self.table.append((p, card))
        if len(self.table) == 1:
            self.to_act = 1 - p
            return
        (lp, lc), (fp, fc) = self.table
        winner = (
            None if strength(lc) == strength(fc) else (lp if strength(lc) > strength(fc) else fp)
        )
        self.tricks.append(winner)
        self.table = []
        self.requested = set()
        self.leader = lp if winner is None else winner
        self.to_act = self.leader
        decided, round_winner = round_result(self.tricks)
        if decided:
            if round_winner is not None and self.rest_answered:
                self._end_round(round_winner, 0, "rest-won")
            else:
                self._end_round(round_winner, self.value)


def round_result(tricks: list[int | None]) -> tuple[bool, int | None]:
    """rules.md §8: (decided, winner) — decided when every way the rest could go agrees."""
    outcomes = set()
    rest = 3 - len(tricks)
    for mask in range(3**rest):
        seq = list(tricks)
        for _ in range(rest):
            seq.append([0, 1, None][mask % 3])
            mask //= 3
        outcomes.add(_winner(seq))
    if len(outcomes) == 1:
        return True, outcomes.pop()
    return False, None


def _winner(tricks: list[int | None]) -> int | None:
    for p in (0, 1):
        if tricks.count(p) >= 2:
            return p
    won = [t for t in tricks if t is not None]
    return won[0] if won else None
