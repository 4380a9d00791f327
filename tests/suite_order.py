"""The order in which xdist's workers get the tests: the slow ones first on every
worker (``tests/conftest.py`` applies it in each worker)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar


class _Item(Protocol):
    @property
    def nodeid(self) -> str: ...

    def get_closest_marker(self, name: str) -> object | None: ...


Item = TypeVar("Item", bound=_Item)

#: Where the longest tests live (processes that play whole games against earlier builds
#: or through the interop runner, tens of seconds each): they start first.
LONGEST = ("tests/compat/", "tests/interop/")


def weight(item: _Item) -> int:
    """2 for a slow test of :data:`LONGEST`, 1 for another slow test, 0 for a quick one."""
    if item.get_closest_marker("slow") is None:
        return 0
    where = item.nodeid.replace("\\", "/")
    return 2 if where.startswith(LONGEST) else 1


def chunks(count: int, workers: int) -> list[int]:
    """The sizes of xdist's first hand-out (``--dist worksteal``): the collection cut
    into one contiguous part per worker, each as long as what is left over the
    workers left."""
    sizes: list[int] = []
    for i in range(workers):
        sizes.append(count // (workers - i))
        count -= sizes[-1]
    return sizes


def longest_first(items: Sequence[Item], workers: int) -> list[Item]:
    """The items in an order in which every worker starts with slow tests, the longest
    first, and keeps the quick ones for the end: ``--dist worksteal`` gives each worker
    a contiguous part of the collection and a worker out of work takes the end of
    another's, so no long test is left to start when the others are done."""
    heavy = sorted((it for it in items if weight(it)), key=weight, reverse=True)
    light = [it for it in items if not weight(it)]
    ordered: list[Item] = []
    for i, size in enumerate(chunks(len(items), workers)):
        part = heavy[i::workers]
        take = max(0, size - len(part))
        part += light[:take]
        del light[:take]
        ordered += part
    return ordered + light
