"""The reference peer: this program as a peer under test of ``truc-p2p interop``.

Run as ``python -m truc_p2p.interop.peer`` (the runner's ``--peer`` command); it
reads the ``TRUC_*`` variables of ``protocol_spec/interop.md``, plays the case
with the heuristic bot (a scripted one where the case names a decision) and
exits 0 when it played it, 127 for a case it does not know, 2 for a missing or
bad variable.  :func:`run` is the same with hooks for the deliberately broken
peers of ``tests/interop``: a relay ``hook`` that changes the peer's own frames,
other game settings, or a reaction to a dropped link.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from truc_p2p.crypto import SigningKey
from truc_p2p.interop._cases import CASES, Case, Scripted, play_series, reference_strategy
from truc_p2p.interop._proxy import FrameHook, FrameProxy
from truc_p2p.net import (
    Clocks,
    End,
    EventHook,
    GameOutcome,
    GameSettings,
    Invite,
    InviteError,
    Listen,
    Reporting,
    Storage,
    Strategy,
    host_game,
    join_game,
)
from truc_p2p.protocol import Series, SessionOptions

__all__ = ["PeerEnv", "main", "run"]

#: Exit status of a peer for a case it does not support.
UNSUPPORTED = 127
#: Seconds a joiner keeps trying to reach the host of the next game of a series.
NEXT_GAME_WAIT = 30.0


@dataclass(frozen=True)
class PeerEnv:
    """The ``TRUC_*`` variables (``protocol_spec/interop.md`` section 2)."""

    case: str
    role: str
    out: Path
    name: str
    port: int | None = None
    invite: str | None = None
    heartbeat: float | None = None

    @classmethod
    def read(cls, env: Mapping[str, str]) -> PeerEnv:
        """Raise ``ValueError`` with one line for a missing or bad variable."""

        def need(key: str) -> str:
            value = env.get(key)
            if not value:
                raise ValueError(f"{key} is not set")
            return value

        role = need("TRUC_ROLE")
        if role not in ("host", "join"):
            raise ValueError(f"TRUC_ROLE must be host or join, not {role!r}")
        port = invite = None
        if role == "host":
            text = need("TRUC_PORT")
            if not text.isdigit() or not 0 < int(text) < 65536:
                raise ValueError(f"TRUC_PORT is not a TCP port: {text!r}")
            port = int(text)
        else:
            invite = need("TRUC_INVITE")
        beat = env.get("TRUC_HEARTBEAT")
        if beat and not _positive(beat):
            raise ValueError(f"TRUC_HEARTBEAT is not a number of seconds: {beat!r}")
        return cls(
            case=need("TRUC_CASE"),
            role=role,
            out=Path(need("TRUC_OUT")),
            name=env.get("TRUC_NAME") or "peer",
            port=port,
            invite=invite,
            heartbeat=float(beat) if beat else None,
        )


def _positive(text: str) -> bool:
    try:
        return 0 < float(text) < 1e6
    except ValueError:
        return False


def _strategy(case: Case) -> Strategy:
    bot = reference_strategy(int.from_bytes(os.urandom(4), "big"))
    if case.peer_wants is None and case.peer_resigns is None:
        return bot
    return Scripted(bot, wants=case.peer_wants, resign_at=case.peer_resigns)


def _settings(
    case: Case, env: PeerEnv, series: Series | None, extra: Mapping[str, Any]
) -> GameSettings:
    clocks: dict[str, Any] = {"turn_timeout": 120.0}
    if env.heartbeat is not None:  # the runner shortened the slow case
        clocks |= {"heartbeat": env.heartbeat, "dead_after": 4 * env.heartbeat}
    session: dict[str, Any] = {"name": env.name, "pipeline": case.pipeline, "early": case.early}
    if series is not None:
        session["series"] = series
    for key, value in extra.items():  # a clock, or an option of the session
        (clocks if key in {f.name for f in dataclasses.fields(Clocks)} else session)[key] = value
    return GameSettings(session=SessionOptions(**session), clocks=Clocks(**clocks))


async def _play(
    env: PeerEnv,
    case: Case,
    *,
    hook: FrameHook | None,
    extra: Mapping[str, Any],
    on_event: EventHook | None,
    key: SigningKey,
) -> list[GameOutcome]:
    storage = Storage(out_dir=env.out, fsync=False)
    async with trio.open_nursery() as nursery:
        proxy: FrameProxy | None = None
        if env.role == "host":
            assert env.port is not None
            port = env.port
            if hook is not None:  # listen behind our own relay on TRUC_PORT
                proxy = FrameProxy(
                    "127.0.0.1", 0, client_is_runner=True, hook=hook, listen_port=env.port
                )
                await nursery.start(proxy.serve)
                port = 0
            listening = {"port": port}

            def on_invite(invite: Invite) -> None:
                listening["port"] = invite.port
                if proxy is not None:
                    proxy.port = invite.port
                    invite = dataclasses.replace(invite, port=proxy.listen_port)
                print(str(invite), flush=True)

            async def host_one(series: Series | None) -> GameOutcome:
                return await host_game(
                    _strategy(case),
                    identity=key,
                    settings=_settings(case, env, series, extra),
                    listen=Listen(
                        bind="127.0.0.1", port=listening["port"], portmap=False, announce=False
                    ),
                    storage=storage,
                    report=Reporting(on_invite=on_invite, on_event=on_event),
                )

            outcomes = await play_series(case, host_one)
        else:
            assert env.invite is not None
            invite = Invite.parse(env.invite)
            if hook is not None:  # dial through our own relay
                proxy = FrameProxy(invite.host, invite.port, client_is_runner=False, hook=hook)
                await nursery.start(proxy.serve)
                invite = dataclasses.replace(invite, host="127.0.0.1", port=proxy.listen_port)

            async def join_one(series: Series | None) -> GameOutcome:
                deadline = trio.current_time() + NEXT_GAME_WAIT
                while True:
                    outcome = await join_game(
                        invite,
                        _strategy(case),
                        identity=key,
                        settings=_settings(case, env, series, extra),
                        storage=storage,
                        report=Reporting(on_event=on_event),
                    )
                    again = outcome.end is End.CONNECTION_FAILED or (
                        outcome.end is End.CONNECTION_LOST and outcome.game_id is None
                    )
                    if series is None or not again or trio.current_time() > deadline:
                        return outcome
                    await trio.sleep(0.5)

            outcomes = await play_series(case, join_one)
        nursery.cancel_scope.cancel()
    return outcomes


def run(
    environ: Mapping[str, str] | None = None,
    *,
    hook: FrameHook | None = None,
    settings: Mapping[str, Any] | None = None,
    on_event: EventHook | None = None,
    identity: SigningKey | None = None,
) -> int:
    """Play the case the environment names; the exit status of the peer.  ``hook``
    sees every frame on the peer's side of its own relay (``from_runner`` false: the
    peer's own frames), ``settings`` replace fields of its :class:`GameSettings`,
    ``identity`` is its key (default: a new one)."""
    try:
        env = PeerEnv.read(os.environ if environ is None else environ)
    except ValueError as exc:
        print(f"truc-p2p interop peer: {exc}", file=sys.stderr)
        return 2
    case = CASES.get(env.case)
    if case is None:
        print(f"truc-p2p interop peer: case {env.case!r} is not supported", file=sys.stderr)
        return UNSUPPORTED
    env.out.mkdir(parents=True, exist_ok=True)
    try:
        outcomes = trio.run(
            lambda: _play(
                env,
                case,
                hook=hook,
                extra=settings or {},
                on_event=on_event,
                key=identity or SigningKey.generate(),
            )
        )
    except InviteError as exc:
        print(f"truc-p2p interop peer: TRUC_INVITE: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"truc-p2p interop peer: {exc}", file=sys.stderr)
        return 1
    for outcome in outcomes:
        print(f"{outcome.end.value}: {outcome.message}", file=sys.stderr)
    return 0 if outcomes else 1


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m truc_p2p.interop.peer`` (no arguments: everything is in the environment)."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words:
        print("usage: python -m truc_p2p.interop.peer  (reads TRUC_* variables)", file=sys.stderr)
        return 2
    return run()


if __name__ == "__main__":
    sys.exit(main())
