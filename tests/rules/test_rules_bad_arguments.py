"""The public rules API takes plain int seats, and bad arguments raise only typed errors.

Every public function and method of :mod:`truc_p2p.rules` is called with
arbitrary junk (out-of-range ints, bools, strings, floats, containers,
objects): each call either succeeds or raises a :class:`RulesError` (which is
a :class:`ValueError`), never a bare ``ValueError``, ``IndexError``,
``KeyError``, ``TypeError`` or ``AttributeError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from helpers.examples import examples
from helpers.rules import P0, P1, cards
from hypothesis import given, settings
from hypothesis import strategies as st

from truc_p2p.rules import (
    ALL_CARDS,
    DEFAULT_RULESET,
    Action,
    ActionKind,
    Card,
    Game,
    GameEndReason,
    Ladder,
    LegalActions,
    NotYourTurnError,
    Phase,
    Player,
    PlayerError,
    Rank,
    RestRefused,
    RoundEndReason,
    RulesError,
    Ruleset,
    Suit,
    deal_positions,
    hands_from_deck,
    round_result,
)

HANDS = {P0: cards("KC 9C 7C"), P1: cards("QD AD 8D")}

JUNK = st.one_of(
    st.integers(min_value=-3, max_value=40),
    st.integers(),
    st.booleans(),
    st.none(),
    st.text(max_size=6),
    st.binary(max_size=4),
    st.floats(allow_nan=True),
    st.lists(st.integers(min_value=-1, max_value=2), max_size=4),
    st.tuples(st.sampled_from(ALL_CARDS), st.sampled_from(ALL_CARDS)),
    st.dictionaries(st.integers(min_value=-1, max_value=2), st.integers(), max_size=2),
    st.sampled_from([*Player, *ALL_CARDS[:3], Action.RAISE, ActionKind.PLAY, Rank.ACE, Suit.CLUBS]),
    st.builds(object),
)


def _dealt(view: Player | None = None) -> Game:
    game = Game(first_dealer=P1, view=view)
    game.deal(HANDS if view is None else {view: HANDS[view]})
    return game


def _keyed(x: Any, y: Any) -> Any:
    """``{x: hand, y: hand}``, or junk when ``x`` or ``y`` cannot be a dict key."""
    try:
        return {x: HANDS[P0], y: HANDS[P1]}
    except TypeError:
        return [x, y]


def _calls(x: Any, y: Any) -> list[tuple[str, Callable[[], object]]]:
    """Every public entry point, fed the junk ``x`` (and ``y``)."""
    game = _dealt()
    view = _dealt(P1)
    fresh = Game(first_dealer=P0)
    return [
        ("Player.coerce", lambda: Player.coerce(x)),
        ("Game(first_dealer)", lambda: Game(first_dealer=x)),
        ("Game(view)", lambda: Game(first_dealer=P0, view=x)),
        ("Game(ruleset)", lambda: Game(x, first_dealer=P0)),
        ("Game.requested", lambda: game.requested(x)),
        ("Game.knows_hand", lambda: view.knows_hand(x)),
        ("Game.hand", lambda: game.hand(x)),
        ("Game.hand(view)", lambda: view.hand(x)),
        ("Game.hand_size", lambda: game.hand_size(x)),
        ("Game.possible_cards", lambda: view.possible_cards(x)),
        ("Game.legal_actions", lambda: game.legal_actions(x)),
        ("Game.is_legal", lambda: game.is_legal(Action.RAISE, x)),
        ("Game.is_legal(action)", lambda: game.is_legal(x)),
        ("Game.push(player)", lambda: game.copy().push(Action.RAISE, player=x)),
        ("Game.push(action)", lambda: game.copy().push(x)),
        ("Game.deal", lambda: fresh.copy().deal(x)),
        ("Game.deal(keys)", lambda: fresh.copy().deal(_keyed(x, y))),
        ("Game.deal(values)", lambda: fresh.copy().deal({P0: x, P1: y})),
        ("deal_positions", lambda: deal_positions(x, redeal=bool(y))),
        ("hands_from_deck(deck)", lambda: hands_from_deck(x, P0)),
        ("hands_from_deck(dealer)", lambda: hands_from_deck(ALL_CARDS, x)),
        ("round_result", lambda: round_result(x)),
        ("round_result(items)", lambda: round_result([x, y])),
        ("Card", lambda: Card(x, y)),
        ("Card.from_index", lambda: Card.from_index(x)),
        ("Card.from_str", lambda: Card.from_str(x)),
        ("Rank.from_str", lambda: Rank.from_str(x)),
        ("Suit.from_str", lambda: Suit.from_str(x)),
        ("Action", lambda: Action(x, y)),
        ("Action.play", lambda: Action.play(x)),
        ("Action.from_str", lambda: Action.from_str(x)),
        ("Ruleset(target)", lambda: Ruleset(target=x)),
        ("Ruleset(ladder)", lambda: Ruleset(ladder=x)),
        ("Ruleset(rest_refused)", lambda: Ruleset(rest_refused=x)),
        ("Ruleset.from_dict", lambda: Ruleset.from_dict(x)),
        (
            "Ruleset.from_dict(values)",
            lambda: Ruleset.from_dict({"target": x, "ladder": y, "rest_refused": "game"}),
        ),
        ("Ruleset.next_value", lambda: DEFAULT_RULESET.next_value(x)),
        ("Ruleset.is_on_ladder", lambda: DEFAULT_RULESET.is_on_ladder(x)),
        ("LegalActions", lambda: LegalActions(x)),
        ("LegalActions.__contains__", lambda: x in game.legal_actions()),
        # The enums' own constructors raise the matching typed error too.
        ("Player()", lambda: Player(x)),
        ("Rank()", lambda: Rank(x)),
        ("Suit()", lambda: Suit(x)),
        ("ActionKind()", lambda: ActionKind(x)),
        ("Ladder()", lambda: Ladder(x)),
        ("RestRefused()", lambda: RestRefused(x)),
        ("Phase()", lambda: Phase(x)),
        ("GameEndReason()", lambda: GameEndReason(x)),
        ("RoundEndReason()", lambda: RoundEndReason(x)),
    ]


@settings(max_examples=examples(300), deadline=None)
@given(x=JUNK, y=JUNK)
def test_only_rules_errors_escape(x: Any, y: Any) -> None:
    for name, call in _calls(x, y):
        try:
            call()
        except RulesError:
            pass
        except Exception as exc:  # pragma: no cover - the failure being tested for
            pytest.fail(f"{name}({x!r}, {y!r}) raised {type(exc).__name__}: {exc}")


# The cases named in issue 8, table-driven so they read as a specification.
BAD_SEATS = [2, -1, True, False, "0", "P1", 1.0, [0]]


@pytest.mark.parametrize("seat", BAD_SEATS, ids=repr)
@pytest.mark.parametrize(
    "call",
    [
        lambda s: Game(first_dealer=s),
        lambda s: _dealt().hand(s),
        lambda s: _dealt().hand_size(s),
        lambda s: _dealt().requested(s),
        lambda s: _dealt(P0).possible_cards(s),
        lambda s: _dealt().push(Action.RAISE, player=s),
        lambda s: _dealt().legal_actions(s),
        lambda s: deal_positions(s),
    ],
    ids=[
        "Game(first_dealer)",
        "hand",
        "hand_size",
        "requested",
        "possible_cards",
        "push",
        "legal_actions",
        "deal_positions",
    ],
)
def test_bad_seat_is_a_player_error(call: Callable[[object], object], seat: object) -> None:
    with pytest.raises(PlayerError) as caught:
        call(seat)
    assert isinstance(caught.value, ValueError)
    assert caught.value.rule == "player"


@pytest.mark.parametrize(
    "call",
    [lambda: Game(first_dealer=None), lambda: _dealt().hand(None), lambda: round_result([2])],  # type: ignore[arg-type, list-item]
    ids=["Game(first_dealer=None)", "hand(None)", "round_result([2])"],
)
def test_none_where_a_seat_is_required(call: Callable[[], object]) -> None:
    with pytest.raises(PlayerError):
        call()


@pytest.mark.parametrize("seat", [0, 1])
def test_int_seats_work_like_players(seat: int) -> None:
    player = Player(seat)
    game = _dealt()
    assert game.hand(seat) == game.hand(player) == HANDS[player]
    assert game.hand_size(seat) == 3
    assert game.requested(seat) is False
    assert _dealt(player).knows_hand(seat)
    assert not _dealt(player.other).knows_hand(seat)
    assert _dealt(player.other).possible_cards(seat) == _dealt(player.other).possible_cards(player)
    assert Game(first_dealer=seat).first_dealer is player
    assert Game(first_dealer=P0, view=seat).view is player
    assert deal_positions(seat) == deal_positions(player)
    assert hands_from_deck(ALL_CARDS, seat) == hands_from_deck(ALL_CARDS, player)
    assert round_result([seat, seat]) == (True, player)


def test_push_with_int_player() -> None:
    """P0 (the non-dealer) acts first: ``player=0`` works and ``player=1`` names the turn."""
    game = _dealt()
    with pytest.raises(NotYourTurnError, match="it is P0's turn, not P1's"):
        game.push(Action.RAISE, player=1)
    events = game.push(Action.RAISE, player=0)
    assert game.pending is ActionKind.RAISE and game.requester is P0
    assert events[0].player is P0  # type: ignore[attr-defined]
    assert game.legal_actions(1) == game.legal_actions(P1)
    assert game.is_legal(Action.ACCEPT, 1) and not game.is_legal(Action.ACCEPT, 0)
    game.push(Action.ACCEPT, player=1)
    assert game.round_value == 2


def test_deal_with_int_keys() -> None:
    game = Game(first_dealer=1)
    game.deal({0: HANDS[P0], 1: HANDS[P1]})  # type: ignore[dict-item]
    assert game.hand(P0) == HANDS[P0]
    view = Game(first_dealer=1, view=0)
    view.deal({0: HANDS[P0]})  # type: ignore[dict-item]
    assert view.hand(0) == HANDS[P0]


def test_round_result_too_many_tricks() -> None:
    with pytest.raises(RulesError, match="at most three tricks"):
        round_result([P0, P1, None, P0])
