"""The lobby on a relay, from the desktop (trio): ask a relay for its open games.

The listings, their signatures and the answer's parsing are trio-free, in
:mod:`._listing` (the page uses them too); this module only carries the bytes.
"""

from __future__ import annotations

import math

import trio

from truc_p2p.net._listing import (
    LISTING_CONTEXT,
    MAX_NAME,
    MAX_VALUE,
    ListingError,
    LobbyAnswer,
    LobbyFilter,
    LobbyGame,
    LobbyListing,
    LobbyReader,
    listing_fields,
    parse_game,
)
from truc_p2p.net._relay_wire import MAGIC, Msg, RelayProtocolError, encode, read_message

__all__ = [
    "LISTING_CONTEXT",
    "MAX_NAME",
    "MAX_VALUE",
    "ListingError",
    "LobbyAnswer",
    "LobbyFilter",
    "LobbyGame",
    "LobbyListing",
    "fetch_lobby",
    "fetch_lobby_answer",
    "listing_fields",
    "parse_game",
]


async def fetch_lobby_answer(
    relay: tuple[str, int], *, timeout: float = 10.0, wanted: LobbyFilter | None = None
) -> LobbyAnswer:
    """Ask ``relay`` for its open games (those matching ``wanted``).  ``OSError`` (or
    ``trio.TooSlowError`` past ``timeout``) when the relay cannot be asked;
    :class:`RelayProtocolError` when it answers nonsense.  A relay that predates
    filters closes the connection on one: then the games are asked for unfiltered
    and filtered here."""
    wanted = wanted or LobbyFilter()
    with trio.fail_after(timeout if math.isfinite(timeout) else 3600.0):
        try:
            answer = await _ask_lobby(relay, wanted.encode())
        except RelayProtocolError:
            if not wanted:
                raise
            answer = await _ask_lobby(relay, b"")  # an old relay: filter here alone
    games = [g for g in answer.games if wanted.matches(g.listing)]
    return LobbyAnswer(
        games=games,
        notes=answer.notes,
        held=answer.held,
        matching=answer.matching,
        shown=answer.shown,
    )


async def _ask_lobby(relay: tuple[str, int], body: bytes) -> LobbyAnswer:
    reader = LobbyReader(relay)
    stream = await trio.open_tcp_stream(*relay)
    async with stream:
        await stream.send_all(MAGIC + encode(Msg.LOBBY, body))
        while True:
            kind, body = await read_message(stream)
            answer = reader.message(kind, body)
            if answer is not None:
                return answer


async def fetch_lobby(
    relay: tuple[str, int], *, timeout: float = 10.0
) -> tuple[list[LobbyGame], list[str]]:
    """The open games at ``relay`` whose listings verify, and one note per listing
    dropped (bad signature, malformed); see :func:`fetch_lobby_answer`."""
    answer = await fetch_lobby_answer(relay, timeout=timeout)
    return answer.games, answer.notes
