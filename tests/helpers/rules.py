"""Test helpers for the rules engine: a referee plus both player views in lockstep.

``Trio`` runs the omniscient game and the two player views side by side (like
h11's ``ConnectionPair``): every deal and action goes to all three, their
events must be identical and their public state must agree after every step.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from truc_p2p.rules import (
    ALL_CARDS,
    DEFAULT_RULESET,
    Action,
    Card,
    Event,
    Game,
    GameEnded,
    GameEndReason,
    IllegalActionError,
    Phase,
    Player,
    RestRefused,
    RoundEnded,
    RoundEndReason,
    Ruleset,
    TrickEnded,
    hands_from_deck,
)

P0, P1 = Player.P0, Player.P1


def cards(text: str) -> tuple[Card, ...]:
    """``"9C KC 7C"`` -> three cards."""
    return tuple(Card.from_str(t) for t in text.split())


def public_state(game: Game) -> tuple[object, ...]:
    """Everything every view of a game must agree on."""
    return (
        game.phase,
        game.dealer,
        game.scores,
        game.round_no,
        game.redealt,
        game.to_act,
        game.round_value,
        game.pending,
        game.requester,
        game.rest_answered,
        game.trick_no,
        game.leader,
        game.table,
        game.tricks,
        game.history,
        game.hand_size(P0),
        game.hand_size(P1),
        game.outcome(),
    )


def parse_step(step: str) -> tuple[Player, Action]:
    """``"P0 play 9C"`` -> ``(P0, Action.play(9C))``."""
    who, _, rest = step.strip().partition(" ")
    return Player[who], Action.from_str(rest)


def trick_text(events: Iterable[Event]) -> str:
    """Trick winners of ``events`` as ``"P0 - P1"`` (``-`` for a spoiled trick)."""
    return " ".join(
        "-" if e.winner is None else str(e.winner) for e in events if isinstance(e, TrickEnded)
    )


def round_ends(events: Iterable[Event]) -> list[RoundEnded]:
    return [e for e in events if isinstance(e, RoundEnded)]


def check_round_accounting(
    ruleset: Ruleset, value: int, scores: tuple[int, int], events: Sequence[Event]
) -> None:
    """A round awards points to at most one player: exactly the round value, or
    nothing when spoiled or when "my rest" decides the game."""
    ends = round_ends(events)
    assert len(ends) <= 1
    if not ends:
        return
    end = ends[0]
    game_ends = [e.outcome for e in events if isinstance(e, GameEnded)]
    game_by_rest = bool(game_ends) and game_ends[0].reason is not GameEndReason.TARGET
    if end.reason is RoundEndReason.REST_WON or (
        end.reason is RoundEndReason.REST_REFUSED and ruleset.rest_refused is RestRefused.GAME
    ):
        assert game_by_rest
    if end.winner is None:
        assert end.reason is RoundEndReason.SPOILED
        assert end.points == 0
    elif game_by_rest:
        assert end.points == 0
    else:
        assert end.points == value
    expected = list(scores)
    if end.winner is not None:
        expected[end.winner] += end.points
    assert end.scores == tuple(expected)


class Trio:
    """The omniscient game and both player views, kept in lockstep."""

    def __init__(self, ruleset: Ruleset = DEFAULT_RULESET, *, dealer: Player = P1) -> None:
        self.omni = Game(ruleset, first_dealer=dealer)
        self.views = {p: Game(ruleset, first_dealer=dealer, view=p) for p in Player}
        self.events: list[Event] = []

    @property
    def games(self) -> list[Game]:
        return [self.omni, *self.views.values()]

    def check_sync(self) -> None:
        state = public_state(self.omni)
        for p, view in self.views.items():
            assert public_state(view) == state, f"{p}'s view diverged"
            assert view.hand(p) == self.omni.hand(p)
            assert view.hand(p.other) is None
            assert view.legal_actions(p) == self.omni.legal_actions(p)
            # The opponent's hand is hidden: the same choices, but any card it
            # could hold is a legal play in this view.
            hidden, known = view.legal_actions(p.other), self.omni.legal_actions(p.other)
            assert hidden.kinds() == known.kinds()
            assert set(known) <= set(hidden)
            if self.omni.to_act is p.other and self.omni.pending is None:
                assert set(hidden.cards()) == set(view.possible_cards(p.other))

    def deal_hands(self, hands: dict[Player, Sequence[Card]]) -> list[Event]:
        events = self.omni.deal(hands)
        for p, view in self.views.items():
            assert view.deal({p: hands[p]}) == events
        self.events += events
        self.check_sync()
        return events

    def deal(self, nd: str, d: str) -> list[Event]:
        """Deal ``nd`` to the non-dealer and ``d`` to the dealer."""
        dealer = self.omni.dealer
        return self.deal_hands({dealer.other: cards(nd), dealer: cards(d)})

    def push(self, player: Player, action: Action) -> list[Event]:
        assert self.omni.to_act is player, f"{player} is not to act ({self.omni.to_act} is)"
        assert action in self.omni.legal_actions()
        value, scores = self.omni.round_value, self.omni.scores
        events = self.omni.push(action, player=player)
        check_round_accounting(self.omni.ruleset, value, scores, events)
        for view in self.views.values():
            assert action in view.legal_actions()
            assert view.push(action, player=player) == events
        self.events += events
        self.check_sync()
        return events

    def act(self, step: str) -> list[Event]:
        return self.push(*parse_step(step))

    def run(self, script: str) -> list[Event]:
        """Apply comma-separated steps like ``"P0 raise, P1 accept, P0 play 7C"``."""
        events: list[Event] = []
        for step in script.split(","):
            if step.strip():
                events += self.act(step)
        return events

    def reject(
        self, step: str, error: type[IllegalActionError], *, views: bool = True
    ) -> IllegalActionError:
        """``step`` must fail with ``error`` in every game (the views too unless
        ``views=False``) and leave the state unchanged; returns the omni error."""
        player, action = parse_step(step)
        games = self.games if views else [self.omni, self.views[player]]
        caught: list[IllegalActionError] = []
        for game in games:
            before = game.copy()
            assert not game.is_legal(action, player)
            if game.to_act is player:
                assert action not in game.legal_actions()
            with pytest.raises(error) as info:
                game.push(action, player=player)
            assert game == before, "state changed after an error"
            assert info.value.rule == error.rule
            assert str(info.value)
            caught.append(info.value)
        self.check_sync()
        return caught[0]

    def fold_round(self, loser: Player) -> None:
        """Deal a fixed hand and let ``loser`` fold at its first turn."""
        self.deal("9C 10C JC", "9D 10D JD")
        if self.omni.to_act is not loser:
            self.act(f"{loser.other} play 9C")  # the non-dealer leads
        self.act(f"{loser} fold")


def play_random(
    trio: Trio,
    rng: random.Random,
    *,
    weights: dict[str, float] | None = None,
    deck: Sequence[Card] = (),
    limit: int = 5000,
) -> None:
    """Random legal play (optionally weighted by action kind) until the game ends.

    ``deck`` is the current round's shuffled pack, if it was dealt already.
    """
    weights = weights or {}
    deck = list(deck)
    for _ in range(limit):
        game = trio.omni
        if game.phase is Phase.OVER:
            return
        if game.phase is Phase.DEAL:
            if not game.redealt:
                deck = list(ALL_CARDS)
                rng.shuffle(deck)
            trio.deal_hands(dict(hands_from_deck(deck, game.dealer, redeal=game.redealt)))
            continue
        actor = game.to_act
        assert actor is not None
        legal = list(game.legal_actions())
        w = [weights.get(a.kind.value, 1.0) for a in legal]
        if sum(w) == 0:
            w = [1.0] * len(legal)
        trio.push(actor, rng.choices(legal, w)[0])
    raise AssertionError(f"game did not end within {limit} steps")


def rules_spec_text() -> str:
    """The text of protocol_spec/rules.md, whose tables name the rules tests' rows."""
    spec = Path(__file__).resolve().parents[2] / "protocol_spec" / "rules.md"
    return spec.read_text(encoding="utf-8")
