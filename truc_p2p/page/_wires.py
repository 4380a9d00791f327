"""What a game of the page is wired to (:class:`Wires`), and where a peer game meets
(:class:`Meeting`): the values both kinds of game (:mod:`._bot_game`,
:mod:`._games`) are made with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._feed import PageFeed
from ._keys import Key

if TYPE_CHECKING:
    from truc_p2p.net import GameOutcome, Invite

__all__ = ["Ended", "Meeting", "Wires"]

Ended = Callable[["GameOutcome"], None]


@dataclass(frozen=True)
class Wires:
    """The player's ``key``, the table's ``feed``, where random bytes come from,
    where each envelope of the transcript goes (``record``) and who hears the
    game's end (``ended``)."""

    key: Key
    feed: PageFeed
    randbytes: Callable[[int], bytes]
    record: Callable[[bytes], None]
    ended: Ended


@dataclass(frozen=True)
class Meeting:
    """Where a game against a peer meets: the ``relay`` (``host:port``), the
    ``invite`` when we join (``None``: we host), and the ``site`` the invite link a
    host hands out points to."""

    relay: str
    invite: Invite | None = None
    site: str = ""
