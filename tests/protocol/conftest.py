"""Fixtures of the protocol tests; the helpers themselves live in ``helpers.protocol``."""

from __future__ import annotations

import pytest
from helpers.matrix import fast_first
from helpers.protocol import Pair, bot

from truc_p2p.rules import Player, Ruleset


@pytest.fixture(params=fast_first(Player, ids=lambda p: f"first-dealer-{p.name}"))
def first_dealer(request: pytest.FixtureRequest) -> Player:
    """Parametrizes a test over which player deals the first hand (P0 in the fast loop,
    both in CI)."""
    return Player(request.param)


@pytest.fixture(scope="module")
def finished_pair() -> Pair:
    """A short honest game (target 3, audit after every hand), played to the end.

    Shared by the tests of a module, which only read it.
    """
    pair = Pair(
        ruleset=Ruleset(target=3),
        audit="hand",
        tag="finished",
        bots={Player.P0: bot("random", 7), Player.P1: bot("heuristic", 8)},
    )
    pair.finish()
    return pair
