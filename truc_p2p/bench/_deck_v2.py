"""``bench deck``, deck v2 (secp256k1 through ``coincurve``): the primitives counted
while a hand runs (:class:`_Tally`, the bench's own instrumentation of the deck
internals), each timed, and every step, hand and verification beside its floor.
Part of :mod:`truc_p2p.bench._deck`.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import coincurve

from truc_p2p.bench._deck_timing import BATCH, cpu_time, median, packed_size
from truc_p2p.deck import (
    DeckSideV2,
    HandVerifierV2,
    Role,
    positions,
    verify_hand_v2,
)
from truc_p2p.deck.v2 import _derive as _v2_derive
from truc_p2p.deck.v2 import _ec
from truc_p2p.deck.v2 import _hand as _v2_hand
from truc_p2p.deck.v2 import _proofs as _v2_proofs
from truc_p2p.deck.v2 import _side as _v2_side

__all__ = ["SECURITY_BITS", "SOUNDNESS_BITS", "bench_v2"]

# Statistical soundness of one proof, in bits: a Fiat-Shamir challenge mod n
# (|n| ~ 2**256) for the Schnorr and DLEQ proofs; for the shuffle argument the
# Schwartz-Zippel term (N + 1)/n of its 32 permutation challenges dominates.
# Computationally every proof rests on discrete logs in secp256k1 (128 bits).
SOUNDNESS_BITS = {"key": 256, "share": 256, "shuffle": 250}
SECURITY_BITS = 128


class _Tally:
    """Counts of each v2 primitive while active (the bench's own instrumentation)."""

    def __init__(self) -> None:
        self.c: Counter[str] = Counter()

    @contextmanager
    def active(self) -> Iterator[Counter[str]]:
        c = self.c = Counter()
        saved: list[tuple[object, str, object]] = []

        def patch(module: Any, name: str, wrapper: Any) -> None:
            saved.append((module, name, getattr(module, name)))
            setattr(module, name, wrapper)

        mul, gmul, add, dec, neg, enc = _ec.mul, _ec.gmul, _ec.add, _ec.decode, _ec.neg, _ec.encode

        def w_mul(p: _ec.Point, k: int) -> _ec.Point:
            c["mul"] += p is not None and k % _ec.ORDER != 0
            return mul(p, k)

        def w_gmul(k: int) -> _ec.Point:
            c["gmul"] += 1
            return gmul(k)

        def w_add(points: Any) -> _ec.Point:
            pts = [p for p in points if p is not None]
            if len(pts) > 1:
                c["add_call"] += 1
                c["add_term"] += len(pts)
            return add(pts)

        def w_dec(raw: object) -> Any:
            c["decode"] += 1
            return dec(raw)

        def w_neg(p: _ec.Point) -> _ec.Point:
            c["neg"] += 1
            return neg(p)

        def w_enc(p: _ec.Point) -> bytes:
            c["encode"] += 1
            return enc(p)

        for name, w in (
            ("mul", w_mul),
            ("gmul", w_gmul),
            ("add", w_add),
            ("decode", w_dec),
            ("neg", w_neg),
            ("encode", w_enc),
        ):
            patch(_ec, name, w)
        ds, dp, dg = (
            _v2_derive.derived_scalar,
            _v2_derive.derived_permutation,
            _v2_derive.digest,
        )

        def w_ds(*args: Any) -> int:
            c["derive_scalar"] += 1
            return ds(*args)

        def w_dp(*args: Any) -> tuple[int, ...]:
            c["derive_perm"] += 1
            return dp(*args)

        def w_digest(label: bytes, *parts: bytes) -> bytes:
            c["hash_call"] += 1
            c["hash_byte"] += sum(len(p) for p in parts)
            return dg(label, *parts)

        def w_challenge(label: bytes, *parts: bytes) -> int:
            return int.from_bytes(w_digest(label, *parts), "big") % _ec.ORDER

        wrappers: tuple[tuple[str, Any], ...] = (
            ("derived_scalar", w_ds),
            ("derived_permutation", w_dp),
            ("digest", w_digest),
            ("challenge", w_challenge),
        )
        modules: tuple[Any, ...] = (_v2_proofs, _v2_hand, _v2_side)
        for mod in modules:
            for name, wrapper in wrappers:
                if hasattr(mod, name):
                    patch(mod, name, wrapper)
        try:
            yield c
        finally:
            for target, name, orig in reversed(saved):
                setattr(target, name, orig)


def _v2_primitives() -> dict[str, float]:
    ks = [1 + secrets.randbelow(_ec.ORDER - 1) for _ in range(BATCH)]
    pts = [_ec.gmul(k) for k in ks]
    raws = [_ec.encode(p) for p in pts]
    many = [p for p in pts if p is not None]
    key = secrets.token_bytes(32)
    blob = secrets.token_bytes(4096)
    n = BATCH

    def per_call(fn: Callable[[], object], calls: int = n) -> float:
        start = cpu_time()
        fn()
        return (cpu_time() - start) * 1e6 / calls

    add2 = per_call(lambda: [_ec.add(many[i : i + 2]) for i in range(n)])
    add_all = per_call(lambda: [_ec.add(many) for _ in range(n)])
    term = (add_all - add2) / (len(many) - 2)
    hash_small = per_call(lambda: [_v2_derive.digest(b"x", raws[i]) for i in range(n)])
    hash_big = per_call(lambda: [_v2_derive.digest(b"x", blob) for _ in range(n)])
    return {
        "mul": per_call(lambda: [_ec.mul(p, k) for p, k in zip(pts, ks, strict=True)]),
        "gmul": per_call(lambda: [_ec.gmul(k) for k in ks]),
        "add_call": max(add2 - 2 * term, 0.0),
        "add_term": term,
        "decode": per_call(lambda: [_ec.decode(r) for r in raws]),
        "neg": per_call(lambda: [_ec.neg(p) for p in pts]),
        "encode": per_call(lambda: [_ec.encode(p) for p in pts]),
        "derive_scalar": per_call(
            lambda: [_v2_derive.derived_scalar(key, b"mask", raws[i], i) for i in range(n)]
        ),
        "derive_perm": per_call(
            lambda: [_v2_derive.derived_permutation(key, raws[i], 32) for i in range(n)]
        ),
        "hash_call": hash_small,
        "hash_byte": max((hash_big - hash_small) / (len(blob) - 33), 0.0),
    }


def _floor_ms(ops: Counter[str], us: dict[str, float]) -> float:
    return sum(ops[k] * us[k] for k in us) / 1e3


_CURVE = ("mul", "gmul", "add_call", "add_term", "decode", "neg", "encode")


def _curve_floor_ms(ops: Counter[str], us: dict[str, float]) -> float:
    """The part of the floor that is elliptic-curve work (no hashing, no derivation)."""
    return sum(ops[k] * us[k] for k in _CURVE) / 1e3


GAME = {"dealer": Role.DEALER, "nondealer": Role.NONDEALER}


def _v2_one_hand(game_id: bytes, hand: int, tally: _Tally | None) -> dict[str, Any]:
    """One honest hand, every call timed (and counted if ``tally``); both players show
    their three cards; a third party verifies every message."""
    ctx = secrets.token_bytes(32)
    t: dict[str, float] = {}
    ops: dict[str, Counter[str]] = {}

    def timed(name: str, fn: Callable[[], Any]) -> Any:
        if tally is not None:
            with tally.active() as c:
                out = fn()
            ops[name] = ops.get(name, Counter()) + c
            return out
        start = cpu_time()
        out = fn()
        t[name] = t.get(name, 0.0) + cpu_time() - start
        return out

    a = timed(
        "new dealer",
        lambda: DeckSideV2(
            Role.DEALER, secrets.token_bytes(32), game_id=game_id, hand=hand, context=ctx
        ),
    )
    b = timed(
        "new nondealer",
        lambda: DeckSideV2(
            Role.NONDEALER, secrets.token_bytes(32), game_id=game_id, hand=hand, context=ctx
        ),
    )
    v = HandVerifierV2(game_id=game_id, hand=hand, context=ctx)
    d1 = timed("b.d1", b.d1)
    timed("v.D1", lambda: v.d1(d1))
    d2 = timed("a.receive_d1", lambda: a.receive_d1(d1))
    timed("v.D2", lambda: v.d2(d2))
    d3 = timed("b.receive_d2", lambda: b.receive_d2(d2))
    timed("v.D3", lambda: v.d3(d3))
    timed("a.receive_d3", lambda: a.receive_d3(d3))
    show_sizes = []
    for pa, pb in zip(positions(Role.DEALER), positions(Role.NONDEALER), strict=True):
        for shower, receiver, pos, name, other, role in (
            (b, a, pb, "b", "a", Role.NONDEALER),
            (a, b, pa, "a", "b", Role.DEALER),
        ):
            share: bytes = timed(f"{name}.show", partial(shower.show, pos))
            timed(f"{other}.receive_show", partial(receiver.receive_show, pos, share))
            timed("v.show", partial(v.show, role, pos, share))
            show_sizes.append(packed_size({"pos": pos, "share": share}))
    rec = a.record()
    timed("verify_hand", lambda: verify_hand_v2(rec))
    sizes = {
        "D1": packed_size(d1),
        "D2": packed_size(d2),
        "D3": packed_size(d3),
        "show": max(show_sizes),
    }
    return {"t": t, "ops": ops, "sizes": sizes}


def bench_v2(hands: int) -> dict[str, Any]:
    """Deck v2: three messages, every one proven, nothing revealed beyond the shown cards."""
    game_id = secrets.token_bytes(32)
    _v2_one_hand(game_id, 0, None)  # warm-up (card points, generators)
    counted = _v2_one_hand(game_id, 0, _Tally())["ops"]
    prims: list[dict[str, float]] = []
    runs: list[dict[str, float]] = []
    sizes: dict[str, int] = {}
    for h in range(hands):
        prims.append(_v2_primitives())
        run = _v2_one_hand(game_id, h + 1, None)
        runs.append(run["t"])
        sizes = run["sizes"]
    us = {k: median([p[k] for p in prims]) for k in prims[0]}
    ms = {k: median([r[k] for r in runs]) * 1e3 for k in runs[0]}
    fl = {k: _floor_ms(c, us) for k, c in counted.items()}

    def diff(x: str, y: str, table: dict[str, float]) -> float:
        return max(table[x] - table[y], 0.0)

    # A receiver's call = checking the incoming message (the same code the third-party
    # verifier runs) + producing its own: the prover's share is the difference.
    steps = {
        "D1": ("nondealer", ms["b.d1"], fl["b.d1"], "v.D1", ("shuffle", "key")),
        "D2": (
            "dealer",
            diff("a.receive_d1", "v.D1", ms),
            diff("a.receive_d1", "v.D1", fl),
            "v.D2",
            ("shuffle", "key", "share"),
        ),
        "D3": (
            "nondealer",
            diff("b.receive_d2", "v.D2", ms),
            diff("b.receive_d2", "v.D2", fl),
            "v.D3",
            ("share",),
        ),
        "show": (
            "either",
            (ms["a.show"] + ms["b.show"]) / 6,
            (fl["a.show"] + fl["b.show"]) / 6,
            "v.show",
            ("share",),
        ),
    }
    step_out = {}
    for name, (sender, prove_ms, prove_floor, vkey, proofs) in steps.items():
        per = 6 if name == "show" else 1
        step_out[name] = {
            "sender": sender,
            "prove_ms": round(prove_ms, 3),
            "prove_floor_ms": round(prove_floor, 3),
            "verify_ms": round(ms[vkey] / per, 3),
            "verify_floor_ms": round(fl[vkey] / per, 3),
            "bytes": sizes[name],
            "proofs": list(proofs),
            "soundness_bits": min(SOUNDNESS_BITS[p] for p in proofs),
            "verify_ops": {k: round(v / per, 1) for k, v in sorted(counted[vkey].items())},
        }
    roles = {
        "dealer": (
            "new dealer",
            "a.receive_d1",
            "a.receive_d3",
            "a.show",
            "b.receive_show"[:0] or "a.receive_show",
        ),
        "nondealer": ("new nondealer", "b.d1", "b.receive_d2", "b.show", "b.receive_show"),
    }
    hand_ms = {r: sum(ms[k] for k in keys) for r, keys in roles.items()}
    hand_floor = {r: sum(fl[k] for k in keys) for r, keys in roles.items()}
    curve = {k: _curve_floor_ms(c, us) for k, c in counted.items()}
    hand_curve = {r: sum(curve[k] for k in keys) for r, keys in roles.items()}
    ops = {
        r: dict(sorted(sum((counted[k] for k in keys), Counter()).items()))
        for r, keys in roles.items()
    }
    bytes_per_hand = sizes["D1"] + sizes["D2"] + sizes["D3"] + 6 * sizes["show"]
    return {
        "group": "secp256k1 (coincurve " + _coincurve_version() + ")",
        "primitives_us": {k: round(v, 4) for k, v in us.items()},
        "steps": step_out,
        "calls_ms": {k: round(v, 3) for k, v in ms.items()},
        "hand_ms": {r: round(v, 3) for r, v in hand_ms.items()},
        "hand_floor_ms": {r: round(v, 3) for r, v in hand_floor.items()},
        "ratio": {r: round(hand_ms[r] / hand_floor[r], 3) for r in hand_ms},
        "hand_curve_floor_ms": {r: round(v, 3) for r, v in hand_curve.items()},
        "ops": ops,
        "verifier_ms": round(ms["verify_hand"], 3),
        "verifier_floor_ms": round(fl["verify_hand"], 3),
        "bytes_per_hand": bytes_per_hand,
        "soundness_bits": min(SOUNDNESS_BITS.values()),
        "security_bits": SECURITY_BITS,
        "hidden_cards_revealed": 0,
    }


def _coincurve_version() -> str:
    return str(getattr(coincurve, "__version__", "?"))
