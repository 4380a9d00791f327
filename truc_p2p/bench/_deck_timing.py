"""The timing helpers both deck benchmarks share (:mod:`truc_p2p.bench._deck`)."""

from __future__ import annotations

import statistics
import time

import msgpack

__all__ = ["BATCH", "cpu_time", "median", "packed_size"]

#: How many calls of a primitive are timed in one batch, between hands.
BATCH = 16


def cpu_time() -> float:
    """Process CPU time, in seconds: what every figure of the deck bench counts."""
    return time.process_time()


def median(values: list[float]) -> float:
    return statistics.median(values)


def packed_size(payload: object) -> int:
    """The bytes of ``payload`` packed as on the wire (msgpack)."""
    return len(msgpack.packb(payload, use_bin_type=True))
