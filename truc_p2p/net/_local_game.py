"""One side of a game on this machine: its session, transcript and stored secret
(:func:`prepare_game`), and the files beside the transcript that a restart reads.

Both :func:`~._host_game.host_game` and :func:`~._join_game.join_game` write the
transcript (every envelope, flushed before it is acted on; our own envelopes
fsynced before they are sent) and store the session secret beside it
(``<transcript>.secret``, mode 0600) and what a restart needs
(``<transcript>.meta.json``: role, address, settings) so that
:func:`~._games.resume_game` can finish a game whose process died.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import trio

from truc_p2p.crypto import SigningKey
from truc_p2p.evidence import keep_evidence
from truc_p2p.identity import write_private_file
from truc_p2p.net._away import away_path_for
from truc_p2p.net._relay_wire import relay_claim
from truc_p2p.net._settings import Storage
from truc_p2p.protocol import (
    RemoteProtocolError,
    Series,
    Session,
    SessionOptions,
)
from truc_p2p.rules import Player
from truc_p2p.transcript import TranscriptWriter

__all__ = [
    "LocalGame",
    "meta_path_for",
    "prepare_game",
    "read_meta",
    "relay_claim",
    "secret_path_for",
    "transcript_path",
    "write_meta",
]


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

    @property
    def away_file(self) -> Path | None:
        """Where the away time used is kept for a restart (wire.md 13.4)."""
        return None if self.transcript is None else away_path_for(self.transcript)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()

    def sync(self) -> None:
        """Our own envelopes reach the disk before their bytes leave (no equivocation)."""
        if self.writer is not None:
            self.writer.sync()

    def keep_evidence(self, error: RemoteProtocolError) -> None:
        """Keep the signed control messages of ``error`` beside the transcript."""
        if self.transcript is not None:
            with contextlib.suppress(OSError):  # the abort still says what happened
                keep_evidence(self.transcript, error)

    def discard(self) -> None:
        """Close and delete the files (a connection that never started a game)."""
        self.close()
        if self.transcript is None:
            return
        for path in (
            self.transcript,
            self.secret_path,
            meta_path_for(self.transcript),
            self.away_file,
        ):
            if path is not None:
                path.unlink(missing_ok=True)


def secret_path_for(transcript: Path) -> Path:
    return transcript.with_name(transcript.name + ".secret")


def meta_path_for(transcript: Path) -> Path:
    return transcript.with_name(transcript.name + ".meta.json")


def write_meta(transcript: Path, meta: dict[str, Any]) -> None:
    """Store what ``truc-p2p resume`` needs beside the transcript (no secrets in it)."""
    path = meta_path_for(transcript)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"format": 1, **meta}, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


def read_meta(transcript: Path) -> dict[str, Any]:
    """The stored settings of a transcript (``OSError``/``ValueError`` when unusable)."""
    meta = json.loads(meta_path_for(transcript).read_text())
    if not isinstance(meta, dict) or meta.get("format") != 1:
        raise ValueError("not a truc-p2p game settings file")
    return meta


def prepare_game(
    *,
    identity: SigningKey,
    role: Player,
    transcript: str | os.PathLike[str] | None,
    secret: bytes | None = None,
    storage: Storage = Storage(),
    options: SessionOptions = SessionOptions(),
    expected_peer_fingerprint: str | None = None,
    accept_series: Callable[[Series, str], bool] | None = None,
) -> LocalGame:
    """Create a session recording into ``transcript`` (``None``: no files), made
    with ``options``, heartbeats and the resume clock on: our hello announces both
    (wire.md 11.1, 13.1, 13.6).  ``expected_peer_fingerprint`` pins the peer's key
    and ``accept_series`` says whether we take a linked game (the host's).

    The 32-byte ``secret`` (fresh random by default) is written to
    ``<transcript>.secret`` with mode 0600; it is never printed or logged.  How hard
    the transcript is synced is ``storage``'s (its ``out_dir`` is not read: the
    caller names the file); its ``meta`` (what ``truc-p2p resume`` needs, no
    secrets), when there is any, goes to ``<transcript>.meta.json``.
    """
    secret = secrets.token_bytes(32) if secret is None else secret
    path = Path(transcript) if transcript is not None else None
    writer = None
    if path is not None:
        writer = TranscriptWriter(
            path,
            sync=("each" if storage.sync_each else "on-demand") if storage.fsync else "never",
        )
        try:
            write_private_file(secret_path_for(path), secret)
            if storage.meta:
                write_meta(path, dict(storage.meta))
        except BaseException:
            writer.close()
            raise
    session = Session(
        identity=identity,
        role=role,
        secret=secret,
        record=writer.append if writer is not None else None,
        expected_peer_fingerprint=expected_peer_fingerprint,
        accept_series=accept_series,
        options=replace(options, heartbeat=True, resume_clock=True),
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


def _started(session: Session) -> bool:
    """Whether the game got past the handshake (the first dealer is drawn)."""
    return session.started
