"""A host nobody can jam: idle sockets, garbage, oversize lengths and strangers.

Before the real joiner arrives, the host is hit by 50 idle sockets, a port
scanner's garbage, a frame header announcing an oversize body and a hello
signed by a key the ``--allow`` list does not admit.  The real joiner's game
must start at once (well within the hello timeout) and finish; a second
joiner during the game is told the host is busy; the wrong key is refused
with a signed answer; none of it ends the host.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path

import pytest
import trio
import trio.testing
from helpers.net import bot, hosting, new_session
from helpers.protocol import Pair, with_payload

from truc_p2p.crypto import SigningKey
from truc_p2p.net import (
    BotStrategy,
    Clocks,
    End,
    GameOutcome,
    GameSettings,
    Invite,
    Listen,
    Reporting,
    Storage,
    join_game,
)
from truc_p2p.net._host import Admission, GameSlot, HostLoop
from truc_p2p.protocol import SessionOptions, fingerprint, verify_transcript
from truc_p2p.rules import Player, Ruleset
from truc_p2p.transcript import read_transcript

HELLO_TIMEOUT = 3.0
P0, P1 = Player.P0, Player.P1


class _NoListener:
    async def accept(self) -> trio.SocketStream:
        raise AssertionError("not used")


async def _no_game(stream: trio.abc.Stream, first: bytes, peer: str) -> None:
    raise AssertionError("not used")


async def _jam(port: int) -> list[trio.SocketStream]:
    held: list[trio.SocketStream] = []
    for _ in range(50):  # idle sockets: connect and say nothing
        held.append(await trio.open_tcp_stream("127.0.0.1", port))
    garbage = await trio.open_tcp_stream("127.0.0.1", port)
    await garbage.send_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    held.append(garbage)
    oversize = await trio.open_tcp_stream("127.0.0.1", port)
    await oversize.send_all((1 << 30).to_bytes(4, "big"))
    held.append(oversize)
    return held


async def test_a_jammed_host_still_starts_the_real_game_at_once(tmp_path: Path) -> None:
    """50 idle connections, a garbage one and an oversize frame: the allowed joiner's game
    starts without waiting for them to time out. No clock is read: their hello timeout
    is longer than the test's limit, so a host that waited it out fails the test."""
    host_key = SigningKey.generate()
    friend, stranger, late = (SigningKey.generate() for _ in range(3))
    allowed = frozenset({fingerprint(friend.public_key()), fingerprint(late.public_key())})
    notices: list[str] = []
    ruleset = Ruleset(target=3)
    async with hosting(
        strategy=bot(1),
        identity=host_key,
        settings=GameSettings(
            session=SessionOptions(ruleset=ruleset), clocks=Clocks(hello_timeout=600)
        ),
        listen=Listen(allow=allowed),
        storage=Storage(out_dir=tmp_path / "host"),
        report=Reporting(on_notice=notices.append),
    ) as (invite, results):
        held = await _jam(invite.port)
        refused = await join_game(
            invite,
            bot(9),
            identity=stranger,
            settings=GameSettings(session=SessionOptions(ruleset=ruleset)),
            storage=Storage(out_dir=tmp_path / "s", fsync=False),
        )
        assert refused.end is End.REFUSED and refused.exit_code == 6
        assert "--allow" in refused.message
        first_event = trio.Event()

        def on_event(event: object) -> None:
            first_event.set()

        async def friend_game() -> None:
            results["join"] = await join_game(
                invite,
                bot(2),
                identity=friend,
                settings=GameSettings(session=SessionOptions(ruleset=ruleset)),
                storage=Storage(out_dir=tmp_path / "j", fsync=False),
                report=Reporting(on_event=on_event),
            )

        async with trio.open_nursery() as nursery:
            nursery.start_soon(friend_game)
            with trio.fail_after(60):  # far under the 600 s the jam could hold it
                await first_event.wait()
            busy = await join_game(
                invite,
                bot(3),
                identity=late,
                settings=GameSettings(session=SessionOptions(ruleset=ruleset)),
                storage=Storage(out_dir=tmp_path / "late", fsync=False),
            )
            assert busy.end is End.REFUSED and busy.exit_code == 5
            assert "busy" in busy.message
        with trio.fail_after(60):
            while "host" not in results or "join" not in results:
                await trio.sleep(0.02)
        for stream in held:
            with contextlib.suppress(Exception):
                await stream.aclose()
    for outcome in (results["host"], results["join"]):
        assert outcome.end is End.FINISHED, outcome.message
        assert outcome.transcript is not None
        assert verify_transcript(read_transcript(outcome.transcript)).valid
    assert any("not on the --allow list" in n for n in notices)
    assert any("busy" in n for n in notices)
    assert not list((tmp_path / "s").glob("*.truc"))  # a refused join leaves no transcript


async def test_idle_connections_are_dropped_after_the_hello_timeout(tmp_path: Path) -> None:
    notices: list[str] = []
    stop = trio.Event()
    async with hosting(
        strategy=bot(1),
        identity=SigningKey.generate(),
        settings=GameSettings(clocks=Clocks(hello_timeout=0.5)),
        storage=Storage(out_dir=tmp_path),
        report=Reporting(on_notice=notices.append),
        stop=stop,
    ) as (invite, _):
        idle = await trio.open_tcp_stream("127.0.0.1", invite.port)
        with trio.fail_after(5):
            assert await idle.receive_some(10) == b""  # the host closed it
        await idle.aclose()
        stop.set()
    assert any("no valid first message" in n for n in notices)


async def test_forever_hosts_several_games_at_once_then_more(tmp_path: Path) -> None:
    finished: list[GameOutcome] = []
    stop = trio.Event()
    made = [0]

    def players() -> tuple[BotStrategy, None]:
        made[0] += 1
        return bot(made[0]), None

    joined: list[GameOutcome] = []

    async def joiner(invite: Invite, seed: int) -> None:
        joined.append(
            await join_game(
                invite,
                bot(100 + seed),
                identity=SigningKey.generate(),
                settings=GameSettings(session=SessionOptions(ruleset=Ruleset(target=2))),
                storage=Storage(out_dir=tmp_path / f"j{seed}", fsync=False),
            )
        )

    with trio.fail_after(120):
        async with hosting(
            strategy=bot(0),
            identity=SigningKey.generate(),
            settings=GameSettings(session=SessionOptions(ruleset=Ruleset(target=2))),
            listen=Listen(capacity=3, forever=True),
            storage=Storage(out_dir=tmp_path / "host"),
            report=Reporting(on_outcome=finished.append),
            players=players,
            stop=stop,
        ) as (invite, _):
            async with trio.open_nursery() as wave:  # three games at once
                for seed in range(3):
                    wave.start_soon(joiner, invite, seed)
            await joiner(invite, 3)  # and one more after them: the host is still there
            stop.set()
    assert [o.end for o in joined] == [End.FINISHED] * 4
    assert len(finished) == 4 and all(o.valid for o in finished)
    assert made[0] == 4  # a fresh bot per game


async def _delay_proxy(port: int, delay: float, task_status: trio.TaskStatus[int]) -> None:
    """Forward 127.0.0.1:(the port it reports) to ``port``, each chunk ``delay``
    seconds late in each direction (a joiner ``2 * delay`` round trip away)."""

    async def pump(src: trio.abc.Stream, dst: trio.abc.Stream) -> None:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            while data := await src.receive_some(65536):
                await trio.sleep(delay)
                await dst.send_all(data)
        with contextlib.suppress(Exception):
            await dst.aclose()

    async def handle(client: trio.SocketStream) -> None:
        upstream = await trio.open_tcp_stream("127.0.0.1", port)
        async with client, upstream, trio.open_nursery() as nursery:
            nursery.start_soon(pump, client, upstream)
            nursery.start_soon(pump, upstream, client)

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listeners[0].socket.getsockname()[1])
    await trio.serve_listeners(handle, listeners)


async def _hello_flood(
    port: int, until: trio.Event, held: list[trio.SocketStream], posing: bytes | None
) -> int:
    """Validly signed hellos under fresh keys from 127.0.0.2, one every 10 ms, each
    on a connection left open and silent after it (``posing``: each names that key
    instead of its own, still signed by its own); returns how many were sent."""
    sent = 0
    while not until.is_set():
        sent += 1
        sock = trio.socket.socket()
        stream = trio.SocketStream(sock)
        held.append(stream)  # closed by the test, whatever happens
        await sock.bind(("127.0.0.2", 0))
        await sock.connect(("127.0.0.1", port))
        hello = new_session(Player.P0, seed=10_000 + sent).data_to_send()
        if posing is not None:
            raw = with_payload(hello[4:], SigningKey.generate(), lambda p: p.update(key=posing))
            hello = len(raw).to_bytes(4, "big") + raw
        await stream.send_all(hello)
        await trio.sleep(0.01)
    return sent


@pytest.mark.parametrize("flood", ["after", "before", "posing"])
async def test_a_hello_flood_from_one_address_cannot_take_a_joiners_place(
    tmp_path: Path, flood: str
) -> None:
    """Issue 46: a capacity-1 host, a joiner 50 ms away, and one address flooding
    hellos (before the joiner comes, or once it is there): a new hello took the place
    of the joiner's game before its coin, whose resume then got ``refuse
    unknown-game``.  Now a hello takes an unstarted game's place only from an address
    group that sent fewer hellos lately (or from the same key, or once the
    handshake is older than the hello timeout), so the joiner plays its game.
    ``posing``: the flood's hellos name the joiner's key (signed by others)."""
    ruleset = Ruleset(target=2)
    notices: list[str] = []
    held: list[trio.SocketStream] = []
    with trio.fail_after(90), contextlib.ExitStack() as closing:
        closing.callback(lambda: [s.socket.close() for s in held])
        async with hosting(
            strategy=bot(1),
            identity=SigningKey.generate(),
            settings=GameSettings(
                session=SessionOptions(ruleset=ruleset), clocks=Clocks(hello_timeout=5.0)
            ),
            storage=Storage(out_dir=tmp_path / "host"),
            report=Reporting(on_notice=notices.append),
        ) as (invite, results):
            async with trio.open_nursery() as nursery:
                port = await nursery.start(_delay_proxy, invite.port, 0.025)
                stop_flood = trio.Event()
                joiner = SigningKey.generate()
                posing = joiner.public_key().to_bytes() if flood == "posing" else None
                nursery.start_soon(_hello_flood, invite.port, stop_flood, held, posing)
                await trio.sleep(0.3 if flood == "before" else 0.005)
                joined = await join_game(
                    replace(invite, port=port),
                    bot(2),
                    identity=joiner,
                    settings=GameSettings(session=SessionOptions(ruleset=ruleset)),
                    storage=Storage(out_dir=tmp_path / "j", fsync=False),
                )
                stop_flood.set()
                nursery.cancel_scope.cancel()
            assert joined.end is End.FINISHED, joined.message
            while "host" not in results:
                await trio.sleep(0.02)
    assert results["host"].end is End.FINISHED, results["host"].message
    assert any("busy" in n for n in notices)  # the flood was told, not let in


async def test_the_peers_resumes_beyond_the_games_queue_are_closed_quietly() -> None:
    """The opponent's validly signed resumes come faster than the game takes them (the
    resume throttle, wire.md 13.4): those the game's queue cannot hold are closed
    without a signed ``refuse`` and without a line on the host's screen."""
    pair = Pair(deck="v2", tag="resume-queue")
    pair.run(when=lambda: bool(pair.started(P0) and pair.started(P1)))
    host, joiner = pair.sessions[P1], pair.sessions[P0]
    notices: list[str] = []
    loop = HostLoop(
        _NoListener(),
        pair.keys[P1],
        _no_game,
        hello_timeout=HELLO_TIMEOUT,
        on_notice=lambda n: notices.append(str(n)),
    )
    loop.games.append(GameSlot(session=host))
    answers: list[tuple[bool, bytes]] = []
    for i in range(6):
        joiner.reconnect(bytes([i]) * 16, dialer=True)
        first = joiner.data_to_send()
        ours, theirs = trio.testing.memory_stream_pair()
        taken = await loop._route_resume(ours, first, host.game_id, "127.0.0.1")
        await ours.aclose()
        answers.append((taken, await theirs.receive_some(65536)))
    assert [taken for taken, _ in answers] == [True] * 4 + [False] * 2  # 4 queued
    assert all(sent == b"" for _, sent in answers[4:])  # closed, nothing signed
    assert notices == []


async def test_a_resume_is_told_with_the_slot_of_its_own_game() -> None:
    """With two games at once, a resume reaches ``on_resumed`` with its own game's
    slot, so the host records the new link on that game only (connect.md §4.1)."""
    pairs = [Pair(deck="v2", tag=f"resume-slot-{i}") for i in range(2)]
    for pair in pairs:
        pair.run(when=lambda pair=pair: bool(pair.started(P0) and pair.started(P1)))
    told: list[tuple[GameSlot, str]] = []
    loop = HostLoop(
        _NoListener(),
        pairs[0].keys[P1],
        _no_game,
        hello_timeout=HELLO_TIMEOUT,
        admission=Admission(capacity=2),
        on_resumed=lambda slot, _stream, peer: told.append((slot, peer)),
    )
    slots = [GameSlot(session=pair.sessions[P1]) for pair in pairs]
    loop.games.extend(slots)
    joiner = pairs[1].sessions[P0]
    joiner.reconnect(bytes(16), dialer=True)
    ours, _theirs = trio.testing.memory_stream_pair()
    game_id = pairs[1].sessions[P1].game_id
    assert await loop._route_resume(ours, joiner.data_to_send(), game_id, "10.0.0.2")
    assert told == [(slots[1], "10.0.0.2")]
    await slots[1].reconnector.aclose()
