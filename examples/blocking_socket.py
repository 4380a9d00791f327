"""The sans-IO session embeds anywhere: here over plain blocking sockets, no trio.

    python examples/blocking_socket.py             # two bots in two threads over 127.0.0.1
    python examples/blocking_socket.py 'truc://…'  # join a `truc-p2p host` this way

``play`` below is the whole driver loop of any client: pull an event, send
what the session queued, feed it the peer's bytes, answer ``YourTurn``.
The session frames its messages itself, so the socket only moves bytes.
"""

from __future__ import annotations

import secrets
import socket
import sys
import threading

from truc_p2p.bots import Bot, make_bot
from truc_p2p.crypto import SigningKey
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    GameResult,
    PeerAborted,
    PeerKeyMismatchError,
    RemoteProtocolError,
    Session,
    SessionOptions,
    YourTurn,
)
from truc_p2p.rules import Player


def play(sock: socket.socket, session: Session, bot: Bot) -> GameResult | str:
    """Play one game; return the co-signed result or why the game ended early."""
    sock.settimeout(60)  # the opponent's turn timeout, crudely
    while True:
        try:
            event = session.next_event()
        except PeerKeyMismatchError:
            return "refused: the host's key does not match the invite"  # nothing more sent
        except RemoteProtocolError as exc:
            sock.sendall(session.abort("cheat", exc.code))
            return f"peer broke the protocol: {exc}"
        sock.sendall(session.data_to_send())
        if event is NEED_DATA:
            data = sock.recv(65536)
            if not data:
                return "connection closed"
            session.receive_data(data)
        elif isinstance(event, YourTurn):
            sock.sendall(session.send(bot.choose(session.game)))
        elif isinstance(event, PeerAborted):
            return f"peer aborted: {event.reason}"
        elif event is CLOSED:
            assert session.result is not None
            return session.result


def new_session(role: Player, name: str, expect: str | None = None) -> Session:
    """A fresh session; ``expect`` pins the peer's key fingerprint (the joiner's side)."""
    key = SigningKey.generate()
    return Session(
        identity=key,
        role=role,
        secret=secrets.token_bytes(32),
        expected_peer_fingerprint=expect,
        options=SessionOptions(name=name),
    )


def self_play() -> int:
    results: dict[str, GameResult | str] = {}
    with socket.create_server(("127.0.0.1", 0)) as server:
        host = new_session(Player.P1, "blocking-host")  # the host is the responder

        def serve() -> None:
            conn, _ = server.accept()
            with conn:
                results["host"] = play(conn, host, make_bot("heuristic", 1))

        thread = threading.Thread(target=serve)
        thread.start()
        with socket.create_connection(server.getsockname()) as sock:
            guest = new_session(Player.P0, "blocking-guest", expect=host.fingerprint)
            results["guest"] = play(sock, guest, make_bot("random", 2))
        thread.join()
    for who, r in results.items():
        print(f"{who}: {r if isinstance(r, str) else f'player {int(r.winner)} wins {r.scores}'}")
    return 0 if results["host"] == results["guest"] and not isinstance(results["host"], str) else 1


def join(invite: str) -> int:
    from truc_p2p.net import Invite  # only to parse the invite

    inv = Invite.parse(invite)
    with socket.create_connection((inv.host, inv.port), timeout=15) as sock:
        session = new_session(Player.P0, "blocking", expect=inv.fingerprint)
        r = play(sock, session, make_bot("heuristic"))
    print(r if isinstance(r, str) else f"player {int(r.winner)} wins {r.scores[0]}-{r.scores[1]}")
    return 1 if isinstance(r, str) else 0


if __name__ == "__main__":
    sys.exit(join(sys.argv[1]) if len(sys.argv) > 1 else self_play())
