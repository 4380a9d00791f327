"""``truc-p2p bench game``: the flight analysis and the report it prints."""

from __future__ import annotations

import json

import pytest

from truc_p2p.bench._game import analyse, analyse_flow
from truc_p2p.bots import make_bot
from truc_p2p.cli import main
from truc_p2p.memory_pair import make_pair, run_pair
from truc_p2p.protocol import SessionOptions
from truc_p2p.rules import Player, Ruleset


def _transcript(deck: str, seed: int, target: int = 3, pipeline: bool = False) -> list[bytes]:
    records: list[bytes] = []
    sessions = make_pair(
        SessionOptions(
            ruleset=Ruleset(target=target), deck=deck, pipeline=pipeline if deck == "v2" else None
        ),
        records=(records.append, None),
    )
    run_pair(sessions, {p: make_bot("heuristic", seed + int(p)) for p in (Player.P0, Player.P1)})
    return records


@pytest.mark.slow
@pytest.mark.parametrize(("deck", "deal_flights"), [("v1", 3), ("v2", 2)])
def test_deal_flights_per_hand_are_counted_from_the_transcript(
    deck: str, deal_flights: int
) -> None:
    # A game of at least three hands (one won by "my rest" can end after one).
    facts = next(f for seed in range(50) if (f := analyse(_transcript(deck, seed)))["hands"] >= 3)
    # v1 deals in deck1, deck2, deck3 and deck4 (with the first action); v2 in three.
    # The first deal message joins the flight of the hand's last action when the
    # same player sends both, so a hand waits for one flight less then.
    assert deal_flights - 1 <= facts["critical_deal_flights_per_hand"] <= deal_flights
    assert facts["deal_flights_per_hand"] <= deal_flights
    assert facts["flights_per_hand"] > deal_flights
    assert facts["bytes_per_hand"] > (10_000 if deck == "v2" else 3_000)


@pytest.mark.slow
def test_bench_game_reports_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "game", "--games", "1", "--target", "1", "--rtt", "10", "--json"]
    assert main([*argv, "--concurrency", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    keys = ("messages_per_hand", "critical_deal_flights_per_hand", "cpu_ms_per_hand",
            "cpu_floor_ms_per_hand_per_peer", "wall_s_per_game", "model_s_per_game",
            "forced_deal_flights_per_hand", "loopback_ms_per_hand",
            "loopback_to_floor")  # fmt: skip
    for variant in ("pipelined", "classic"):
        assert all(key in report[variant] for key in keys)
        assert report[variant]["wall_s_per_game"] >= 0.005  # at least the flights' delays
    assert report["think_flights"] >= 2
    for variant in ("pipelined", "classic"):
        # early cards (wire.md 6a): the dealer holds its cards at most one flight after
        # the non-dealer, which thinks; without them the dealer waits for the decision
        early = report[variant]["flights_until_cards"]
        old = report[variant]["flights_until_cards_without_early"]
        assert 1 <= early["nondealer"] <= 3 and early["dealer"] - early["nondealer"] <= 1
        assert old["dealer"] - old["nondealer"] > report["think_flights"]
    pipelined = report["pipelined"]
    assert pipelined["unplayed_predeal"]["messages_per_game"] >= 0
    assert set(pipelined["rest_final_saves"]) >= {"messages_per_game", "bytes_per_game",
                                                 "cpu_ms_per_game_both_peers",
                                                 "games_where_it_applied"}  # fmt: skip
    assert "unplayed_predeal" not in report["classic"]
    row = report["concurrency"][0]
    assert row["games"] == 2 and row["cpu_ms_per_hand"] > 0 and 0 < row["cpu_share"] <= 1.5
    assert main(["bench", "game", "--concurrency", "x"]) == 2


@pytest.mark.slow
def test_the_pipelined_deal_waits_for_fewer_deal_flights_between_hands() -> None:
    def steady(pipeline: bool) -> float:
        facts = next(
            f
            for seed in range(50)
            if (f := analyse(_transcript("v2", seed, target=6, pipeline=pipeline)))["hands"] >= 4
        )
        return facts["critical_deal_flights_per_hand"]

    assert steady(True) < steady(False)


@pytest.mark.slow
def test_every_deal_flight_left_between_pipelined_hands_is_forced() -> None:
    # The only deal flight a pipelined hand waits for is the one fairness forces: the
    # player who ended hand n leads hand n + 1 and needs the other's shares, sent
    # after its last action. The classic deal waits for more than that.
    avoidable = 0.0
    for seed in range(6):
        piped = analyse(_transcript("v2", seed, target=6, pipeline=True))
        assert piped["critical_deal_flights_per_hand"] == piped["forced_deal_flights_per_hand"]
        classic = analyse(_transcript("v2", seed, target=6, pipeline=False))
        extra = classic["critical_deal_flights_per_hand"] - classic["forced_deal_flights_per_hand"]
        assert extra >= 0
        avoidable += extra
    assert avoidable > 0


def test_forced_deal_flights_are_those_between_two_actions_of_one_player() -> None:
    # P0 ends hand 1, P1 opens (forced: P0 leads hand 2); P1 ends hand 2 with P0 to
    # lead hand 3, but two deal flights come between (one of them avoidable).
    flow = [(0, "v2deck1"), (1, "v2deck2"), (0, "v2deck3"), (1, "v2action"),
            (0, "v2action"), (1, "v2open"), (0, "v2action"), (1, "v2action"),
            (0, "v2deck1"), (1, "v2deck2"), (0, "v2deck3")]  # fmt: skip
    facts = analyse_flow(flow)
    assert facts["hands"] == 2 and facts["flights"] == len(flow)
    assert facts["critical_deal_flights_per_hand"] == 3  # 1 + 2, over one steady hand
    assert facts["forced_deal_flights_per_hand"] == 1


@pytest.mark.parametrize("pipeline", [False, True], ids=["classic", "pipelined"])
def test_with_early_cards_the_dealer_holds_its_cards_one_flight_after_the_nondealer(
    pipeline: bool,
) -> None:
    from truc_p2p.bench._game import THINK_FLIGHTS, flights_until_cards

    early = flights_until_cards(0, 3, pipeline=pipeline, early=True)
    assert len(early["dealer"]) == len(early["nondealer"]) >= 1
    # every hand: the shares-only v2deck3 leaves when the non-dealer gets its cards
    pairs = list(zip(early["dealer"], early["nondealer"], strict=True))
    assert all(d == n + 1 and 1 <= n <= 3 for d, n in pairs), pairs
    old = flights_until_cards(0, 3, pipeline=pipeline, early=False)
    pairs = list(zip(old["dealer"], old["nondealer"], strict=True))
    assert all(d == n + THINK_FLIGHTS + 1 for d, n in pairs), pairs


def test_per_hand_figures_count_hands_played_not_the_unplayed_pre_deal() -> None:
    """A pipelined game pre-deals a hand that never opens: it is not a hand played
    (the result's ``hands`` does not count it either); it is reported on its own."""
    from truc_p2p.protocol import verify_transcript

    for seed in range(20):
        records = _transcript("v2", seed, target=3, pipeline=True)
        facts = analyse(records)
        if facts["unplayed_predeal_messages"]:
            break
    else:  # pragma: no cover - every few games ends with a pre-deal on the chain
        pytest.fail("no game ended with a dangling pre-deal")
    report = verify_transcript(records)
    assert report.valid and facts["hands"] == report.hands
    total = sum(4 + len(r) for r in records)
    assert facts["bytes_per_hand"] == total / report.hands
    assert 0 < facts["unplayed_predeal_bytes"] < total
    assert facts["unplayed_predeal_messages"] == (
        facts["unplayed_predeal_d1"] + facts["unplayed_predeal_d2"]
    )


@pytest.mark.slow
def test_the_rest_final_saving_is_measured_on_the_same_game() -> None:
    """Without the rule the same game (same deals and bots) carries the pre-deal the
    rest made useless; with it that pre-deal is missing, and nothing else differs."""
    from truc_p2p.bench._game import _timed_game

    for seed in range(30):
        on = _timed_game(seed, 3, True)
        off = _timed_game(seed, 3, True, rest_final=False)
        if off["facts"]["messages"] > on["facts"]["messages"]:
            break
    else:  # pragma: no cover
        pytest.fail("no game where 'my rest' decided a hand")
    assert on["facts"]["hands"] == off["facts"]["hands"]
    assert 1 <= off["facts"]["messages"] - on["facts"]["messages"] <= 2
    assert off["facts"]["bytes"] - on["facts"]["bytes"] > 4_000
