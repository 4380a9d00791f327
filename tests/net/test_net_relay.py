"""The relay, the host's rendezvous and the joiner's ``connect`` over loopback TCP.

The NAT topologies themselves are in ``test_net_nat.py`` (network namespaces);
here every path is forced in turn on one machine, a whole game is played
over it, and the relay's limits are exercised with real sockets.
"""

from __future__ import annotations

import json
import socket
import struct
from pathlib import Path
from typing import Any

import pytest
import trio
from helpers.net import bot, new_session
from helpers.relay import FP, raw_stream, running_relay

import truc_p2p.net._join_game as games_module
from truc_p2p.cli._path_words import tries_line
from truc_p2p.identity import Identity
from truc_p2p.net import (
    BotStrategy,
    Clocks,
    ConnectError,
    End,
    GameOutcome,
    GameSettings,
    Invite,
    Listen,
    PathTry,
    PlayOptions,
    RelayLimits,
    Reporting,
    Storage,
    connect,
    host_game,
    join_game,
    open_rendezvous,
    play_game,
)
from truc_p2p.net._relay_wire import MAGIC, Meet, Msg, encode, read_message
from truc_p2p.protocol import verify_transcript
from truc_p2p.rules import Action, Game, Player
from truc_p2p.transcript import read_transcript


@pytest.mark.parametrize("path", ["direct", "punched", "relayed"])
async def test_each_path_carries_a_whole_game_that_verifies(path: str) -> None:
    with trio.fail_after(20):
        async with (
            running_relay() as (server, port, reports),
            open_rendezvous(("127.0.0.1", port)) as rendezvous,
        ):
            invite = rendezvous.invite(Invite("127.0.0.1", 4455, FP))
            assert Invite.parse(str(invite)) == invite and invite.code == rendezvous.code
            records: dict[Player, list[bytes]] = {Player.P0: [], Player.P1: []}
            sessions = {p: new_session(p, record=records[p], seed=7) for p in records}
            got: dict[str, str] = {}

            async def host() -> None:
                incoming = await rendezvous.accept()
                got["host"] = incoming.path
                async with incoming.stream:
                    await play_game(incoming.stream, sessions[Player.P1], bot(2))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                stream, got["join"] = await connect(
                    invite, paths=frozenset({path}), direct_window=0.2
                )
                async with stream:
                    outcome = await play_game(
                        stream,
                        sessions[Player.P0],
                        bot(1),
                        PlayOptions(expected_fingerprint=sessions[Player.P1].fingerprint),
                    )
            assert got == {"host": path, "join": path}
            assert outcome.valid
            for p in records:
                assert verify_transcript(records[p]).valid
        (report,) = reports
        assert report.spliced == (path == "relayed")
        assert (report.bytes > 10_000) == (path == "relayed")
        assert server.stats["meetings"] == 1


async def test_an_unknown_code_is_refused_with_a_reason() -> None:
    async with running_relay() as (_, port, _reports):
        invite = Invite("127.0.0.1", 9, FP, relay=("127.0.0.1", port), code="nosuchcode")
        with pytest.raises(ConnectError, match="no host is registered"):
            await connect(invite, connect_timeout=5)


async def test_an_old_invite_still_connects_directly() -> None:
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    async with listener:
        port = int(listener.socket.getsockname()[1])
        stream, path = await connect(Invite("127.0.0.1", port, FP))
        async with stream, await listener.accept():
            assert path == "direct"


async def test_a_dead_relay_falls_back_to_the_invites_own_address() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        dead = unused.getsockname()[1]
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    async with listener:
        port = int(listener.socket.getsockname()[1])
        invite = Invite("127.0.0.1", port, FP, relay=("127.0.0.1", dead), code="abcdefgh")
        stream, path = await connect(invite, connect_timeout=5)
        async with stream, await listener.accept():
            assert path == "direct"


async def test_a_flood_of_bogus_clients_is_bounded_and_a_real_pair_still_meets() -> None:
    limits = RelayLimits(max_per_ip=20, max_registrations_per_ip=3, first_message_timeout=1.0)
    async with running_relay(limits) as (server, port, _reports):
        attacker = "127.0.0.2"  # the flood comes from another address than the real pair
        junk = [await raw_stream(port, MAGIC, attacker) for _ in range(30)]  # then silence
        for i in range(30):
            data = [
                MAGIC + encode(Msg.REGISTER, b"\x00"),  # real registrations, capped per IP
                b"GET / HTTP/1.0\r\n\r\n",  # not the protocol
                MAGIC + encode(Msg.JOIN, b"\x04nope\x00"),  # wrong code
            ][i % 3]
            junk.append(await raw_stream(port, data, attacker))
        await trio.sleep(0.2)
        assert server.connections <= limits.max_per_ip
        assert server.stats["refused_connections"] >= 10
        async with open_rendezvous(("127.0.0.1", port)) as rendezvous:
            invite = rendezvous.invite(Invite("127.0.0.1", 4455, FP))
            async with trio.open_nursery() as nursery:

                async def host() -> None:
                    await (await rendezvous.accept()).stream.aclose()

                nursery.start_soon(host)
                stream, path = await connect(
                    invite, paths=frozenset({"relayed"}), direct_window=0.1
                )
                await stream.aclose()
            assert path == "relayed"
        with trio.fail_after(3):  # the silent ones are dropped by the first-message timeout
            while server.connections:
                await trio.sleep(0.1)
        # The flood's registrations were bounded and are gone with their connections.
        for _ in range(6):
            junk.append(await raw_stream(port, MAGIC + encode(Msg.REGISTER, b"\x00"), attacker))
        await trio.sleep(0.2)
        assert server.stats["registrations"] <= 2 * limits.max_registrations_per_ip + 1
        assert server.stats["refused_registrations"] >= 3
        for stream in junk:
            await stream.aclose()


async def test_relay_limits_bytes_and_idle_time_of_a_splice() -> None:
    limits = RelayLimits(max_session_bytes=10_000, splice_idle=0.5, meeting_timeout=2)
    async with (
        running_relay(limits) as (_, port, reports),
        open_rendezvous(("127.0.0.1", port)) as rendezvous,
    ):
        invite = rendezvous.invite(Invite("127.0.0.1", 4455, FP))
        for case in ("bytes", "idle"):
            async with trio.open_nursery() as nursery:
                holder: list[trio.SocketStream] = []

                async def host(holder: list[trio.SocketStream] = holder) -> None:
                    holder.append((await rendezvous.accept()).stream)

                nursery.start_soon(host)
                stream, _ = await connect(invite, paths=frozenset({"relayed"}), direct_window=0.05)
            with trio.fail_after(5):
                async with stream, holder[0]:
                    if case == "bytes":
                        with pytest.raises(trio.BrokenResourceError):
                            for _ in range(100):
                                await stream.send_all(b"x" * 1000)
                                await trio.sleep(0.01)
                    else:
                        assert await holder[0].receive_some(10) == b""
        assert [r.end for r in reports] == ["byte limit", "idle"]


async def test_meet_tells_each_side_the_others_observed_address() -> None:
    async with running_relay() as (_, port, _reports):
        host = await raw_stream(port, MAGIC + encode(Msg.REGISTER, b"\x00"))
        kind, body = await read_message(host)
        assert kind == Msg.REGISTERED
        code = body[1 : 1 + body[0]]
        joiner = await raw_stream(
            port, MAGIC + encode(Msg.JOIN, bytes([len(code)]) + code + b"\x00")
        )
        (jkind, jbody), (hkind, hbody) = await read_message(joiner), await read_message(host)
        assert jkind == hkind == Msg.MEET
        to_joiner, to_host = Meet.decode(jbody), Meet.decode(hbody)
        assert to_joiner.session == to_host.session
        assert to_joiner.you == to_host.peer == joiner.socket.getsockname()[:2]
        assert to_host.you == to_joiner.peer == host.socket.getsockname()[:2]
        await host.aclose()
        await joiner.aclose()


async def test_a_game_on_a_punched_path_outlives_the_relay() -> None:
    records: dict[Player, list[bytes]] = {Player.P0: [], Player.P1: []}
    sessions = {p: new_session(p, record=records[p], seed=11) for p in records}
    with trio.fail_after(20):
        async with trio.open_nursery() as outer:
            relay_scope = trio.CancelScope()
            ready = trio.Event()
            port: list[int] = []

            async def relay() -> None:
                with relay_scope:
                    async with running_relay() as (_, relay_port, _reports):
                        port.append(relay_port)
                        ready.set()
                        await trio.sleep_forever()

            outer.start_soon(relay)
            await ready.wait()
            async with open_rendezvous(("127.0.0.1", port[0])) as rendezvous:
                invite = rendezvous.invite(Invite("127.0.0.1", 4455, FP))
                async with trio.open_nursery() as nursery:

                    async def host() -> None:
                        incoming = await rendezvous.accept()
                        relay_scope.cancel()  # the relay goes away before the first hello
                        async with incoming.stream:
                            await play_game(incoming.stream, sessions[Player.P1], bot(2))

                    nursery.start_soon(host)
                    stream, path = await connect(invite, paths=frozenset({"punched"}))
                    async with stream:
                        outcome = await play_game(
                            stream,
                            sessions[Player.P0],
                            bot(1),
                            PlayOptions(expected_fingerprint=sessions[Player.P1].fingerprint),
                        )
                with trio.fail_after(2):
                    while rendezvous.lost is None:
                        await trio.sleep(0.01)
    assert path == "punched" and outcome.valid
    assert all(verify_transcript(records[p]).valid for p in records)


@pytest.mark.parametrize("path", ["relayed", "punched"])
async def test_a_dropped_game_reconnects_through_the_relay(
    path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """host_game --relay and join_game: the game is cut (relayed: by the relay's byte
    budget per splice; punched: the joiner's first connection is reset), the joiner
    redials through the relay on the same kind of path, and the game finishes.  Every
    link, each redial's too, says why it took its path (connect.md §4.1): the
    ``join`` command's line, and one entry of ``links`` in the result."""
    dialled: list[trio.SocketStream] = []

    async def forced(invite: Invite, **kwargs: Any) -> tuple[trio.SocketStream, str]:
        kwargs.update(paths=frozenset({path}), direct_window=0.05)
        stream, route = await connect(invite, **kwargs)
        dialled.append(stream)
        return stream, route

    monkeypatch.setattr(games_module, "connect", forced)
    host_id, join_id = Identity.ephemeral().key, Identity.ephemeral().key
    limits = RelayLimits(max_session_bytes=16_000)
    paths: list[str] = []
    tries: list[list[PathTry]] = []
    host_paths: list[str] = []  # the host says each link's path too, a resumed one's too
    outcomes: dict[str, GameOutcome] = {}
    with trio.fail_after(60):
        async with running_relay(limits) as (_, port, reports), trio.open_nursery() as nursery:
            invites: list[Invite] = []
            ready = trio.Event()

            def on_invite(invite: Invite) -> None:
                invites.append(invite)
                ready.set()

            async def host() -> None:
                outcomes["host"] = await host_game(
                    bot(3),
                    identity=host_id,
                    settings=GameSettings(clocks=Clocks(turn_timeout=30, grace=20)),
                    listen=Listen(bind="127.0.0.1", port=0, relay=("127.0.0.1", port)),
                    storage=Storage(out_dir=tmp_path / "host", fsync=False),
                    report=Reporting(
                        on_invite=on_invite,
                        on_path=lambda route, _peer: host_paths.append(route),
                    ),
                )

            nursery.start_soon(host)
            await ready.wait()
            strategy = bot(4) if path == "relayed" else _ResetOnce(bot(4), dialled)
            outcomes["join"] = await join_game(
                invites[0],
                strategy,
                identity=join_id,
                settings=GameSettings(clocks=Clocks(turn_timeout=30, grace=20)),
                storage=Storage(out_dir=tmp_path / "join", fsync=False),
                report=Reporting(
                    on_path=lambda route, _peer: paths.append(route), on_tries=tries.append
                ),
            )
            with trio.fail_after(20):
                while "host" not in outcomes:
                    await trio.sleep(0.01)
    for outcome in outcomes.values():
        assert outcome.end is End.FINISHED, outcome.message
        assert outcome.transcript is not None
        assert verify_transcript(read_transcript(outcome.transcript)).valid
    assert outcomes["join"].path == path and len(paths) >= 2 and set(paths) == {path}
    assert host_paths == paths
    # the why-line again on every redial, made by the same words as the first one's
    lines = [tries_line([t.as_json() for t in link]) for link in tries]
    taken = "via the relay 127.0.0.1:" if path == "relayed" else "took the punched path"
    assert len(lines) == len(paths) and all(taken in line for line in lines)
    result = outcomes["join"].to_json()
    assert [link["path"] for link in result["links"]] == paths
    assert result["links"][0]["tries"] == result["path_tries"]
    for link in result["links"]:
        assert {"path": path, "result": "won"}.items() <= link["tries"][-1].items(), link
    # the host's --json has its own links, one per line it printed (no TURN: no tries)
    hosted = json.loads(json.dumps(outcomes["host"].to_json()))
    assert hosted["links"] == [{"path": route, "tries": []} for route in host_paths]
    assert hosted["path"] == path and "path_tries" not in hosted
    if path == "relayed":
        assert sum(r.spliced for r in reports) >= 2
        assert any(r.end == "byte limit" for r in reports)


class _ResetOnce:
    """The joiner's bot, which resets its first connection at its third move (as a
    NAT that forgot the mapping would)."""

    def __init__(self, inner: BotStrategy, dialled: list[trio.SocketStream]) -> None:
        self.inner = inner
        self.dialled = dialled
        self.moves = 0

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        self.moves += 1
        if self.moves == 3:
            sock = self.dialled[0].socket
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.shutdown(socket.SHUT_RDWR)
        return await self.inner.choose(game, legal)
