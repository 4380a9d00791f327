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
from pathlib import Path

import trio
from helpers.net import bot, hosting

from truc_p2p.crypto import SigningKey
from truc_p2p.net import (
    BotStrategy,
    End,
    GameOutcome,
    GameSettings,
    Invite,
    Listen,
    Reporting,
    Storage,
    join_game,
)
from truc_p2p.protocol import fingerprint, verify_transcript
from truc_p2p.rules import Ruleset
from truc_p2p.transcript import read_transcript

HELLO_TIMEOUT = 3.0


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
    host_key = SigningKey.generate()
    friend, stranger, late = (SigningKey.generate() for _ in range(3))
    allowed = frozenset({fingerprint(friend.public_key()), fingerprint(late.public_key())})
    notices: list[str] = []
    ruleset = Ruleset(target=3)
    async with hosting(
        strategy=bot(1),
        identity=host_key,
        settings=GameSettings(ruleset=ruleset, hello_timeout=HELLO_TIMEOUT),
        listen=Listen(allow=allowed),
        storage=Storage(out_dir=tmp_path / "host"),
        report=Reporting(on_notice=notices.append),
    ) as (invite, results):
        held = await _jam(invite.port)
        refused = await join_game(
            invite,
            bot(9),
            identity=stranger,
            settings=GameSettings(ruleset=ruleset),
            storage=Storage(out_dir=tmp_path / "s", fsync=False),
        )
        assert refused.end is End.REFUSED and refused.exit_code == 6
        assert "--allow" in refused.message
        started = trio.current_time()
        first_event = trio.Event()

        def on_event(event: object) -> None:
            first_event.set()

        async def friend_game() -> None:
            results["join"] = await join_game(
                invite,
                bot(2),
                identity=friend,
                settings=GameSettings(ruleset=ruleset),
                storage=Storage(out_dir=tmp_path / "j", fsync=False),
                report=Reporting(on_event=on_event),
            )

        async with trio.open_nursery() as nursery:
            nursery.start_soon(friend_game)
            await first_event.wait()
            assert trio.current_time() - started < HELLO_TIMEOUT / 2  # nothing made it wait
            busy = await join_game(
                invite,
                bot(3),
                identity=late,
                settings=GameSettings(ruleset=ruleset),
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
        settings=GameSettings(hello_timeout=0.5),
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
                settings=GameSettings(ruleset=Ruleset(target=2)),
                storage=Storage(out_dir=tmp_path / f"j{seed}", fsync=False),
            )
        )

    with trio.fail_after(120):
        async with hosting(
            strategy=bot(0),
            identity=SigningKey.generate(),
            settings=GameSettings(ruleset=Ruleset(target=2)),
            listen=Listen(capacity=3),
            storage=Storage(out_dir=tmp_path / "host"),
            report=Reporting(on_outcome=finished.append),
            forever=True,
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
