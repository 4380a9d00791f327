"""``truc-p2p bench deck``: deck v1 and v2, per step, per hand and per role, against the floor.

Every figure is process CPU time (``time.process_time``), the median over the
hands run.  The **floor** of a step is counted primitive by primitive: the
step is run once more with every primitive wrapped in a counter, and each
count is charged the primitive's own cost, measured in the same run in small
batches interleaved with the hands (so other load skews both alike).

* v1 (P-256 through ``cryptography``): point decodings, key derivations,
  multiplications (an ECDH ``exchange`` with an existing key) and modular
  inversions, each at its own cost -- a multiplication is no longer charged a
  decode and a key derivation it did not do.
* v2 (secp256k1 through ``coincurve``): variable-base and fixed-base
  multiplications, additions (per call and per term), point decodings,
  negations, encodings, scalar and permutation derivations (HMAC) and
  SHA-256 hashing (per call and per byte).

The ratio ``hand / floor`` is the Python overhead around the crypto.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import coincurve
import cryptography
import msgpack

from truc_p2p.bench._text import pad, widest
from truc_p2p.deck import (
    DeckSide,
    DeckSideV2,
    HandVerifierV2,
    Role,
    audit_hand,
    card_encodings,
    positions,
    verify_hand_v2,
)
from truc_p2p.deck.legacy_v1 import _group
from truc_p2p.deck.legacy_v1._steps import OpCounts
from truc_p2p.deck.v2 import _derive as _v2_derive
from truc_p2p.deck.v2 import _ec
from truc_p2p.deck.v2 import _hand as _v2_hand
from truc_p2p.deck.v2 import _proofs as _v2_proofs
from truc_p2p.deck.v2 import _side as _v2_side
from truc_p2p.ui import N_, _, ngettext

__all__ = ["main", "report_lines", "run"]

_BATCH = 16
BUDGET_MS = {"peer": 300.0, "peer_stretch": 60.0, "verifier": 300.0}
# Statistical soundness of one proof, in bits: a Fiat-Shamir challenge mod n
# (|n| ~ 2**256) for the Schnorr and DLEQ proofs; for the shuffle argument the
# Schwartz-Zippel term (N + 1)/n of its 32 permutation challenges dominates.
# Computationally every proof rests on discrete logs in secp256k1 (128 bits).
SOUNDNESS_BITS = {"key": 256, "share": 256, "shuffle": 250}
SECURITY_BITS = 128


def _cpu() -> float:
    return time.process_time()


def _med(values: list[float]) -> float:
    return statistics.median(values)


def _size(payload: object) -> int:
    return len(msgpack.packb(payload, use_bin_type=True))


# -- v1 ----------------------------------------------------------------------------------


def _v1_primitives(xs: list[bytes]) -> dict[str, float]:
    decode, derive, ecdh = _group.decode, _group.derive_key, _group.ECDH
    scalars = [1 + secrets.randbelow(_group.ORDER - 1) for _ in xs]
    points = [decode(x) for x in xs]
    key = derive(scalars[0])
    n = len(xs)

    def per_call(fn: Callable[[], object]) -> float:
        start = _cpu()
        fn()
        return (_cpu() - start) * 1e6 / n

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
        start = _cpu()
        out = fn()
        t[name] = _cpu() - start
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
            s0 = _cpu()
            key = shower.show(pos)
            s1 = _cpu()
            receiver.receive_show(pos, key)
            s2 = _cpu()
            shows[name] += s1 - s0
            shows[f"check {other}"] += s2 - s1
    rec = a.record()
    timed("audit", lambda: audit_hand(rec, dealer_seed=a.seed, nondealer_seed=b.seed))
    sizes = {
        "D1": _size({"deck": list(d1), "commitment": a.commitment}),
        "D2": _size({"deck": list(d2), "commitment": b.commitment}),
        "D3": _size({"deck": list(d3), "keys": list(k3.values())}),
        "D4": _size({"deck": list(d4), "keys": list(k4.values())}),
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
    xs = list(_v1_hand(game_id, 0)["d4"][:_BATCH])
    prims: list[dict[str, float]] = []
    runs: list[dict[str, Any]] = []
    for h in range(hands):
        prims.append(_v1_primitives(xs))
        run = _v1_hand(game_id, h + 1)
        runs.append(run)
        xs = list(run["d4"][:_BATCH])
    us = {k: _med([p[k] for p in prims]) for k in prims[0]}
    step_ms = {k: _med([r["t"][k] for r in runs]) * 1e3 for k in runs[0]["t"]}
    show_ms = {k: _med([r["shows"][k] for r in runs]) * 1e3 for k in runs[0]["shows"]}
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


# -- v2 ----------------------------------------------------------------------------------


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
    ks = [1 + secrets.randbelow(_ec.ORDER - 1) for _ in range(_BATCH)]
    pts = [_ec.gmul(k) for k in ks]
    raws = [_ec.encode(p) for p in pts]
    many = [p for p in pts if p is not None]
    key = secrets.token_bytes(32)
    blob = secrets.token_bytes(4096)
    n = _BATCH

    def per_call(fn: Callable[[], object], calls: int = n) -> float:
        start = _cpu()
        fn()
        return (_cpu() - start) * 1e6 / calls

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
        start = _cpu()
        out = fn()
        t[name] = t.get(name, 0.0) + _cpu() - start
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
            show_sizes.append(_size({"pos": pos, "share": share}))
    rec = a.record()
    timed("verify_hand", lambda: verify_hand_v2(rec))
    sizes = {"D1": _size(d1), "D2": _size(d2), "D3": _size(d3), "show": max(show_sizes)}
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
    us = {k: _med([p[k] for p in prims]) for k in prims[0]}
    ms = {k: _med([r[k] for r in runs]) * 1e3 for k in runs[0]}
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


def run(hands: int) -> dict[str, Any]:
    """Both versions; ``ok`` if v2 is within the issue's budget."""
    v1 = bench_v1(hands)
    v2 = bench_v2(hands)
    worst = max(v2["hand_ms"].values())
    return {
        "hands": hands,
        "cpu": "process time, medians",
        "v1": v1,
        "v2": v2,
        "budget_ms": BUDGET_MS,
        "ok": worst <= BUDGET_MS["peer"] and v2["verifier_ms"] <= BUDGET_MS["verifier"],
        "stretch_ok": worst <= BUDGET_MS["peer_stretch"],
    }


def main(hands: int, as_json: bool) -> int:
    """Run over ``hands`` hands; print text or one JSON object."""
    if hands < 1:
        print(
            "truc-p2p bench: " + _("--hands must be at least 1, not {n}", n=hands),
            file=sys.stderr,
        )
        return 2
    result = run(hands)
    if as_json:
        print(json.dumps(result, sort_keys=True))
        return 0
    print("\n".join(report_lines(result)))
    return 0


#: The names of the roles and steps in the text report (``--json`` keeps the keys).
ROLES = {"dealer": N_("dealer"), "nondealer": N_("non-dealer"), "either": N_("either player")}
STEPS = {"show": N_("show")}


def report_lines(result: dict[str, Any]) -> list[str]:
    """The text report of :func:`run`'s result, in the language in use; the role
    and step names are padded to the widest, so the columns stay aligned."""
    v1, v2 = result["v1"], result["v2"]
    roles = {key: _(text) for key, text in ROLES.items()}
    role_width = widest(roles.values(), 10)
    steps = {key: _(STEPS.get(key, key)) for key in v2["steps"]}
    step_width = widest(steps.values(), 5)

    def role(key: str) -> str:
        return pad(roles[key], role_width)

    lines = [
        ngettext(
            "deck bench: {n} hand, process CPU time, medians",
            "deck bench: {n} hands, process CPU time, medians",
            result["hands"],
        ),
        "",
        f"v1  {v1['group']}",
    ]
    for r in ("dealer", "nondealer"):
        lines.append(
            "  "
            + _(
                "{role} hand {hand} ms  floor {floor} ms  ratio {ratio}  (old floor {old} ms)",
                role=role(r),
                hand=f"{v1['hand_ms'][r]:7.2f}",
                floor=f"{v1['floor_ms'][r]:7.2f}",
                ratio=f"{v1['ratio'][r]:.2f}",
                old=f"{v1['old_floor_ms'][r]:.2f}",
            )
        )
    lines.append(
        "  "
        + ngettext(
            "audit {audit} ms (floor {floor}); {bytes} bytes per hand; soundness none "
            "(audit); {n} hidden card revealed",
            "audit {audit} ms (floor {floor}); {bytes} bytes per hand; soundness none "
            "(audit); {n} hidden cards revealed",
            v1["hidden_cards_revealed"],
            audit=f"{v1['verifier_ms']:.2f}",
            floor=f"{v1['verifier_floor_ms']:.2f}",
            bytes=v1["bytes_per_hand"],
        )
    )
    lines += ["", f"v2  {v2['group']}"]
    for s, d in v2["steps"].items():
        lines.append(
            "  "
            + _(
                "{step} {sender} prove {prove} ms (floor {prove_floor})  verify {verify} ms "
                "(floor {verify_floor})  {bytes} bytes  {bits} bits",
                step=pad(steps[s], step_width),
                sender=role(d["sender"]),
                prove=f"{d['prove_ms']:7.2f}",
                prove_floor=f"{d['prove_floor_ms']:6.2f}",
                verify=f"{d['verify_ms']:7.2f}",
                verify_floor=f"{d['verify_floor_ms']:6.2f}",
                bytes=f"{d['bytes']:6}",
                bits=d["soundness_bits"],
            )
        )
    for r in ("dealer", "nondealer"):
        lines.append(
            "  "
            + _(
                "{role} hand {hand} ms  floor {floor} ms  ratio {ratio}  (curve operations "
                "alone {curve} ms)",
                role=role(r),
                hand=f"{v2['hand_ms'][r]:7.2f}",
                floor=f"{v2['hand_floor_ms'][r]:7.2f}",
                ratio=f"{v2['ratio'][r]:.2f}",
                curve=f"{v2['hand_curve_floor_ms'][r]:.2f}",
            )
        )
    lines.append(
        "  "
        + _(
            "verifier {verifier} ms (floor {floor}); {bytes} bytes per hand; 0 hidden cards "
            "revealed",
            verifier=f"{v2['verifier_ms']:.2f}",
            floor=f"{v2['verifier_floor_ms']:.2f}",
            bytes=v2["bytes_per_hand"],
        )
    )
    b = result["budget_ms"]
    lines.append(
        "  "
        + _(
            "budget: peer <= {peer} ms ({peer_verdict}), stretch <= {stretch} ms "
            "({stretch_verdict})",
            peer=f"{b['peer']:.0f}",
            peer_verdict=_("ok") if result["ok"] else _("OVER"),
            stretch=f"{b['peer_stretch']:.0f}",
            stretch_verdict=_("ok") if result["stretch_ok"] else _("over"),
        )
    )
    return lines


_HASHLIB = hashlib  # the v2 floor's hash cost is measured through _v2_derive.digest
