"""The page's lobby (connect.md 2.2): ask a relay for its open games and show them.

One question at a time goes to the relay on its own WebSocket (``lobbyN``); its
answer, or the relay being down, becomes one ``lobby`` message for the page.
Each game listed is joined as its invite is (the page sends ``join`` with it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from truc_p2p.i18n import _

from ._out import Outbox

if TYPE_CHECKING:
    from truc_p2p.net import LobbyAnswer

    from ._relay import LobbyQuery

__all__ = ["Lobby"]


class Lobby:
    """The lobby's question going on (its socket, relay and sans-IO reader), if any;
    ``publish`` hands the page its ``lobby`` message."""

    def __init__(self, out: Outbox, publish: Callable[[dict[str, Any]], None]) -> None:
        self._out = out
        self._publish = publish
        self._query: tuple[str, str, LobbyQuery] | None = None
        self._asked = 0

    def owns(self, socket: str) -> bool:
        """Whether ``socket`` is the lobby's question's."""
        return self._query is not None and socket == self._query[0]

    def ask(self, relay: object) -> None:
        """Ask ``relay`` (``host:port``) for its open games (a question going on is
        dropped)."""
        from truc_p2p.net import InviteError, parse_host_port

        from ._relay import LobbyQuery

        if self._query is not None:
            self._out.close(self._query[0])
            self._query = None
        try:
            if not isinstance(relay, str):
                raise InviteError(_("no relay to host with"))
            address = parse_host_port(relay, what="relay")
        except (InviteError, ValueError) as exc:
            self._publish({"type": "lobby", "error": str(exc)})
            return
        self._asked += 1
        socket = f"lobby{self._asked}"
        query = LobbyQuery(address)
        self._query = (socket, relay, query)
        self._out.open(socket, relay)
        self._out.send(socket, query.first)

    def data(self, data: bytes) -> None:
        """Bytes of the relay's answer."""
        from truc_p2p.net._relay_wire import RelayProtocolError

        from ._relay import RelayRefused

        assert self._query is not None
        socket, relay, query = self._query
        try:
            answer = query.feed(data)
        except (RelayProtocolError, RelayRefused) as exc:
            self._out.close(socket)
            self._query = None
            self._publish({"type": "lobby", "error": str(exc)})
            return
        if answer is None:
            return
        self._out.close(socket)
        self._query = None
        self._publish({"type": "lobby", "relay": relay, "games": _games(answer)})

    def down(self) -> None:
        """The socket closed before the answer: the relay is down (one line)."""
        assert self._query is not None
        relay = self._query[1]
        self._query = None
        self._publish(
            {"type": "lobby", "error": _("the relay {relay} cannot be reached", relay=relay)}
        )


def _games(answer: LobbyAnswer) -> list[dict[str, str]]:
    """Each game of the relay's answer as the page lists it."""
    games = []
    for game in answer.games:
        line = [_("first to {n}", n=game.listing.fields.get("target", "?"))]
        if game.listing.match > 1:
            line.append(_("match of {n} games", n=game.listing.match))
        minutes, seconds = divmod(game.waiting, 60)
        waited = f"{minutes}:{seconds:02d}"
        games.append(
            {
                "name": game.listing.name,
                "settings": " · ".join(line),
                "waiting": _("waiting {time}", time=waited),
                "fingerprint": game.listing.fingerprint[:16],
                "invite": str(game.invite),
            }
        )
    return games
