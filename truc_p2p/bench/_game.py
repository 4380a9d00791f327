"""``truc-p2p bench game``: where a game's time goes, per hand, measured in one run.

Three measurements, each printed beside the limit it is compared with:

1. **Messages and flights** from real transcripts of bot games: envelopes,
   flights (maximal runs of envelopes by one sender: each change of sender
   is a wait for the other side), *deal flights* (flights that carry deal
   messages and no action) and those on the critical path (between the last
   action of one hand and the first action of the next; in steady state,
   i.e. not counting the first hand's deal), and bytes per hand.
2. **CPU per hand per peer**, process CPU time of the protocol calls only
   (the bots' thinking is left out), beside its floor: the deck's per-hand
   floor (every curve operation at its own measured cost, ``bench deck``)
   plus one Ed25519 signature per envelope sent and one verification per
   envelope received, each timed in the same run.
3. **Wall time per game over a link with a one-way delay** (``--rtt`` is
   the round trip, so each direction waits half of it), two peers in one
   process, beside the model *CPU of both peers + flights × one-way delay*.
4. With ``--concurrency``, N games at once in one process (no delay):
   games per second and CPU per game, so the cost of many games on one
   machine is set by CPU alone.
5. **Flights until cards** (wire.md 6a, early cards): per hand, in a game
   played flight by flight where the non-dealer *thinks* over its first
   decision (:data:`THINK_FLIGHTS` flights), how many flights after the end of
   the previous hand (or the coin) each player holds its cards; the median over
   hands, with early cards (the default) and without.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from collections.abc import Callable
from typing import Any

import trio
import trio.testing

from truc_p2p.bench._game_flights import (
    THINK_FLIGHTS,
    analyse,
    analyse_flow,
    flights_until_cards,
    median_flights,
)
from truc_p2p.bench._game_links import concurrent, loopback_game, process_cpu, wall_game
from truc_p2p.bench._game_report import report_lines
from truc_p2p.bots import make_bot
from truc_p2p.crypto import SigningKey
from truc_p2p.deck import DeckSideV2, Role
from truc_p2p.memory_pair import make_pair
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    SessionOptions,
    YourTurn,
    decode_envelope,
)
from truc_p2p.rules import Player, Ruleset

# analyse, analyse_flow, flights_until_cards and THINK_FLIGHTS are re-exported for
# the tests and benchmarks/ that read them here.
__all__ = [
    "THINK_FLIGHTS",
    "CpuFloor",
    "analyse",
    "analyse_flow",
    "flights_until_cards",
    "main",
    "report_lines",
    "run",
]


class CpuFloor:
    """The CPU a peer cannot avoid per hand, from primitives timed in this process:
    the deck's per-hand floor plus, per envelope, one signature (sender) and one
    verification (receiver)."""

    def __init__(self) -> None:
        self.sign_s, self.verify_s = _signature_costs()
        self.deck_ms = _deck_floor_ms()

    def per_hand_per_peer_ms(self, envelopes_per_hand: float) -> float:
        """Each peer signs half of the envelopes and verifies the other half."""
        return self.deck_ms + envelopes_per_hand / 2 * (self.sign_s + self.verify_s) * 1000


def _signature_costs() -> tuple[float, float]:
    """Seconds of CPU for one Ed25519 signature and one verification (~2 KB body)."""
    key = SigningKey.generate()
    public = key.public_key()
    body = bytes(2048)
    n = 300
    start = process_cpu()
    sigs = [key.sign(body) for _ in range(n)]
    sign = (process_cpu() - start) / n
    start = process_cpu()
    for sig in sigs:
        public.verify(sig, body)
    return sign, (process_cpu() - start) / n


def _deck_floor_ms() -> float:
    from truc_p2p.bench._deck_v2 import bench_v2

    floors = bench_v2(5)["hand_floor_ms"]
    return float(statistics.mean(floors.values()))


def _timed_game(seed: int, target: int, pipeline: bool, rest_final: bool = True) -> dict[str, Any]:
    """One in-memory game; CPU of each side's protocol calls (bots excluded).  The
    keys and secrets follow from ``seed``.  Without ``rest_final`` the hellos still
    announce the rule (so the game id, hence every deal, is the same game's) but both
    sessions then owe the pre-deal as without it: the same game, minus the rule."""
    records: list[bytes] = []
    fixed = [hashlib.sha256(f"bench-game/{seed}/{p}".encode()).digest() for p in (0, 1)]
    sessions = make_pair(
        SessionOptions(ruleset=Ruleset(target=target), pipeline=pipeline),
        records=(records.append, None),
        identities=(
            SigningKey.from_bytes(fixed[0]),
            SigningKey.from_bytes(fixed[1]),
        ),
        secrets=(hashlib.sha256(fixed[0]).digest(), hashlib.sha256(fixed[1]).digest()),
    )
    bots = {p: make_bot("heuristic", seed * 2 + int(p)) for p in (Player.P0, Player.P1)}
    cpu = {Player.P0: 0.0, Player.P1: 0.0}
    bot_cpu = 0.0
    closed: set[Player] = set()
    while len(closed) < 2:
        for me in (Player.P0, Player.P1):
            if me in closed:
                continue
            s, peer = sessions[me], sessions[me.other]
            if not rest_final and len(records) >= 2:  # both hellos are out
                s.rest_final_feature = False
            start = process_cpu()
            event = s.next_event()
            out = s.data_to_send()
            cpu[me] += process_cpu() - start
            if out:
                start = process_cpu()
                peer.receive_data(out)
                cpu[me.other] += process_cpu() - start
            if event is CLOSED:
                closed.add(me)
            elif isinstance(event, YourTurn):
                start = process_cpu()
                action = bots[me].choose(s.game)
                bot_cpu += process_cpu() - start
                start = process_cpu()
                data = s.send(action)
                cpu[me] += process_cpu() - start
                peer.receive_data(data)
            elif event is NEED_DATA:
                continue
    facts = analyse(records)
    sent = {p: sum(1 for r in records if decode_envelope(r).sender == p) for p in cpu}
    return {"facts": facts, "cpu": cpu, "bot_cpu": bot_cpu, "sent": sent, "total": len(records)}


def _predeal_cpu_ms() -> tuple[float, float]:
    """CPU (ms, both peers) of one pre-deal message that is never opened, timed here
    with the deck library: a ``v2deck1`` costs its maker's shuffle and proofs and the
    receiver's check and answer; a pre-dealt ``v2deck2`` its receiver's check."""
    game_id, context = bytes(32), bytes(32)
    runs: list[tuple[float, float]] = []
    for h in range(3):
        b = DeckSideV2(Role.NONDEALER, bytes([h]) * 32, game_id=game_id, hand=h, context=context)
        a = DeckSideV2(Role.DEALER, bytes([h + 9]) * 32, game_id=game_id, hand=h, context=context)
        start = process_cpu()
        d2 = a.receive_d1(b.d1())
        mid = process_cpu()
        b.receive_d2_deck({k: v for k, v in d2.items() if k != "shares"})
        runs.append((mid - start, process_cpu() - mid))
    return (
        statistics.median(r[0] for r in runs) * 1000,
        statistics.median(r[1] for r in runs) * 1000,
    )


def _per_game(timed: list[dict[str, Any]], key: str) -> float:
    return float(sum(t["facts"][key] for t in timed)) / max(1, len(timed))


def _predeal_figures(
    games: int, target: int, timed: list[dict[str, Any]], predeal_ms: tuple[float, float]
) -> dict[str, Any]:
    """The unplayed pre-deal per game, and what the rest-final rule (wire.md 6b.5)
    saves per game: the same games (same keys, secrets and bots) without the rule."""
    d1_ms, d2_ms = predeal_ms
    unplayed = {
        "messages_per_game": round(_per_game(timed, "unplayed_predeal_messages"), 2),
        "bytes_per_game": round(_per_game(timed, "unplayed_predeal_bytes")),
        "cpu_ms_per_game_both_peers": round(
            _per_game(timed, "unplayed_predeal_d1") * d1_ms
            + _per_game(timed, "unplayed_predeal_d2") * d2_ms,
            1,
        ),
    }
    without = [_timed_game(seed, target, True, rest_final=False) for seed in range(games)]
    # CPU saved: the deck work of the messages not sent, at the timed cost per
    # message (a whole game's CPU varies by more than one pre-deal from run to run).
    diffs = [
        (
            w["facts"]["messages"] - t["facts"]["messages"],
            w["facts"]["bytes"] - t["facts"]["bytes"],
            (w["facts"]["v2deck1"] - t["facts"]["v2deck1"]) * d1_ms / 1000
            + (w["facts"]["v2deck2"] - t["facts"]["v2deck2"]) * d2_ms / 1000,
        )
        for t, w in zip(timed, without, strict=True)
    ]
    n = max(1, len(diffs))
    hit = [d for d in diffs if d[0] > 0]
    m = max(1, len(hit))
    saves = {
        "games_where_it_applied": len(hit),
        "where_applied": {
            "messages_per_game": round(sum(d[0] for d in hit) / m, 2),
            "bytes_per_game": round(sum(d[1] for d in hit) / m),
            "cpu_ms_per_game_both_peers": round(sum(d[2] for d in hit) / m * 1000, 1),
        },
        "messages_per_game": round(sum(d[0] for d in diffs) / n, 2),
        "bytes_per_game": round(sum(d[1] for d in diffs) / n),
        "cpu_ms_per_game_both_peers": round(sum(d[2] for d in diffs) / n * 1000, 1),
    }
    return {
        "predeal_ms": {"v2deck1": round(d1_ms, 2), "v2deck2": round(d2_ms, 2)},
        "unplayed_predeal": unplayed,
        "rest_final_saves": saves,
    }


def _variant(
    games: int,
    target: int,
    one_way: float,
    pipeline: bool,
    floor_of: Callable[[float], float],
    predeal_ms: tuple[float, float] = (0.0, 0.0),
) -> dict[str, Any]:
    """Every per-hand figure (per hand played) for the classic (``pipeline=False``)
    or pipelined deal."""
    timed = [_timed_game(seed, target, pipeline) for seed in range(games)]
    hands = sum(t["facts"]["hands"] for t in timed)
    out: dict[str, Any] = {"hands": hands}
    if pipeline:
        out.update(_predeal_figures(games, target, timed, predeal_ms))
    for key in (
        "messages_per_hand",
        "flights_per_hand",
        "deal_flights_per_hand",
        "critical_deal_flights_per_hand",
        "forced_deal_flights_per_hand",
        "bytes_per_hand",
    ):
        out[key] = round(sum(t["facts"][key] * t["facts"]["hands"] for t in timed) / hands, 2)
    cpu_ms = {
        p.name: sum(t["cpu"][p] for t in timed) / hands * 1000 for p in (Player.P0, Player.P1)
    }
    floor_ms = floor_of(sum(t["total"] for t in timed) / hands)
    out["cpu_ms_per_hand"] = {k: round(v, 2) for k, v in cpu_ms.items()}
    out["cpu_floor_ms_per_hand_per_peer"] = round(floor_ms, 2)
    out["cpu_ratio_to_floor"] = {k: round(v / floor_ms, 2) for k, v in cpu_ms.items()}
    walls = [trio.run(wall_game, seed, target, one_way, pipeline) for seed in range(games)]
    out["wall_s_per_game"] = round(statistics.median(w["wall"] for w in walls), 3)
    out["model_s_per_game"] = round(statistics.median(w["model"] for w in walls), 3)
    out["wall_to_model"] = round(out["wall_s_per_game"] / out["model_s_per_game"], 3)
    # Games differ in length (random deals): per hand is the figure to compare.
    out["wall_ms_per_hand"] = round(sum(w["wall"] for w in walls) / _hands(walls) * 1000, 1)
    out["model_ms_per_hand"] = round(sum(w["model"] for w in walls) / _hands(walls) * 1000, 1)
    out["flights_until_cards"] = median_flights(games, target, pipeline=pipeline, early=True)
    out["flights_until_cards_without_early"] = median_flights(
        games, target, pipeline=pipeline, early=False
    )
    loops = [trio.run(loopback_game, seed, target, pipeline) for seed in range(games)]
    out["loopback_ms_per_hand"] = round(sum(w["wall"] for w in loops) / _hands(loops) * 1000, 1)
    # One process runs both peers, so the floor to compare with is both peers' CPU floors.
    out["loopback_to_floor"] = round(out["loopback_ms_per_hand"] / (2 * floor_ms), 2)
    return out


def _hands(walls: list[dict[str, float]]) -> float:
    return max(1.0, sum(w["hands"] for w in walls))


def run(*, games: int, rtt_ms: float, target: int, concurrency: list[int]) -> dict[str, Any]:
    """Every figure of the bench as one JSON-ready object: the pipelined deal (the
    default) beside the classic one, measured in the same run."""
    floor = CpuFloor()
    floor_of = floor.per_hand_per_peer_ms

    one_way = rtt_ms / 2000
    report: dict[str, Any] = {
        "deck": "v2",
        "games": games,
        "target": target,
        "rtt_ms": rtt_ms,
        "primitives_us": {
            "sign": round(floor.sign_s * 1e6, 1),
            "verify": round(floor.verify_s * 1e6, 1),
        },
        "deck_floor_ms_per_hand": round(floor.deck_ms, 2),
        "think_flights": THINK_FLIGHTS,
        "pipelined": _variant(games, target, one_way, True, floor_of, _predeal_cpu_ms()),
        "classic": _variant(games, target, one_way, False, floor_of),
        "concurrency": [trio.run(concurrent, n, target) for n in concurrency],
    }
    for row in report["concurrency"]:
        row["games_per_s"] = round(row["games_per_s"], 2)
        row["cpu_ms_per_game"] = round(row["cpu_ms_per_game"], 1)
        row["cpu_ms_per_hand"] = round(row["cpu_ms_per_hand"], 1)
        row["cpu_share"] = round(row["cpu_share"], 2)
    return report


def main(*, games: int, rtt_ms: float, target: int, concurrency: list[int], as_json: bool) -> int:
    r = run(games=games, rtt_ms=rtt_ms, target=target, concurrency=concurrency)
    if as_json:
        print(json.dumps(r))
        return 0
    print("\n".join(report_lines(r)))
    return 0
