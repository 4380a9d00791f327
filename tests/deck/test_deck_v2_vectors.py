"""protocol_spec/vectors/deck_v2.json, checked two ways.

1. The file is what the implementation produces today (the generator script).
2. An independent implementation of ``protocol_spec/deck_v2.md`` written here
   from the spec alone -- pure-Python secp256k1, ``hashlib``/``hmac``, no
   ``truc_p2p`` code -- re-derives every secret from the seeds, recomputes both
   decks byte for byte, verifies every key proof, shuffle proof and share
   proof, and opens every shown card.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
import struct
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "protocol_spec" / "vectors" / "deck_v2.json"

# -- a pure-Python secp256k1 ---------------------------------------------------------------

P = 2**256 - 2**32 - 977
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
GX = 0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798
GY = 0x483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8
Pt = tuple[int, int] | None  # affine, None = infinity
G: Pt = (GX, GY)


def decompress(raw: bytes) -> Pt:
    assert len(raw) == 33 and raw[0] in (2, 3), raw.hex()
    x = int.from_bytes(raw[1:], "big")
    assert x < P
    rhs = (x * x * x + 7) % P
    y = pow(rhs, (P + 1) // 4, P)
    assert y * y % P == rhs, "not on the curve"
    if y % 2 != raw[0] - 2:
        y = P - y
    return (x, y)


def try_decompress(raw: bytes) -> Pt:
    try:
        return decompress(raw)
    except AssertionError:
        return None


def compress(pt: Pt) -> bytes:
    if pt is None:
        return bytes(33)
    return bytes([2 + pt[1] % 2]) + pt[0].to_bytes(32, "big")


Jac = tuple[int, int, int]
INF: Jac = (1, 1, 0)


def _dbl(p: Jac) -> Jac:
    x, y, z = p
    if z == 0 or y == 0:
        return INF
    yy = y * y % P
    s = 4 * x * yy % P
    m = 3 * x * x % P
    nx = (m * m - 2 * s) % P
    return (nx, (m * (s - nx) - 8 * yy * yy) % P, 2 * y * z % P)


def _add(p: Jac, q: Jac) -> Jac:
    if p[2] == 0:
        return q
    if q[2] == 0:
        return p
    x1, y1, z1 = p
    x2, y2, z2 = q
    z1z1, z2z2 = z1 * z1 % P, z2 * z2 % P
    u1, u2 = x1 * z2z2 % P, x2 * z1z1 % P
    s1, s2 = y1 * z2 * z2z2 % P, y2 * z1 * z1z1 % P
    h, r = (u2 - u1) % P, (s2 - s1) % P
    if h == 0:
        return _dbl(p) if r == 0 else INF
    hh = h * h % P
    hhh = h * hh % P
    v = u1 * hh % P
    nx = (r * r - hhh - 2 * v) % P
    return (nx, (r * (v - nx) - s1 * hhh) % P, z1 * z2 * h % P)


def _to_affine(p: Jac) -> Pt:
    if p[2] == 0:
        return None
    zi = pow(p[2], -1, P)
    return (p[0] * zi * zi % P, p[1] * zi * zi * zi % P)


def msm(terms: list[tuple[Pt, int]]) -> Pt:
    """sum k_i P_i by Straus' shared doublings."""
    items = [((pt[0], pt[1], 1), k % N) for pt, k in terms if pt is not None and k % N]
    acc = INF
    for bit in range(255, -1, -1):
        acc = _dbl(acc)
        for pj, k in items:
            if k >> bit & 1:
                acc = _add(acc, pj)
    return _to_affine(acc)


def padd(*pts: Pt) -> Pt:
    return msm([(p, 1) for p in pts])


def pneg(p: Pt) -> Pt:
    return None if p is None else (p[0], (P - p[1]) % P)


# -- the spec, re-implemented --------------------------------------------------------------

TAG = b"truc-p2p/v2/deck/"


def H(label: bytes, *parts: bytes) -> bytes:
    return hashlib.sha256(TAG + label + b"\x00" + b"".join(parts)).digest()


def Hn(label: bytes, *parts: bytes) -> int:
    return int.from_bytes(H(label, *parts), "big") % N


def hash_point(tag: bytes, index: int) -> tuple[Pt, int]:
    c = 0
    while True:
        x = hashlib.sha256(tag + bytes([index]) + c.to_bytes(4, "big")).digest()
        pt = try_decompress(b"\x02" + x)
        if pt is not None:
            return pt, c
        c += 1


def scalar(key: bytes, label: bytes, data: bytes, i: int) -> int:
    raw = hmac.new(key, label + b"\x00" + data + i.to_bytes(4, "big"), hashlib.sha512).digest()
    return int.from_bytes(raw, "big") % (N - 1) + 1


def permutation(key: bytes, data: bytes) -> list[int]:
    words: list[int] = []
    block = 0

    def word() -> int:
        nonlocal block
        if not words:
            raw = hmac.new(key, b"perm\x00" + data + block.to_bytes(4, "big"), hashlib.sha256)
            words.extend(reversed(struct.unpack(">8I", raw.digest())))
            block += 1
        return words.pop()

    perm = list(range(32))
    for i in range(31, 0, -1):
        limit = 2**32 - 2**32 % (i + 1)
        v = word()
        while v >= limit:
            v = word()
        j = v % (i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def sc(raw: bytes, i: int) -> int:
    k = int.from_bytes(raw[32 * i : 32 * i + 32], "big")
    assert k < N
    return k


def verify_pok(y: Pt, proof: bytes, binding: bytes) -> bool:
    e, s = sc(proof, 0), sc(proof, 1)
    t = msm([(G, s), (y, -e)])
    return Hn(b"pok", binding + compress(y), compress(t)) == e


def verify_dleq(y: Pt, base: Pt, share: Pt, proof: bytes, binding: bytes) -> bool:
    e, s = sc(proof, 0), sc(proof, 1)
    t1 = msm([(G, s), (y, -e)])
    t2 = msm([(base, s), (share, -e)])
    stmt = binding + compress(y) + compress(base) + compress(share)
    return Hn(b"dleq", stmt, compress(t1), compress(t2)) == e


def enc(pts: list[Pt]) -> bytes:
    return b"".join(compress(p) for p in pts)


def verify_shuffle(
    inputs: list[list[Pt]],
    outputs: list[list[Pt]],
    vectors: list[list[Pt]],
    proof: bytes,
    binding: bytes,
    hs: list[Pt],
    h: Pt,
) -> bool:
    n, m, width = 32, len(vectors), len(vectors[0])
    assert len(proof) == 2 * n * 33 + 32 * (4 + m + 2 * n)
    c = [decompress(proof[33 * i : 33 * i + 33]) for i in range(n)]
    chain = [decompress(proof[33 * (n + i) : 33 * (n + i) + 33]) for i in range(n)]
    rest = proof[66 * n :]
    e, s1, s2, s3 = (sc(rest, i) for i in range(4))
    s4 = [sc(rest, 4 + k) for k in range(m)]
    shat = [sc(rest, 4 + m + i) for i in range(n)]
    sp = [sc(rest, 4 + m + n + i) for i in range(n)]
    stmt = H(
        b"shuffle/statement",
        binding,
        b"".join(enc(v) for v in vectors),
        b"".join(enc(x) for x in inputs),
        b"".join(enc(x) for x in outputs),
    )
    ubase = H(b"shuffle/u", stmt, enc(c))
    u = [Hn(b"shuffle/u-j", ubase, j.to_bytes(4, "big")) for j in range(n)]
    prod = 1
    for uj in u:
        prod = prod * uj % N
    cbar = padd(*c, *(pneg(x) for x in hs))
    t = [
        msm([(G, s1), (cbar, -e)]),
        msm([(G, s2), (chain[-1], -e), (h, e * prod)]),
        msm([(G, s3)] + [(hs[i], sp[i]) for i in range(n)] + [(c[j], -e * u[j]) for j in range(n)]),
    ]
    for col in range(width):
        terms = [(outputs[i][col], sp[i]) for i in range(n)]
        terms += [(vectors[k][col], -s4[k]) for k in range(m)]
        terms += [(inputs[j][col], -e * u[j]) for j in range(n)]
        t.append(msm(terms))
    prev = [h, *chain[:-1]]
    for i in range(n):
        t.append(msm([(G, shat[i]), (prev[i], sp[i]), (chain[i], -e)]))
    return Hn(b"shuffle/e", stmt, enc(c), enc(chain), enc(t)) == e


def points_of(entry_hex: str, width: int) -> list[Pt]:
    raw = bytes.fromhex(entry_hex)
    assert len(raw) == 33 * width
    return [decompress(raw[33 * k : 33 * k + 33]) for k in range(width)]


# -- the tests -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def vectors() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(VECTORS.read_text())
    return data


def test_the_file_is_what_the_generator_writes() -> None:
    spec = importlib.util.spec_from_file_location(
        "gen_v2", ROOT / "protocol_spec" / "deck_v2_vectors.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.render() == VECTORS.read_text()


def test_card_points_and_generators(vectors: dict[str, Any]) -> None:
    for card in vectors["cards"]:
        pt, counter = hash_point(b"truc-p2p/v2/card", card["index"])
        assert (compress(pt).hex(), counter) == (card["point"], card["counter"])
    gens = [compress(hash_point(b"truc-p2p/v2/gen", i)[0]).hex() for i in range(33)]
    assert gens == [*vectors["generators"], vectors["chain_base"]]
    assert len(set(gens) | {c["point"] for c in vectors["cards"]}) == 65


@pytest.mark.parametrize("index", [0, 1])
def test_independent_implementation(vectors: dict[str, Any], index: int) -> None:
    case = vectors["cases"][index]
    game_id, context = bytes.fromhex(vectors["game_id"]), bytes.fromhex(vectors["context"])
    hand = case["hand"]
    cards = [decompress(bytes.fromhex(c["point"])) for c in vectors["cards"]]
    card_of = {compress(m): i for i, m in enumerate(cards)}
    hs = [decompress(bytes.fromhex(g)) for g in vectors["generators"]]
    h = decompress(bytes.fromhex(vectors["chain_base"]))
    dealer_b, nondealer_b = b"\x00", b"\x01"

    # secrets from the seeds
    t0 = hashlib.sha256(
        b"truc-p2p/v2/deck/hand" + game_id + hand.to_bytes(4, "big") + context
    ).digest()
    assert t0.hex() == case["t0"]
    secrets: dict[str, dict[str, Any]] = {}
    for name, role_b in (("nondealer", nondealer_b), ("dealer", dealer_b)):
        want = case[name]
        seed = bytes.fromhex(want["seed"])
        key = hmac.new(seed, b"truc-p2p/v2/deck/secret" + t0 + role_b, hashlib.sha256).digest()
        assert key.hex() == want["derivation_key"]
        x = scalar(key, b"key", b"", 0)
        assert f"{x:064x}" == want["x"]
        assert compress(msm([(G, x)])).hex() == want["key"]
        secrets[name] = {"key": key, "x": x}

    # D1: recompute from the non-dealer's secrets, then verify it as a receiver would
    d1 = case["d1"]
    kb = secrets["nondealer"]["key"]
    xb = secrets["nondealer"]["x"]
    yb = decompress(bytes.fromhex(d1["key"]))
    perm_b = permutation(kb, t0)
    sigma = [scalar(kb, b"mask", t0, i) for i in range(32)]
    assert perm_b == case["nondealer"]["permutation"]
    assert [f"{s:064x}" for s in sigma] == case["nondealer"]["masks"]
    d1_pts = [points_of(e, 2) for e in d1["deck"]]
    for i in range(32):
        assert d1_pts[i] == [msm([(G, sigma[i])]), msm([(cards[perm_b[i]], 1), (yb, sigma[i])])]
    bind1 = t0 + b"\x01" + nondealer_b
    assert verify_pok(yb, bytes.fromhex(d1["pok"]), bind1)
    inputs1 = [[None, m] for m in cards]
    assert verify_shuffle(inputs1, d1_pts, [[G, yb]], bytes.fromhex(d1["proof"]), bind1, hs, h)
    t1 = H(
        b"T1",
        t0,
        *(bytes.fromhex(d1[k]) for k in ("key", "pok")),
        *(bytes.fromhex(e) for e in d1["deck"]),
        bytes.fromhex(d1["proof"]),
    )
    assert t1.hex() == case["t1"]

    # D2
    d2 = case["d2"]
    ka, xa = secrets["dealer"]["key"], secrets["dealer"]["x"]
    ya = decompress(bytes.fromhex(d2["key"]))
    perm_a = permutation(ka, t1)
    masks = [scalar(ka, b"mask", t1, i) for i in range(64)]
    assert perm_a == case["dealer"]["permutation"]
    assert [f"{s:064x}" for s in masks] == case["dealer"]["masks"]
    d2_pts = [points_of(e, 3) for e in d2["deck"]]
    for i in range(32):
        s, r = masks[2 * i], masks[2 * i + 1]
        a_b, b_ = d1_pts[perm_a[i]]
        assert d2_pts[i] == [
            padd(a_b, msm([(G, s)])),
            msm([(G, r)]),
            padd(b_, msm([(yb, s), (ya, r)])),
        ]
    bind2 = t1 + b"\x02" + dealer_b
    assert verify_pok(ya, bytes.fromhex(d2["pok"]), bind2)
    inputs2 = [[a, None, b_] for a, b_ in d1_pts]
    vectors2 = [[G, None, yb], [None, G, ya]]
    assert verify_shuffle(inputs2, d2_pts, vectors2, bytes.fromhex(d2["proof"]), bind2, hs, h)
    t2 = H(
        b"T2",
        t1,
        *(bytes.fromhex(d2[k]) for k in ("key", "pok")),
        *(bytes.fromhex(e) for e in d2["deck"]),
        bytes.fromhex(d2["proof"]),
    )
    assert t2.hex() == case["t2"]

    # shares: each proven, and equal to x times its layer of its position
    shares: dict[tuple[str, int], Pt] = {}

    def check_share(role: str, pos: int, blob_hex: str, step: bytes) -> None:
        blob = bytes.fromhex(blob_hex)
        assert len(blob) == 97
        share = decompress(blob[:33])
        y, base, x = (ya, d2_pts[pos][1], xa) if role == "dealer" else (yb, d2_pts[pos][0], xb)
        role_b = dealer_b if role == "dealer" else nondealer_b
        assert verify_dleq(y, base, share, blob[33:], t2 + step + role_b + bytes([pos]))
        assert share == msm([(base, x)])
        shares[(role, pos)] = share

    for pos, blob in zip((0, 2, 4), d2["shares"], strict=True):
        check_share("dealer", pos, blob, b"\x02")
    for pos, blob in zip((1, 3, 5), case["d3"]["shares"], strict=True):
        check_share("nondealer", pos, blob, b"\x03")
    if "dealer_redeal" in case:
        for pos, blob in zip((6, 8, 10), case["dealer_redeal"], strict=True):
            check_share("dealer", pos, blob, b"\x05")
        for pos, blob in zip((7, 9, 11), case["nondealer_redeal"], strict=True):
            check_share("nondealer", pos, blob, b"\x05")

    def open_(pos: int) -> int:
        m = padd(d2_pts[pos][2], pneg(shares[("dealer", pos)]), pneg(shares[("nondealer", pos)]))
        return card_of[compress(m)]

    for show in case["shows"]:
        check_share(show["role"], show["pos"], show["share"], b"\x04")
        assert open_(show["pos"]) == show["card"]
        # the deal is the composition of the two shuffles
        assert show["card"] == perm_b[perm_a[show["pos"]]]
    for name, got in case["cards"].items():
        for pos, card in got.items():
            assert perm_b[perm_a[int(pos)]] == card, (name, pos)
    assert case["report"]["hidden_cards_revealed"] == 0
