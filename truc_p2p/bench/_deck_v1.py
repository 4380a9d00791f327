"""``bench deck``, deck v1 (P-256 through ``cryptography``): per step, per hand and
per role, beside the floor counted primitive by primitive (point decodings, key
derivations, multiplications, modular inversions, each at its own cost).
Part of :mod:`truc_p2p.bench._deck`.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import cryptography

from truc_p2p.bench._deck_timing import BATCH, cpu_time, median, packed_size
from truc_p2p.deck import (
    DeckSide,
    Role,
    audit_hand,
    card_encodings,
    positions,
)
from truc_p2p.deck.legacy_v1 import _group
from truc_p2p.deck.legacy_v1._steps import OpCounts

__all__ = ["bench_v1"]


def _v1_primitives(xs: list[bytes]) -> dict[str, float]:
    decode, derive, ecdh = _group.decode, _group.derive_key, _group.ECDH
    scalars = [1 + secrets.randbelow(_group.ORDER - 1) for _ in xs]
    points = [decode(x) for x in xs]
    key = derive(scalars[0])
    n = len(xs)

    def per_call(fn: Callable[[], object]) -> float:
        start = cpu_time()
        fn()
        return (cpu_time() - start) * 1e6 / n

    return {
        "decode": per_call(lambda: [decode(x) for x in xs]),
        "derive": per_call(lambda: [derive(k) for k in scalars]),
        "multiply": per_call(lambda: [key.exchange(ecdh, p) for p in points]),
        "inverse": per_call(lambda: [pow(k, -1, _group.ORDER) for k in scalars]),
        "e_k_from_bytes": per_call(
            lambda: [derive(k).exchange(ecdh, decode(x)) for x, k in zip(xs, scalars, strict=True)]
        ),
    }


def _v1_hand(game_id: bytes, hand: int) -> dict[str, Any]:
    a = DeckSide(Role.DEALER, secrets.token_bytes(32), game_id=game_id, hand=hand)
    b = DeckSide(Role.NONDEALER, secrets.token_bytes(32), game_id=game_id, hand=hand)
    t: dict[str, float] = {}

    def timed(name: str, fn: Callable[[], Any]) -> Any:
        start = cpu_time()
        out = fn()
        t[name] = cpu_time() - start
        return out

    d1 = timed("D1", a.d1)
    d2 = timed("D2", lambda: b.receive_d1(d1, a.commitment))
    d3, k3 = timed("D3", lambda: a.receive_d2(d2, b.commitment))
    d4, k4 = timed("D4", lambda: b.receive_d3(d3, k3))
    timed("open dealer", lambda: a.receive_d4(d4, k4))
    shows = {"dealer": 0.0, "nondealer": 0.0, "check dealer": 0.0, "check nondealer": 0.0}
    for pa, pb in zip(positions(Role.DEALER), positions(Role.NONDEALER), strict=True):
        for shower, receiver, pos, name, other in (
            (a, b, pa, "dealer", "nondealer"),
            (b, a, pb, "nondealer", "dealer"),
        ):
            s0 = cpu_time()
            key = shower.show(pos)
            s1 = cpu_time()
            receiver.receive_show(pos, key)
            s2 = cpu_time()
            shows[name] += s1 - s0
            shows[f"check {other}"] += s2 - s1
    rec = a.record()
    timed("audit", lambda: audit_hand(rec, dealer_seed=a.seed, nondealer_seed=b.seed))
    sizes = {
        "D1": packed_size({"deck": list(d1), "commitment": a.commitment}),
        "D2": packed_size({"deck": list(d2), "commitment": b.commitment}),
        "D3": packed_size({"deck": list(d3), "keys": list(k3.values())}),
        "D4": packed_size({"deck": list(d4), "keys": list(k4.values())}),
    }
    return {
        "t": t,
        "shows": shows,
        "sizes": sizes,
        "counts": {"dealer": a.op_counts, "nondealer": b.op_counts},
        "d4": d4,
    }


def _v1_floor_ms(c: OpCounts, us: dict[str, float]) -> float:
    return (
        c.decodes * us["decode"]
        + c.derives * us["derive"]
        + c.multiplications * us["multiply"]
        + c.inversions * us["inverse"]
    ) / 1e3


def bench_v1(hands: int) -> dict[str, Any]:
    """Deck v1: the four-step deal, no proofs, everything public at the audit."""
    card_encodings()
    game_id = secrets.token_bytes(32)
    xs = list(_v1_hand(game_id, 0)["d4"][:BATCH])
    prims: list[dict[str, float]] = []
    runs: list[dict[str, Any]] = []
    for h in range(hands):
        prims.append(_v1_primitives(xs))
        run = _v1_hand(game_id, h + 1)
        runs.append(run)
        xs = list(run["d4"][:BATCH])
    us = {k: median([p[k] for p in prims]) for k in prims[0]}
    step_ms = {k: median([r["t"][k] for r in runs]) * 1e3 for k in runs[0]["t"]}
    show_ms = {k: median([r["shows"][k] for r in runs]) * 1e3 for k in runs[0]["shows"]}
    hand_ms = {
        "dealer": step_ms["D1"]
        + step_ms["D3"]
        + step_ms["open dealer"]
        + show_ms["dealer"]
        + show_ms["check nondealer"],
        "nondealer": step_ms["D2"] + step_ms["D4"] + show_ms["nondealer"] + show_ms["check dealer"],
    }
    counts: dict[str, OpCounts] = runs[0]["counts"]
    floor = {r: _v1_floor_ms(c, us) for r, c in counts.items()}
    audit_floor = (4 * 32 * us["multiply"] + (2 + 2 * 32) * us["derive"]) / 1e3
    senders = {"D1": "dealer", "D2": "nondealer", "D3": "dealer", "D4": "nondealer"}
    return {
        "group": "P-256 (cryptography " + cryptography.__version__ + ")",
        "primitives_us": {k: round(v, 2) for k, v in us.items()},
        "steps": {
            s: {
                "sender": senders[s],
                "prove_ms": round(step_ms[s], 3),
                "verify_ms": 0.0,
                "bytes": runs[0]["sizes"][s],
                "soundness_bits": 0,
            }
            for s in senders
        },
        "note": "v1 has no proofs: a step's time is the sender's call (it includes the "
        "sender's checks of the deck it received); cheats are found by the audit",
        "hand_ms": {r: round(v, 3) for r, v in hand_ms.items()},
        "counts": {
            r: c.__dict__ if hasattr(c, "__dict__") else _counts(c) for r, c in counts.items()
        },
        "floor_ms": {r: round(v, 3) for r, v in floor.items()},
        "ratio": {r: round(hand_ms[r] / floor[r], 3) for r in floor},
        "old_floor_ms": {
            r: round(c.multiplications * us["e_k_from_bytes"] / 1e3, 3) for r, c in counts.items()
        },
        "verifier_ms": round(step_ms["audit"], 3),
        "verifier_floor_ms": round(audit_floor, 3),
        "bytes_per_hand": sum(runs[0]["sizes"].values()) + 6 * 32,
        "hidden_cards_revealed": 32 - 6,
    }


def _counts(c: OpCounts) -> dict[str, int]:
    return {
        "decodes": c.decodes,
        "derives": c.derives,
        "multiplications": c.multiplications,
        "inversions": c.inversions,
    }
