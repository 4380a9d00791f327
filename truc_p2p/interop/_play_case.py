"""Playing one interop case: the peer process, the frame proxy between it and the
runner, and the runner's own games (``protocol_spec/interop.md``).

:class:`_Drive` plays one (case, role): in role ``host`` the peer hosts and the
runner joins it through the proxy (:meth:`_Drive.join_the_peer`); in role
``join`` the runner hosts and the peer joins (:meth:`_Drive.host_for_the_peer`).
Either way one task watches the peer's output for its invite, one waits for it
to exit, and one (:meth:`_Drive.linger`) stops the case once one side has
finished and the other has had :data:`LINGER` seconds to follow.  What the case
left behind goes into a :class:`Played`, which :mod:`._judge_case` judges.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import trio

from truc_p2p.crypto import SigningKey
from truc_p2p.interop._adversary import Context
from truc_p2p.interop._cases import SLOW_THINK, Case, Scripted, play_series
from truc_p2p.interop._cases import reference_strategy as _bot
from truc_p2p.interop._proxy import CUT, FrameProxy
from truc_p2p.net import (
    DEFAULT_DEAD_AFTER,
    DEFAULT_HEARTBEAT,
    Clocks,
    End,
    GameOutcome,
    GameSettings,
    Invite,
    InviteError,
    Listen,
    Reporting,
    Storage,
    host_game,
    join_game,
)
from truc_p2p.protocol import (
    MessageType,
    RemoteProtocolError,
    Series,
    SessionOptions,
    decode_envelope,
    sign_envelope,
)

__all__ = [
    "DEFAULT_CASE_TIMEOUT",
    "LINGER",
    "LINK_FRAME",
    "NEXT_GAME_WAIT",
    "Played",
    "RunnerConfig",
    "play_case",
]

#: Seconds a case may take before it fails as hung (the slow case adds its think).
DEFAULT_CASE_TIMEOUT = 120.0

#: ``Played.error`` of a peer that exited, in role ``host``, before it printed an invite.
NO_INVITE = "the peer printed no invite"
#: Seconds one side may go on after the other finished (the peer exited, or the
#: runner's games ended) before the case is stopped.
LINGER = 20.0
#: The runner's envelope on the first connection after which ``resume`` cuts the
#: link and ``bad-frame`` damages a frame: past the hellos and the coin, mid-game.
LINK_FRAME = 7
#: Seconds a joining runner keeps trying to reach the peer's host of the next game.
NEXT_GAME_WAIT = 30.0


@dataclass(frozen=True)
class RunnerConfig:
    """``peer``: the command; ``work``: where each case's files go.

    A ``slow_think`` shorter than the spec's 30 s scales the heartbeat clocks down with
    it (the peer is told through ``TRUC_HEARTBEAT``), unless ``spec_clocks``: then both
    sides keep the spec's 5 s and 20 s, for a peer that cannot shorten its clocks (an
    earlier build) or must not (a page whose worker is busy for seconds); a think of
    over 10 s still sees the peer's heartbeats, and no dead link."""

    peer: str
    work: Path
    timeout: float = DEFAULT_CASE_TIMEOUT
    slow_think: float = SLOW_THINK
    linger: float = LINGER
    spec_clocks: bool = False


@dataclass
class Played:
    """What one (case, role) left behind."""

    outcomes: list[GameOutcome] = field(default_factory=list)
    proxy: FrameProxy | None = None
    scripts: list[Scripted] = field(default_factory=list)
    forged: list[bytes] = field(default_factory=list)
    #: the connection on which ``resume`` cut the link or ``bad-frame`` damaged a frame
    link_conn: int | None = None
    rc: int | None = None
    hung: bool = False
    error: str | None = None
    #: the runner's games were still going when the peer had exited long enough
    runner_stuck: bool = False
    #: the peer was still running when the runner's games had ended long enough
    peer_stuck: bool = False
    #: where the runner's transcripts go during the case (default: ``runner/``
    #: beside the peer's folder); the runner keeps them out of the peer's sight
    runner_out: Path | None = None
    #: adversarial cases (interop.md §8): the runner's envelope the relay replaced,
    #: what it sent instead, on which connection; the game ids seen on the link;
    #: whether the peer sent an ``abort`` after it; the case was stopped once judged
    target: bytes | None = None
    sent: list[bytes] = field(default_factory=list)
    attack_conn: int | None = None
    game_ids: set[bytes] = field(default_factory=set)
    peer_aborted: bool = False
    #: the peer's first ``abort`` on the link after the misbehaviour
    peer_abort: bytes | None = None
    #: the peer's ``refuse`` on the connection of the misbehaviour
    peer_refused: bool = False
    stopped: bool = False
    #: the peer's hello on the connections after the attack (the early-cards fallback)
    later_hellos: list[bytes] = field(default_factory=list)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _clocks(cfg: RunnerConfig) -> tuple[dict[str, float], dict[str, str]]:
    """The runner's heartbeat clocks and the peer's extra variables: the spec's
    5 s and 20 s, scaled down with a shortened slow think (tests)."""
    if cfg.slow_think >= SLOW_THINK or cfg.spec_clocks:
        return {}, {}
    scale = cfg.slow_think / SLOW_THINK
    beat = DEFAULT_HEARTBEAT * scale
    return {"heartbeat": beat, "dead_after": DEFAULT_DEAD_AFTER * scale}, {
        "TRUC_HEARTBEAT": f"{beat:g}"
    }


#: Seconds an adversarial case may take (it misbehaves in the first messages).
ADVERSARY_LIMIT = 60.0
#: Seconds the relay goes on after the peer's ``abort`` before an adversarial case stops.
AFTER_ABORT = 0.3


def _adversary_hook(case: Case, key: SigningKey, played: Played) -> Any:
    """The relay of an adversarial case: the runner's target envelope replaced by
    the case's misbehaviour (:mod:`._adversary`)."""
    m = case.adversary
    assert m is not None
    target = m.target
    ctx = Context(key)
    conns: dict[int, list[bytes]] = {}

    def matches(env: Any) -> bool:
        if target.types and env.type not in target.types:
            return False
        return target.key is None or target.key in env.payload

    def hook(from_runner: bool, conn: int, n: int, envelope: bytes) -> Any:
        try:
            env = decode_envelope(envelope)
        except RemoteProtocolError:
            return envelope
        if env.game_id:
            played.game_ids.add(env.game_id)
        if not from_runner:
            if played.attack_conn is not None and env.type == MessageType.ABORT:
                played.peer_aborted = True
                if played.peer_abort is None:
                    played.peer_abort = envelope
            if conn == played.attack_conn and env.type == MessageType.REFUSE:
                played.peer_refused = True
            if (
                played.attack_conn is not None
                and conn > played.attack_conn
                and env.type == MessageType.HELLO
            ):
                played.later_hellos.append(envelope)
            return envelope
        mine = conns.setdefault(conn, [])
        if played.target is None:
            if target.resume and conn == 1 and n == target.cut_at and played.link_conn is None:
                played.link_conn = conn
                return CUT
            ready = conn > 1 if target.resume else True
            if ready and matches(env):
                ctx.mine = list(mine)
                frames = m.mutate(envelope, ctx)
                played.target = envelope
                played.sent = [f if isinstance(f, bytes) else f.data for f in frames or ()]
                played.attack_conn = conn
                mine.append(envelope)
                if frames is None:
                    played.sent = []
                    return CUT
                return frames
        mine.append(envelope)
        return envelope

    return hook


def _hook(case: Case, key: SigningKey, played: Played) -> Any:
    if case.adversary is not None:
        return _adversary_hook(case, key, played)

    def hook(from_runner: bool, conn: int, n: int, envelope: bytes) -> bytes | None:
        if not from_runner:
            return envelope
        # the first connection that carries LINK_FRAME envelopes of the runner (an
        # earlier one may be a discarded attempt: a joiner that proposed early cards to
        # a host that predates them starts over without, wire.md 11.1)
        if n == LINK_FRAME and played.link_conn is None and case.link in ("cut", "damage"):
            played.link_conn = conn
            if case.link == "cut":
                return CUT
            return envelope[:-1] + bytes([envelope[-1] ^ 0x01])  # the signature's last byte
        if case.link == "forge":
            # the first shuffle of each game (an attempt the host discarded has its own id)
            env = decode_envelope(envelope)
            if env.type in (MessageType.V2DECK1, MessageType.V2DECK2) and env.game_id not in {
                decode_envelope(f).game_id for f in played.forged
            }:
                payload = dict(env.payload)
                proof = bytearray(payload["proof"])
                proof[len(proof) // 2] ^= 0x01
                payload["proof"] = bytes(proof)
                forged = sign_envelope(
                    key,
                    game_id=env.game_id,
                    seq=env.seq,
                    prev=env.prev,
                    sender=env.sender,
                    type=env.type,
                    payload=payload,
                )
                played.forged.append(forged)
                return forged
        return envelope

    return hook


async def _peer_process(cfg: RunnerConfig, env: dict[str, str], folder: Path) -> trio.Process:
    stderr = (folder / "peer.stderr").open("wb")
    try:
        return await trio.lowlevel.open_process(
            ["sh", "-c", cfg.peer],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env,
            start_new_session=True,  # its whole group is killed when the case ends
        )
    finally:
        stderr.close()


def _kill(proc: trio.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


class _Drive:
    """One (case, role) being played: what its tasks share."""

    def __init__(
        self, cfg: RunnerConfig, case: Case, role: str, folder: Path, played: Played
    ) -> None:
        self.cfg, self.case, self.role, self.folder, self.played = cfg, case, role, folder, played
        self.key = SigningKey.generate()
        runner_out = played.runner_out or folder / "runner"
        peer_out = folder / "peer"
        peer_out.mkdir(parents=True)
        self.clocks, extra_env = _clocks(cfg)
        self.env = dict(os.environ)
        self.env.update(
            TRUC_CASE=case.name,
            TRUC_ROLE=role,
            TRUC_OUT=str(peer_out),
            TRUC_NAME="peer",
            **(extra_env if case.runner_thinks else {}),
        )
        self.storage = Storage(out_dir=runner_out, fsync=False)
        self.hook = _hook(case, self.key, played)
        self.done = {"runner": trio.Event(), "peer": trio.Event()}
        self.proc: trio.Process | None = None
        self.invite_seen = trio.Event()
        self.invite_line: list[str] = []

    def settings(self, series: Series | None) -> GameSettings:
        case, cfg = self.case, self.cfg
        clocks = Clocks(turn_timeout=cfg.timeout, grace=min(60.0, cfg.timeout))
        if case.runner_thinks and self.clocks:
            clocks = dataclasses.replace(
                clocks, heartbeat=self.clocks["heartbeat"], dead_after=self.clocks["dead_after"]
            )
        session = SessionOptions(
            name="runner",
            pipeline=case.pipeline,
            early=case.early,
            series=series if series is not None else Series(),
        )
        return GameSettings(session=session, clocks=clocks)

    def strategy(self) -> Scripted:
        case = self.case
        script = Scripted(
            _bot(len(self.played.scripts)),
            resign_at=case.runner_resigns,
            think=self.cfg.slow_think if case.runner_thinks else 0.0,
            timid=case.peer_wants if case.runner_timid else None,
        )
        self.played.scripts.append(script)
        return script

    async def read_stdout(self, stream: trio.abc.ReceiveStream, log: BinaryIO) -> None:
        """The peer's output into ``log`` (``peer.stdout``, opened before the peer ran,
        so a link it plants there later is never followed); its first ``truc://``
        word is its invite."""
        with log:
            pending = b""
            while True:
                try:
                    data = await stream.receive_some(65536)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    break
                if not data:
                    break
                log.write(data)
                log.flush()
                pending += data
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    for word in line.decode("utf-8", "replace").split():
                        if word.startswith("truc://") and not self.invite_seen.is_set():
                            self.invite_line.append(word)
                            self.invite_seen.set()

    async def wait_peer(self, proc: trio.Process, nursery: trio.Nursery) -> None:
        self.played.rc = await proc.wait()
        self.done["peer"].set()
        self.invite_seen.set()  # a peer that exits without an invite
        if self.played.rc == 127:  # unsupported: nothing to wait for
            nursery.cancel_scope.cancel()

    async def linger(self, nursery: trio.Nursery) -> None:
        """Once one side finished, give the other ``cfg.linger`` seconds, then stop."""
        done = self.done
        first = trio.Event()

        async def either(ev: trio.Event) -> None:
            await ev.wait()
            first.set()

        async with trio.open_nursery() as watch:
            for ev in done.values():
                watch.start_soon(either, ev)
            await first.wait()
            watch.cancel_scope.cancel()
        with trio.move_on_after(self.cfg.linger):
            for ev in done.values():
                await ev.wait()
        self.played.runner_stuck = not done["runner"].is_set()
        self.played.peer_stuck = not done["peer"].is_set()
        nursery.cancel_scope.cancel()

    async def start_peer(self, nursery: trio.Nursery) -> None:
        log = (self.folder / "peer.stdout").open("wb")
        try:
            self.proc = proc = await _peer_process(self.cfg, self.env, self.folder)
        except BaseException:
            log.close()
            raise
        assert proc.stdout is not None
        nursery.start_soon(self.read_stdout, proc.stdout, log)
        nursery.start_soon(self.wait_peer, proc, nursery)

    async def join_the_peer(self, nursery: trio.Nursery) -> None:
        """Role ``host``: the peer hosts, the runner joins it through the proxy."""
        played = self.played
        port = _free_port()
        self.env["TRUC_PORT"] = str(port)
        await self.start_peer(nursery)
        await self.invite_seen.wait()
        if not self.invite_line:
            played.error = NO_INVITE
            self.done["runner"].set()
            return
        try:
            invite = Invite.parse(self.invite_line[0])
        except InviteError as exc:
            played.error = f"the peer's invite is malformed: {exc}"
            self.done["runner"].set()
            return
        proxy = FrameProxy("127.0.0.1", port, client_is_runner=True, hook=self.hook)
        played.proxy = proxy
        await nursery.start(proxy.serve)
        via = dataclasses.replace(invite, host="127.0.0.1", port=proxy.listen_port)

        async def join_one(series: Series | None) -> GameOutcome:
            deadline = trio.current_time() + NEXT_GAME_WAIT
            while True:
                outcome = await join_game(
                    via,
                    self.strategy(),
                    identity=self.key,
                    settings=self.settings(series),
                    storage=self.storage,
                )
                again = outcome.end is End.CONNECTION_FAILED or (
                    outcome.end is End.CONNECTION_LOST and outcome.game_id is None
                )
                if series is None or not again or trio.current_time() > deadline:
                    played.outcomes.append(outcome)
                    return outcome
                await trio.sleep(0.5)

        await play_series(self.case, join_one)
        self.done["runner"].set()

    async def host_for_the_peer(self, nursery: trio.Nursery) -> None:
        """Role ``join``: the runner hosts, the peer joins it through the proxy."""
        played = self.played
        proxy = FrameProxy("127.0.0.1", 0, client_is_runner=False, hook=self.hook)
        played.proxy = proxy
        await nursery.start(proxy.serve)
        first = trio.Event()
        listening = {"port": 0}
        hosted: list[Invite] = []

        def on_invite(invite: Invite) -> None:
            listening["port"] = proxy.port = invite.port
            hosted.append(invite)
            first.set()

        async def host_one(series: Series | None) -> GameOutcome:
            outcome = await host_game(
                self.strategy(),
                identity=self.key,
                settings=self.settings(series),
                listen=Listen(
                    bind="127.0.0.1",
                    port=listening["port"],
                    portmap=False,
                    announce=False,
                ),
                storage=self.storage,
                report=Reporting(on_invite=on_invite),
            )
            played.outcomes.append(outcome)
            return outcome

        async def host_all() -> None:
            await play_series(self.case, host_one)
            self.done["runner"].set()

        nursery.start_soon(host_all)
        await first.wait()
        via = dataclasses.replace(hosted[0], host="127.0.0.1", port=proxy.listen_port)
        self.env["TRUC_INVITE"] = str(via)
        await self.start_peer(nursery)

    async def judged(self, nursery: trio.Nursery) -> None:
        """An adversarial case stops once it can be judged: the peer sent its
        ``abort`` (and had a moment to record it), a connection opened after the
        one that carried the misbehaviour (a refusal), or a later hello."""
        played = self.played
        while True:
            await trio.sleep(0.05)
            stats = played.proxy.stats if played.proxy is not None else None
            if played.attack_conn is None or stats is None:
                continue
            if self.case.adversary is not None and self.case.adversary.expect.kind == "fallback":
                if played.later_hellos:
                    break
                continue
            if played.peer_aborted:
                await trio.sleep(AFTER_ABORT)
                break
            if played.attack_conn in stats.peer_closed or played.peer_refused:
                break  # refused: nothing more to record, stop before the runner redials
            if stats.connections > played.attack_conn:
                break
        played.stopped = True
        nursery.cancel_scope.cancel()

    async def run(self) -> None:
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self.linger, nursery)
                if self.case.adversary is not None:
                    nursery.start_soon(self.judged, nursery)
                if self.role == "host":
                    await self.join_the_peer(nursery)
                else:
                    await self.host_for_the_peer(nursery)
        finally:
            proc = self.proc
            if proc is not None:
                _kill(proc)
                with trio.CancelScope(shield=True), trio.move_on_after(5):
                    self.played.rc = await proc.wait() if self.played.rc is None else self.played.rc


async def play_case(cfg: RunnerConfig, case: Case, role: str, folder: Path, played: Played) -> None:
    """Play ``case`` with the peer in ``role``, its files under ``folder``; what it
    left behind goes into ``played``."""
    await _Drive(cfg, case, role, folder, played).run()
