"""A host keeps its relay code when the control connection drops (``connect.md`` §2).

The relay is killed and started again on the same port, goes silent, or holds a
stale registration of the same code; the host registers again with its claim,
the invite it printed keeps working, and games already running go on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
from helpers.net import bot, free_port
from helpers.relay import RestartableRelay

import truc_p2p.net._join_game as games_module
import truc_p2p.net._rendezvous as rendezvous_module
from truc_p2p.identity import Identity
from truc_p2p.net import (
    BotStrategy,
    Clocks,
    End,
    GameOutcome,
    GameSettings,
    Invite,
    Listen,
    RelayServer,
    Reporting,
    Storage,
    connect,
    host_game,
    join_game,
    open_rendezvous,
)
from truc_p2p.net._relay_wire import (
    CLAIM_LEN,
    MAGIC,
    REPLACED,
    Msg,
    code_for_claim,
    encode,
    read_message,
)
from truc_p2p.protocol import verify_transcript
from truc_p2p.rules import Action, Game
from truc_p2p.transcript import read_transcript

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow

FP = "ab" * 32


class _Pausing:
    """A bot that, at its ``at``-th move, says so and waits for ``go``."""

    def __init__(self, inner: BotStrategy, at: int) -> None:
        self.inner, self.at, self.moves = inner, at, 0
        self.paused, self.go = trio.Event(), trio.Event()

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        self.moves += 1
        if self.moves == self.at:
            self.paused.set()
            await self.go.wait()
        return await self.inner.choose(game, legal)


def _finished_and_verified(outcome: GameOutcome) -> None:
    assert outcome.end is End.FINISHED, outcome.message
    assert outcome.transcript is not None
    report = verify_transcript(read_transcript(outcome.transcript))
    assert report.valid, report.error


async def test_a_restarted_relay_gets_the_host_back_with_the_same_invite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The relay dies under a relayed game and comes back 1.5 s later on its port:
    the host registers again with the same code, the cut game's joiner redials
    through the relay with the original invite and the game finishes, and a new
    joiner gets in with the same invite."""

    async def relayed(invite: Invite, **kwargs: Any) -> tuple[trio.SocketStream, str]:
        kwargs.update(paths=frozenset({"relayed"}), direct_window=0.05)
        return await connect(invite, **kwargs)

    monkeypatch.setattr(games_module, "connect", relayed)
    host_id = Identity.ephemeral().key
    notices: list[tuple[float, str]] = []
    host_outcomes: list[GameOutcome] = []
    paths: dict[str, list[str]] = {"first": [], "second": []}
    stop = trio.Event()
    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            relay = RestartableRelay(nursery, free_port())
            await relay.start()
            invites: list[Invite] = []
            ready = trio.Event()
            registered_again = trio.Event()

            def on_invite(invite: Invite) -> None:
                invites.append(invite)
                ready.set()

            def on_notice(text: str) -> None:
                notices.append((trio.current_time(), text))
                if text.startswith("registered with the relay again"):
                    registered_again.set()

            async def host() -> None:
                await host_game(
                    bot(3),
                    identity=host_id,
                    settings=GameSettings(clocks=Clocks(turn_timeout=30, grace=30)),
                    listen=Listen(
                        bind="127.0.0.1",
                        port=0,
                        relay=("127.0.0.1", relay.port),
                        capacity=2,
                        forever=True,
                    ),
                    storage=Storage(out_dir=tmp_path / "host", fsync=False),
                    report=Reporting(
                        on_invite=on_invite, on_notice=on_notice, on_outcome=host_outcomes.append
                    ),
                    players=lambda: (bot(len(host_outcomes) + 3), None),
                    stop=stop,
                )
                host_done.set()

            host_done = trio.Event()
            nursery.start_soon(host)
            await ready.wait()
            # The host's game port is out of the joiners' reach (a NAT): only the relay
            # route of the invite works, on the first connection and on redials.
            invite = Invite(
                "127.0.0.1", free_port(), invites[0].fingerprint,
                relay=invites[0].relay, code=invites[0].code,
            )  # fmt: skip
            first = _Pausing(bot(4), at=3)
            joined: dict[str, GameOutcome] = {}

            async def join(label: str, strategy: Any) -> None:
                joined[label] = await join_game(
                    invite,
                    strategy,
                    identity=Identity.ephemeral().key,
                    settings=GameSettings(clocks=Clocks(turn_timeout=30, grace=30)),
                    storage=Storage(out_dir=tmp_path / label, fsync=False),
                    report=Reporting(on_path=lambda route, _peer: paths[label].append(route)),
                )

            nursery.start_soon(join, "first", first)
            await first.paused.wait()  # a relayed game in progress
            relay.kill()
            await trio.sleep(1.5)  # the host's first attempt (after 0.5-1 s) finds nobody
            restarted = trio.current_time()
            await relay.start()
            await registered_again.wait()
            took = trio.current_time() - restarted
            await join("second", bot(5))  # a new joiner, the original invite
            first.go.set()  # the cut game goes on: its joiner redials through the relay
            while "first" not in joined or len(host_outcomes) < 2:
                await trio.sleep(0.05)
            stop.set()
            await host_done.wait()
            relay.kill()
    for outcome in [*joined.values(), *host_outcomes]:
        _finished_and_verified(outcome)
    assert paths["first"][0] == "relayed" and len(paths["first"]) >= 2
    assert set(paths["first"]) == set(paths["second"]) == {"relayed"}
    texts = [text for _, text in notices]
    lost = [t for t in texts if t.startswith("lost the relay")]
    assert len(lost) == 1 and "registering again with the same code" in lost[0]
    assert f"same code {invite.code}" in next(t for t in texts if "again after" in t)
    second_relay = relay.servers[1]
    assert second_relay.stats["registrations"] == 1
    assert second_relay.stats["splices"] >= 2  # the new joiner's and the redial's
    # retried at 0.5-1 s, then 1-2 s later: within 1.5 s of the restart, plus the
    # relay's own start-up (a new process: up to a second or two on a loaded machine)
    assert took < 5.0, took
    print(f"relay restart to registered again: {took:.2f} s")


async def test_a_silent_relay_is_noticed_and_registered_with_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A control connection that goes quiet (a NAT dropped it without a reset) is
    given up after a PING without PONG, and the host registers again."""
    monkeypatch.setattr(rendezvous_module, "PING_INTERVAL", 0.2)
    monkeypatch.setattr(rendezvous_module, "PONG_TIMEOUT", 0.3)
    monkeypatch.setattr(rendezvous_module, "REREGISTER_FIRST", 0.1)
    accepted: list[trio.SocketStream] = []

    async def mute_relay(stream: trio.SocketStream) -> None:
        """Registers the claim's code, then never answers a PING."""
        accepted.append(stream)
        await stream.receive_some(8)
        kind, body = await read_message(stream)
        assert kind == Msg.REGISTER
        code = code_for_claim(body[-CLAIM_LEN:]).encode()
        await stream.send_all(
            encode(Msg.REGISTERED, bytes([len(code)]) + code + b"\x04\x7f\x00\x00\x01\x00\x01")
        )
        await trio.sleep_forever()

    notices: list[str] = []
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
            port = int(listeners[0].socket.getsockname()[1])
            nursery.start_soon(trio.serve_listeners, mute_relay, listeners)
            async with open_rendezvous(("127.0.0.1", port), on_notice=notices.append) as rdv:
                while rdv.registrations < 2:
                    await trio.sleep(0.05)
            nursery.cancel_scope.cancel()
    assert len(accepted) >= 2
    assert notices[0].startswith("lost the relay (no word from the relay for 0.5 s)")
    assert notices[1].startswith("registered with the relay again")


async def test_a_stale_registration_of_the_code_is_replaced_by_the_claim() -> None:
    """The relay still holds the code (its end of a dead control connection has not
    timed out): a REGISTER with the same claim takes the code over, the old
    connection hears ``replaced``, and nobody else can take it without the claim."""
    claim = bytes(range(CLAIM_LEN))
    code = code_for_claim(claim)
    server = RelayServer()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
            port = int(listeners[0].socket.getsockname()[1])
            nursery.start_soon(trio.serve_listeners, server.handle, listeners)
            stale = await trio.open_tcp_stream("127.0.0.1", port)
            await stale.send_all(MAGIC + encode(Msg.REGISTER, b"\x00" + claim))
            kind, body = await read_message(stale)
            assert kind == Msg.REGISTERED and body[1 : 1 + body[0]].decode() == code
            other = await trio.open_tcp_stream("127.0.0.1", port)  # no claim: a fresh code
            await other.send_all(MAGIC + encode(Msg.REGISTER, b"\x00"))
            kind, body = await read_message(other)
            assert kind == Msg.REGISTERED and body[1 : 1 + body[0]].decode() != code
            notices: list[str] = []
            async with open_rendezvous(
                ("127.0.0.1", port), claim=claim, on_notice=notices.append
            ) as rendezvous:
                assert rendezvous.code == code and rendezvous.registrations == 1
                assert await read_message(stale) == (Msg.ERROR, REPLACED.encode())
                assert await stale.receive_some(10) == b""
                # The host that was replaced does not fight back (a second process
                # with the same claim): it says so and stops registering.
                second = open_rendezvous(("127.0.0.1", port), claim=claim)
                async with second as newer:
                    await rendezvous.lost_event.wait()
                    assert rendezvous.replaced and newer.registrations == 1
                    await trio.sleep(1.5)  # longer than the first retry delay
                    assert rendezvous.registrations == 1
                    assert server.stats["replaced_registrations"] == 2
            assert any("not registering again" in n for n in notices)
            await stale.aclose()
            await other.aclose()
            nursery.cancel_scope.cancel()
