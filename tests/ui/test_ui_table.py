"""The presentation model: one viewpoint everywhere, what each answer costs, whose
turn and how long, what just happened, and the terminal that renders it."""

from __future__ import annotations

import io

from truc_p2p.protocol import CardsDealt, GameStarted
from truc_p2p.rules import (
    Acted,
    Action,
    Card,
    Game,
    GameEnded,
    GameEndReason,
    Outcome,
    Player,
    RoundEnded,
    RoundEndReason,
    Ruleset,
    TrickEnded,
)
from truc_p2p.ui._narrate import Narrator
from truc_p2p.ui._table import TableModel
from truc_p2p.ui._tui import ScriptedLines, TerminalPlayer, parse_choice
from truc_p2p.ui._voice import Voice
from truc_p2p.ui._web._view import action_buttons

ME, OPP = Player.P1, Player.P0  # the viewer sits in seat 1: scores must not come in seat order
NAMES = {ME: "alice", OPP: "bob"}


def cards(*texts: str) -> tuple[Card, ...]:
    return tuple(Card.from_str(t) for t in texts)


def started(first_dealer: Player = ME) -> GameStarted:
    return GameStarted(
        game_id=bytes(32),
        me=ME,
        peer_name="bob",
        peer_fingerprint="ab" * 32,
        ruleset=Ruleset(),
        audit="game",
        first_dealer=first_dealer,
        deck="v2",
    )


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def model_after_deal(clock: Clock | None = None) -> TableModel:
    """alice deals (seat 1), so bob (seat 0) is to act first."""
    model = TableModel("alice", move_seconds=300, now=clock or Clock())
    model.feed(started())
    model.feed(CardsDealt(round_no=0, dealer=ME, cards=cards("7S", "9H", "AD"), redeal=False))
    return model


def test_scores_and_results_are_told_from_the_viewers_side() -> None:
    voice = Voice(NAMES, ME)
    # seat 0 (bob) leads 5-0 in seat order; alice reads her own score first
    assert voice.score((5, 0)) == "you 0 – bob 5"
    assert (
        voice.hand_result(
            hand_no=1, winner=ME, points=2, reason=RoundEndReason.REFUSED, game_over=False
        )
        == "you win hand 2: +2 points (bob refused “2 more?”)"
    )
    assert (
        voice.hand_result(
            hand_no=0, winner=OPP, points=1, reason=RoundEndReason.FOLDED, game_over=False
        )
        == "bob wins hand 1: +1 point (you folded)"
    )
    # a game won by "my rest" at 0-0 explains itself in one line
    line = voice.game_result(winner=OPP, reason=GameEndReason.REST_WON, scores=(0, 0), hand_no=0)
    assert line == (
        "bob wins the game: “my rest” was accepted in hand 1 and bob won that hand (you 0 – bob 0)"
    )
    assert "you wins" not in line
    refused = voice.game_result(
        winner=ME, reason=GameEndReason.REST_REFUSED, scores=(3, 4), hand_no=2
    )
    assert refused == "you win the game: bob turned down your “my rest” in hand 3 (you 4 – bob 3)"


def test_a_neutral_narrator_names_both_players_and_puts_its_own_side_first() -> None:
    out = io.StringIO()
    narrator = Narrator("alice", out=out)
    narrator(started())
    narrator(
        RoundEnded(round_no=0, winner=OPP, points=2, reason=RoundEndReason.TRICKS, scores=(2, 0))
    )
    narrator(GameEnded(outcome=Outcome(winner=OPP, reason=GameEndReason.TARGET, scores=(12, 5))))
    text = out.getvalue()
    assert "bob wins hand 1: +2 points (on tricks) → alice 0 – bob 2" in text
    assert "bob wins the game, alice 5 – bob 12" in text
    assert "you" not in text and "player 0" not in text


def test_each_answer_says_what_it_costs() -> None:
    model = model_after_deal()
    model.feed(Acted(player=OPP, action=Action.RAISE))
    game = model.game
    assert game is not None
    model.begin_turn(game, tuple(game.legal_actions()))
    view = model.view()
    assert view is not None and view.pending is not None
    assert view.pending.text == "bob asks “2 more?” (to 2)"
    costs = {c.key: c.cost for c in view.choices}
    assert costs == {
        "a": "the hand is worth 2",
        "x": "bob scores 1 point now",
        "f": "bob scores 1 point now",
    }


def test_my_rest_says_the_game_is_at_stake() -> None:
    model = model_after_deal()
    model.feed(Acted(player=OPP, action=Action.REST))
    game = model.game
    assert game is not None
    model.begin_turn(game, tuple(game.legal_actions()))
    view = model.view()
    assert view is not None
    costs = {c.key: c.cost for c in view.choices}
    assert costs["a"] == "this hand decides the game"
    assert costs["x"] == "bob wins the game now" and costs["f"] == "bob wins the game now"
    labels = {c.key: c.label for c in view.choices}
    assert labels["a"] == "accept “my rest”"
    model.end_turn()
    (line,) = model.feed(Acted(player=ME, action=Action.ACCEPT))
    assert line.text == "you accept “my rest”: this hand decides the game"
    after = model.view()
    assert after is not None and after.rest_on
    assert after.worth == "MY REST: this hand decides the game"


def test_whose_turn_and_how_long() -> None:
    clock = Clock()
    model = model_after_deal(clock)
    view = model.view()
    assert view is not None and view.status == "waiting for bob (5:00 left)"
    clock.t += 61
    view = model.view()
    assert view is not None and view.status == "waiting for bob (3:59 left)"
    model.feed(Acted(player=OPP, action=Action.play(Card.from_str("KC"))))
    game = model.game
    assert game is not None
    model.begin_turn(game, tuple(game.legal_actions()))
    view = model.view()
    assert view is not None and view.status == "your move (5:00 left)"


def test_the_last_trick_stays_until_the_next_card_and_a_new_hand_is_clean() -> None:
    model = model_after_deal()
    model.feed(Acted(player=OPP, action=Action.play(Card.from_str("KC"))))
    model.feed(Acted(player=ME, action=Action.play(Card.from_str("7S"))))
    model.feed(TrickEnded(trick_no=0, leader=OPP, cards=cards("KC", "7S"), winner=ME))
    view = model.view()
    assert view is not None and view.last_trick is not None
    assert view.last_trick.winner == "me" and view.last_trick.text == "trick 1: you win it"
    assert view.trick_marks == ("won", "–", "–") and view.tricks_line == "tricks: won · – · –"
    model.feed(Acted(player=ME, action=Action.play(Card.from_str("9H"))))
    view = model.view()
    assert view is not None and view.last_trick is None  # swept by the next card
    model.feed(
        RoundEnded(round_no=0, winner=ME, points=1, reason=RoundEndReason.FOLDED, scores=(0, 1))
    )
    assert model.hand_result is not None
    assert model.hand_result.text == "you win hand 1: +1 point (bob folded)"


def test_a_hand_decided_by_trick_1_after_a_spoiled_trick_2_says_so() -> None:
    """Trick 1 won, trick 2 spoiled: the hand is over at once, and the result says
    which trick decided it (not a bare "on tricks")."""
    model = model_after_deal()
    model.feed(TrickEnded(trick_no=0, leader=OPP, cards=cards("KC", "7S"), winner=ME))
    model.feed(TrickEnded(trick_no=1, leader=ME, cards=cards("9H", "9C"), winner=None))
    model.feed(
        RoundEnded(round_no=0, winner=ME, points=1, reason=RoundEndReason.TRICKS, scores=(0, 1))
    )
    assert model.hand_result is not None
    assert model.hand_result.text == (
        "you win hand 1: +1 point (trick 1 decided it: trick 2 was spoiled)"
    )
    # the next hand starts clean: two tricks won say "on tricks"
    model.feed(CardsDealt(round_no=1, dealer=OPP, cards=cards("7C", "8H", "AS"), redeal=False))
    for no in range(2):
        model.feed(TrickEnded(trick_no=no, leader=OPP, cards=cards("KC", "7S"), winner=OPP))
    (line,) = model.feed(
        RoundEnded(round_no=1, winner=OPP, points=1, reason=RoundEndReason.TRICKS, scores=(1, 1))
    )
    assert line.text == "bob wins hand 2: +1 point (on tricks) → you 1 – bob 1"


def test_keys_that_exist_but_do_not_fit_say_why() -> None:
    game = Game(first_dealer=ME, view=OPP)
    game.deal({OPP: cards("7S", "9H", "AD")})
    legal = tuple(game.legal_actions())
    assert parse_choice("a", game, legal).startswith("nothing to accept now")  # type: ignore[union-attr]
    assert parse_choice("x", game, legal).startswith("nothing to refuse now")  # type: ignore[union-attr]
    assert "unknown key" in str(parse_choice("zz", game, legal))


def test_a_redeal_request_is_answered_with_the_keys_of_any_answer_too() -> None:
    """A player answering a redeal request presses ``a`` or ``x``, as for a raise:
    they answer it (its own keys, ``d`` and ``n``, are the ones listed), and the
    keys are listed in the order of the buttons, fold last."""
    game = Game(first_dealer=ME, view=ME)
    game.deal({ME: cards("9S", "10H", "JD")})
    game.push(Action.ASK_REDEAL, player=OPP)
    legal = tuple(game.legal_actions())
    assert parse_choice("a", game, legal) == Action.ACCEPT_REDEAL
    assert parse_choice("x", game, legal) == Action.DECLINE_REDEAL
    assert parse_choice("d", game, legal) == Action.ACCEPT_REDEAL
    assert parse_choice("n", game, legal) == Action.DECLINE_REDEAL
    said = str(parse_choice("1", game, legal))
    assert said.endswith("choose from: d, n, f"), said
    buttons = {b["key"]: b["alt"] for b in action_buttons(game, legal)}
    assert buttons == {"d": "a", "n": "x", "f": None}


class StampedLines:
    """Lines that carry when they were typed, like a terminal's."""

    def __init__(self, lines: list[tuple[str, float]]) -> None:
        self._lines = lines
        self.stamp: float | None = None

    async def readline(self) -> str | None:
        if not self._lines:
            return None
        line, self.stamp = self._lines.pop(0)
        return line


async def test_type_ahead_across_a_trick_is_dropped_with_a_note() -> None:
    import trio

    out = io.StringIO()
    now = trio.current_time()
    ui = TerminalPlayer(
        StampedLines([("3", now - 5), ("1", now + 5)]), "alice", out=out, confirm_quit=False
    )
    ui(started(first_dealer=ME))
    ui(CardsDealt(round_no=0, dealer=ME, cards=cards("7S", "9H", "AD"), redeal=False))
    ui(Acted(player=OPP, action=Action.play(Card.from_str("KC"))))
    game = ui.model.game
    assert game is not None
    chosen = await ui.choose(game.copy(), tuple(game.legal_actions()))
    assert chosen == Action.play(Card.from_str("7S"))  # "3", typed before the deal, was dropped
    assert "dropped '3'" in out.getvalue()


async def test_q_asks_before_leaving() -> None:
    out = io.StringIO()
    ui = TerminalPlayer(ScriptedLines(["q", "n", "1"]), "alice", out=out, confirm_quit=True)
    ui(started(first_dealer=ME))
    ui(CardsDealt(round_no=0, dealer=ME, cards=cards("7S", "9H", "AD"), redeal=False))
    ui(Acted(player=OPP, action=Action.play(Card.from_str("KC"))))
    game = ui.model.game
    assert game is not None
    chosen = await ui.choose(game.copy(), tuple(game.legal_actions()))
    assert chosen == Action.play(Card.from_str("7S"))
    text = out.getvalue()
    assert "leave the game? You resign: bob wins the game." in text
    assert "(you stay in the game)" in text


def test_the_screen_fits_80_columns_without_splitting_words() -> None:
    ui = TerminalPlayer(ScriptedLines([]), "alice", out=io.StringIO())
    ui(started(first_dealer=ME))
    ui(CardsDealt(round_no=0, dealer=ME, cards=cards("7S", "9H", "AD"), redeal=False))
    ui(Acted(player=OPP, action=Action.play(Card.from_str("KC"))))
    game = ui.model.game
    assert game is not None
    screen = ui.render(game.copy(), tuple(game.legal_actions()))
    assert all(len(line) <= 80 for line in screen.splitlines())
    assert "[m] “my rest”: if refused, you win the game now; if accepted, this hand" in screen


def test_input_survives_from_one_game_run_to_the_next() -> None:
    """A command that plays its games in successive trio runs (a match resumed after a
    crash) reads stdin through one thread: no line is lost between the runs."""
    import os

    import trio

    from truc_p2p.ui._tui import StdinLines

    read_end, write_end = os.pipe()
    os.write(write_end, b"first\nsecond\nthird\n")
    os.close(write_end)

    async def one_line() -> str | None:
        return await StdinLines(read_end).readline()

    try:
        got = [trio.run(one_line) for _ in range(4)]
    finally:
        os.close(read_end)
    assert got == ["first", "second", "third", None]


def test_the_terminal_leaves_the_games_result_to_the_ending_and_the_lesson_says_it() -> None:
    """``play``/``host``/``join`` print the ending once (headline, points, transcript):
    the narration does not tell the result before it; the lesson, which prints none,
    says it in the narration."""
    for tells in (False, True):
        out = io.StringIO()
        ui = TerminalPlayer(ScriptedLines([]), "alice", out=out)
        ui.tell_game_end = tells
        ui(started())
        ui(CardsDealt(round_no=0, dealer=ME, cards=cards("7S", "9H", "AD"), redeal=False))
        ui(RoundEnded(round_no=0, winner=ME, points=0, reason=RoundEndReason.TRICKS, scores=(0, 0)))
        ui(GameEnded(outcome=Outcome(winner=ME, reason=GameEndReason.REST_WON, scores=(0, 0))))
        text = out.getvalue()
        assert "and with it the game" not in text
        said = text.count("you win the game")
        assert said == (1 if tells else 0), text


def test_the_signed_points_say_no_winner() -> None:
    line = Voice(NAMES, ME).signed_points("points: you 12 – bob 5", hands=7)
    assert line == "points: you 12 – bob 5 (7 hands) · result co-signed by both players"
