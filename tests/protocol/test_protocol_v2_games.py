"""Deck v2 through the protocol: full games, redeals, negotiation, secrecy, cost.

Two in-memory sessions play with deck v2 (three proven deal messages per
hand, no seed ever revealed); every game ends co-signed and verified by the
third-party verifier from the transcript alone.
"""

from __future__ import annotations

import itertools

import pytest
from helpers.games import check_finished_game, per_hand_cost
from helpers.matrix import fast_first
from helpers.protocol import P0, P1, REDEALER, Pair, bot, drain, expect_remote

from truc_p2p.deck import Role
from truc_p2p.protocol import (
    CardsDealt,
    RulesetMismatchError,
    Session,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.protocol._session import local_seed, local_seed_v2
from truc_p2p.rules import Ladder, Player, RestRefused, Ruleset

SETTINGS = list(itertools.product(Ladder, RestRefused, Player))
#: The settings played in the fast loop: every ladder, rest rule and first dealer
#: once (CI plays every combination).
FAST_SETTINGS = [
    (Ladder.LITERAL, RestRefused.GAME, Player.P0),
    (Ladder.EVEN, RestRefused.VALUE, Player.P1),
]


def _id(value: object) -> str:
    if isinstance(value, Player):
        return f"dealer-{value.name}"
    return str(getattr(value, "value", value))


@pytest.mark.parametrize(
    ("ladder", "rest", "dealer"),
    [s if s in FAST_SETTINGS else pytest.param(*s, marks=pytest.mark.slow) for s in SETTINGS],
    ids=_id,
)
def test_v2_full_games(ladder: Ladder, rest: RestRefused, dealer: Player) -> None:
    """Games over several seeds and bot pairings, both first dealers, every ruleset."""
    for seed, names in ((0, ("random", "heuristic")), (1, ("heuristic", "random"))):
        pair = Pair(
            ruleset=Ruleset(target=2, ladder=ladder, rest_refused=rest),
            first_dealer=dealer,
            tag=f"v2-games/{seed}",
            bots={P0: bot(names[0], seed), P1: bot(names[1], seed + 50)},
            deck="v2",
        )
        pair.finish()
        check_finished_game(pair, first_dealer=dealer)


@pytest.mark.parametrize("seed", fast_first(range(6), fast=2))
def test_v2_random_games_over_many_seeds(seed: int) -> None:
    pair = Pair(
        ruleset=Ruleset(target=3),
        tag=f"v2-seeds/{seed}",
        bots={P0: bot("random", seed), P1: bot("random", seed + 1000)},
        deck="v2",
    )
    pair.finish()
    check_finished_game(pair)


@pytest.mark.parametrize("early_redeal", [False, True], ids=["on-action", "v2redeal"])
def test_v2_redeals_travel_as_shares(first_dealer: Player, early_redeal: bool) -> None:
    """Every redeal asked and accepted: the dealer's shares ride on its accept-redeal,
    the non-dealer's on its next action -- or, with early redeal cards (wire.md 6a),
    in a v2redeal of their own right after it; the redeal cards are distinct and
    verified."""
    pair = Pair(
        ruleset=Ruleset(target=3),
        first_dealer=first_dealer,
        tag="v2-redeal",
        bots={P0: REDEALER, P1: REDEALER},
        deck="v2",
        early_redeals=(early_redeal, early_redeal),
    )
    pair.finish()
    check_finished_game(pair, first_dealer=first_dealer)
    result = pair.sessions[P0].result
    assert result is not None
    for p in Player:
        redeals = [e for e in pair.events[p] if isinstance(e, CardsDealt) and e.redeal]
        assert len(redeals) == result.hands
    envs = [decode_envelope(r) for r in pair.records[P0]]
    actions = [
        e.payload.get("action", e.payload) for e in envs if e.type in ("v2deck3", "v2action")
    ]
    payloads = [e.payload for e in envs]
    carrying = [a for a in actions if "shares" in a]
    alone = [e.payload for e in envs if e.type == "v2redeal"]
    assert len(alone) == (result.hands if early_redeal else 0)
    assert len(carrying) == (2 - early_redeal) * result.hands
    assert all(len(p["shares"]) == 3 for p in alone)
    assert [p["act"] for p in carrying[:1]] == ["accept-redeal"]
    assert all(len(p["shares"]) == 3 for p in carrying)
    assert not any("keys" in a or "key" in a for a in actions)
    assert not any(e.type in ("deck1", "action", "reveal") for e in envs)
    assert payloads


def test_v2_is_the_default_and_v1_still_plays_when_both_choose_it() -> None:
    key = Pair(tag="default-probe").keys[P0]
    assert Session(identity=key, role=P0, secret=bytes(32)).deck == "v2"
    pair = Pair(ruleset=Ruleset(target=2), tag="v1-chosen", deck="v1")
    pair.finish()
    check_finished_game(pair)
    hello = decode_envelope(pair.records[P0][0]).payload
    assert hello["options"] == {"audit": "game"}  # v1 hellos keep their original shape


@pytest.mark.parametrize("initiator_deck", ["v1", "v2"])
def test_mismatched_deck_versions_are_incompatible(initiator_deck: str) -> None:
    """Both sides stop before any card (the net layer answers ``incompatible``)."""
    other = "v2" if initiator_deck == "v1" else "v1"
    pair = Pair(tag="deck-mismatch", decks=(initiator_deck, other))
    hello0 = pair.deliver(P0)
    with pytest.raises(RulesetMismatchError) as info:
        drain(pair.sessions[P1])
    assert info.value.evidence == (hello0,) and info.value.message_no == 0
    hello1 = pair.collect(P1)[0]
    assert decode_envelope(hello1).payload["options"].get("deck", "v1") == other
    pair.deliver(P1)
    caught = expect_remote(pair, P0, RulesetMismatchError, offending=hello1)
    assert caught.report.error_code == "ruleset-mismatch"
    assert caught.report.error_message_no == 1
    assert caught.report.deck == initiator_deck
    for p in Player:
        assert len(pair.records[p]) == 2


@pytest.mark.parametrize("pipeline", [False, True], ids=["classic", "pipelined"])
def test_a_v2_transcript_opens_only_the_shown_cards(pipeline: bool) -> None:
    """No seed, no derived secret and no second share of an unshown position in any
    message: each position has both players' shares only if its holder showed it
    (pipelined: a pre-dealt hand's deal messages are filed under the hand they name)."""
    pair = Pair(
        ruleset=Ruleset(target=3),
        tag="v2-secrecy",
        bots={P0: bot("player", 5), P1: bot("random", 6)},
        deck="v2",
        pipeline=pipeline,
    )
    pair.finish()
    records = pair.records[P0]
    blob = b"".join(records)
    assert pair.secrets is not None
    for p in Player:
        secret = pair.secrets[p]
        assert secret not in blob
        for hand in range(pair.sessions[p].hands_dealt + 1):  # + a dangling pre-deal
            assert local_seed_v2(secret, hand) not in blob
            assert local_seed(secret, hand) not in blob
    hands: dict[int, dict[int, set[Role]]] = {}
    shown: dict[int, set[int]] = {}
    roles: dict[int, dict[Player, Role]] = {}
    current = -1  # the hand being played (its v2deck3 is on the chain)
    for raw in records:
        env = decode_envelope(raw)
        sender = Player(env.sender)
        p = env.payload
        index = p.get("hand", len(hands) if env.type == "v2deck1" else len(hands) - 1)
        if env.type == "v2deck1":
            hands[index], shown[index] = {}, set()
            dealer = sender.other
            roles[index] = {dealer: Role.DEALER, dealer.other: Role.NONDEALER}
        if env.type in ("v2deck2", "v2open") and "shares" in p:
            for pos in (0, 2, 4):
                hands[index].setdefault(pos, set()).add(Role.DEALER)
        if env.type == "v2deck3":
            current = index
            for pos in (1, 3, 5):
                hands[index].setdefault(pos, set()).add(Role.NONDEALER)
        action = p.get("action", p) if env.type in ("v2deck3", "v2action") else None
        if action is not None:
            role = roles[current][sender]
            if "shares" in action:
                targets = (6, 8, 10) if role is Role.DEALER else (7, 9, 11)
                for pos in targets:
                    hands[current].setdefault(pos, set()).add(role)
            if action["act"] == "play":
                hands[current].setdefault(action["pos"], set()).add(role)
                shown[current].add(action["pos"])
    assert hands and any(shown.values())
    for index, opened in hands.items():
        both = {pos for pos, who in opened.items() if len(who) == 2}
        assert both == shown[index]
    report = verify_transcript(records)
    assert report.valid and report.hidden_cards_revealed == 0


def test_v2_costs_three_deal_flights_and_about_sixteen_kilobytes_per_hand() -> None:
    deals1, bytes1, _ = per_hand_cost("v1")
    deals2, bytes2, _ = per_hand_cost("v2")
    assert (deals1, deals2) == (4, 3)
    assert 14_000 < bytes2 < 20_000  # deck_v2.md: ~15.6 kB per hand
    assert bytes1 < bytes2
