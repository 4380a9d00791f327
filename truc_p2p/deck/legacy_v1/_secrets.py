"""Per-hand secrets derived from a committed 32-byte seed.

Theory of operation: a player draws a fresh seed per hand and commits to it
with :func:`commitment` before the seed influences anything the other player
sees.  Everything secret (the global key, the 32 per-card keys and the
shuffle) is a deterministic function of the seed and of the hand's context
(game id, hand number, role), so revealing the seed after the game lets anyone
recompute every message of the hand byte for byte.

Derivation (all HKDF-SHA256, RFC 5869)::

    context = game_id (32) || hand (4, big-endian) || role (1: 0x00 dealer, 0x01 non-dealer)
    PRK     = HKDF-Extract(salt = b"truc-p2p/v1/deck/hkdf", IKM = seed)
    keys    = HKDF-Expand(PRK, b"truc-p2p/v1/deck/keys" || context, L)   read 32 bytes at a time
    perm    = HKDF-Expand(PRK, b"truc-p2p/v1/deck/perm" || context, L)   read 4 bytes at a time

The key stream yields, by rejection (keep a 32-byte big-endian value only if it
is in [1, n-1]), the global key and then the per-card keys of positions 0..31.
The permutation stream drives Fisher-Yates: ``perm = [0..31]``; for ``i`` from
31 down to 1, draw ``j`` uniform in ``[0, i]`` (4-byte big-endian ``v``, rejected
if ``v >= 2**32 - 2**32 % (i + 1)``, else ``j = v % (i + 1)``) and swap
``perm[i], perm[j]``.  HKDF-Expand output of length L is a prefix of any longer
output, so reading the stream lazily gives the same bytes as any fixed L.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from truc_p2p.deck._errors import DeckError, DeckUsageError
from truc_p2p.deck._schedule import N_CARDS, Role
from truc_p2p.deck.legacy_v1._group import ORDER

__all__ = [
    "SEED_SIZE",
    "Secrets",
    "commitment",
    "context_bytes",
    "derive_permutation",
    "derive_secrets",
    "fisher_yates",
    "hkdf",
    "hkdf_blocks",
    "new_seed",
]

SEED_SIZE = 32
GAME_ID_SIZE = 32
HKDF_SALT = b"truc-p2p/v1/deck/hkdf"
KEYS_INFO = b"truc-p2p/v1/deck/keys"
PERM_INFO = b"truc-p2p/v1/deck/perm"
COMMIT_TAG = b"truc-p2p/v1/deck/commit"
_MAX_BLOCKS = 255  # HKDF-Expand limit: 255 * 32 bytes
_BLOCK = 32


def new_seed(randbytes: Callable[[int], bytes]) -> bytes:
    """A fresh 32-byte seed from the injected RNG (pass ``secrets.token_bytes``)."""
    seed = randbytes(SEED_SIZE)
    if not isinstance(seed, bytes) or len(seed) != SEED_SIZE:
        raise DeckUsageError("randbytes(32) must return 32 bytes")
    return seed


def context_bytes(*, game_id: bytes, hand: int, role: Role) -> bytes:
    """``game_id || hand (4 bytes BE) || role byte``; validates the local arguments."""
    if not isinstance(game_id, bytes) or len(game_id) != GAME_ID_SIZE:
        raise DeckUsageError("game_id must be 32 bytes")
    if not isinstance(hand, int) or isinstance(hand, bool) or not 0 <= hand < 2**32:
        raise DeckUsageError("hand must be an int in [0, 2**32)")
    if not isinstance(role, Role):
        raise DeckUsageError("role must be a Role")
    return game_id + hand.to_bytes(4, "big") + role.wire_byte


def _check_seed(seed: bytes) -> None:
    if not isinstance(seed, bytes) or len(seed) != SEED_SIZE:
        raise DeckUsageError("seed must be 32 bytes")


def commitment(seed: bytes, *, game_id: bytes, hand: int, role: Role) -> bytes:
    """SHA-256(b"truc-p2p/v1/deck/commit" || game_id || hand (4 BE) || role byte || seed)."""
    _check_seed(seed)
    ctx = context_bytes(game_id=game_id, hand=hand, role=role)
    return hashlib.sha256(COMMIT_TAG + ctx + seed).digest()


def hkdf(seed: bytes, info: bytes, length: int) -> bytes:
    """HKDF-SHA256(IKM=seed, salt=HKDF_SALT, info), ``length`` bytes (at most 8160)."""
    from cryptography.hazmat.primitives import hashes  # deck v1 only: on first use
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(hashes.SHA256(), length, HKDF_SALT, info).derive(seed)


def hkdf_blocks(seed: bytes, info: bytes, first: int = 1) -> Iterator[bytes]:
    """The HKDF output read 32 bytes at a time.

    The first ``first`` blocks come from one short HKDF call (what a hand almost
    always needs); past them, the full 255-block output is computed once.  Both
    are prefixes of the same byte string.
    """
    short = hkdf(seed, info, first * _BLOCK)
    for offset in range(0, len(short), _BLOCK):
        yield short[offset : offset + _BLOCK]
    full = hkdf(seed, info, _MAX_BLOCKS * _BLOCK)
    for offset in range(len(short), len(full), _BLOCK):
        yield full[offset : offset + _BLOCK]
    raise DeckError("HKDF output exhausted (probability below 2**-7000)")


def _words(blocks: Iterator[bytes]) -> Iterator[int]:
    """The stream read 4 bytes at a time, big-endian."""
    for block in blocks:
        yield from struct.unpack(">8I", block)


def _uniform_below(words: Iterator[int], m: int) -> int:
    """Uniform in [0, m) from 4-byte draws, by rejection."""
    limit = 2**32 - 2**32 % m
    for v in words:
        if v < limit:
            return v % m
    raise DeckError("stream exhausted")  # pragma: no cover - hkdf_blocks raises first


def fisher_yates(words: Iterator[int], size: int) -> tuple[int, ...]:
    """An unbiased permutation of ``range(size)`` drawn from a stream of 4-byte words."""
    perm = list(range(size))
    for i in range(size - 1, 0, -1):
        j = _uniform_below(words, i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return tuple(perm)


def _scalars(blocks: Iterator[bytes]) -> Iterator[int]:
    """Uniform scalars in [1, n-1] from 32-byte draws, by rejection."""
    for block in blocks:
        k = int.from_bytes(block, "big")
        if 1 <= k < ORDER:
            yield k


@dataclass(frozen=True, slots=True)
class Secrets:
    """One player's secrets for one hand.

    ``permutation[i]`` is the index of the input deck entry that the player
    writes (re-encrypted) at index ``i`` of its output deck.  ``card_keys[i]``
    is the player's per-card key for final-deck position ``i``.
    """

    # Never shown in a repr: a stray log line must not leak a hand's keys.
    global_key: int = field(repr=False)
    card_keys: tuple[int, ...] = field(repr=False)
    permutation: tuple[int, ...] = field(repr=False)


def derive_permutation(seed: bytes, *, game_id: bytes, hand: int, role: Role) -> tuple[int, ...]:
    """The shuffle part of :func:`derive_secrets` alone (cheap: no scalars)."""
    _check_seed(seed)
    ctx = context_bytes(game_id=game_id, hand=hand, role=role)
    return fisher_yates(_words(hkdf_blocks(seed, PERM_INFO + ctx, 4)), N_CARDS)


def derive_secrets(seed: bytes, *, game_id: bytes, hand: int, role: Role) -> Secrets:
    """Every secret of ``role`` for this hand, from its seed."""
    _check_seed(seed)
    ctx = context_bytes(game_id=game_id, hand=hand, role=role)
    scalars = _scalars(hkdf_blocks(seed, KEYS_INFO + ctx, 1 + N_CARDS))
    global_key = next(scalars)
    card_keys = tuple([next(scalars) for _ in range(N_CARDS)])
    permutation = fisher_yates(_words(hkdf_blocks(seed, PERM_INFO + ctx, 4)), N_CARDS)
    return Secrets(global_key=global_key, card_keys=card_keys, permutation=permutation)
