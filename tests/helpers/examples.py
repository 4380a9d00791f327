"""How many examples a hypothesis test tries: what it asks for in CI, fewer in the
fast loop.

``tests/conftest.py`` loads hypothesis's ``fast`` profile under ``pytest -m "not
slow"`` (a quarter of hypothesis's default of 100 examples); a test that names its
own count writes ``max_examples=examples(150)``, which scales with the profile: 150
in CI (``.ci/run``'s plain ``pytest``, hypothesis's default profile) and 37 in the
fast loop. ``--hypothesis-profile=default`` runs the full counts in the fast loop too.
"""

from __future__ import annotations

from hypothesis import settings

__all__ = ["FULL", "examples"]

#: hypothesis's own default ``max_examples``, against which a profile's is a share.
FULL = 100


def examples(count: int) -> int:
    """``count`` scaled by the loaded profile's share of :data:`FULL` (at least 1)."""
    loaded = settings.default  # None only while hypothesis itself is importing
    share = FULL if loaded is None else loaded.max_examples
    return max(1, count * share // FULL)
