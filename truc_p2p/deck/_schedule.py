"""Roles and the deal schedule: which positions of the final deck each player holds."""

from __future__ import annotations

import enum

__all__ = ["HAND_SIZE", "N_CARDS", "Role", "positions"]

N_CARDS = 32
"""Cards in the deck; the deck layer works on card indices ``0 .. N_CARDS - 1``."""

HAND_SIZE = 3
"""Cards dealt to each player (and again on a redeal)."""


class Role(enum.Enum):
    """The two seats of one hand: the dealer shuffles first (D1, D3)."""

    DEALER = "dealer"
    NONDEALER = "nondealer"

    @property
    def other(self) -> Role:
        """The opposite role."""
        return Role.NONDEALER if self is Role.DEALER else Role.DEALER

    @property
    def wire_byte(self) -> bytes:
        """The one byte that names this role in commitments and key derivation."""
        return b"\x00" if self is Role.DEALER else b"\x01"


_POSITIONS: dict[tuple[Role, bool], tuple[int, int, int]] = {
    (Role.NONDEALER, False): (0, 2, 4),
    (Role.DEALER, False): (1, 3, 5),
    (Role.NONDEALER, True): (6, 8, 10),
    (Role.DEALER, True): (7, 9, 11),
}


def positions(role: Role, redeal: bool = False) -> tuple[int, int, int]:
    """The positions of the final deck that ``role`` holds (the redeal's if ``redeal``)."""
    return _POSITIONS[(role, redeal)]
