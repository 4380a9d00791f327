"""Bots: protocol, determinism, sensible play, and local games keeping views in sync."""

from __future__ import annotations

import pytest
from helpers.rules import P0, P1, cards

from truc_p2p.bots import (
    BOT_NAMES,
    Bot,
    HeuristicBot,
    RandomBot,
    SearchBot,
    make_bot,
    play_local_game,
)
from truc_p2p.rules import (
    Action,
    ActionKind,
    Dealt,
    Event,
    Game,
    GameEnded,
    Ladder,
    Player,
    RestRefused,
    RoundEnded,
    Ruleset,
)

VARIANTS = [
    Ruleset(),
    Ruleset(ladder=Ladder.EVEN),
    Ruleset(rest_refused=RestRefused.VALUE),
    Ruleset(target=5, ladder=Ladder.EVEN, rest_refused=RestRefused.VALUE),
]


def test_make_bot_and_names() -> None:
    assert BOT_NAMES[:4] == ("easy", "medium", "hard", "strongest")  # the levels first
    assert {"random", "heuristic", "search"} <= set(BOT_NAMES)
    for name in BOT_NAMES:
        bot = make_bot(name, 1)
        assert isinstance(bot, Bot)
        assert bot.name == name
    assert isinstance(make_bot("random", None), RandomBot)
    assert isinstance(make_bot("heuristic", None), HeuristicBot)
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("perfect", 1)


@pytest.mark.parametrize(
    "ruleset", VARIANTS, ids=lambda r: "-".join(map(str, r.to_dict().values()))
)
@pytest.mark.parametrize("names", [("random", "random"), ("heuristic", "random")])
def test_local_games_end_with_views_in_sync(ruleset: Ruleset, names: tuple[str, str]) -> None:
    for seed in range(6):
        events: list[Event] = []
        bots = (make_bot(names[0], seed), make_bot(names[1], seed + 100))
        outcome = play_local_game(*bots, ruleset=ruleset, seed=seed, on_event=events.append)
        assert isinstance(events[0], Dealt)
        assert isinstance(events[-1], GameEnded)
        assert events[-1].outcome == outcome
        rounds = [e for e in events if isinstance(e, RoundEnded)]
        assert rounds[-1].scores == outcome.scores


@pytest.mark.parametrize("name", ["random", "heuristic", "search:fast"])
def test_seeded_bots_are_deterministic(name: str) -> None:
    def transcript(seed: int) -> list[Event]:
        events: list[Event] = []
        play_local_game(
            make_bot(name, seed), make_bot(name, seed + 1), seed=7, on_event=events.append
        )
        return events

    assert transcript(3) == transcript(3)
    assert transcript(3) != transcript(4)


def test_heuristic_beats_random() -> None:
    wins = 0
    games = 40
    for seed in range(games):
        seat = Player(seed % 2)
        bots: dict[Player, Bot] = {seat: HeuristicBot(seed), seat.other: RandomBot(seed)}
        outcome = play_local_game(bots[P0], bots[P1], seed=seed)
        wins += outcome.winner is seat
    assert wins >= 0.75 * games


def view_for(hand: str, other: str, *, view: Player = P0, dealer: Player = P1) -> Game:
    game = Game(first_dealer=dealer, view=view)
    game.deal({view: cards(hand)})
    del other  # the opponent's cards are hidden in a view
    return game


def test_heuristic_requests_with_a_strong_hand() -> None:
    game = view_for("7C 7D 8S", "")
    choices = {HeuristicBot(seed).choose(game).kind for seed in range(5)}
    assert choices <= {ActionKind.RAISE, ActionKind.REST}


def test_heuristic_does_not_request_with_a_weak_hand() -> None:
    game = view_for("9C 9D 10S", "")
    for seed in range(5):
        action = HeuristicBot(seed).choose(game)
        assert action.kind in {ActionKind.PLAY, ActionKind.ASK_REDEAL}


def test_heuristic_refuses_a_raise_with_a_weak_hand() -> None:
    game = view_for("9C 9D 10S", "", view=P1)  # P1 deals, P0 leads
    game.push(Action.RAISE)
    for seed in range(5):
        assert HeuristicBot(seed).choose(game).kind in {ActionKind.REFUSE, ActionKind.FOLD}


def test_heuristic_accepts_a_raise_with_a_strong_hand() -> None:
    game = view_for("7C 8D AS", "", view=P1)
    game.push(Action.RAISE)
    assert HeuristicBot(1).choose(game) == Action.ACCEPT


def test_heuristic_answers_rest_with_rest_in_default_variant() -> None:
    # Refusing "my rest" would lose the game outright.
    game = view_for("9C 9D 10S", "", view=P1)
    game.push(Action.REST)
    assert HeuristicBot(1).choose(game) == Action.ACCEPT


def test_heuristic_wins_trick_with_cheapest_card() -> None:
    game = view_for("QC 7D AS", "", view=P1)
    game.push(Action.REST)
    game.push(Action.ACCEPT)  # no more requests this round: only the card matters
    game.push(Action.play(cards("JH")[0]))  # P0 leads a jack
    for seed in range(5):
        assert HeuristicBot(seed).choose(game) == Action.play(cards("QC")[0])


def test_heuristic_throws_lowest_card_when_it_cannot_win() -> None:
    game = view_for("9C 10D KS", "", view=P1)
    game.push(Action.play(cards("7H")[0]))  # nothing beats a seven
    for seed in range(5):
        assert HeuristicBot(seed).choose(game) == Action.play(cards("9C")[0])


@pytest.mark.parametrize(
    "bot", [RandomBot(1), HeuristicBot(1), SearchBot(1)], ids=["random", "heuristic", "search"]
)
def test_bots_refuse_to_choose_out_of_turn(bot: Bot) -> None:
    game = Game(first_dealer=P1, view=P0)
    with pytest.raises(ValueError):
        bot.choose(game)
