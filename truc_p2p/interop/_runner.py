"""``truc-p2p interop``: play every case against a peer command and judge it.

For each (case, role) the runner starts the peer with ``sh -c COMMAND`` and the
``TRUC_*`` variables, plays the other side itself with the reference
implementation through a :class:`~._proxy.FrameProxy`, and judges the case from
both sides' transcripts (checked by :func:`~truc_p2p.protocol.verify_transcript`
and against each other), the runner's outcomes and the case's own criteria,
never from the peer's exit status alone (``protocol_spec/interop.md``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import signal
import socket
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from truc_p2p.interop._cases import CASES, SLOW_THINK, Case, Scripted, play_series
from truc_p2p.interop._cases import reference_strategy as _bot
from truc_p2p.interop._proxy import CUT, FrameProxy
from truc_p2p.net import (
    DEFAULT_DEAD_AFTER,
    DEFAULT_HEARTBEAT,
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
    Series,
    VerifyReport,
    decode_envelope,
    sign_envelope,
    verify_transcript,
)
from truc_p2p.rules import Player
from truc_p2p.transcript import read_transcript

__all__ = [
    "DEFAULT_CASE_TIMEOUT",
    "LINGER",
    "CaseResult",
    "RunnerConfig",
    "dumps",
    "matrix_text",
    "run_cases",
    "to_json",
]

#: Seconds a case may take before it fails as hung (the slow case adds its think).
DEFAULT_CASE_TIMEOUT = 120.0
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
    """``peer``: the command; ``work``: where each case's files go."""

    peer: str
    work: Path
    timeout: float = DEFAULT_CASE_TIMEOUT
    slow_think: float = SLOW_THINK
    linger: float = LINGER


@dataclass(frozen=True)
class CaseResult:
    case: str
    role: str
    result: str  # "pass", "fail" or "unsupported"
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"case": self.case, "role": self.role, "result": self.result, "detail": self.detail}


@dataclass
class _Played:
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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _clocks(cfg: RunnerConfig) -> tuple[dict[str, float], dict[str, str]]:
    """The runner's heartbeat clocks and the peer's extra variables: the spec's
    5 s and 20 s, scaled down with a shortened slow think (tests)."""
    if cfg.slow_think >= SLOW_THINK:
        return {}, {}
    scale = cfg.slow_think / SLOW_THINK
    beat = DEFAULT_HEARTBEAT * scale
    return {"heartbeat": beat, "dead_after": DEFAULT_DEAD_AFTER * scale}, {
        "TRUC_HEARTBEAT": f"{beat:g}"
    }


def _hook(case: Case, key: Ed25519PrivateKey, played: _Played) -> Any:
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


async def _drive(cfg: RunnerConfig, case: Case, role: str, folder: Path, played: _Played) -> None:
    key = Ed25519PrivateKey.generate()
    runner_out = folder / "runner"
    peer_out = folder / "peer"
    peer_out.mkdir(parents=True)
    clocks, extra_env = _clocks(cfg)
    env = dict(os.environ)
    env.update(
        TRUC_CASE=case.name,
        TRUC_ROLE=role,
        TRUC_OUT=str(peer_out),
        TRUC_NAME="peer",
        **(extra_env if case.runner_thinks else {}),
    )

    def settings(series: Series | None) -> GameSettings:
        chosen = GameSettings(
            name="runner",
            pipeline=case.pipeline,
            early=case.early,
            series=series,
            turn_timeout=cfg.timeout,
            grace=min(60.0, cfg.timeout),
        )
        if not case.runner_thinks or not clocks:
            return chosen
        return dataclasses.replace(
            chosen, heartbeat=clocks["heartbeat"], dead_after=clocks["dead_after"]
        )

    def strategy() -> Scripted:
        script = Scripted(
            _bot(len(played.scripts)),
            resign_at=case.runner_resigns,
            think=cfg.slow_think if case.runner_thinks else 0.0,
            timid=case.peer_wants if case.runner_timid else None,
        )
        played.scripts.append(script)
        return script

    storage = Storage(out_dir=runner_out, fsync=False)
    hook = _hook(case, key, played)
    done = {"runner": trio.Event(), "peer": trio.Event()}
    proc: trio.Process | None = None
    invite_seen = trio.Event()
    invite_line: list[str] = []

    async def read_stdout(stream: trio.abc.ReceiveStream) -> None:
        with (folder / "peer.stdout").open("wb") as log:
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
                        if word.startswith("truc://") and not invite_seen.is_set():
                            invite_line.append(word)
                            invite_seen.set()

    async def wait_peer(proc: trio.Process, nursery: trio.Nursery) -> None:
        played.rc = await proc.wait()
        done["peer"].set()
        invite_seen.set()  # a peer that exits without an invite
        if played.rc == 127:  # unsupported: nothing to wait for
            nursery.cancel_scope.cancel()

    async def linger(nursery: trio.Nursery) -> None:
        first = trio.Event()

        async def either(ev: trio.Event) -> None:
            await ev.wait()
            first.set()

        async with trio.open_nursery() as watch:
            for ev in done.values():
                watch.start_soon(either, ev)
            await first.wait()
            watch.cancel_scope.cancel()
        with trio.move_on_after(cfg.linger):
            for ev in done.values():
                await ev.wait()
        played.runner_stuck = not done["runner"].is_set()
        played.peer_stuck = not done["peer"].is_set()
        nursery.cancel_scope.cancel()

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(linger, nursery)
            if role == "host":  # the peer hosts, the runner joins through the relay
                port = _free_port()
                env["TRUC_PORT"] = str(port)
                proc = await _peer_process(cfg, env, folder)
                assert proc.stdout is not None
                nursery.start_soon(read_stdout, proc.stdout)
                nursery.start_soon(wait_peer, proc, nursery)
                await invite_seen.wait()
                if not invite_line:
                    played.error = "the peer printed no invite"
                    done["runner"].set()
                    return
                try:
                    invite = Invite.parse(invite_line[0])
                except InviteError as exc:
                    played.error = f"the peer's invite is malformed: {exc}"
                    done["runner"].set()
                    return
                proxy = FrameProxy("127.0.0.1", port, client_is_runner=True, hook=hook)
                played.proxy = proxy
                await nursery.start(proxy.serve)
                via = dataclasses.replace(invite, host="127.0.0.1", port=proxy.listen_port)

                async def join_one(series: Series | None) -> GameOutcome:
                    deadline = trio.current_time() + NEXT_GAME_WAIT
                    while True:
                        outcome = await join_game(
                            via,
                            strategy(),
                            identity=key,
                            settings=settings(series),
                            storage=storage,
                        )
                        again = outcome.end is End.CONNECTION_FAILED or (
                            outcome.end is End.CONNECTION_LOST and outcome.game_id is None
                        )
                        if series is None or not again or trio.current_time() > deadline:
                            played.outcomes.append(outcome)
                            return outcome
                        await trio.sleep(0.5)

                await play_series(case, join_one)
                done["runner"].set()
            else:  # the runner hosts, the peer joins through the relay
                proxy = FrameProxy("127.0.0.1", 0, client_is_runner=False, hook=hook)
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
                        strategy(),
                        identity=key,
                        settings=settings(series),
                        listen=Listen(
                            bind="127.0.0.1",
                            port=listening["port"],
                            portmap=False,
                            announce=False,
                        ),
                        storage=storage,
                        report=Reporting(on_invite=on_invite),
                    )
                    played.outcomes.append(outcome)
                    return outcome

                async def host_all() -> None:
                    await play_series(case, host_one)
                    done["runner"].set()

                nursery.start_soon(host_all)
                await first.wait()
                via = dataclasses.replace(hosted[0], host="127.0.0.1", port=proxy.listen_port)
                env["TRUC_INVITE"] = str(via)
                proc = await _peer_process(cfg, env, folder)
                assert proc.stdout is not None
                nursery.start_soon(read_stdout, proc.stdout)
                nursery.start_soon(wait_peer, proc, nursery)
    finally:
        if proc is not None:
            _kill(proc)
            with trio.CancelScope(shield=True), trio.move_on_after(5):
                played.rc = await proc.wait() if played.rc is None else played.rc


# -- judging ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Transcript:
    path: Path
    envelopes: list[bytes]
    report: VerifyReport


def _read(path: Path) -> _Transcript | None:
    try:
        envelopes = read_transcript(path)
    except (OSError, ValueError):
        return None
    return _Transcript(path, envelopes, verify_transcript(envelopes))


def _peer_transcripts(folder: Path) -> dict[str, _Transcript]:
    found: dict[str, _Transcript] = {}
    for path in sorted(folder.rglob("*.truc")):
        t = _read(path)
        if t is not None and t.report.game_id is not None:
            found.setdefault(t.report.game_id, t)
    return found


def _why(t: _Transcript) -> str:
    r = t.report
    return r.error or r.ended_by or r.status


def _first_difference(a: list[bytes], b: list[bytes]) -> int | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def _judge(case: Case, role: str, played: _Played, peer_dir: Path) -> tuple[str, str]:
    """``(result, detail)`` of one played case."""
    if played.rc == 127:
        return "unsupported", "the peer does not support this case (exit 127)"
    stats = played.proxy.stats if played.proxy is not None else None
    seen = (
        f" ({stats.connections} connections, {stats.from_peer} frames from the peer)"
        if stats is not None
        else ""
    )
    if played.error is not None:
        return "fail", played.error
    peer_seat = Player.P1 if role == "host" else Player.P0
    runner_seat = peer_seat.other
    peers = _peer_transcripts(peer_dir)
    if case.link == "forge" and not played.hung:
        return _judge_cheat(played, peers, peer_seat, runner_seat)
    if played.hung:
        return "fail", f"the case did not end within its time limit{seen}"
    if played.runner_stuck:
        return "fail", f"the peer exited (status {played.rc}) before the game ended{seen}"
    outcomes = played.outcomes
    if not outcomes:
        return "fail", f"no game was played (peer exit {played.rc}){seen}"
    games: list[tuple[_Transcript, _Transcript]] = []
    for number, outcome in enumerate(outcomes, 1):
        where = f"game {number}" if len(outcomes) > 1 else "the game"
        mine = _read(outcome.transcript) if outcome.transcript is not None else None
        if mine is None or mine.report.game_id is None:
            return "fail", f"{where} did not start: {outcome.message}"
        theirs = peers.get(mine.report.game_id)
        if mine.report.status != "complete":
            return "fail", f"{where} did not finish: {outcome.message}"
        if theirs is None:
            return "fail", f"the peer wrote no transcript of {where} in TRUC_OUT"
        if theirs.report.status != "complete":
            return "fail", f"the peer's transcript of {where} does not verify: {_why(theirs)}"
        diff = _first_difference(mine.envelopes, theirs.envelopes)
        if diff is not None:
            return "fail", f"the two transcripts of {where} differ from message {diff}"
        games.append((mine, theirs))
    reason = _criteria(case, played, games, peer_seat, runner_seat)
    if reason is not None:
        return "fail", reason
    if played.peer_stuck:
        return "fail", "the games verify but the peer did not exit after them"
    if played.rc != 0:
        return "fail", f"the games verify but the peer exited with status {played.rc}"
    return "pass", _summary(played, games)


def _criteria(
    case: Case,
    played: _Played,
    games: list[tuple[_Transcript, _Transcript]],
    peer_seat: Player,
    runner_seat: Player,
) -> str | None:
    outcomes = played.outcomes
    stats = played.proxy.stats if played.proxy is not None else None
    last = games[-1][0].report
    if case.games == "one" and len(games) != 1:
        return f"{len(games)} games were played, not one"
    if case.games == "rematch" and len(games) != 2:
        return f"{len(games)} game(s) of the rematch were played, not 2"
    if case.games == "match3":
        wins = [g[0].report.winner for g in games]
        if max(wins.count(0), wins.count(1)) < 2:
            return f"the match ended after {len(games)} games without a winner of two"
    if case.peer_wants is not None:
        kind = case.peer_wants
        if not any(p == int(peer_seat) and a.kind is kind for p, a in last.moves):
            return f"the peer never played {kind.value!r}"
    if case.peer_resigns is not None and (
        outcomes[0].end is not End.OPPONENT_RESIGNED or last.resigned_by != int(peer_seat)
    ):
        return f"the peer did not resign: {outcomes[0].message}"
    if case.runner_resigns is not None and last.resigned_by != int(runner_seat):
        return f"the runner's resignation is not in the transcripts: {outcomes[0].message}"
    if case.link is not None and played.link_conn is None:
        return "the runner sent too few messages to cut or damage (the game ended first)"
    moved_on = stats is not None and stats.connections > (played.link_conn or 0)
    if case.link == "cut" and not moved_on:
        return "the game finished without a new connection after the cut"
    if case.link == "damage" and not moved_on:
        return "the peer did not drop the link that carried a damaged frame"
    if case.runner_thinks and stats is not None:
        thought = next((s.thought for s in played.scripts if s.thought), None)
        if thought is None:
            return "the runner never thought (the game ended first)"
        start, end = thought
        again = [t for t in stats.opened if t >= start]
        if again:
            return f"the link was lost during the runner's think ({len(again)} new connections)"
        beats = [t for t in stats.peer_heartbeats if start <= t <= end]
        if not beats:
            return f"the peer sent no heartbeat during the runner's {end - start:.0f} s think"
    return None


def _summary(played: _Played, games: list[tuple[_Transcript, _Transcript]]) -> str:
    stats = played.proxy.stats if played.proxy is not None else None
    messages = sum(len(g[0].envelopes) for g in games)
    text = f"{len(games)} game{'s' if len(games) > 1 else ''}, {messages} messages, both verify"
    if stats is not None and stats.connections > len(games):
        text += f", {stats.connections} connections"
    return text


def _judge_cheat(
    played: _Played, peers: dict[str, _Transcript], peer_seat: Player, runner_seat: Player
) -> tuple[str, str]:
    if not played.forged:
        return "fail", "the runner sent no shuffle proof to forge"
    kept = [f for f in played.forged if decode_envelope(f).game_id.hex() in peers]
    if not kept:
        return "fail", "the peer wrote no transcript of the game in TRUC_OUT"
    forged = kept[-1]
    theirs = peers[decode_envelope(forged).game_id.hex()]
    report = theirs.report
    if report.status == "complete":
        return "fail", "the peer accepted the forged proof and finished the game"
    if forged not in theirs.envelopes:
        return "fail", "the peer's transcript does not keep the forged message as evidence"
    if report.status != "violation" or report.culprit != int(runner_seat):
        return "fail", f"the peer's transcript does not prove the runner cheated: {_why(theirs)}"
    if report.aborted_by != int(peer_seat) or report.abort_reason != "cheat":
        return "fail", "the peer did not end the game with a signed abort 'cheat'"
    if played.rc != 0:
        return "fail", f"the peer ended the game as a cheat but exited with status {played.rc}"
    return "pass", f"abort 'cheat' at message {len(theirs.envelopes) - 1}: {report.error_code}"


async def _run_one(cfg: RunnerConfig, case: Case, role: str) -> CaseResult:
    folder = cfg.work / f"{case.name}-{role}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    played = _Played()
    limit = cfg.timeout + (cfg.slow_think if case.runner_thinks else 0.0)
    with trio.move_on_after(limit) as scope:
        try:
            await _drive(cfg, case, role, folder, played)
        except OSError as exc:
            played.error = f"cannot run the case: {exc}"
    played.hung = scope.cancelled_caught
    result, detail = _judge(case, role, played, folder / "peer")
    return CaseResult(case.name, role, result, detail)


def run_cases(
    cfg: RunnerConfig, cases: Sequence[str], roles: Sequence[str] = ("host", "join")
) -> list[CaseResult]:
    """Play every (case, role), one at a time."""

    async def all_cases() -> list[CaseResult]:
        return [await _run_one(cfg, CASES[name], role) for name in cases for role in roles]

    return trio.run(all_cases)


def to_json(results: Sequence[CaseResult]) -> dict[str, Any]:
    """The ``--json`` object of ``protocol_spec/interop.md`` section 5."""
    return {
        "cases": [r.to_json() for r in results],
        "passed": sum(r.result == "pass" for r in results),
        "failed": sum(r.result == "fail" for r in results),
        "unsupported": sum(r.result == "unsupported" for r in results),
    }


_MARK = {"pass": "pass", "fail": "FAIL", "unsupported": "-"}


def matrix_text(results: Sequence[CaseResult]) -> str:
    """Cases down, the peer's role across; then the reason of every failure."""
    roles = list(dict.fromkeys(r.role for r in results))
    cases = list(dict.fromkeys(r.case for r in results))
    cell = {(r.case, r.role): r for r in results}
    width = max([len("case"), *map(len, cases)])
    head = "case".ljust(width) + "".join(f"  peer {role:<6}" for role in roles)
    lines = [head.rstrip()]
    for name in cases:
        row = name.ljust(width)
        for role in roles:
            r = cell.get((name, role))
            row += f"  {(_MARK[r.result] if r else ''):<11}"
        lines.append(row.rstrip())
    failed = [r for r in results if r.result == "fail"]
    if failed:
        lines.append("")
        lines.extend(f"FAIL {r.case} (peer {r.role}): {r.detail}" for r in failed)
    summary = to_json(results)
    lines.append("")
    lines.append(
        f"{summary['passed']} passed, {summary['failed']} failed, "
        f"{summary['unsupported']} unsupported"
    )
    return "\n".join(lines)


def dumps(results: Sequence[CaseResult]) -> str:
    """:func:`to_json` as the text ``--json`` prints."""
    return json.dumps(to_json(results), indent=2)
