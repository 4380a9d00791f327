"""Full games between two in-memory sessions: every setting ends co-signed and verified."""

from __future__ import annotations

import itertools

import pytest
from helpers.games import check_finished_game
from helpers.protocol import P0, P1, Pair, bot

from truc_p2p.memory_pair import make_pair, run_pair
from truc_p2p.protocol import (
    CardsDealt,
    GameFinished,
    SessionOptions,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.rules import Ladder, Player, RestRefused, Ruleset

SETTINGS = list(itertools.product(Ladder, RestRefused, ("game", "hand"), Player))
#: The settings played in the fast loop: every value of each setting twice, every
#: ladder with every rest rule (CI plays every combination).
FAST_SETTINGS = [
    (Ladder.LITERAL, RestRefused.GAME, "game", Player.P0),
    (Ladder.EVEN, RestRefused.VALUE, "hand", Player.P1),
    (Ladder.LITERAL, RestRefused.VALUE, "hand", Player.P0),
    (Ladder.EVEN, RestRefused.GAME, "game", Player.P1),
]
#: The mixed pairing (each bot in both seats) in the fast loop, every pairing in CI.
BOTS = [
    pytest.param("random", "random", marks=pytest.mark.slow),
    pytest.param("heuristic", "heuristic", marks=pytest.mark.slow),
    ("random", "heuristic"),
]
#: (target, seed) of the games played for every setting and bot pairing: three
#: one-hand games (target 1) and a longer one, to keep the suite fast.
GAMES = [(1, 0), (1, 1), (1, 2), (2, 3)]


def _id(value: object) -> str:
    if isinstance(value, Ladder | RestRefused):
        return value.value
    if isinstance(value, Player):
        return f"dealer-{value.name}"
    return str(value)


@pytest.mark.parametrize(
    ("ladder", "rest", "audit", "dealer"),
    [s if s in FAST_SETTINGS else pytest.param(*s, marks=pytest.mark.slow) for s in SETTINGS],
    ids=_id,
)
@pytest.mark.parametrize(("bot0", "bot1"), BOTS, ids=lambda b: b)
def test_full_games(
    ladder: Ladder, rest: RestRefused, audit: str, dealer: Player, bot0: str, bot1: str
) -> None:
    """Four games per setting and bot pairing (see ``GAMES``), bots in both seats."""
    for target, seed in GAMES:
        names = (bot0, bot1) if seed % 2 == 0 else (bot1, bot0)
        pair = Pair(
            ruleset=Ruleset(target=target, ladder=ladder, rest_refused=rest),
            audit=audit,
            first_dealer=dealer,
            tag=f"games/{seed}",
            bots={P0: bot(names[0], seed), P1: bot(names[1], seed + 100)},
        )
        pair.finish()
        check_finished_game(pair, first_dealer=dealer)


@pytest.mark.parametrize("audit", ["game", "hand"])
def test_redeals_travel_through_the_protocol(audit: str, first_dealer: Player) -> None:
    """Both players ask for and accept every redeal: the redeal keys ride on the
    dealer's accept-redeal and the non-dealer's next action, and every hand audits."""
    pair = Pair(
        ruleset=Ruleset(target=3),
        audit=audit,
        first_dealer=first_dealer,
        tag="redeal",
        bots={P0: bot("redealer", 0), P1: bot("redealer", 0)},
    )
    pair.finish()
    check_finished_game(pair, first_dealer=first_dealer)
    redeals = [e for e in pair.events[P0] if isinstance(e, CardsDealt) and e.redeal]
    assert len(redeals) == pair.sessions[P0].result.hands  # type: ignore[union-attr]
    keyed = [
        decode_envelope(r).payload
        for r in pair.records[P0]
        if decode_envelope(r).type == "action" and "keys" in decode_envelope(r).payload
    ]
    assert keyed and all(len(p["keys"]) == 3 for p in keyed)


def test_run_pair_and_make_pair_play_a_valid_game() -> None:
    """The public in-memory helpers of ``truc_p2p.memory_pair`` (what the demo uses)."""
    records: dict[Player, list[bytes]] = {P0: [], P1: []}
    sessions = make_pair(
        SessionOptions(ruleset=Ruleset(target=4, ladder=Ladder.EVEN), audit="hand"),
        records=(records[P0].append, records[P1].append),
    )
    seen: list[tuple[Player, object]] = []
    result = run_pair(
        sessions,
        {P0: bot("heuristic", 1), P1: bot("random", 2)},
        on_event=lambda p, e: seen.append((p, e)),
    )
    r0, r1 = result.results[P0], result.results[P1]
    assert r0 is not None and r0 == r1
    assert records[P0] == records[P1]
    assert result.nbytes == sum(len(r) + 4 for r in records[P0])
    assert [e for p, e in seen if isinstance(e, GameFinished)] == [
        GameFinished(result=r0),
        GameFinished(result=r0),
    ]
    report = verify_transcript(records[P0])
    assert report.valid and report.score == r0.scores and report.hands == r0.hands
