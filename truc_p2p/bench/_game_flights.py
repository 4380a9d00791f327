"""What a game's transcript says about its flights, and flights until cards.

A *flight* is a maximal run of envelopes by one sender (each change of sender
is a wait for the other side).  :func:`analyse` counts messages, flights, deal
flights and bytes per hand played in a transcript; :func:`flights_until_cards`
plays a bot game flight by flight to count how long each player waits for its
cards (wire.md 6a, early cards).  Part of ``truc-p2p bench game``
(:mod:`truc_p2p.bench._game`).
"""

from __future__ import annotations

import statistics

from truc_p2p.bots import make_bot
from truc_p2p.memory_pair import make_pair
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    CardsDealt,
    GameStarted,
    SessionOptions,
    Stage,
    YourTurn,
    decode_envelope,
)
from truc_p2p.rules import Action, Player, RoundEnded, Ruleset

__all__ = ["THINK_FLIGHTS", "analyse", "analyse_flow", "flights_until_cards", "median_flights"]

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
    sessions = make_pair(
        SessionOptions(ruleset=Ruleset(target=target), pipeline=pipeline, early=early)
    )
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


def median_flights(games: int, target: int, *, pipeline: bool, early: bool) -> dict[str, float]:
    """The median over every hand of ``games`` games of :func:`flights_until_cards`."""
    runs = [
        flights_until_cards(seed, target, pipeline=pipeline, early=early) for seed in range(games)
    ]
    return {
        role: float(statistics.median(v for run in runs for v in run[role]))
        for role in ("dealer", "nondealer")
    }
