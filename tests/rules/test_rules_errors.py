"""Every illegal action raises a specific error naming the rule; state unchanged."""

from __future__ import annotations

import re

import pytest
from helpers.rules import P0, P1, Trio, cards, rules_spec_text

import truc_p2p.rules as rules
from truc_p2p.rules import (
    Action,
    ActionError,
    AnswerMismatchError,
    CardNotHeldError,
    Game,
    IllegalActionError,
    NoRequestAfterRestError,
    NoRequestPendingError,
    NotYourTurnError,
    OneRequestPerTrickError,
    RedealNotAllowedError,
    RequestPendingError,
    RulesError,
)

XYX = ("KC 9C 7C", "QD AD 8D")

REJECTIONS = [
    # (id, setup script, bad step, error, also rejected by the non-acting view)
    ("play-while-raise-pending", "P0 raise", "P1 play QD", RequestPendingError, True),
    ("counter-raise", "P0 raise", "P1 raise", RequestPendingError, True),
    ("counter-rest", "P0 raise", "P1 rest", RequestPendingError, True),
    ("redeal-while-raise-pending", "P0 raise", "P1 redeal", RequestPendingError, True),
    ("play-while-rest-pending", "P0 rest", "P1 play QD", RequestPendingError, True),
    ("play-while-redeal-pending", "P0 redeal", "P1 play QD", RequestPendingError, True),
    ("raise-while-redeal-pending", "P0 redeal", "P1 raise", RequestPendingError, True),
    ("accept-redeal-answers-raise", "P0 raise", "P1 accept-redeal", AnswerMismatchError, True),
    ("decline-redeal-answers-rest", "P0 rest", "P1 decline-redeal", AnswerMismatchError, True),
    ("accept-answers-redeal", "P0 redeal", "P1 accept", AnswerMismatchError, True),
    ("refuse-answers-redeal", "P0 redeal", "P1 refuse", AnswerMismatchError, True),
    ("accept-nothing", "", "P0 accept", NoRequestPendingError, True),
    ("refuse-nothing", "P0 play KC", "P1 refuse", NoRequestPendingError, True),
    ("accept-redeal-nothing", "", "P0 accept-redeal", NoRequestPendingError, True),
    ("decline-redeal-nothing", "P0 play KC", "P1 decline-redeal", NoRequestPendingError, True),
    ("answer-own-request", "P0 raise", "P0 accept", NotYourTurnError, True),
    ("follower-acts-first", "", "P1 play QD", NotYourTurnError, True),
    ("leader-raises-after-playing", "P0 play KC", "P0 raise", NotYourTurnError, True),
    ("second-raise-same-trick", "P0 raise, P1 accept", "P0 raise", OneRequestPerTrickError, True),
    (
        "rest-after-raise-same-trick",
        "P0 raise, P1 accept",
        "P0 rest",
        OneRequestPerTrickError,
        True,
    ),
    (
        "follower-second-request",
        "P0 play KC, P1 raise, P0 accept",
        "P1 rest",
        OneRequestPerTrickError,
        True,
    ),
    (
        "raise-after-rest-answered",
        "P0 rest, P1 accept, P0 play KC",
        "P1 raise",
        NoRequestAfterRestError,
        True,
    ),
    (
        "rest-after-rest-answered-next-trick",
        "P0 rest, P1 accept, P0 play KC, P1 play QD",
        "P0 rest",
        NoRequestAfterRestError,
        True,
    ),
    ("card-held-by-nobody", "", "P0 play 10H", CardNotHeldError, False),
    ("card-held-by-opponent", "", "P0 play AD", CardNotHeldError, True),
    ("card-already-played", "P0 play KC, P1 play QD", "P0 play KC", CardNotHeldError, True),
    ("card-held-by-viewer", "P0 play KC", "P1 play 9C", CardNotHeldError, True),
    ("dealer-asks-redeal", "P0 play KC", "P1 redeal", RedealNotAllowedError, True),
    ("redeal-after-card", "P0 play KC, P1 play QD", "P0 redeal", RedealNotAllowedError, True),
]


@pytest.mark.parametrize(
    ("setup", "step", "error", "views"),
    [r[1:] for r in REJECTIONS],
    ids=[r[0] for r in REJECTIONS],
)
def test_illegal_actions_are_rejected(
    setup: str, step: str, error: type[IllegalActionError], views: bool
) -> None:
    trio = Trio()
    trio.deal(*XYX)
    trio.run(setup)
    trio.reject(step, error, views=views)


def test_the_spec_names_every_rejection_row() -> None:
    """protocol_spec/rules.md names each row of :data:`REJECTIONS` as ``E[id]``, and no other."""
    named = set(re.findall(r"`E\[([a-z0-9-]+)\]`", rules_spec_text()))
    ids = {r[0] for r in REJECTIONS}
    assert named - ids == set(), "unknown rejection ids in the spec"
    assert ids - named == set(), "rejection rows missing from the spec"


def test_hidden_card_is_rejected_only_where_known() -> None:
    # P0's view cannot know that P1 does not hold KD: it accepts the play.
    trio = Trio()
    trio.deal(*XYX)
    trio.act("P0 play KC")
    kd = Action.play(cards("KD")[0])
    assert not trio.omni.is_legal(kd)
    assert not trio.views[P1].is_legal(kd)
    assert trio.views[P0].is_legal(kd)
    assert kd in trio.views[P0].legal_actions()


def test_cards_discarded_by_redeal_are_not_playable_in_view() -> None:
    trio = Trio()
    trio.deal(*XYX)
    trio.run("P0 redeal, P1 accept-redeal")
    trio.deal("10C JC QC", "10D JD KD")
    trio.act("P0 play 10C")
    p0_view = trio.views[P0]
    # KC was P0's discarded card: P1 cannot hold it.  QD (P1's discard) is unknown to P0.
    assert not p0_view.is_legal(Action.play(cards("KC")[0]))
    assert p0_view.is_legal(Action.play(cards("QD")[0]))
    assert cards("KC 9C 7C")[0] in p0_view.discarded()
    assert len(p0_view.legal_actions().cards()) == 32 - 3 - 3


def test_every_error_is_a_value_error_with_a_rule() -> None:
    names = [n for n in rules.__all__ if n.endswith("Error")]
    assert len(names) >= 15
    slugs = set()
    for name in names:
        cls = getattr(rules, name)
        assert issubclass(cls, RulesError)
        assert issubclass(cls, ValueError)
        assert isinstance(cls.rule, str)
        assert cls.rule
        slugs.add(cls.rule)
    assert len(slugs) == len(names), "each error class names its own rule"
    assert issubclass(rules.NotDealtError, rules.WrongPhaseError)
    assert issubclass(rules.GameOverError, rules.WrongPhaseError)
    assert issubclass(rules.DealError, RulesError)
    assert not issubclass(rules.DealError, IllegalActionError)


def test_push_rejects_non_actions() -> None:
    game = Game(first_dealer=P1)
    game.deal({P0: cards("KC 9C 7C"), P1: cards("QD AD 8D")})
    before = game.copy()
    with pytest.raises(ActionError):
        game.push("fold")  # type: ignore[arg-type]
    assert game == before
    assert not game.is_legal("fold")  # type: ignore[arg-type]
    assert "fold" not in game.legal_actions()


def test_error_messages_are_clear() -> None:
    trio = Trio()
    trio.deal(*XYX)
    trio.act("P0 raise")
    error = trio.reject("P1 play QD", RequestPendingError)
    assert "answer" in str(error)
    assert "accept" in str(error)
    trio.act("P1 accept")
    error = trio.reject("P0 play QD", CardNotHeldError, views=False)
    assert "QD" in str(error)
    assert error.rule == "card-held"
    assert P1 is P0.other
