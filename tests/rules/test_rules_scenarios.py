"""Table-driven scenarios: one row per rule sentence of RULES.md.

Every row is played in the omniscient game and in both player views at once
(``Trio``): their events and public state must agree at every step.  The
``protocol_spec/rules.md`` cross-reference names these ids.

Unless a row says otherwise P1 deals, so P0 (the non-dealer) leads trick 1;
``nd`` is the non-dealer's hand and ``d`` the dealer's.  Strength, low to
high: 9 < 10 < J < Q < K < A < 8 < 7.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import pytest
from helpers.rules import P0, P1, Trio, cards, round_ends, rules_spec_text, trick_text

from truc_p2p.rules import (
    DEFAULT_RULESET,
    Acted,
    ActionKind,
    GameEnded,
    GameEndReason,
    Ladder,
    Phase,
    Player,
    RestRefused,
    RoundEndReason,
    Ruleset,
    TrickEnded,
)

EVEN = Ruleset(ladder=Ladder.EVEN)
VALUE = Ruleset(rest_refused=RestRefused.VALUE)
TRICKS = RoundEndReason.TRICKS
SPOILED = RoundEndReason.SPOILED
REFUSED = RoundEndReason.REFUSED
REST_REFUSED = RoundEndReason.REST_REFUSED
FOLDED = RoundEndReason.FOLDED
REST_WON = RoundEndReason.REST_WON

# X Y X hands: KC>QD (P0), 9C<AD (P1), then P1 leads 8D < 7C (P0).
XYX = ("KC 9C 7C", "QD AD 8D")
XYX_PLAY = "P0 play KC, P1 play QD, P0 play 9C, P1 play AD, P1 play 8D, P0 play 7C"
ALL_SPOIL = ("9C 10C JC", "9D 10D JD")
SIX_RAISES = (
    "P0 raise, P1 accept, P0 play KC, P1 raise, P0 accept, P1 play QD,"
    "P0 raise, P1 accept, P0 play 9C, P1 raise, P0 accept, P1 play AD,"
    "P1 raise, P0 accept, P1 play 8D, P0 raise, P1 accept, P0 play 7C"
)


@dataclass(frozen=True)
class Case:
    id: str
    hands: tuple[str, str]
    script: str
    tricks: str
    round: tuple[Player | None, int, RoundEndReason]
    scores: tuple[int, int]
    game: tuple[Player, GameEndReason] | None = None
    dealer: Player = P1
    ruleset: Ruleset = DEFAULT_RULESET


CASES = [
    # --- Play of the tricks: spoiled tricks in each position, leader after a spoil
    Case(
        "spoil-trick-1-leader-leads-again-and-wins",
        ("9C KC 7C", "9D QD 8D"),
        "P0 play 9C, P1 play 9D, P0 play KC, P1 play QD",
        "- P0",
        (P0, 1, TRICKS),
        (1, 0),
    ),
    Case(
        "spoil-trick-1-leader-leads-again-follower-wins",
        ("9C KC 7C", "9D QD 8D"),
        "P0 play 9C, P1 play 9D, P0 play KC, P1 play 8D",
        "- P1",
        (P1, 1, TRICKS),
        (0, 1),
    ),
    Case(
        "spoil-trick-1-dealer-p0",
        ("9C KC 7C", "9D QD 8D"),
        "P1 play 9C, P0 play 9D, P1 play KC, P0 play QD",
        "- P1",
        (P1, 1, TRICKS),
        (0, 1),
        dealer=P0,
    ),
    Case(
        "spoil-trick-2-after-leader-won",
        ("KC 9C 7C", "QD 9D 8D"),
        "P0 play KC, P1 play QD, P0 play 9C, P1 play 9D",
        "P0 -",
        (P0, 1, TRICKS),
        (1, 0),
    ),
    Case(
        "spoil-trick-2-after-follower-won",
        ("KC 9C 7C", "AD 9D 8D"),
        "P0 play KC, P1 play AD, P1 play 9D, P0 play 9C",
        "P1 -",
        (P1, 1, TRICKS),
        (0, 1),
    ),
    Case(
        "spoil-tricks-1-2-leader-wins-trick-3",
        ("9C 10C KC", "9D 10D QD"),
        "P0 play 9C, P1 play 9D, P0 play 10C, P1 play 10D, P0 play KC, P1 play QD",
        "- - P0",
        (P0, 1, TRICKS),
        (1, 0),
    ),
    Case(
        "spoil-tricks-1-2-follower-wins-trick-3",
        ("9C 10C KC", "9D 10D AD"),
        "P0 play 9C, P1 play 9D, P0 play 10C, P1 play 10D, P0 play KC, P1 play AD",
        "- - P1",
        (P1, 1, TRICKS),
        (0, 1),
    ),
    Case(
        "spoil-tricks-1-2-dealer-p0",
        ("9C 10C KC", "9D 10D AD"),
        "P1 play 9C, P0 play 9D, P1 play 10C, P0 play 10D, P1 play KC, P0 play AD",
        "- - P0",
        (P0, 1, TRICKS),
        (1, 0),
        dealer=P0,
    ),
    Case(
        "spoil-trick-3-earlier-won-trick-wins",
        ("KC 9C 7C", "QD AD 7D"),
        "P0 play KC, P1 play QD, P0 play 9C, P1 play AD, P1 play 7D, P0 play 7C",
        "P0 P1 -",
        (P0, 1, TRICKS),
        (1, 0),
    ),
    Case(
        "spoil-trick-3-earlier-won-trick-wins-follower",
        ("QC AC 7C", "KD 9D 7D"),
        "P0 play QC, P1 play KD, P1 play 9D, P0 play AC, P0 play 7C, P1 play 7D",
        "P1 P0 -",
        (P1, 1, TRICKS),
        (0, 1),
    ),
    Case(
        "all-three-spoiled-nobody-scores",
        ALL_SPOIL,
        "P0 play 9C, P1 play 9D, P0 play 10C, P1 play 10D, P0 play JC, P1 play JD",
        "- - -",
        (None, 0, SPOILED),
        (0, 0),
    ),
    # --- Who wins the round / early end
    Case(
        "two-tricks-won-ends-early",
        ("7C 8C 9C", "9D 10D JD"),
        "P0 play 7C, P1 play 9D, P0 play 8C, P1 play 10D",
        "P0 P0",
        (P0, 1, TRICKS),
        (1, 0),
    ),
    Case(
        "two-tricks-won-by-follower-ends-early",
        ("9C 10C JC", "7D 8D QD"),
        "P0 play 9C, P1 play 7D, P1 play 8D, P0 play 10C",
        "P1 P1",
        (P1, 1, TRICKS),
        (0, 1),
    ),
    Case(
        "one-each-third-trick-decides-leader-of-trick-1",
        XYX,
        "P0 play KC, P1 play QD, P0 play 9C, P1 play AD, P1 play 8D, P0 play 7C",
        "P0 P1 P0",
        (P0, 1, TRICKS),
        (1, 0),
    ),
    Case(
        "one-each-third-trick-decides-other",
        ("KC 9C JC", "QD AD 8D"),
        "P0 play KC, P1 play QD, P0 play 9C, P1 play AD, P1 play 8D, P0 play JC",
        "P0 P1 P1",
        (P1, 1, TRICKS),
        (0, 1),
    ),
    # --- Raising the stake
    Case(
        "raise-accepted-round-worth-2",
        XYX,
        "P0 raise, P1 accept, P0 play KC, P1 play QD, P0 play 9C, P1 play AD,"
        "P1 play 8D, P0 play 7C",
        "P0 P1 P0",
        (P0, 2, TRICKS),
        (2, 0),
    ),
    Case(
        "raise-refused-scores-1",
        XYX,
        "P0 raise, P1 refuse",
        "",
        (P0, 1, REFUSED),
        (1, 0),
    ),
    Case(
        "raise-refused-at-2-scores-pre-request-2",
        XYX,
        "P0 raise, P1 accept, P0 play KC, P1 raise, P0 refuse",
        "",
        (P1, 2, REFUSED),
        (0, 2),
    ),
    Case(
        "raise-refused-at-6-scores-pre-request-6",
        XYX,
        "P0 raise, P1 accept, P0 play KC, P1 raise, P0 accept, P1 play QD, P0 raise, P1 refuse",
        "P0",
        (P0, 6, REFUSED),
        (6, 0),
    ),
    Case(
        "two-requests-one-trick-literal-ladder",
        XYX,
        "P0 raise, P1 accept, P0 play KC, P1 raise, P0 accept, P1 play QD,"
        "P0 play 9C, P1 play AD, P1 play 8D, P0 play 7C",
        "P0 P1 P0",
        (P0, 6, TRICKS),
        (6, 0),
    ),
    Case(
        "two-requests-one-trick-even-ladder",
        XYX,
        "P0 raise, P1 accept, P0 play KC, P1 raise, P0 accept, P1 play QD,"
        "P0 play 9C, P1 play AD, P1 play 8D, P0 play 7C",
        "P0 P1 P0",
        (P0, 4, TRICKS),
        (4, 0),
        ruleset=EVEN,
    ),
    Case(
        "literal-ladder-six-raises-no-cap-overshoot",
        XYX,
        SIX_RAISES,
        "P0 P1 P0",
        (P0, 14, TRICKS),
        (14, 0),
        game=(P0, GameEndReason.TARGET),
    ),
    Case(
        "even-ladder-six-raises-reaches-12",
        XYX,
        SIX_RAISES,
        "P0 P1 P0",
        (P0, 12, TRICKS),
        (12, 0),
        game=(P0, GameEndReason.TARGET),
        ruleset=EVEN,
    ),
    # --- My rest
    Case(
        "rest-refused-declarer-wins-game",
        XYX,
        "P0 rest, P1 refuse",
        "",
        (P0, 0, REST_REFUSED),
        (0, 0),
        game=(P0, GameEndReason.REST_REFUSED),
    ),
    Case(
        "rest-refused-value-variant-scores-round-value",
        XYX,
        "P0 rest, P1 refuse",
        "",
        (P0, 1, REST_REFUSED),
        (1, 0),
        ruleset=VALUE,
    ),
    Case(
        "rest-refused-after-raise-value-variant",
        XYX,
        "P0 raise, P1 accept, P0 play KC, P1 rest, P0 refuse",
        "",
        (P1, 2, REST_REFUSED),
        (0, 2),
        ruleset=VALUE,
    ),
    Case(
        "rest-refused-after-raise-game-variant",
        XYX,
        "P0 raise, P1 accept, P0 play KC, P1 rest, P0 refuse",
        "",
        (P1, 0, REST_REFUSED),
        (0, 0),
        game=(P1, GameEndReason.REST_REFUSED),
    ),
    Case(
        "rest-answered-round-winner-wins-game",
        XYX,
        "P0 rest, P1 accept, " + XYX_PLAY,
        "P0 P1 P0",
        (P0, 0, REST_WON),
        (0, 0),
        game=(P0, GameEndReason.REST_WON),
    ),
    Case(
        "rest-answered-value-variant-round-winner-wins-game",
        XYX,
        "P0 rest, P1 accept, " + XYX_PLAY,
        "P0 P1 P0",
        (P0, 0, REST_WON),
        (0, 0),
        game=(P0, GameEndReason.REST_WON),
        ruleset=VALUE,
    ),
    Case(
        "rest-answered-answerer-wins-game-early",
        ("9C 10C JC", "7D 8D QD"),
        "P0 rest, P1 accept, P0 play 9C, P1 play 7D, P1 play 8D, P0 play 10C",
        "P1 P1",
        (P1, 0, REST_WON),
        (0, 0),
        game=(P1, GameEndReason.REST_WON),
    ),
    Case(
        "rest-by-follower-after-raise-accepted",
        XYX,
        "P0 raise, P1 accept, P0 play KC, P1 rest, P0 accept, P1 play QD,"
        "P0 play 9C, P1 play AD, P1 play 8D, P0 play 7C",
        "P0 P1 P0",
        (P0, 0, REST_WON),
        (0, 0),
        game=(P0, GameEndReason.REST_WON),
    ),
    Case(
        "rest-answered-all-spoiled-stake-lapses",
        ALL_SPOIL,
        "P0 rest, P1 accept, P0 play 9C, P1 play 9D, P0 play 10C, P1 play 10D,"
        "P0 play JC, P1 play JD",
        "- - -",
        (None, 0, SPOILED),
        (0, 0),
    ),
    # --- Folding at each kind of turn
    Case(
        "fold-leader-before-playing",
        XYX,
        "P0 fold",
        "",
        (P1, 1, FOLDED),
        (0, 1),
    ),
    Case(
        "fold-follower",
        XYX,
        "P0 play KC, P1 fold",
        "",
        (P0, 1, FOLDED),
        (1, 0),
    ),
    Case(
        "fold-answering-raise-scores-pre-request-value",
        XYX,
        "P0 raise, P1 fold",
        "",
        (P0, 1, FOLDED),
        (1, 0),
    ),
    Case(
        "fold-answering-raise-as-leader",
        XYX,
        "P0 play KC, P1 raise, P0 fold",
        "",
        (P1, 1, FOLDED),
        (0, 1),
    ),
    Case(
        "fold-answering-redeal",
        XYX,
        "P0 redeal, P1 fold",
        "",
        (P0, 1, FOLDED),
        (1, 0),
    ),
    Case(
        "fold-after-own-raise-accepted",
        XYX,
        "P0 raise, P1 accept, P0 fold",
        "",
        (P1, 2, FOLDED),
        (0, 2),
    ),
    Case(
        "fold-in-trick-3-at-value-6",
        XYX,
        "P0 raise, P1 accept, P0 play KC, P1 raise, P0 accept, P1 play QD,"
        "P0 play 9C, P1 play AD, P1 fold",
        "P0 P1",
        (P0, 6, FOLDED),
        (6, 0),
    ),
    Case(
        "fold-on-pending-rest-is-refusing",
        XYX,
        "P0 rest, P1 fold",
        "",
        (P0, 0, REST_REFUSED),
        (0, 0),
        game=(P0, GameEndReason.REST_REFUSED),
    ),
    Case(
        "fold-on-pending-rest-is-refusing-value-variant",
        XYX,
        "P0 rest, P1 fold",
        "",
        (P0, 1, REST_REFUSED),
        (1, 0),
        ruleset=VALUE,
    ),
    Case(
        "fold-after-rest-answered-by-declarer",
        XYX,
        "P0 rest, P1 accept, P0 fold",
        "",
        (P1, 0, FOLDED),
        (0, 0),
        game=(P1, GameEndReason.REST_WON),
    ),
    Case(
        "fold-after-rest-answered-by-answerer",
        XYX,
        "P0 rest, P1 accept, P0 play KC, P1 fold",
        "",
        (P0, 0, FOLDED),
        (0, 0),
        game=(P0, GameEndReason.REST_WON),
        ruleset=VALUE,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_round_scenarios(case: Case) -> None:
    trio = Trio(case.ruleset, dealer=case.dealer)
    trio.deal(*case.hands)
    events = trio.run(case.script)
    assert trick_text(events) == case.tricks
    ends = round_ends(events)
    assert [(e.winner, e.points, e.reason) for e in ends] == [case.round]
    assert ends[0].scores == case.scores
    assert trio.omni.scores == case.scores
    outcomes = [e.outcome for e in events if isinstance(e, GameEnded)]
    if case.game is None:
        assert outcomes == []
        assert trio.omni.outcome() is None
        assert trio.omni.phase is Phase.DEAL
        assert trio.omni.round_no == 1
        assert trio.omni.dealer is case.dealer.other
    else:
        assert [(o.winner, o.reason, o.scores) for o in outcomes] == [(*case.game, case.scores)]
        assert trio.omni.outcome() == outcomes[0]
        assert trio.omni.phase is Phase.OVER
    # The round ended on the last step, and not before.
    assert isinstance(events[-1], GameEnded if case.game else type(ends[0]))
    for game in trio.games:
        assert not game.legal_actions()
        assert game.to_act is None


# ---------------------------------------------------------------- single rules


def test_the_spec_names_every_scenario_row() -> None:
    """protocol_spec/rules.md names each row of :data:`CASES` as ``S[id]``, and no other."""
    named = set(re.findall(r"`S\[([a-z0-9-]+)\]`", rules_spec_text()))
    ids = {c.id for c in CASES}
    assert named - ids == set(), "unknown scenario ids in the spec"
    assert ids - named == set(), "scenario rows missing from the spec"


def test_non_dealer_leads_first_trick() -> None:
    for dealer in Player:
        trio = Trio(dealer=dealer)
        trio.deal(*XYX)
        assert trio.omni.to_act is dealer.other
        assert trio.omni.leader is dealer.other
        assert not trio.omni.legal_actions(dealer)


def test_winner_of_trick_leads_next() -> None:
    trio = Trio()
    trio.deal(*XYX)
    trio.run("P0 play 9C, P1 play AD")  # P1 wins trick 1
    assert trio.omni.leader is P1
    assert trio.omni.to_act is P1
    assert trio.omni.trick_no == 1


def test_leader_of_spoiled_trick_leads_next() -> None:
    trio = Trio()
    trio.deal(*ALL_SPOIL)
    trio.run("P0 play 9C, P1 play 9D")
    assert trio.omni.tricks[0].spoiled
    assert trio.omni.to_act is P0
    trio.run("P0 play 10C, P1 play 10D")
    assert trio.omni.to_act is P0


def test_follower_may_play_any_suit() -> None:
    # Clubs led, diamonds followed and still winning: no duty to follow suit.
    trio = Trio()
    trio.deal("9C 10C JC", "7D 8D QD")
    events = trio.run("P0 play 10C, P1 play QD")
    assert trick_text(events) == "P1"


def test_suits_never_matter_equal_ranks_spoil() -> None:
    for lead, follow in [("AC", "AS"), ("AS", "AC"), ("7H", "7D")]:
        trio = Trio()
        trio.deal(f"{lead} 9C 10C", f"{follow} 9D 10D")
        events = trio.run(f"P0 play {lead}, P1 play {follow}")
        assert trick_text(events) == "-"


def test_round_value_is_1_until_raise_accepted() -> None:
    trio = Trio()
    trio.deal(*XYX)
    assert trio.omni.round_value == 1
    trio.act("P0 raise")
    assert trio.omni.round_value == 1
    assert trio.omni.pending is not None
    trio.act("P1 accept")
    assert trio.omni.round_value == 2


def test_requester_plays_after_accept() -> None:
    trio = Trio()
    trio.deal(*XYX)
    trio.run("P0 play KC, P1 raise")
    assert trio.omni.to_act is P0  # the answerer
    trio.act("P0 accept")
    assert trio.omni.to_act is P1  # the requester plays its card
    assert trio.omni.legal_actions().kinds() == {ActionKind.PLAY, ActionKind.FOLD}


def test_early_end_keeps_unplayed_cards_hidden() -> None:
    trio = Trio()
    trio.deal("7C 8C 9C", "9D 10D JD")
    events = trio.run("P0 play 7C, P1 play 9D, P0 play 8C, P1 play 10D")
    assert round_ends(events)
    shown = {e.action.card for e in events if isinstance(e, Acted)}
    shown |= {c for e in events if isinstance(e, TrickEnded) for c in e.cards}
    assert not {*cards("9C JD")} & shown
    # P0's view never learned JD yet stayed in sync with the referee.
    assert trio.views[P0].hand(P1) is None


@pytest.mark.parametrize("ruleset", [DEFAULT_RULESET, EVEN], ids=["literal", "even"])
def test_ladder_values_through_six_raises(ruleset: Ruleset) -> None:
    literal = ruleset.ladder is Ladder.LITERAL
    expected = [1, 2, 6, 8, 10, 12, 14] if literal else [1, 2, 4, 6, 8, 10, 12]
    trio = Trio(ruleset)
    trio.deal(*XYX)
    values = [trio.omni.round_value]
    for step in SIX_RAISES.split(","):
        trio.act(step)
        if "accept" in step:
            values.append(trio.omni.round_value)
    assert values == expected
    for a, b in itertools.pairwise(expected):
        assert ruleset.next_value(a) == b
