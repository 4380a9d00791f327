"""What today's joiner sends an older host (wire.md sections 11.1 and 13.6).

A loopback proxy in front of a real host counts what the joiner sends: no
heartbeat before the host's hello announced them, none at all to a host that
does not; and when the host answers an early-cards proposal the ways hosts of
earlier specs do (a ``malformed`` abort, an ``incompatible`` abort, a bare
close), the joiner dials once more without early cards and plays.  The games
against real earlier builds are in ``tests/compat``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio
from helpers.net import bot, hosting

from truc_p2p.crypto import SigningKey
from truc_p2p.net import (
    Clocks,
    End,
    GameOutcome,
    GameSettings,
    Invite,
    Storage,
    _join_game,
    _local_game,
    join_game,
)
from truc_p2p.protocol import Session, SessionOptions, decode_envelope, verify_transcript
from truc_p2p.protocol._wire import frame, sign_envelope
from truc_p2p.rules import Player, Ruleset
from truc_p2p.transcript import read_transcript

RULESET = Ruleset(target=2)


@dataclass
class Proxy:
    """Counts, per connection, the frames the joiner sent (heartbeats apart)."""

    target: tuple[str, int]
    #: What to do with a hello that proposes early cards: "pass", "malformed",
    #: "incompatible" (a signed abort instead of a hello) or "close".
    refuse_early: str = "pass"
    connections: int = 0
    early_hellos: int = 0
    heartbeats: int = 0
    host_heartbeats: int = 0
    #: Heartbeats the joiner sent before the host's first frame reached it.
    early_beats: int = 0
    answered: list[bool] = field(default_factory=list)

    async def handle(self, client: trio.SocketStream) -> None:
        self.connections += 1
        first = await _read_frame(client)
        if first is None:
            return
        env = decode_envelope(first[4:])
        if env.type == "hello" and "early" in env.payload["options"]:
            self.early_hellos += 1
            if self.refuse_early != "pass":
                if self.refuse_early != "close":
                    abort = sign_envelope(
                        SigningKey.generate(),
                        game_id=b"",
                        seq=1,
                        prev=hashlib.sha256(first[4:]).digest(),
                        sender=1,
                        type="abort",
                        payload={"reason": self.refuse_early, "detail": "options"},
                    )
                    await client.send_all(frame(abort))
                await client.aclose()
                return
        upstream = await trio.open_tcp_stream(*self.target)
        answered = [False]
        async with client, upstream, trio.open_nursery() as nursery:
            await upstream.send_all(first)

            async def up() -> None:
                await self._pipe(client, upstream, answered, from_joiner=True)
                nursery.cancel_scope.cancel()

            async def down() -> None:
                await self._pipe(upstream, client, answered, from_joiner=False)
                nursery.cancel_scope.cancel()

            nursery.start_soon(up)
            nursery.start_soon(down)

    async def _pipe(
        self, src: trio.SocketStream, dst: trio.SocketStream, answered: list[bool], *,
        from_joiner: bool,
    ) -> None:  # fmt: skip
        buf = b""
        try:
            while True:
                data = await src.receive_some(65536)
                if not data:
                    return
                if not from_joiner:
                    answered[0] = True
                buf += data
                while len(buf) >= 4 and len(buf) >= 4 + int.from_bytes(buf[:4], "big"):
                    size = int.from_bytes(buf[:4], "big")
                    if size == 0 and from_joiner:
                        self.heartbeats += 1
                        self.early_beats += not answered[0]
                    elif size == 0:
                        self.host_heartbeats += 1
                    buf = buf[4 + size :]
                await dst.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return


async def _read_frame(stream: trio.SocketStream) -> bytes | None:
    """The first whole frame (header included), or ``None`` if the stream ended."""
    buf = b""
    while len(buf) < 4 or len(buf) < 4 + int.from_bytes(buf[:4], "big"):
        data = await stream.receive_some(65536)
        if not data:
            return None
        buf += data
    size = 4 + int.from_bytes(buf[:4], "big")
    assert len(buf) == size, "the joiner sent more than its hello before the host's answer"
    return buf


async def _play_through(
    tmp_path: Path, proxy_mode: str, monkeypatch: pytest.MonkeyPatch, *, host_beats: bool = True
) -> tuple[Proxy, GameOutcome, GameOutcome, Invite]:
    if not host_beats:  # a host of the build before heartbeats were announced

        def make_session(**kw: Any) -> Session:
            if kw["role"] is Player.P1:
                kw["options"] = replace(kw["options"], heartbeat=False)
            return Session(**kw)

        monkeypatch.setattr(_local_game, "Session", make_session)
    fast = GameSettings(
        session=SessionOptions(ruleset=RULESET), clocks=Clocks(heartbeat=0.05, dead_after=5)
    )
    with trio.fail_after(60):
        async with hosting(
            strategy=bot(1),
            identity=SigningKey.generate(),
            settings=fast,
            storage=Storage(out_dir=tmp_path / "host"),
        ) as (invite, results):
            proxy = Proxy((invite.host, invite.port), refuse_early=proxy_mode)
            async with trio.open_nursery() as nursery:
                listeners = await nursery.start(
                    partial(trio.serve_tcp, proxy.handle, 0, host="127.0.0.1")
                )
                port = listeners[0].socket.getsockname()[1]
                via = Invite.parse(str(invite).replace(f":{invite.port}/", f":{port}/"))
                joined = await join_game(
                    via,
                    bot(2),
                    identity=SigningKey.generate(),
                    settings=fast,
                    storage=Storage(out_dir=tmp_path / "join", fsync=False),
                )
                nursery.cancel_scope.cancel()
    return proxy, joined, results["host"], via


async def test_no_heartbeat_before_the_hosts_hello_and_liveness_between_current_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy, joined, hosted, _ = await _play_through(tmp_path, "pass", monkeypatch)
    assert joined.end is End.FINISHED and hosted.end is End.FINISHED, joined.message
    assert proxy.connections == 1
    assert proxy.early_beats == 0  # the hello went alone: an old host reads it whole
    assert proxy.heartbeats > 0 and proxy.host_heartbeats > 0  # both hellos announce them


async def test_no_heartbeat_to_a_host_that_does_not_announce_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy, joined, hosted, _ = await _play_through(tmp_path, "pass", monkeypatch, host_beats=False)
    assert joined.end is End.FINISHED and hosted.end is End.FINISHED, joined.message
    assert proxy.heartbeats == 0 and proxy.host_heartbeats == 0


@pytest.mark.parametrize("answer", ["malformed", "incompatible", "close"])
async def test_a_host_that_refuses_early_cards_is_dialled_once_more_without_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: str
) -> None:
    proxy, joined, hosted, via = await _play_through(tmp_path, answer, monkeypatch)
    assert joined.end is End.FINISHED and hosted.end is End.FINISHED, joined.message
    assert (proxy.connections, proxy.early_hellos) == (2, 1)
    assert joined.transcript is not None
    envelopes = read_transcript(joined.transcript)
    assert "early" not in decode_envelope(envelopes[0]).payload["options"]
    assert verify_transcript(envelopes).valid
    assert len(list((tmp_path / "join").glob("*.truc"))) == 1  # the refused try is gone
    # The next game with that host (a rematch, a match) does not propose them again.
    assert _join_game._host_key(via) in _join_game._HOSTS_WITHOUT_EARLY
