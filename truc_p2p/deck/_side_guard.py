"""The use checks both deck versions' sides share (``DeckSide``, ``DeckSideV2``).

A side that caught a cheat is dead: every later call raises
:class:`DeckUsageError` naming the cheat. Each step is allowed in some states and
some steps in one role only.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from contextlib import contextmanager
from typing import ClassVar

from truc_p2p.deck._errors import CheatError, DeckUsageError
from truc_p2p.deck._schedule import Role


class SideGuard:
    """Mixed into a deck side that sets ``_role``, ``_state`` and ``_failure`` and names
    its failed state in ``_FAILED``."""

    _FAILED: ClassVar[enum.Enum]
    _role: Role
    _state: enum.Enum
    _failure: CheatError | None

    def _require(self, *states: enum.Enum) -> None:
        if self._failure is not None:
            raise DeckUsageError(f"this deck side is dead after a detected cheat: {self._failure}")
        if self._state not in states:
            wanted = " or ".join(s.value for s in states)
            raise DeckUsageError(
                f"{self._role.value} is in state {self._state.value!r}, not {wanted}"
            )

    def _require_role(self, role: Role, what: str) -> None:
        if self._role is not role:
            raise DeckUsageError(f"only the {role.value} calls {what}")

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Runs a step; a cheat it detects kills the side, then propagates."""
        try:
            yield
        except CheatError as err:
            self._failure = err
            self._state = self._FAILED
            raise
