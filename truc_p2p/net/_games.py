"""Whole games in one call: :func:`host_game` and :func:`join_game`.

Both write the transcript (every envelope, flushed before it is acted on)
and store the session secret beside it (``<transcript>.secret``, mode 0600)
so the game can later be rebuilt with :meth:`Session.restore`.  The host is
the protocol's **responder** (player 1): the joiner connects and speaks
first, like a client, and checks the host's key against the invite as soon
as the host's hello arrives.
"""

from __future__ import annotations

import os
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from truc_p2p.identity import write_private_file
from truc_p2p.net._connect import DIRECT_WINDOW, connect
from truc_p2p.net._invite import DEFAULT_PORT, Invite
from truc_p2p.net._outcome import End, GameOutcome
from truc_p2p.net._play import (
    DEFAULT_HELLO_TIMEOUT,
    DEFAULT_TURN_TIMEOUT,
    EventHook,
    Strategy,
    play_game,
)
from truc_p2p.net._reach import open_reach
from truc_p2p.net._tcp import serve_game
from truc_p2p.protocol import Session, fingerprint
from truc_p2p.rules import Player, Ruleset
from truc_p2p.transcript import TranscriptWriter

__all__ = ["LocalGame", "host_game", "join_game", "prepare_game", "transcript_path"]

T = TypeVar("T")


def transcript_path(out_dir: str | os.PathLike[str], label: str) -> Path:
    """A fresh transcript file name: ``<out_dir>/game-<date>-<time>-<random>-<label>.truc``."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "_", label)[:40] or "player"
    tag = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)
    return Path(out_dir) / f"game-{tag}-{safe}.truc"


@dataclass
class LocalGame:
    """A new session, with its transcript writer (if any)."""

    session: Session
    transcript: Path | None
    writer: TranscriptWriter | None

    @property
    def secret_path(self) -> Path | None:
        return None if self.transcript is None else secret_path_for(self.transcript)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()

    def discard(self) -> None:
        """Close and delete the files (a connection that never started a game)."""
        self.close()
        for path in (self.transcript, self.secret_path):
            if path is not None:
                path.unlink(missing_ok=True)


def secret_path_for(transcript: Path) -> Path:
    return transcript.with_name(transcript.name + ".secret")


def prepare_game(
    *,
    identity: Ed25519PrivateKey,
    role: Player,
    transcript: str | os.PathLike[str] | None,
    ruleset: Ruleset | None = None,
    name: str = "player",
    audit: str = "game",
    secret: bytes | None = None,
    fsync: bool = True,
    expected_peer_fingerprint: str | None = None,
) -> LocalGame:
    """Create a session recording into ``transcript`` (``None``: no files).

    The 32-byte ``secret`` (fresh random by default) is written to
    ``<transcript>.secret`` with mode 0600; it is never printed or logged.
    """
    secret = secrets.token_bytes(32) if secret is None else secret
    path = Path(transcript) if transcript is not None else None
    writer = None
    if path is not None:
        writer = TranscriptWriter(path, fsync=fsync)
        try:
            write_private_file(secret_path_for(path), secret)
        except BaseException:
            writer.close()
            raise
    session = Session(
        identity=identity,
        role=role,
        secret=secret,
        ruleset=ruleset,
        name=name,
        audit=audit,
        record=writer.append if writer is not None else None,
        expected_peer_fingerprint=expected_peer_fingerprint,
    )
    return LocalGame(session, path, writer)


async def _unless_stopped(stop: trio.Event | None, fn: Callable[[], Awaitable[T]]) -> T | None:
    """Run ``fn``; ``None`` if ``stop`` is set first."""
    if stop is None:
        return await fn()
    result: list[T] = []
    errors: list[Exception] = []
    async with trio.open_nursery() as nursery:

        async def watch() -> None:
            await stop.wait()
            nursery.cancel_scope.cancel()

        nursery.start_soon(watch)
        try:
            result.append(await fn())
        except Exception as exc:  # re-raised below, outside the nursery's group
            errors.append(exc)
        nursery.cancel_scope.cancel()
    if errors:
        raise errors[0]
    return result[0] if result else None


_PRE_GAME_ENDS = (End.PROTOCOL_ERROR, End.CONNECTION_LOST, End.OPPONENT_TIMEOUT)


async def host_game(
    strategy: Strategy,
    *,
    identity: Ed25519PrivateKey,
    bind: str | None = None,
    port: int = DEFAULT_PORT,
    advertise: str | None = None,
    ruleset: Ruleset | None = None,
    name: str = "host",
    audit: str = "game",
    out_dir: str | os.PathLike[str] | None = "games",
    turn_timeout: float = DEFAULT_TURN_TIMEOUT,
    hello_timeout: float = DEFAULT_HELLO_TIMEOUT,
    on_invite: Callable[[Invite], None] | None = None,
    on_event: EventHook | None = None,
    on_notice: Callable[[str], None] | None = None,
    stop: trio.Event | None = None,
    fsync: bool = True,
    relay: tuple[str, int] | None = None,
    portmap: bool = True,
    announce: bool = True,
    on_path: Callable[[str, str], None] | None = None,
) -> GameOutcome:
    """Listen, hand the invite to ``on_invite``, and play one game with the first
    peer that starts one (connections that never send a valid hello are
    dropped with a notice).  Raises ``OSError`` if the address cannot be bound
    or the ``relay`` (host, port) cannot be reached.  ``portmap`` asks the
    router to forward the port and ``announce`` advertises the game on the
    LAN (both skipped on a loopback ``bind``).  ``on_path(path, peer)`` hears
    of each connection: ``direct``, ``punched`` or ``relayed``.
    """
    rules = ruleset or Ruleset()
    settings = {
        "target": str(rules.target),
        "ladder": rules.ladder.value,
        "rest": rules.rest_refused.value,
        "audit": audit,
    }
    async with (
        serve_game(bind=bind, port=port) as listener,
        open_reach(
            listener,
            fingerprint=fingerprint(identity.public_key()),
            name=name,
            advertise=advertise,
            relay=relay,
            portmap=portmap,
            announce=announce,
            settings=settings,
        ) as reach,
    ):
        if on_invite is not None:
            on_invite(reach.invite())
        while True:
            incoming = await _unless_stopped(stop, reach.accept)
            if incoming is None:
                return GameOutcome(
                    end=End.QUIT, message="stopped before anyone joined", me=Player.P1
                )
            stream, peer = incoming.stream, incoming.peer[0]
            if on_path is not None:
                on_path(incoming.path, peer)
            path = transcript_path(out_dir, f"host-{name}") if out_dir is not None else None
            local = prepare_game(
                identity=identity,
                role=Player.P1,
                transcript=path,
                ruleset=ruleset,
                name=name,
                audit=audit,
                fsync=fsync,
            )
            try:
                async with stream:
                    outcome = await play_game(
                        stream,
                        local.session,
                        strategy,
                        turn_timeout=turn_timeout,
                        hello_timeout=hello_timeout,
                        on_event=on_event,
                        stop=stop,
                    )
            finally:
                local.close()
            if outcome.peer_fingerprint is None and outcome.end in _PRE_GAME_ENDS:
                local.discard()
                if on_notice is not None:
                    on_notice(f"ignored a connection from {peer}: {outcome.message}")
                continue
            return replace(outcome, transcript=local.transcript, path=incoming.path)


async def join_game(
    invite: Invite | str,
    strategy: Strategy,
    *,
    identity: Ed25519PrivateKey,
    ruleset: Ruleset | None = None,
    name: str = "guest",
    audit: str = "game",
    out_dir: str | os.PathLike[str] | None = "games",
    turn_timeout: float = DEFAULT_TURN_TIMEOUT,
    hello_timeout: float = DEFAULT_HELLO_TIMEOUT,
    connect_timeout: float = 15.0,
    on_event: EventHook | None = None,
    stop: trio.Event | None = None,
    fsync: bool = True,
    direct_window: float = DIRECT_WINDOW,
    on_path: Callable[[str], None] | None = None,
) -> GameOutcome:
    """Connect to the host of ``invite`` and play one game, refusing a host whose key
    does not have the invite's fingerprint.  Raises :class:`InviteError` for a
    malformed invite; every other failure is an outcome.  An invite with a
    relay races direct paths, hole punching and a relay splice
    (:func:`~truc_p2p.net.connect`); ``on_path`` hears which one won.
    """
    if isinstance(invite, str):
        invite = Invite.parse(invite)
    inv = invite
    path = transcript_path(out_dir, f"join-{name}") if out_dir is not None else None
    async with AsyncExitStack() as stack:
        try:
            connected = await _unless_stopped(
                stop,
                lambda: connect(inv, connect_timeout=connect_timeout, direct_window=direct_window),
            )
        except OSError as exc:
            where = f"[{inv.host}]" if inv.is_ipv6 else inv.host
            return GameOutcome(
                end=End.CONNECTION_FAILED,
                message=f"cannot connect to {where}:{inv.port}: {exc.strerror or exc}",
                me=Player.P0,
            )
        if connected is None:
            return GameOutcome(end=End.QUIT, message="stopped before connecting", me=Player.P0)
        stream, route = connected
        await stack.enter_async_context(stream)
        if on_path is not None:
            on_path(route)
        local = prepare_game(
            identity=identity,
            role=Player.P0,
            transcript=path,
            ruleset=ruleset,
            name=name,
            audit=audit,
            fsync=fsync,
            expected_peer_fingerprint=inv.fingerprint.lower(),
        )
        try:
            outcome = await play_game(
                stream,
                local.session,
                strategy,
                turn_timeout=turn_timeout,
                hello_timeout=hello_timeout,
                expected_fingerprint=inv.fingerprint,
                on_event=on_event,
                stop=stop,
            )
        finally:
            local.close()
    return replace(outcome, transcript=local.transcript, path=route)
