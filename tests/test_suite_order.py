"""The order xdist's workers get the tests in (``tests/suite_order.py``): every worker
starts with slow tests, the compat and interop ones first, and no slow test is left at
the end of a worker's part, where it would start last."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from suite_order import chunks, longest_first, weight


@dataclass
class Fake:
    nodeid: str
    slow: bool = False

    def get_closest_marker(self, name: str) -> object | None:
        return "mark" if name == "slow" and self.slow else None


def _items() -> list[Fake]:
    quick = [Fake(f"tests/rules/test_r.py::test_{i}") for i in range(40)]
    slow = [Fake(f"tests/cli/test_c.py::test_{i}", slow=True) for i in range(6)]
    longest = [Fake(f"tests/interop/test_i.py::test_{i}", slow=True) for i in range(4)]
    return quick[:20] + slow[:3] + quick[20:] + longest + slow[3:]


def test_the_weights() -> None:
    assert weight(Fake("tests/rules/test_r.py::test_x")) == 0
    assert weight(Fake("tests/interop/test_i.py::test_x")) == 0  # quick: not moved
    assert weight(Fake("tests/cli/test_c.py::test_x", slow=True)) == 1
    assert weight(Fake("tests/compat/test_b.py::test_x", slow=True)) == 2


@pytest.mark.parametrize(("count", "workers"), [(50, 2), (51, 2), (7, 3), (3, 4), (0, 2)])
def test_the_parts_are_xdists_first_hand_out(count: int, workers: int) -> None:
    sizes = chunks(count, workers)
    assert len(sizes) == workers and sum(sizes) == count
    assert max(sizes) - min(sizes) <= 1


@pytest.mark.parametrize("workers", [2, 3])
def test_every_worker_starts_with_the_longest_tests(workers: int) -> None:
    items = _items()
    ordered = longest_first(items, workers)
    assert sorted(i.nodeid for i in ordered) == sorted(i.nodeid for i in items)  # same tests
    start = 0
    for size in chunks(len(items), workers):
        part = ordered[start : start + size]
        start += size
        weights = [weight(i) for i in part]
        assert weights[0] == 2, [i.nodeid for i in part]  # an interop test first
        assert weights == sorted(weights, reverse=True)  # no slow test after a quick one
    # the quick tests keep their order
    quick = [i.nodeid for i in ordered if not weight(i)]
    assert quick == [i.nodeid for i in items if not weight(i)]


def test_without_slow_tests_the_order_stays() -> None:
    items = [Fake(f"tests/rules/test_r.py::test_{i}") for i in range(9)]
    assert longest_first(items, 2) == items
