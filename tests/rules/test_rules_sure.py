"""``sure_round``: what a player can be sure of in the round, from its own view.

Hand-built cases (the sure "my rest": trick 1 won and a 7 in hand), then a
cross-check through the engine itself: in positions of seeded random games, a
plain search over :meth:`Game.push` (every card of the player, every card the
opponent may hold, one per rank) must find exactly what ``sure_round`` says.
"""

from __future__ import annotations

import random

import pytest

from truc_p2p.rules import (
    ALL_CARDS,
    Action,
    Card,
    Game,
    Phase,
    Player,
    PlayerError,
    RoundEnded,
    hands_from_deck,
    sure_round,
)

P0, P1 = Player.P0, Player.P1


def _cards(text: str) -> list[Card]:
    return [Card.from_str(c) for c in text.split()]


def _view(hand: str, *, dealer: Player = P1, moves: str = "") -> Game:
    """P0's view: P0 holds ``hand``; the cards ``moves`` are played in turn."""
    game = Game(first_dealer=dealer, view=P0)
    game.deal({P0: _cards(hand)})
    for card in _cards(moves):
        game.push(Action.play(card))
    return game


def test_trick_one_won_and_a_seven_in_hand_is_a_sure_round() -> None:
    game = _view("7S KS 9D", moves="KS 10H")  # P0 led K, won trick 1
    sure = sure_round(game, P0)
    assert sure.wins and sure.cannot_lose and set(sure.cards) == set(_cards("7S 9D"))
    game.push(Action.play(Card.from_str("9D")))
    game.push(Action.RAISE)  # the opponent raises before following: P0 answers
    assert game.to_act is P0 and sure_round(game, P0).wins
    assert sure_round(game, P0).cards == ()  # the next card is the opponent's


def test_the_cheap_winner_keeps_the_seven() -> None:
    game = _view("9S QH 7C", dealer=P0)
    game.push(Action.play(Card.from_str("9H")))  # the opponent leads a nine
    sure = sure_round(game, P0)
    assert sure.wins and sure.cards == (Card.from_str("QH"),)  # not the 7, not the spoiling 9


def test_two_sevens_are_not_sure_when_two_more_are_unseen() -> None:
    assert not sure_round(_view("7S 7D 9D"), P0).cannot_lose  # 7-7 spoil twice, then 9 loses
    dealt = sure_round(_view("7S 7D 8H", dealer=P0), P0)  # 7 7 8 against 7 7 8: all spoiled
    assert dealt.cannot_lose and not dealt.wins
    assert sure_round(_view("7S 7D 7H"), P0).wins


def test_a_view_must_see_the_hand_and_a_round_must_be_under_way() -> None:
    game = _view("7S 7D 7H")
    with pytest.raises(PlayerError):
        sure_round(game, P1)
    fresh = Game(first_dealer=P1, view=P0)
    assert not sure_round(fresh, P0).cannot_lose  # nothing dealt yet


def _over(game: Game, events: list[object], me: Player) -> int | None:
    for event in events:
        if isinstance(event, RoundEnded):
            return 0 if event.winner is None else (1 if event.winner is me else -1)
    return None


def _engine_value(game: Game, me: Player) -> int:
    """What ``me`` can force, found by pushing cards through the engine: its
    cards, against one card per rank the opponent may hold."""
    lead_is_mine = game.leader is me
    mine_next = lead_is_mine == (not game.table)
    if mine_next:
        hand = game.hand(me)
        assert hand
        options = list({c.strength: c for c in hand}.values())
    else:
        options = list({c.strength: c for c in game.possible_cards(me.other)}.values())
    values = []
    for card in options:
        after = game.copy()
        events = after.push(Action.play(card), player=me if mine_next else me.other)
        over = _over(after, events, me)
        values.append(over if over is not None else _engine_value(after, me))
    return max(values) if mine_next else min(values)


def _positions(games: int, seed: int) -> list[Game]:
    """P0's view before every card of seeded rounds of random cards (no requests):
    before P1's cards too, where P0 would answer a raise; a follower who can
    spoil the trick mostly does."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        dealer = Player(rng.randrange(2))
        referee = Game(first_dealer=dealer)
        view = Game(first_dealer=dealer, view=P0)
        deck = list(ALL_CARDS)
        rng.shuffle(deck)
        hands = hands_from_deck(deck, dealer, redeal=False)
        referee.deal(hands)
        view.deal({P0: hands[P0]})
        while referee.phase is Phase.PLAY and referee.round_no == 0:
            out.append(view.copy())
            cards = referee.legal_actions().cards()
            led = referee.table[0][1].strength if referee.table else None
            spoiling = [c for c in cards if c.strength == led]
            if spoiling and rng.random() < 0.7:  # spoiled tricks, often: who leads next
                cards = spoiling
            action = Action.play(rng.choice(cards))
            referee.push(action)
            view.push(action)
    return out


def test_sure_round_agrees_with_a_search_through_the_engine() -> None:
    seen = {1: 0, 0: 0, -1: 0}
    for game in _positions(30, seed=5):
        expected = _engine_value(game, P0)
        seen[expected] += 1
        sure = sure_round(game, P0)
        assert (sure.wins, sure.cannot_lose) == (expected == 1, expected >= 0), game
        for card in sure.cards:  # each card offered keeps it
            after = game.copy()
            events = after.push(Action.play(card))
            over = _over(after, events, P0)
            assert (over if over is not None else _engine_value(after, P0)) >= expected
    assert seen[1] and seen[-1], seen  # the set has sure and unsure positions
