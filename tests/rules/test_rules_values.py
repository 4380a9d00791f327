"""Cards, actions and rulesets: index table, text round-trips, strict parsing."""

from __future__ import annotations

import itertools

import pytest
from helpers.examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from truc_p2p.rules import (
    ALL_CARDS,
    DEFAULT_RULESET,
    Action,
    ActionError,
    ActionKind,
    Card,
    CardError,
    Ladder,
    Player,
    Rank,
    RestRefused,
    Ruleset,
    RulesetError,
)

# ------------------------------------------------------------------- cards


def test_pack_has_32_distinct_cards_without_2_to_6() -> None:
    assert len(ALL_CARDS) == 32
    assert len(set(ALL_CARDS)) == 32
    assert {c.rank.symbol for c in ALL_CARDS} == {"7", "8", "9", "10", "J", "Q", "K", "A"}
    assert all(sum(1 for c in ALL_CARDS if c.rank is r) == 4 for r in Rank)


def test_trick_strength_order() -> None:
    order = ["9", "10", "J", "Q", "K", "A", "8", "7"]
    strengths = [Rank.from_str(s).value for s in order]
    assert strengths == list(range(8))
    for low, high in itertools.pairwise(order):
        assert Card.from_str(low + "S").strength < Card.from_str(high + "C").strength


def test_suits_never_matter_for_strength() -> None:
    for rank in Rank:
        assert len({c.strength for c in ALL_CARDS if c.rank is rank}) == 1


CANONICAL_INDEX = [
    (0, "7C"),
    (1, "8C"),
    (2, "9C"),
    (3, "10C"),
    (4, "JC"),
    (5, "QC"),
    (6, "KC"),
    (7, "AC"),
    (8, "7D"),
    (15, "AD"),
    (16, "7H"),
    (19, "10H"),
    (24, "7S"),
    (30, "KS"),
    (31, "AS"),
]


@pytest.mark.parametrize(("index", "text"), CANONICAL_INDEX)
def test_canonical_card_index(index: int, text: str) -> None:
    card = Card.from_str(text)
    assert card.index == index
    assert Card.from_index(index) == card
    assert ALL_CARDS[index] == card


def test_index_round_trip_all_cards() -> None:
    for i, card in enumerate(ALL_CARDS):
        assert card.index == i
        assert Card.from_index(i) is card
        assert Card.from_str(str(card)) == card
        assert Card.from_str(card.pretty()) == card
        assert Card.from_str(card.pretty(ascii=True)) == card
        assert Card.from_str(str(card).lower()) == card


@pytest.mark.parametrize(
    ("text", "canonical", "pretty"),
    [
        ("10H", "10H", "10♥"),
        ("10h", "10H", "10♥"),
        ("th", "10H", "10♥"),
        (" 7s ", "7S", "7♠"),
        ("A♦", "AD", "A♦"),
        ("q♣", "QC", "Q♣"),
        ("9♡", "9H", "9♥"),
    ],
)
def test_card_text_forms(text: str, canonical: str, pretty: str) -> None:
    card = Card.from_str(text)
    assert str(card) == canonical
    assert card.pretty() == pretty
    assert card.pretty(ascii=True) == canonical


@pytest.mark.parametrize(
    "text", ["", "1", "6C", "2H", "11S", "10", "AX", "A C", "10HH", "7♠♠", "JOKER", "1 0H"]
)
def test_bad_card_text(text: str) -> None:
    with pytest.raises(CardError):
        Card.from_str(text)


@pytest.mark.parametrize("index", [-1, 32, True, 1.0, "3", None])
def test_bad_card_index(index: object) -> None:
    with pytest.raises(CardError):
        Card.from_index(index)  # type: ignore[arg-type]


def test_bad_card_fields_and_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        Card("A", "S")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Card.from_str(7)  # type: ignore[arg-type]


def test_player_other() -> None:
    assert Player.P0.other is Player.P1
    assert Player.P1.other is Player.P0
    assert [int(p) for p in Player] == [0, 1]


# ----------------------------------------------------------------- actions


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (Action.play(Card.from_str("7S")), "play 7S"),
        (Action.play("10h"), "play 10H"),
        (Action.RAISE, "raise"),
        (Action.REST, "rest"),
        (Action.ACCEPT, "accept"),
        (Action.REFUSE, "refuse"),
        (Action.FOLD, "fold"),
        (Action.ASK_REDEAL, "redeal"),
        (Action.ACCEPT_REDEAL, "accept-redeal"),
        (Action.DECLINE_REDEAL, "decline-redeal"),
    ],
)
def test_action_text_round_trip(action: Action, text: str) -> None:
    assert str(action) == text
    assert Action.from_str(text) == action
    assert Action.from_str(text.upper()) == action
    assert Action.from_str(f"  {text}  ") == action
    assert action.kind.value == text.split()[0]


def test_all_actions_round_trip() -> None:
    actions = [Action.play(c) for c in ALL_CARDS]
    actions += [Action(k) for k in ActionKind if k is not ActionKind.PLAY]
    assert len(actions) == 32 + 8
    for action in actions:
        assert Action.from_str(str(action)) == action
        assert Action.from_str(action.pretty()) == action
    assert Action.play("7S").pretty() == "play 7♠"


@pytest.mark.parametrize(
    "text", ["", "play", "play 6S", "play 7S 8S", "raise 2", "double", "fold!", "accept redeal"]
)
def test_bad_action_text(text: str) -> None:
    with pytest.raises(ActionError):
        Action.from_str(text)


def test_action_shape_is_validated() -> None:
    with pytest.raises(ActionError):
        Action(ActionKind.PLAY)
    with pytest.raises(ActionError):
        Action(ActionKind.FOLD, Card.from_str("7S"))
    with pytest.raises(ActionError):
        Action("fold")  # type: ignore[arg-type]


# ----------------------------------------------------------------- ruleset


def test_default_ruleset() -> None:
    assert Ruleset() == DEFAULT_RULESET
    assert DEFAULT_RULESET.to_dict() == {"target": 12, "ladder": "literal", "rest_refused": "game"}
    assert hash(Ruleset()) == hash(Ruleset(12, Ladder.LITERAL, RestRefused.GAME))
    assert len({Ruleset(), Ruleset(ladder=Ladder.EVEN), Ruleset()}) == 2


@pytest.mark.parametrize(
    ("ladder", "steps"),
    [
        (Ladder.LITERAL, [1, 2, 6, 8, 10, 12, 14]),
        (Ladder.EVEN, [1, 2, 4, 6, 8, 10, 12]),
    ],
)
def test_raise_ladders(ladder: Ladder, steps: list[int]) -> None:
    ruleset = Ruleset(ladder=ladder)
    for a, b in itertools.pairwise(steps):
        assert ruleset.next_value(a) == b


@pytest.mark.parametrize(("ladder", "value"), [(Ladder.LITERAL, 4), (Ladder.EVEN, 3), (None, 0)])
def test_next_value_off_ladder(ladder: Ladder | None, value: int) -> None:
    with pytest.raises(RulesetError):
        Ruleset(ladder=ladder or Ladder.LITERAL).next_value(value)


rulesets = st.builds(
    Ruleset,
    target=st.integers(1, 1000),
    ladder=st.sampled_from(Ladder),
    rest_refused=st.sampled_from(RestRefused),
)


@settings(max_examples=examples(100))
@given(rulesets)
def test_ruleset_dict_round_trip(ruleset: Ruleset) -> None:
    wire = ruleset.to_dict()
    assert all(type(v) in (int, str) for v in wire.values())
    assert Ruleset.from_dict(wire) == ruleset
    assert Ruleset.from_dict(dict(reversed(wire.items()))) == ruleset


GOOD: dict[object, object] = {"target": 12, "ladder": "literal", "rest_refused": "game"}
BAD_DICTS: list[object] = [
    None,
    [],
    "target=12",
    12,
    {},
    {"target": 12, "ladder": "literal"},
    {**GOOD, "extra": 1},
    {**GOOD, 1: 1},
    {**GOOD, "target": "12"},
    {**GOOD, "target": 12.0},
    {**GOOD, "target": True},
    {**GOOD, "target": 0},
    {**GOOD, "target": -5},
    {**GOOD, "target": 10**6},
    {**GOOD, "target": None},
    {**GOOD, "ladder": "LITERAL"},
    {**GOOD, "ladder": "odd"},
    {**GOOD, "ladder": Ladder.LITERAL},
    {**GOOD, "ladder": ["literal"]},
    {**GOOD, "rest_refused": "points"},
    {**GOOD, "rest_refused": 1},
    {**GOOD, "rest_refused": None},
]


@pytest.mark.parametrize("obj", BAD_DICTS, ids=[repr(o)[:40] for o in BAD_DICTS])
def test_ruleset_from_dict_rejects_bad_input(obj: object) -> None:
    with pytest.raises(RulesetError):
        Ruleset.from_dict(obj)


@settings(max_examples=examples(150))
@given(
    st.dictionaries(
        st.one_of(st.sampled_from(list(GOOD)), st.text(max_size=5), st.integers()),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(),
            st.text(max_size=8),
            st.floats(),
            st.lists(st.none()),
        ),
        max_size=5,
    )
)
def test_ruleset_from_dict_only_raises_ruleset_error(obj: dict[object, object]) -> None:
    try:
        ruleset = Ruleset.from_dict(obj)
    except RulesetError:
        return
    assert ruleset.to_dict() == obj


@pytest.mark.parametrize(
    "kwargs",
    [{"target": 0}, {"target": "12"}, {"ladder": "literal"}, {"rest_refused": "game"}],
)
def test_ruleset_constructor_validates(kwargs: dict[str, object]) -> None:
    with pytest.raises(RulesetError):
        Ruleset(**kwargs)  # type: ignore[arg-type]
