"""Seed derivation: HKDF, rejection sampling, Fisher-Yates, group helpers."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import random
from collections import Counter
from collections.abc import Iterator

import pytest
from helpers.deck import GAME_ID, N, inv, mul

from truc_p2p.deck import DeckError, Role, card_encodings
from truc_p2p.deck.legacy_v1 import _group as group
from truc_p2p.deck.legacy_v1 import _secrets as sec


def chi_square(counts: Counter[object], categories: list[object], total: int) -> float:
    expected = total / len(categories)
    return sum((counts[c] - expected) ** 2 / expected for c in categories)


# Upper 1e-4 quantile of chi-square, df = 5 and 23 (Wilson-Hilferty, rounded up).
CHI2_CRIT = {5: 25.8, 23: 55.0}


def _hkdf_ref(seed: bytes, info: bytes, length: int) -> bytes:
    prk = hmac.new(sec.HKDF_SALT, seed, hashlib.sha256).digest()
    out, block, i = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([i]), hashlib.sha256).digest()
        out += block
        i += 1
    return out[:length]


def test_hkdf_matches_rfc5869_and_blocks_are_prefixes() -> None:
    seed = bytes(range(32))
    full = _hkdf_ref(seed, b"info", 255 * 32)
    assert sec.hkdf(seed, b"info", 100) == full[:100]
    blocks = sec.hkdf_blocks(seed, b"info", first=2)
    # Past the short first call the stream continues seamlessly from the long one.
    assert b"".join(itertools.islice(blocks, 10)) == full[: 10 * 32]
    assert b"".join(itertools.islice(blocks, 245)) == full[10 * 32 :]


def test_hkdf_stream_exhaustion_is_an_error() -> None:
    blocks = sec.hkdf_blocks(bytes(32), b"x", first=1)
    for _ in range(255):
        next(blocks)
    with pytest.raises(DeckError):
        next(blocks)


def test_scalar_rejection() -> None:
    crafted = [bytes(32), b"\xff" * 32, N.to_bytes(32, "big"), (N - 1).to_bytes(32, "big")]
    crafted += [(1).to_bytes(32, "big")]
    assert list(sec._scalars(iter(crafted))) == [N - 1, 1]


def test_uniform_draw_rejection() -> None:
    m = 3
    limit = 2**32 - 2**32 % m  # 4294967295: only 2**32 - 1 ... is rejected
    words = iter([2**32 - 1, limit - 1, 5])
    assert sec._uniform_below(words, m) == (limit - 1) % m
    assert sec._uniform_below(iter([2**32 - 1, 2**32 - 1, 7]), m) == 1
    m = 31
    limit = 2**32 - 2**32 % m
    assert sec._uniform_below(iter([limit, limit + 1, limit - 1]), m) == (limit - 1) % m


def _words(rng: random.Random) -> Iterator[int]:
    while True:
        yield rng.getrandbits(32)


def _naive_shuffle(words: Iterator[int], size: int) -> tuple[int, ...]:
    """The classic biased shuffle: j uniform over the whole range at every step."""
    perm = list(range(size))
    for i in range(size - 1, 0, -1):
        j = next(words) % size
        perm[i], perm[j] = perm[j], perm[i]
    return tuple(perm)


@pytest.mark.parametrize("size", [3, 4])
def test_fisher_yates_is_unbiased_and_the_test_can_fail(size: int) -> None:
    rng = random.Random(20240601 + size)
    perms: list[object] = list(itertools.permutations(range(size)))
    total = 300 * len(perms)
    words = _words(rng)
    good = Counter[object](sec.fisher_yates(words, size) for _ in range(total))
    naive = Counter[object](_naive_shuffle(words, size) for _ in range(total))
    crit = CHI2_CRIT[len(perms) - 1]
    assert set(good) == set(perms)
    assert chi_square(good, perms, total) < crit
    assert chi_square(naive, perms, total) > crit  # the statistic does catch a bias


def test_derived_secrets_are_well_formed() -> None:
    for role in Role:
        s = sec.derive_secrets(bytes(range(32)), game_id=GAME_ID, hand=9, role=role)
        assert 1 <= s.global_key < N
        assert len(s.card_keys) == 32
        assert all(1 <= k < N for k in s.card_keys)
        assert len(set(s.card_keys) | {s.global_key}) == 33
        assert sorted(s.permutation) == list(range(32))
        assert s.permutation == sec.derive_permutation(
            bytes(range(32)), game_id=GAME_ID, hand=9, role=role
        )
    d = sec.derive_secrets(bytes(32), game_id=GAME_ID, hand=0, role=Role.DEALER)
    n = sec.derive_secrets(bytes(32), game_id=GAME_ID, hand=0, role=Role.NONDEALER)
    assert d.global_key != n.global_key and d.permutation != n.permutation


def test_group_helpers() -> None:
    x = card_encodings()[5]
    # Commutativity and decryption on x-coordinates.
    assert mul(7, mul(11, x)) == mul(11, mul(7, x)) == mul(77, x)
    assert mul(inv(77), mul(77, x)) == x
    assert mul(N - 5, x) == mul(5, x)  # k and n - k agree on x
    values = [3, 5, 7, N - 1]
    assert group.batch_inverse(values) == [pow(v, -1, N) for v in values]
    assert group.parse_scalar((5).to_bytes(32, "big")) == 5
    for bad in [bytes(32), N.to_bytes(32, "big"), b"\x01", "x" * 32, None, 5]:
        assert group.parse_scalar(bad) is None
    assert group.scalar_bytes(1) == bytes(31) + b"\x01"
    with pytest.raises(ValueError):
        group.decode(b"\xff" * 32)


def test_encodings_are_cached_points_with_no_small_relations() -> None:
    encodings = card_encodings()
    assert encodings is card_encodings()
    assert len(set(encodings)) == 32
    assert all(len(x) == 32 for x in encodings)
    # Not i * G (or any small multiple of one card): the hashing leaves no known relation.
    g_x = int("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296", 16).to_bytes(
        32, "big"
    )
    small = {mul(k, g_x) for k in range(1, 64)} | {mul(k, encodings[0]) for k in range(2, 64)}
    assert small.isdisjoint(encodings)
