"""Roles and the deal schedule: which positions of the final deck each player holds
(the rules engine's :func:`~truc_p2p.rules.deal_positions`, by role)."""

from __future__ import annotations

import enum

from truc_p2p.rules import Player, deal_positions

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


def _seats(redeal: bool) -> dict[Role, tuple[int, int, int]]:
    # The deal's positions are the rules' (one card at a time from the non-dealer):
    # the deck only names the seats by role instead of by player.
    by_player = deal_positions(Player.P0, redeal=redeal)
    return {Role.DEALER: by_player[Player.P0], Role.NONDEALER: by_player[Player.P1]}


_POSITIONS: dict[tuple[Role, bool], tuple[int, int, int]] = {
    (role, redeal): seat for redeal in (False, True) for role, seat in _seats(redeal).items()
}


def positions(role: Role, redeal: bool = False) -> tuple[int, int, int]:
    """The positions of the final deck that ``role`` holds (the redeal's if ``redeal``)."""
    return _POSITIONS[(role, redeal)]
