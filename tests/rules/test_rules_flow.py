"""Redeal, dealer alternation, deals and the end of the game."""

from __future__ import annotations

import pytest
from helpers.rules import P0, P1, Trio, cards, round_ends

from truc_p2p.rules import ALL_CARDS as DECK
from truc_p2p.rules import (
    Action,
    ActionKind,
    DealError,
    Dealt,
    Game,
    GameEnded,
    GameEndReason,
    GameOverError,
    NotDealtError,
    OneRequestPerTrickError,
    Phase,
    Player,
    RedealNotAllowedError,
    RoundEndReason,
    Ruleset,
    deal_positions,
    hands_from_deck,
)

XYX = ("KC 9C 7C", "QD AD 8D")

# ------------------------------------------------------------------- redeal


def test_redeal_accepted_discards_and_deals_again() -> None:
    trio = Trio()
    trio.deal(*XYX)
    assert Action.ASK_REDEAL in trio.omni.legal_actions()
    trio.act("P0 redeal")
    assert trio.omni.pending is ActionKind.ASK_REDEAL
    assert trio.omni.legal_actions().kinds() == {
        ActionKind.ACCEPT_REDEAL,
        ActionKind.DECLINE_REDEAL,
        ActionKind.FOLD,
    }
    events = trio.act("P1 accept-redeal")
    assert round_ends(events) == []
    for game in trio.games:
        assert game.phase is Phase.DEAL
        assert game.redealt
        assert game.dealer is P1
        assert game.round_no == 0
        assert game.to_act is None
        assert game.hand_size(P0) == game.hand_size(P1) == 0
    events = trio.deal("10C JC QC", "10D JD KD")
    assert events == [Dealt(round_no=0, dealer=P1, redeal=True)]
    # The non-dealer acts first again, may not ask twice, but keeps its request.
    assert trio.omni.to_act is P0
    assert Action.ASK_REDEAL not in trio.omni.legal_actions()
    trio.reject("P0 redeal", RedealNotAllowedError)
    trio.run("P0 raise, P1 accept, P0 play 10C")
    assert trio.omni.round_value == 2


def test_redeal_must_not_reuse_discarded_cards() -> None:
    trio = Trio()
    trio.deal(*XYX)
    trio.run("P0 redeal, P1 accept-redeal")
    for game, hands in [
        (trio.omni, {P0: cards("KC 10C JC"), P1: cards("10D JD KD")}),
        (trio.omni, {P0: cards("10C JC QC"), P1: cards("QD JD KD")}),
        (trio.views[P0], {P0: cards("7C 10C JC")}),
        (trio.views[P1], {P1: cards("8D 10D JD")}),
    ]:
        before = game.copy()
        with pytest.raises(DealError, match="already seen"):
            game.deal(hands)
        assert game == before


def test_redeal_declined_play_goes_on() -> None:
    trio = Trio()
    trio.deal(*XYX)
    trio.run("P0 redeal, P1 decline-redeal")
    assert trio.omni.phase is Phase.PLAY
    assert trio.omni.hand(P0) == cards("KC 9C 7C")
    assert trio.omni.to_act is P0
    trio.reject("P0 redeal", RedealNotAllowedError)
    # Asking for a redeal is not a request: P0 still has its request of trick 1.
    trio.run("P0 raise, P1 accept, P0 play KC")
    assert trio.omni.round_value == 2


def test_redeal_not_allowed_after_a_card() -> None:
    trio = Trio()
    trio.deal(*XYX)
    trio.run("P0 play KC, P1 play QD")
    assert trio.omni.to_act is P0
    error = trio.reject("P0 redeal", RedealNotAllowedError)
    assert error.rule == "redeal"


def test_redeal_not_allowed_after_a_request() -> None:
    trio = Trio()
    trio.deal(*XYX)
    trio.run("P0 raise, P1 accept")
    trio.reject("P0 redeal", RedealNotAllowedError)


def test_redeal_not_allowed_for_dealer() -> None:
    trio = Trio()
    trio.deal(*XYX)
    trio.act("P0 play KC")
    trio.reject("P1 redeal", RedealNotAllowedError)


def test_redeal_allowed_again_next_round() -> None:
    trio = Trio()
    trio.deal(*XYX)
    trio.run("P0 redeal, P1 accept-redeal")
    trio.deal("10C JC QC", "10D JD KD")
    trio.act("P0 fold")
    trio.deal(*XYX)  # P0 deals round 1: P1 may ask
    assert trio.omni.dealer is P0
    assert not trio.omni.redealt
    trio.run("P1 redeal, P0 decline-redeal, P1 play KC")


# ------------------------------------------------------------ dealer rotation


def test_dealer_alternates_every_round_and_non_dealer_leads() -> None:
    trio = Trio(dealer=P0)
    dealers = []
    for round_no in range(5):
        assert trio.omni.round_no == round_no
        dealers.append(trio.omni.dealer)
        trio.deal(*XYX)
        assert trio.omni.to_act is trio.omni.dealer.other
        trio.act(f"{trio.omni.dealer.other} fold")
    assert dealers == [P0, P1, P0, P1, P0]


def test_redeal_keeps_dealer_and_round_number() -> None:
    trio = Trio(dealer=P0)
    trio.deal(*XYX)
    trio.act("P1 fold")
    trio.deal(*XYX)
    trio.run("P0 redeal, P1 accept-redeal")
    assert (trio.omni.dealer, trio.omni.round_no) == (P1, 1)
    trio.deal("10C JC QC", "10D JD KD")
    assert (trio.omni.dealer, trio.omni.round_no) == (P1, 1)
    trio.act("P0 fold")
    assert (trio.omni.dealer, trio.omni.round_no) == (P0, 2)


def test_deal_positions_alternate_from_non_dealer() -> None:
    assert deal_positions(P1) == {P0: (0, 2, 4), P1: (1, 3, 5)}
    assert deal_positions(P0) == {P1: (0, 2, 4), P0: (1, 3, 5)}
    assert deal_positions(P0, redeal=True) == {P1: (6, 8, 10), P0: (7, 9, 11)}
    hands = hands_from_deck(DECK, P1, redeal=True)
    assert hands == {P0: (DECK[6], DECK[8], DECK[10]), P1: (DECK[7], DECK[9], DECK[11])}
    with pytest.raises(DealError):
        hands_from_deck(DECK[:11], P1)


def test_first_dealer_is_given_by_the_caller() -> None:
    for dealer in Player:
        game = Game(first_dealer=dealer)
        assert game.dealer is dealer
        assert game.first_dealer is dealer
        assert game.phase is Phase.DEAL
        assert game.round_no == 0


# ------------------------------------------------------------------- deals


@pytest.mark.parametrize(
    ("view", "hands"),
    [
        (None, {P0: "KC 9C 7C"}),
        (None, {P0: "KC 9C 7C", P1: "QD AD"}),
        (None, {P0: "KC 9C 7C", P1: "QD AD 8D 7D"}),
        (None, {P0: "KC 9C 7C", P1: "QD AD KC"}),
        (None, {P0: "KC KC 7C", P1: "QD AD 8D"}),
        (P0, {P0: "KC 9C 7C", P1: "QD AD 8D"}),
        (P0, {P1: "QD AD 8D"}),
        (P1, {}),
    ],
    ids=[
        "missing-hand",
        "short-hand",
        "long-hand",
        "card-in-both-hands",
        "card-twice-in-hand",
        "view-given-opponent-hand",
        "view-given-wrong-hand",
        "empty",
    ],
)
def test_bad_deals_are_rejected(view: Player | None, hands: dict[Player, str]) -> None:
    game = Game(first_dealer=P1, view=view)
    before = game.copy()
    with pytest.raises(DealError):
        game.deal({p: cards(h) for p, h in hands.items()})
    assert game == before


@pytest.mark.parametrize(
    "hands",
    [None, [], {0: cards("KC 9C 7C"), 2: cards("QD AD 8D")}, {P0: "KC 9C 7C", P1: "QD AD 8D"}],
    ids=["none", "list", "bad-int-keys", "str-hands"],
)
def test_malformed_deals_are_deal_errors(hands: object) -> None:
    game = Game(first_dealer=P1)
    with pytest.raises(DealError):
        game.deal(hands)  # type: ignore[arg-type]


def test_deal_only_in_deal_phase_and_push_only_after() -> None:
    trio = Trio()
    for game in trio.games:
        with pytest.raises(NotDealtError):
            game.push(Action.FOLD)
        assert not game.legal_actions()
    trio.deal(*XYX)
    for game in trio.games:
        with pytest.raises(DealError):
            game.deal({P0: cards("10C JC QC"), P1: cards("10D JD KD")})


# ---------------------------------------------------------------- game end


def test_game_ends_at_exactly_target() -> None:
    trio = Trio()
    for _ in range(11):
        trio.fold_round(P1)
    assert trio.omni.scores == (11, 0)
    assert trio.omni.outcome() is None
    trio.fold_round(P1)
    outcome = trio.omni.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason, outcome.scores) == (P0, GameEndReason.TARGET, (12, 0))
    assert trio.omni.phase is Phase.OVER


def test_game_end_overshoot_target() -> None:
    trio = Trio()
    for loser in [P1] * 11 + [P0] * 5:
        trio.fold_round(loser)
    assert trio.omni.scores == (11, 5)
    trio.deal(*XYX)
    assert trio.omni.dealer is P1
    trio.run("P0 raise, P1 accept, P0 play KC, P1 raise, P0 accept, P1 play QD, P0 play 9C")
    events = trio.act("P1 fold")  # P0 scores 6: 11 + 6 = 17
    ends = [e for e in events if isinstance(e, GameEnded)]
    assert [(e.outcome.winner, e.outcome.reason, e.outcome.scores) for e in ends] == [
        (P0, GameEndReason.TARGET, (17, 5))
    ]


def test_nobody_wins_below_target_and_custom_target() -> None:
    trio = Trio(Ruleset(target=3))
    trio.fold_round(P0)
    trio.fold_round(P1)
    trio.fold_round(P0)
    assert trio.omni.outcome() is None
    assert trio.omni.scores == (1, 2)
    trio.fold_round(P0)
    outcome = trio.omni.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.scores) == (P1, (1, 3))


def test_rest_win_keeps_scores() -> None:
    trio = Trio()
    for loser in [P1, P1, P0]:
        trio.fold_round(loser)
    assert trio.omni.scores == (2, 1)
    trio.deal(*XYX)
    events = trio.run("P1 rest, P0 accept, P1 fold")
    [end] = round_ends(events)
    assert (end.winner, end.points, end.reason) == (P0, 0, RoundEndReason.FOLDED)
    outcome = trio.omni.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason, outcome.scores) == (
        P0,
        GameEndReason.REST_WON,
        (2, 1),
    )


def test_nothing_is_legal_after_game_over() -> None:
    trio = Trio()
    trio.deal(*XYX)
    trio.run("P0 rest, P1 refuse")
    for game in trio.games:
        assert game.is_over()
        assert game.to_act is None
        assert not game.legal_actions()
        for action in [Action.FOLD, Action.play(cards("9C")[0]), Action.RAISE]:
            with pytest.raises(GameOverError):
                game.push(action)
        with pytest.raises(DealError):
            game.deal({P0: cards("10C JC QC"), P1: cards("10D JD KD")})


def test_one_request_per_player_per_trick_resets_each_trick() -> None:
    trio = Trio()
    trio.deal(*XYX)
    trio.run("P0 raise, P1 accept")
    assert trio.omni.requested(P0)
    trio.reject("P0 raise", OneRequestPerTrickError)
    trio.reject("P0 rest", OneRequestPerTrickError)
    trio.run("P0 play KC, P1 play QD")
    assert not trio.omni.requested(P0)
    trio.run("P0 raise, P1 accept")
    assert trio.omni.round_value == 6
