"""protocol_spec/vectors/deck_v1.json, checked two ways.

1. The file is what the implementation produces today (``_vectors.build()``).
2. An independent re-implementation of ``protocol_spec/deck.md`` written here
   from the spec alone -- RFC 5869 HKDF on ``hmac``, pure-Python P-256
   arithmetic, no ``truc_p2p`` code -- reproduces every value in the file.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from truc_p2p.deck import Role, audit_hand, card_encodings, commitment
from truc_p2p.deck.legacy_v1._record import HandRecord
from truc_p2p.deck.legacy_v1._vectors import build

VECTORS = Path(__file__).resolve().parents[2] / "protocol_spec" / "vectors" / "deck_v1.json"

# -- a pure-Python P-256 -----------------------------------------------------------------

P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B


def lift(x: int) -> tuple[int, int] | None:
    """The point with this x and even y, or None."""
    if x >= P:
        return None
    rhs = (x * x * x - 3 * x + B) % P
    y = pow(rhs, (P + 1) // 4, P)
    if y * y % P != rhs:
        return None
    return (x, y if y % 2 == 0 else P - y)


def x_of_mul(k: int, point: tuple[int, int]) -> int:
    """x(k * point), Jacobian double-and-add (k in [1, n-1])."""

    def dbl(p: tuple[int, int, int]) -> tuple[int, int, int]:
        x, y, z = p
        if y == 0:
            return (0, 1, 0)
        zz = z * z % P
        m = 3 * (x - zz) * (x + zz) % P
        s = 4 * x * y * y % P
        nx = (m * m - 2 * s) % P
        ny = (m * (s - nx) - 8 * pow(y, 4, P)) % P
        return (nx, ny, 2 * y * z % P)

    def add(p: tuple[int, int, int], q: tuple[int, int]) -> tuple[int, int, int]:
        x1, y1, z1 = p
        if z1 == 0:
            return (q[0], q[1], 1)
        z1z1 = z1 * z1 % P
        u2 = q[0] * z1z1 % P
        s2 = q[1] * z1 * z1z1 % P
        h = (u2 - x1) % P
        r = (s2 - y1) % P
        if h == 0:
            return dbl(p) if r == 0 else (0, 1, 0)
        hh = h * h % P
        hhh = h * hh % P
        v = x1 * hh % P
        nx = (r * r - hhh - 2 * v) % P
        ny = (r * (v - nx) - y1 * hhh) % P
        return (nx, ny, z1 * h % P)

    acc = (0, 1, 0)
    for bit in bin(k)[2:]:
        acc = dbl(acc)
        if bit == "1":
            acc = add(acc, point)
    x, _, z = acc
    return x * pow(z * z, -1, P) % P


def enc_x(k: int, x: bytes) -> bytes:
    point = lift(int.from_bytes(x, "big"))
    assert point is not None
    return x_of_mul(k, point).to_bytes(32, "big")


# -- RFC 5869 on hmac ----------------------------------------------------------------------


def hkdf_ref(ikm: bytes, salt: bytes, info: bytes, length: int) -> bytes:
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    out, block, i = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([i]), hashlib.sha256).digest()
        out += block
        i += 1
    return out[:length]


def test_reference_hkdf_is_rfc5869() -> None:
    okm = hkdf_ref(bytes([0x0B] * 22), bytes(range(13)), bytes(range(0xF0, 0xFA)), 42)
    assert okm.hex() == (
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
    )


def reference_secrets(seed: bytes, game_id: bytes, hand: int, role_byte: bytes) -> dict[str, Any]:
    ctx = game_id + hand.to_bytes(4, "big") + role_byte
    salt = b"truc-p2p/v1/deck/hkdf"
    stream = hkdf_ref(seed, salt, b"truc-p2p/v1/deck/keys" + ctx, 255 * 32)
    scalars: list[int] = []
    for off in range(0, len(stream), 32):
        k = int.from_bytes(stream[off : off + 32], "big")
        if 1 <= k < N:
            scalars.append(k)
        if len(scalars) == 33:
            break
    words: Iterator[int] = iter(
        struct.unpack(">2040I", hkdf_ref(seed, salt, b"truc-p2p/v1/deck/perm" + ctx, 255 * 32))
    )
    perm = list(range(32))
    for i in range(31, 0, -1):
        m = i + 1
        while True:
            v = next(words)
            if v < 2**32 - 2**32 % m:
                break
        j = v % m
        perm[i], perm[j] = perm[j], perm[i]
    return {"global_key": scalars[0], "card_keys": scalars[1:], "permutation": perm}


@pytest.fixture(scope="module")
def vectors() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(VECTORS.read_text())
    return data


def test_file_is_what_the_implementation_produces(vectors: dict[str, Any]) -> None:
    assert vectors == build()


def test_card_encodings_from_the_spec(vectors: dict[str, Any]) -> None:
    assert int(vectors["order"], 16) == N
    entries = vectors["card_encodings"]
    assert len(entries) == 32
    for i, entry in enumerate(entries):
        assert entry["card"] == i
        counter = 0
        while True:
            x = hashlib.sha256(
                b"truc-p2p/v1/card" + bytes([i]) + counter.to_bytes(4, "big")
            ).digest()
            if lift(int.from_bytes(x, "big")) is not None:
                break
            counter += 1
        assert entry["counter"] == counter
        assert entry["x"] == x.hex()
        assert card_encodings()[i] == x


@pytest.mark.parametrize("case_index", [0, 1])
def test_case_from_the_spec(vectors: dict[str, Any], case_index: int) -> None:
    case = vectors["cases"][case_index]
    game_id = bytes.fromhex(case["game_id"])
    hand = case["hand"]
    encodings = [bytes.fromhex(e["x"]) for e in vectors["card_encodings"]]
    sec = {}
    for role, byte in (("dealer", b"\x00"), ("nondealer", b"\x01")):
        side = case[role]
        seed = bytes.fromhex(side["seed"])
        ref = reference_secrets(seed, game_id, hand, byte)
        assert side["global_key"] == f"{ref['global_key']:064x}"
        assert side["card_keys"] == [f"{k:064x}" for k in ref["card_keys"]]
        assert side["permutation"] == ref["permutation"]
        expected_commitment = hashlib.sha256(
            b"truc-p2p/v1/deck/commit" + game_id + hand.to_bytes(4, "big") + byte + seed
        ).digest()
        assert side["commitment"] == expected_commitment.hex()
        sec[role] = ref
    a, b = sec["dealer"]["global_key"], sec["nondealer"]["global_key"]
    ak, bk = sec["dealer"]["card_keys"], sec["nondealer"]["card_keys"]
    pa, pb = sec["dealer"]["permutation"], sec["nondealer"]["permutation"]
    d1 = [enc_x(a, encodings[pa[i]]) for i in range(32)]
    d2 = [enc_x(b, d1[pb[i]]) for i in range(32)]
    deal = [pa[pb[i]] for i in range(32)]
    assert case["deal"] == deal
    assert case["d1"] == [x.hex() for x in d1]
    assert case["d2"] == [x.hex() for x in d2]
    assert case["d3"] == [enc_x(ak[i] * b % N, encodings[deal[i]]).hex() for i in range(32)]
    assert case["d4"] == [enc_x(ak[i] * bk[i] % N, encodings[deal[i]]).hex() for i in range(32)]

    def keys_for(card_keys: list[int], positions: tuple[int, ...]) -> dict[str, str]:
        return {str(p): f"{card_keys[p]:064x}" for p in positions}

    assert case["d3_keys"] == keys_for(ak, (0, 2, 4))
    assert case["d4_keys"] == keys_for(bk, (1, 3, 5))
    redeal = bool(case["dealer_redeal_keys"])
    assert redeal == (case_index == 1)
    if redeal:
        assert case["dealer_redeal_keys"] == keys_for(ak, (6, 8, 10))
        assert case["nondealer_redeal_keys"] == keys_for(bk, (7, 9, 11))
    dealer_pos = (7, 9, 11) if redeal else (1, 3, 5)
    nondealer_pos = (6, 8, 10) if redeal else (0, 2, 4)
    assert case["dealer_shown"] == keys_for(ak, dealer_pos)
    assert case["nondealer_shown"] == keys_for(bk, nondealer_pos)
    assert case["dealer_cards"] == {str(p): deal[p] for p in dealer_pos}
    assert case["nondealer_cards"] == {str(p): deal[p] for p in nondealer_pos}
    # Opening a card with both keys, as the spec describes, from the final deck.
    for p in dealer_pos + nondealer_pos:
        x = enc_x(pow(ak[p] * bk[p], -1, N), bytes.fromhex(case["d4"][p]))
        assert encodings.index(x) == deal[p]


@pytest.mark.parametrize("case_index", [0, 1])
def test_vector_case_passes_the_audit(vectors: dict[str, Any], case_index: int) -> None:
    case = vectors["cases"][case_index]

    def keys(name: str) -> dict[int, bytes]:
        return {int(p): bytes.fromhex(k) for p, k in case[name].items()}

    def deck(name: str) -> tuple[bytes, ...]:
        return tuple(bytes.fromhex(x) for x in case[name])

    record = HandRecord(
        game_id=bytes.fromhex(case["game_id"]),
        hand=case["hand"],
        dealer_commitment=bytes.fromhex(case["dealer"]["commitment"]),
        nondealer_commitment=bytes.fromhex(case["nondealer"]["commitment"]),
        d1=deck("d1"),
        d2=deck("d2"),
        d3=deck("d3"),
        d4=deck("d4"),
        d3_keys=keys("d3_keys"),
        d4_keys=keys("d4_keys"),
        dealer_redeal_keys=keys("dealer_redeal_keys"),
        nondealer_redeal_keys=keys("nondealer_redeal_keys"),
        dealer_shown=keys("dealer_shown"),
        nondealer_shown=keys("nondealer_shown"),
    )
    report = audit_hand(
        record,
        dealer_seed=bytes.fromhex(case["dealer"]["seed"]),
        nondealer_seed=bytes.fromhex(case["nondealer"]["seed"]),
    )
    assert list(report.deal) == case["deal"]
    assert record.dealer_commitment == commitment(
        bytes.fromhex(case["dealer"]["seed"]),
        game_id=record.game_id,
        hand=record.hand,
        role=Role.DEALER,
    )


def test_file_text_is_rendered_exactly() -> None:
    from truc_p2p.deck.legacy_v1._vectors import render

    assert VECTORS.read_text() == render()
