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
import time
from collections.abc import Callable
from typing import Any

import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from truc_p2p.bots import make_bot
from truc_p2p.deck import DeckSideV2, Role
from truc_p2p.memory_pair import make_pair
from truc_p2p.net import BotStrategy, play_game
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    CardsDealt,
    GameStarted,
    Session,
    Stage,
    YourTurn,
    decode_envelope,
)
from truc_p2p.rules import Action, Player, RoundEnded, Ruleset
from truc_p2p.ui import N_, _, ngettext

__all__ = ["CpuFloor", "main", "report_lines", "run"]

#: Message types that only deal (no action rides on them); ``v2deck3/shares`` is a
#: ``v2deck3`` without ``action`` (early cards, wire.md 6a); ``v2redeal`` carries the
#: non-dealer's redeal shares alone (early redeal cards, wire.md 6a).
_DEAL_ONLY = {
    "deck1",
    "deck2",
    "deck3",
    "v2deck1",
    "v2deck2",
    "v2open",
    "v2deck3/shares",
    "v2redeal",
}
#: Message types that carry an action.
_ACTIONS = {"action", "deck4", "v2action", "v2deck3"}


def _cpu() -> float:
    return time.process_time()


def analyse(transcript: list[bytes]) -> dict[str, float]:
    """Messages, flights, deal flights (all, on the critical path, forced) and bytes."""
    envs = [decode_envelope(raw) for raw in transcript]
    kinds = [
        "v2deck3/shares" if e.type == "v2deck3" and "action" not in e.payload else e.type
        for e in envs
    ]
    facts = analyse_flow([(e.sender, kind) for e, kind in zip(envs, kinds, strict=True)])
    facts["bytes_per_hand"] = sum(4 + len(raw) for raw in transcript) / facts["hands"]
    facts["messages"] = len(transcript)
    facts["bytes"] = sum(4 + len(raw) for raw in transcript)
    # The pre-deal of a hand that never opens (wire.md 6b.4): deal messages naming a
    # hand after the last one played.  Not a hand played: counted on its own.
    last = int(facts["hands"]) - 1
    unplayed = [
        (e.type, 4 + len(raw))
        for e, raw in zip(envs, transcript, strict=True)
        if e.type in ("v2deck1", "v2deck2") and e.payload.get("hand", -1) > last
    ]
    facts["v2deck1"] = sum(1 for e in envs if e.type == "v2deck1")
    facts["v2deck2"] = sum(1 for e in envs if e.type == "v2deck2")
    facts["unplayed_predeal_messages"] = len(unplayed)
    facts["unplayed_predeal_d1"] = sum(1 for t, _ in unplayed if t == "v2deck1")
    facts["unplayed_predeal_d2"] = sum(1 for t, _ in unplayed if t == "v2deck2")
    facts["unplayed_predeal_bytes"] = sum(n for _, n in unplayed)
    return facts


def analyse_flow(messages: list[tuple[int, str]]) -> dict[str, float]:
    """The flight figures of a chain given as (sender, message type) pairs; per hand
    means per hand **played**: a hand whose deal completed (its ``deck4`` or
    ``v2deck3``), so a pre-dealt hand that never opens is not counted."""
    played = ("deck4", "v2deck3", "v2deck3/shares")
    hands = max(1, sum(1 for _, mtype in messages if mtype in played))
    flights: list[tuple[int, set[str]]] = []
    for sender, mtype in messages:
        if not flights or flights[-1][0] != sender:
            flights.append((sender, set()))
        flights[-1][1].add(mtype)
    deal_flights = sum(1 for _, types in flights if types <= _DEAL_ONLY)
    critical = forced = pending = 0
    last_actor: int | None = None
    for sender, types in flights:
        if types & _ACTIONS:
            if last_actor is not None:
                critical += pending  # deal flights waited for between two hands' actions
                # One player sent both actions: it ended hand n and leads hand n + 1.
                # Its next cards need the other player's shares, which may not leave
                # before its last action of hand n (else it would see its next hand
                # while still deciding this one): one flight no deal can avoid.
                forced += pending > 0 and sender == last_actor
            last_actor, pending = sender, 0
        elif types <= _DEAL_ONLY:
            pending += 1
    steady_hands = max(1, hands - 1)
    return {
        "hands": hands,
        "messages_per_hand": len(messages) / hands,
        "flights_per_hand": len(flights) / hands,
        "deal_flights_per_hand": deal_flights / hands,
        "critical_deal_flights_per_hand": critical / steady_hands,
        "forced_deal_flights_per_hand": forced / steady_hands,
        "flights": len(flights),
    }


#: How long the non-dealer thinks over the first decision of a hand, in flights (one
#: flight = one one-way delay).  People think for seconds, a flight takes tens of ms:
#: anything above one flight shows whether the dealer's cards wait for the decision.
THINK_FLIGHTS = 4


def flights_until_cards(
    seed: int, target: int, *, pipeline: bool, early: bool, think: int = THINK_FLIGHTS
) -> dict[str, list[int]]:
    """One bot game played flight by flight: whatever a side sends at flight ``t``
    arrives at ``t + 1``.  The non-dealer, handed its first turn of a hand, calls
    ``work()`` (its output leaves at once, as in the trio loop) and acts ``think``
    flights later; every other decision is immediate.  Returns, per role, for each
    hand, the flights from the end of the previous hand (the flight that carried its
    last message; for the first hand, the coin's) until that player holds its cards,
    in hand order."""
    sessions = make_pair(ruleset=Ruleset(target=target), pipeline=pipeline, early=early)
    bots = {p: make_bot("heuristic", seed * 2 + int(p)) for p in (Player.P0, Player.P1)}
    arrivals: list[tuple[int, Player, bytes]] = []  # (flight it arrives, receiver, bytes)
    decisions: dict[Player, tuple[int, Action]] = {}
    starts: dict[int, int] = {}  # hand -> flight its predecessor ended (or the coin's)
    held: dict[Player, list[tuple[int, bool]]] = {Player.P0: [], Player.P1: []}
    closed: set[Player] = set()
    tick = 0
    while len(closed) < 2:
        progressed = True
        while progressed:  # everything a side does within one flight
            progressed = False
            for when, receiver, data in [a for a in arrivals if a[0] == tick]:
                arrivals.remove((when, receiver, data))
                sessions[receiver].receive_data(data)
            for p in (Player.P0, Player.P1):
                s = sessions[p]
                due = decisions.get(p)
                if due is not None and due[0] <= tick:
                    del decisions[p]
                    arrivals.append((tick + 1, p.other, s.send(due[1])))
                    progressed = True
                while p not in closed and (event := s.next_event()) is not NEED_DATA:
                    progressed = True
                    if event is CLOSED:
                        closed.add(p)
                    elif isinstance(event, GameStarted):
                        starts.setdefault(0, tick)
                    elif isinstance(event, RoundEnded):
                        starts.setdefault(event.round_no + 1, tick)
                    elif isinstance(event, CardsDealt) and not event.redeal:
                        held[p].append((tick, event.dealer == p))
                    elif isinstance(event, YourTurn):
                        thinks = s.stage is Stage.V2_DECK3  # its first decision of the hand
                        if thinks:
                            s.work()
                        choice = bots[p].choose(s.game)
                        decisions[p] = (tick + (think if thinks else 0), choice)
                out = s.data_to_send()
                if out:
                    arrivals.append((tick + 1, p.other, out))
        if len(closed) < 2 and not arrivals and not decisions:
            raise RuntimeError("the flight-by-flight game is stuck")  # pragma: no cover
        tick += 1
    rounds = sorted(starts)
    per_hand: dict[int, dict[str, int]] = {}
    for hands in held.values():
        for index, (when, dealer) in enumerate(hands):
            role = "dealer" if dealer else "nondealer"
            per_hand.setdefault(index, {})[role] = when - starts[rounds[index]]
    return {role: [per_hand[k][role] for k in sorted(per_hand)] for role in ("dealer", "nondealer")}


def _median_flights(games: int, target: int, *, pipeline: bool, early: bool) -> dict[str, float]:
    """The median over every hand of ``games`` games of :func:`flights_until_cards`."""
    runs = [
        flights_until_cards(seed, target, pipeline=pipeline, early=early) for seed in range(games)
    ]
    return {
        role: float(statistics.median(v for run in runs for v in run[role]))
        for role in ("dealer", "nondealer")
    }


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
    key = Ed25519PrivateKey.generate()
    public = key.public_key()
    body = bytes(2048)
    n = 300
    start = _cpu()
    sigs = [key.sign(body) for _ in range(n)]
    sign = (_cpu() - start) / n
    start = _cpu()
    for sig in sigs:
        public.verify(sig, body)
    return sign, (_cpu() - start) / n


def _deck_floor_ms() -> float:
    from truc_p2p.bench._deck import bench_v2

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
        ruleset=Ruleset(target=target),
        records=(records.append, None),
        pipeline=pipeline,
        identities=(
            Ed25519PrivateKey.from_private_bytes(fixed[0]),
            Ed25519PrivateKey.from_private_bytes(fixed[1]),
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
            start = _cpu()
            event = s.next_event()
            out = s.data_to_send()
            cpu[me] += _cpu() - start
            if out:
                start = _cpu()
                peer.receive_data(out)
                cpu[me.other] += _cpu() - start
            if event is CLOSED:
                closed.add(me)
            elif isinstance(event, YourTurn):
                start = _cpu()
                action = bots[me].choose(s.game)
                bot_cpu += _cpu() - start
                start = _cpu()
                data = s.send(action)
                cpu[me] += _cpu() - start
                peer.receive_data(data)
            elif event is NEED_DATA:
                continue
    facts = analyse(records)
    sent = {p: sum(1 for r in records if decode_envelope(r).sender == p) for p in cpu}
    return {"facts": facts, "cpu": cpu, "bot_cpu": bot_cpu, "sent": sent, "total": len(records)}


class _DelayedStream(trio.abc.HalfCloseableStream):
    """One end of an in-process link whose bytes arrive ``delay`` seconds after sending."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.peer: _DelayedStream | None = None
        self._tx, self._rx = trio.open_memory_channel[tuple[float, bytes]](1 << 16)
        self._buffer = b""
        self._eof = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        assert self.peer is not None
        await self.peer._tx.send((trio.current_time() + self.delay, bytes(data)))

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def send_eof(self) -> None:
        assert self.peer is not None
        await self.peer._tx.send((trio.current_time() + self.delay, b""))

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if not self._buffer and not self._eof:
            due, data = await self._rx.receive()
            await trio.sleep_until(due)
            if data:
                self._buffer = data
            else:
                self._eof = True
        if self._eof and not self._buffer:
            return b""
        n = len(self._buffer) if max_bytes is None else max_bytes
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


def _delayed_pair(delay: float) -> tuple[_DelayedStream, _DelayedStream]:
    a, b = _DelayedStream(delay), _DelayedStream(delay)
    a.peer, b.peer = b, a
    return a, b


def _session_pair(target: int, pipeline: bool = True) -> tuple[dict[Player, Session], list[bytes]]:
    records: list[bytes] = []
    sessions = make_pair(
        ruleset=Ruleset(target=target), records=(records.append, None), pipeline=pipeline
    )
    return sessions, records


async def _play_pair(
    sessions: dict[Player, Session],
    streams: tuple[trio.abc.Stream, trio.abc.Stream],
    seed: int,
) -> None:
    async def side(p: Player) -> None:
        await play_game(
            streams[p],
            sessions[p],
            BotStrategy(make_bot("heuristic", seed * 2 + int(p))),
            turn_timeout=600,
            linger=0,
        )

    async with trio.open_nursery() as nursery:
        for p in (Player.P0, Player.P1):
            nursery.start_soon(side, p)


async def _wall_game(seed: int, target: int, one_way: float, pipeline: bool) -> dict[str, float]:
    sessions, records = _session_pair(target, pipeline)
    start_cpu, start = _cpu(), trio.current_time()
    await _play_pair(sessions, _delayed_pair(one_way), seed)
    wall, cpu = trio.current_time() - start, _cpu() - start_cpu
    facts = analyse(records)
    model = cpu + facts["flights"] * one_way
    return {"wall": wall, "cpu": cpu, "model": model, "hands": facts["hands"]}


async def _loopback_game(seed: int, target: int, pipeline: bool) -> dict[str, float]:
    """One game between two peers in this process over real TCP on 127.0.0.1."""
    sessions, records = _session_pair(target, pipeline)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    start = trio.current_time()
    async with trio.open_nursery() as nursery:
        accepted: list[trio.abc.Stream] = []
        ready = trio.Event()

        async def accept() -> None:
            accepted.append(await listeners[0].accept())
            ready.set()

        nursery.start_soon(accept)
        dialled = await trio.open_tcp_stream("127.0.0.1", port)
        await ready.wait()
        await _play_pair(sessions, (dialled, accepted[0]), seed)
        await dialled.aclose()
        await accepted[0].aclose()
    await listeners[0].aclose()
    return {"wall": trio.current_time() - start, "hands": analyse(records)["hands"]}


async def _concurrent(n: int, target: int) -> dict[str, float]:
    start_cpu, start = _cpu(), time.perf_counter()
    transcripts: list[list[bytes]] = []
    async with trio.open_nursery() as nursery:
        for g in range(n):
            sessions, records = _session_pair(target)
            transcripts.append(records)
            a, b = trio.testing.memory_stream_pair()
            nursery.start_soon(_play_pair, sessions, (a, b), 1000 + g)
    wall, cpu = time.perf_counter() - start, _cpu() - start_cpu
    hands = sum(analyse(t)["hands"] for t in transcripts)
    return {
        "games": n,
        "games_per_s": n / wall,
        "cpu_ms_per_game": cpu / n * 1000,
        # games differ in length: per hand is the figure that compares across rows
        "cpu_ms_per_hand": cpu / hands * 1000,
        "cpu_share": cpu / wall,
    }


def _predeal_cpu_ms() -> tuple[float, float]:
    """CPU (ms, both peers) of one pre-deal message that is never opened, timed here
    with the deck library: a ``v2deck1`` costs its maker's shuffle and proofs and the
    receiver's check and answer; a pre-dealt ``v2deck2`` its receiver's check."""
    game_id, context = bytes(32), bytes(32)
    runs: list[tuple[float, float]] = []
    for h in range(3):
        b = DeckSideV2(Role.NONDEALER, bytes([h]) * 32, game_id=game_id, hand=h, context=context)
        a = DeckSideV2(Role.DEALER, bytes([h + 9]) * 32, game_id=game_id, hand=h, context=context)
        start = _cpu()
        d2 = a.receive_d1(b.d1())
        mid = _cpu()
        b.receive_d2_deck({k: v for k, v in d2.items() if k != "shares"})
        runs.append((mid - start, _cpu() - mid))
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
    walls = [trio.run(_wall_game, seed, target, one_way, pipeline) for seed in range(games)]
    out["wall_s_per_game"] = round(statistics.median(w["wall"] for w in walls), 3)
    out["model_s_per_game"] = round(statistics.median(w["model"] for w in walls), 3)
    out["wall_to_model"] = round(out["wall_s_per_game"] / out["model_s_per_game"], 3)
    # Games differ in length (random deals): per hand is the figure to compare.
    out["wall_ms_per_hand"] = round(sum(w["wall"] for w in walls) / _hands(walls) * 1000, 1)
    out["model_ms_per_hand"] = round(sum(w["model"] for w in walls) / _hands(walls) * 1000, 1)
    out["flights_until_cards"] = _median_flights(games, target, pipeline=pipeline, early=True)
    out["flights_until_cards_without_early"] = _median_flights(
        games, target, pipeline=pipeline, early=False
    )
    loops = [trio.run(_loopback_game, seed, target, pipeline) for seed in range(games)]
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
        "concurrency": [trio.run(_concurrent, n, target) for n in concurrency],
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


#: The names of the two deals in the text report (``--json`` keeps the keys).
DEALS = {"pipelined": N_("pipelined deal"), "classic": N_("classic deal")}


def report_lines(r: dict[str, Any]) -> list[str]:
    """The text report of :func:`run`'s result, in the language in use."""
    lines = [
        ngettext(
            "bench game: {n} heuristic-bot game to {target}, deck {deck}; CPU floor per hand "
            "per peer = deck {deck_ms} ms + signatures at {sign} / {verify} us",
            "bench game: {n} heuristic-bot games to {target}, deck {deck}; CPU floor per hand "
            "per peer = deck {deck_ms} ms + signatures at {sign} / {verify} us",
            r["games"],
            target=r["target"],
            deck=r["deck"],
            deck_ms=r["deck_floor_ms_per_hand"],
            sign=r["primitives_us"]["sign"],
            verify=r["primitives_us"]["verify"],
        )
    ]
    out = lines.append
    for name in ("pipelined", "classic"):
        v = r[name]
        cpu, ratio = v["cpu_ms_per_hand"], v["cpu_ratio_to_floor"]
        out(
            "  "
            + ngettext(
                "{deal} ({n} hand played), per hand played: {messages} messages, {flights} "
                "flights, {deal_flights} deal flights ({critical} on the critical path, of "
                "which {forced} forced by fairness), {bytes} bytes",
                "{deal} ({n} hands played), per hand played: {messages} messages, {flights} "
                "flights, {deal_flights} deal flights ({critical} on the critical path, of "
                "which {forced} forced by fairness), {bytes} bytes",
                v["hands"],
                deal=_(DEALS[name]),
                messages=v["messages_per_hand"],
                flights=v["flights_per_hand"],
                deal_flights=v["deal_flights_per_hand"],
                critical=v["critical_deal_flights_per_hand"],
                forced=v["forced_deal_flights_per_hand"],
                bytes=f"{v['bytes_per_hand']:.0f}",
            )
        )
        if "unplayed_predeal" in v:
            u, sv = v["unplayed_predeal"], v["rest_final_saves"]
            wa = sv["where_applied"]
            out(
                "    "
                + _(
                    "a pre-deal message's deck work (both peers, timed here): v2deck1 "
                    "{d1} ms, pre-dealt v2deck2 {d2} ms",
                    d1=v["predeal_ms"]["v2deck1"],
                    d2=v["predeal_ms"]["v2deck2"],
                )
            )
            out(
                "    "
                + _(
                    "unplayed pre-deal (a hand dealt ahead that never opens), per game: "
                    "{messages} messages, {bytes} bytes, {cpu} ms CPU (both peers)",
                    messages=u["messages_per_game"],
                    bytes=u["bytes_per_game"],
                    cpu=u["cpu_ms_per_game_both_peers"],
                )
            )
            out(
                "    "
                + ngettext(
                    'rest-final rule (no pre-deal once "my rest" decides the hand) saves per '
                    "game: {messages} messages, {bytes} bytes, {cpu} ms CPU (both peers); it "
                    "applied in {applied} of {n} game, saving there {where_messages} messages, "
                    "{where_bytes} bytes, {where_cpu} ms CPU per game",
                    'rest-final rule (no pre-deal once "my rest" decides the hand) saves per '
                    "game: {messages} messages, {bytes} bytes, {cpu} ms CPU (both peers); it "
                    "applied in {applied} of {n} games, saving there {where_messages} "
                    "messages, {where_bytes} bytes, {where_cpu} ms CPU per game",
                    r["games"],
                    messages=sv["messages_per_game"],
                    bytes=sv["bytes_per_game"],
                    cpu=sv["cpu_ms_per_game_both_peers"],
                    applied=sv["games_where_it_applied"],
                    where_messages=wa["messages_per_game"],
                    where_bytes=wa["bytes_per_game"],
                    where_cpu=wa["cpu_ms_per_game_both_peers"],
                )
            )
        out(
            "    "
            + _(
                "whole-game CPU per hand played: P0 {p0} ms, P1 {p1} ms, beside the deck alone "
                "{deck} ms (floor {floor} ms; ratio {ratio0} / {ratio1}); at {rtt} ms round "
                "trip: {wall_hand} ms per hand (model {model_hand} ms), {wall_game} s per game "
                "vs model {model_game} s ({times}x)",
                p0=cpu["P0"],
                p1=cpu["P1"],
                deck=r["deck_floor_ms_per_hand"],
                floor=v["cpu_floor_ms_per_hand_per_peer"],
                ratio0=ratio["P0"],
                ratio1=ratio["P1"],
                rtt=f"{r['rtt_ms']:g}",
                wall_hand=v["wall_ms_per_hand"],
                model_hand=v["model_ms_per_hand"],
                wall_game=v["wall_s_per_game"],
                model_game=v["model_s_per_game"],
                times=v["wall_to_model"],
            )
        )
        fc, old = v["flights_until_cards"], v["flights_until_cards_without_early"]
        out(
            "    "
            + ngettext(
                "flights until cards (median per hand, the non-dealer thinks {n} flight): "
                "dealer {dealer}, non-dealer {nondealer} (without early cards: dealer "
                "{old_dealer}, non-dealer {old_nondealer})",
                "flights until cards (median per hand, the non-dealer thinks {n} flights): "
                "dealer {dealer}, non-dealer {nondealer} (without early cards: dealer "
                "{old_dealer}, non-dealer {old_nondealer})",
                r["think_flights"],
                dealer=f"{fc['dealer']:g}",
                nondealer=f"{fc['nondealer']:g}",
                old_dealer=f"{old['dealer']:g}",
                old_nondealer=f"{old['nondealer']:g}",
            )
        )
        out(
            "    "
            + _(
                "over loopback TCP (no delay): {wall} ms per hand, {times}x the CPU floor of "
                "both peers ({floor} ms)",
                wall=v["loopback_ms_per_hand"],
                times=v["loopback_to_floor"],
                floor=f"{2 * v['cpu_floor_ms_per_hand_per_peer']:.1f}",
            )
        )
    for row in r["concurrency"]:
        out(
            "  "
            + ngettext(
                "{games} game at once: {rate} games/s, {cpu} ms CPU per game ({per_hand} ms "
                "per hand, both peers); CPU busy {busy} of the wall time",
                "{games} games at once: {rate} games/s, {cpu} ms CPU per game ({per_hand} ms "
                "per hand, both peers); CPU busy {busy} of the wall time",
                row["games"],
                games=f"{row['games']:>4}",
                rate=row["games_per_s"],
                cpu=row["cpu_ms_per_game"],
                per_hand=row["cpu_ms_per_hand"],
                busy=f"{row['cpu_share']:.0%}",
            )
        )
    return lines
