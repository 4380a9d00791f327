"""secp256k1 points for deck v2 (deck_v2.md §2): a point is a coincurve key or None
(the point at infinity), scalars are Python ints mod n."""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator

from coincurve import PublicKey

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
Point = PublicKey | None
ZERO = bytes(33)


def be32(i: int) -> bytes:
    return struct.pack("!I", i)


def scalar_bytes(k: int) -> bytes:
    return (k % N).to_bytes(32, "big")


def enc(p: Point) -> bytes:
    """33-byte compressed, or 33 zero bytes for the point at infinity (inside hashes)."""
    return ZERO if p is None else p.format(compressed=True)


def dec(data: bytes) -> PublicKey:
    return PublicKey(data)


def gmul(k: int) -> Point:
    k %= N
    return None if k == 0 else PublicKey.from_valid_secret(scalar_bytes(k))


def mul(p: Point, k: int) -> Point:
    k %= N
    if p is None or k == 0:
        return None
    return p.multiply(scalar_bytes(k))


def add(*points: Point) -> Point:
    live = [p for p in points if p is not None]
    if not live:
        return None
    if len(live) == 1:
        return live[0]
    try:
        return PublicKey.combine_keys(live)
    except ValueError:  # the sum is the point at infinity
        return None


def neg(p: Point) -> Point:
    """−P, as (n − 1)·P (deck_v2.md §6: −e·X is (n − e)·X)."""
    return mul(p, N - 1)


def hp(tag: bytes, i: int) -> tuple[PublicKey, int]:
    """deck_v2.md §2: the first 02 || SHA-256(tag || byte(i) || BE32(c)) that decodes."""
    c = 0
    while True:
        candidate = b"\x02" + hashlib.sha256(tag + bytes([i]) + be32(c)).digest()
        try:
            return PublicKey(candidate), c
        except ValueError:
            c += 1


def D(label: bytes, *parts: bytes) -> bytes:
    return hashlib.sha256(b"truc-p2p/v2/deck/" + label + b"\x00" + b"".join(parts)).digest()


def Hn(label: bytes, *parts: bytes) -> int:
    return int.from_bytes(D(label, *parts), "big") % N


def side_key(seed: bytes, t0: bytes, role: int) -> bytes:
    return hmac.new(seed, b"truc-p2p/v2/deck/secret" + t0 + bytes([role]), "sha256").digest()


def scalar(key: bytes, label: bytes, data: bytes, i: int) -> int:
    mac = hmac.new(key, label + b"\x00" + data + be32(i), "sha512").digest()
    return int.from_bytes(mac, "big") % (N - 1) + 1


def perm(key: bytes, data: bytes) -> list[int]:
    """deck_v2.md §3: Fisher–Yates over one continuous stream of 4-byte words."""

    def words() -> Iterator[int]:
        block = 0
        while True:
            mac = hmac.new(key, b"perm\x00" + data + be32(block), "sha256").digest()
            yield from struct.unpack("!8I", mac)
            block += 1

    stream = words()
    out = list(range(32))
    for i in range(31, 0, -1):
        bound = 2**32 - 2**32 % (i + 1)
        while True:
            v = next(stream)
            if v < bound:
                break
        j = v % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out
