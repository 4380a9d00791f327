"""Append-only transcript files (the I/O half of :mod:`truc_p2p.protocol._transcript`).

Theory of operation
-------------------
A :class:`TranscriptWriter` appends one frame per envelope with ``os.write``
on a file opened ``O_APPEND`` and remembers the size of the file after the
last whole frame.  If a write (or an fsync) fails part-way, a full disk or an
I/O error, the file is truncated back to that size before
:class:`TranscriptWriteError` is raised: what is on disk always ends with a
whole frame, and stays readable by ``verify`` and resumable.

Durability is a policy (``sync=``):

``"each"``
    fsync after every append (the old behaviour; slow: about twice the wall
    time of a loopback game).
``"on-demand"`` (default)
    every append reaches the OS at once (a crash of the *process* loses
    nothing), and :meth:`TranscriptWriter.sync` makes everything written so
    far durable against a crash of the *machine*, doing nothing when nothing
    was written since the last sync.  Call it before sending your own
    envelope: what the peer sent can be fetched from the peer again, what you
    signed must never be signed differently.
``"never"``
    no fsync at all (demos, tests, benchmarks).

A crash can still tear the last frame (the process died inside ``write``, or
the machine lost power before the data reached the disk).
:meth:`TranscriptWriter.open_append` continues such a file: it keeps the
whole frames, cuts the torn bytes off and reports what it dropped.  Each
writer holds an exclusive ``flock`` on its file, so two processes can never
append to one transcript (a second ``resume`` of the same game would sign a
second message at the same position).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Final, Literal

from truc_p2p.protocol import (
    TRANSCRIPT_MAGIC,
    TranscriptFormatError,
    TranscriptScan,
    VerifyReport,
    frame,
    parse_transcript,
    scan_transcript,
    verify_transcript,
)

__all__ = [
    "SYNC_POLICIES",
    "SyncPolicy",
    "TranscriptRepair",
    "TranscriptScan",
    "TranscriptWriteError",
    "TranscriptWriter",
    "being_written",
    "read_transcript",
    "scan_transcript",
    "scan_transcript_file",
    "verify_transcript_file",
]

SyncPolicy = Literal["each", "on-demand", "never"]
#: The accepted values of ``TranscriptWriter(sync=...)``.
SYNC_POLICIES: Final[tuple[SyncPolicy, ...]] = ("each", "on-demand", "never")

_O_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)


class TranscriptWriteError(OSError):
    """A transcript could not be created, written or synced (disk full, I/O error...).

    An ``OSError`` with the failing call's ``errno`` and ``strerror``, and
    ``filename`` set to the transcript.  Unless :attr:`torn` is true, the file
    still ends with a whole frame: the failed append left nothing behind.
    """

    def __init__(self, path: Path, reason: OSError | str, *, torn: bool = False) -> None:
        if isinstance(reason, OSError):
            code, text = reason.errno, reason.strerror or str(reason)
        else:
            code, text = None, reason
        super().__init__(code, text, str(path))
        self.path = path
        #: the unfinished frame could not be cut off: the file may end inside a frame
        self.torn = torn

    def __str__(self) -> str:
        text = f"cannot write transcript {self.path}: {self.strerror}"
        if self.torn:
            text += " (the file may end inside a frame; resume or verify will cut it off)"
        return text


@dataclass(frozen=True, slots=True)
class TranscriptRepair:
    """What :meth:`TranscriptWriter.open_append` cut off a torn transcript."""

    #: byte offset where the torn frame started (the new end of the file)
    offset: int
    #: how many bytes were dropped
    dropped: int
    #: 0-based number of the message that was cut (= whole messages kept)
    message: int
    #: where and how the frame was cut, in one sentence
    detail: str

    def __str__(self) -> str:
        return (
            f"dropped {self.dropped} torn bytes at byte {self.offset} "
            f"({self.detail}; a crash while writing?)"
        )


def _policy(sync: SyncPolicy | None, fsync: bool | None) -> SyncPolicy:
    if sync is not None and fsync is not None:
        raise TypeError("pass sync= or the older fsync=, not both")
    if sync is None:
        if fsync is None:
            return "on-demand"
        return "each" if fsync else "never"
    if sync not in SYNC_POLICIES:
        raise ValueError(f"sync must be one of {', '.join(SYNC_POLICIES)}, not {sync!r}")
    return sync


def _lock(fd: int, path: Path) -> None:
    """Take an exclusive advisory lock on ``fd`` (POSIX only), or fail at once."""
    if sys.platform == "win32":  # pragma: no cover - no flock on Windows
        return
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise TranscriptWriteError(path, "it is being written by another process") from None
    except OSError as exc:  # flock unsupported on this file system: go on unlocked
        if exc.errno not in (errno.ENOLCK, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise TranscriptWriteError(path, exc) from exc


def being_written(path: str | os.PathLike[str]) -> bool:
    """Whether a :class:`TranscriptWriter` of another process holds ``path`` now (its
    game is going on there); ``False`` when that cannot be told (no such file, no
    locks on this system)."""
    if sys.platform == "win32":  # pragma: no cover - no flock on Windows
        return False
    import fcntl

    try:
        fd = os.open(path, os.O_RDONLY | _O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing the descriptor releases a lock it took
    return False


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


class TranscriptWriter:
    """Appends envelopes to a transcript file, one whole frame at a time.

    Pass :meth:`append` as a session's ``record`` callback: every envelope
    reaches the OS before the session acts on it.  ``sync`` chooses when it
    reaches the disk (see the module docstring); ``fsync=True``/``False`` is
    the older spelling of ``sync="each"``/``"never"``.  The file must not
    exist yet; :meth:`open_append` continues an existing one.
    """

    path: Path
    #: the sync policy in force
    sync_policy: SyncPolicy
    #: envelopes in the file (including those found by :meth:`open_append`)
    count: int
    #: fsyncs done so far (a benchmark and test figure)
    fsyncs: int
    #: what :meth:`open_append` cut off a torn file, if anything
    repaired: TranscriptRepair | None
    #: the envelopes already in the file when :meth:`open_append` opened it
    existing: list[bytes]

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        sync: SyncPolicy | None = None,
        fsync: bool | None = None,
    ) -> None:
        self._start(Path(path), _policy(sync, fsync))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(
                self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | _O_CLOEXEC, 0o666
            )
        except OSError as exc:
            raise TranscriptWriteError(self.path, exc) from exc
        self._fd = fd
        try:
            _lock(fd, self.path)
            self._append_bytes(TRANSCRIPT_MAGIC)
        except BaseException:
            self._abandon(unlink=True)
            raise

    def _start(self, path: Path, policy: SyncPolicy) -> None:
        self.path = path
        self.sync_policy = policy
        self.count = 0
        self.fsyncs = 0
        self.repaired = None
        self.existing = []
        self._fd = -1
        self._size = 0
        self._dirty = False
        self._dir_synced = False
        self._failed: str | None = None  # why the writer refuses any further use
        self._torn = False  # the file may end inside a frame

    @classmethod
    def open_append(
        cls,
        path: str | os.PathLike[str],
        *,
        sync: SyncPolicy | None = None,
        fsync: bool | None = None,
    ) -> TranscriptWriter:
        """Continue the existing transcript at ``path``, e.g. after a crash.

        The whole frames are kept (:attr:`existing`, :attr:`count`); a torn last
        frame is cut off, durably, and described in :attr:`repaired`.  Raises
        :class:`TranscriptWriteError` (an ``OSError``) when the file cannot be
        opened, locked or repaired, and :class:`~truc_p2p.protocol.TranscriptFormatError`
        (a ``ValueError``) when it is not a transcript or is corrupt rather than
        torn: nothing is changed then.
        """
        self = cls.__new__(cls)
        self._start(Path(path), _policy(sync, fsync))
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | _O_CLOEXEC)
        except OSError as exc:
            raise TranscriptWriteError(self.path, exc) from exc
        self._fd = fd
        self._dir_synced = True  # the file already existed
        try:
            _lock(fd, self.path)
            try:
                data = _read_all(fd)
            except OSError as exc:
                raise TranscriptWriteError(self.path, exc) from exc
            if not data:  # created, then the process died before the magic line
                self._append_bytes(TRANSCRIPT_MAGIC)
                return self
            scan = scan_transcript(data)  # TranscriptFormatError: not a transcript
            if scan.damage == "corrupt":
                raise TranscriptFormatError(
                    f"{self.path} is corrupt, not torn ({scan.detail}); not appending to it"
                )
            if scan.torn:
                try:
                    os.ftruncate(fd, scan.good_length)
                    os.fsync(fd)
                except OSError as exc:
                    raise TranscriptWriteError(self.path, exc) from exc
                self.repaired = TranscriptRepair(
                    offset=scan.good_length,
                    dropped=scan.dropped,
                    message=scan.cut_message,
                    detail=scan.detail,
                )
            self._size = scan.good_length
            self.existing = scan.envelopes
            self.count = len(scan.envelopes)
            if scan.good_length == 0:  # the tear was inside the magic line
                self._append_bytes(TRANSCRIPT_MAGIC)
        except BaseException:
            self._abandon(unlink=False)
            raise
        return self

    # ----------------------------------------------------------------- writing

    @property
    def size(self) -> int:
        """Bytes in the file: the magic line and the whole frames written."""
        return self._size

    @property
    def closed(self) -> bool:
        return self._fd < 0

    @property
    def unsynced(self) -> bool:
        """Whether something was written since the last fsync (policy ``on-demand``)."""
        return self._dirty

    def append(self, envelope: bytes) -> None:
        """Write one envelope as a frame and hand it to the OS (fsync it with ``sync="each"``).

        On failure the file is cut back to its last whole frame and
        :class:`TranscriptWriteError` is raised; the writer can be used again
        (once space is back, say) unless the error says the file is torn.
        """
        self._append_bytes(frame(envelope))
        self.count += 1

    def sync(self) -> bool:
        """Make everything appended so far durable; return whether an fsync was needed.

        Does nothing with ``sync="never"``, nor when nothing was written since
        the last sync.  A failed fsync cannot be retried (the kernel may have
        dropped the data): the writer then refuses any further use.
        """
        self._check_usable()
        if self.sync_policy == "never" or not self._dirty:
            return False
        try:
            self._fsync()
        except OSError as exc:
            self._failed = f"an earlier fsync failed ({exc.strerror or exc})"
            raise TranscriptWriteError(self.path, exc) from exc
        self._dirty = False
        return True

    def close(self) -> None:
        """Sync what is pending (policy ``on-demand``) and close; closing twice is fine."""
        if self._fd < 0:
            return
        try:
            if self._failed is None and self.sync_policy == "on-demand":
                self.sync()
        finally:
            os.close(self._fd)
            self._fd = -1

    def _check_usable(self) -> None:
        if self._fd < 0:
            raise TranscriptWriteError(self.path, "the writer is closed")
        if self._failed is not None:
            raise TranscriptWriteError(self.path, self._failed, torn=self._torn)

    def _append_bytes(self, data: bytes) -> None:
        self._check_usable()
        start = self._size
        view = memoryview(data)
        try:
            while view:
                written = os.write(self._fd, view)
                if written <= 0:  # pragma: no cover - regular files never do this
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                view = view[written:]
            if self.sync_policy == "each":
                self._fsync()
        except OSError as exc:
            self._cut_back(start, exc)
        self._size = start + len(data)
        self._dirty = self.sync_policy == "on-demand"

    def _cut_back(self, size: int, exc: OSError) -> None:
        """Truncate to the last whole frame after a failed write, then raise."""
        try:
            os.ftruncate(self._fd, size)
        except OSError as cut:
            self._failed = f"could not cut an unfinished frame off ({cut.strerror or cut})"
            self._torn = True
            raise TranscriptWriteError(self.path, exc, torn=True) from exc
        raise TranscriptWriteError(self.path, exc) from exc

    def _fsync(self) -> None:
        os.fsync(self._fd)
        self.fsyncs += 1
        if not self._dir_synced:
            # The new file's directory entry must be durable too, once.
            self._dir_synced = True
            try:
                dir_fd = os.open(self.path.parent, os.O_RDONLY | _O_CLOEXEC)
            except OSError:
                return
            try:
                os.fsync(dir_fd)
            except OSError as exc:
                if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
                    raise
            finally:
                os.close(dir_fd)

    def _abandon(self, *, unlink: bool) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if unlink:
            with contextlib.suppress(OSError):
                self.path.unlink()

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{self.count} messages, {self._size} bytes"
        return f"<TranscriptWriter {self.path} {state} sync={self.sync_policy}>"


def read_transcript(path: str | os.PathLike[str]) -> list[bytes]:
    """Read a transcript file into raw envelopes (``OSError`` / ``ValueError`` on failure)."""
    return parse_transcript(Path(path).read_bytes())


def scan_transcript_file(path: str | os.PathLike[str]) -> TranscriptScan:
    """Read a possibly torn transcript file (see :func:`scan_transcript`).

    Raises ``OSError`` when the file cannot be read and
    :class:`~truc_p2p.protocol.TranscriptFormatError` when it is not a
    transcript (including a device or a pipe: never read endlessly); a tear or
    corruption is reported in the result instead.
    """
    # O_NONBLOCK: opening a named pipe must not wait for a writer.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _O_CLOEXEC)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise TranscriptFormatError("not a regular file, not a truc-p2p transcript")
        return scan_transcript(f.read())


def verify_transcript_file(
    path: str | os.PathLike[str], *, local_secret: bytes | None = None, torn: bool = True
) -> tuple[TranscriptScan, VerifyReport]:
    """Read the transcript file at ``path`` and verify it: the scan and the verifier's
    report on its whole messages (``local_secret``: a player's own secret, which opens
    its own cards).  The one way to verify a game file; the report does not say the
    file's damage (``truc_p2p.verdict.with_damage`` adds it, in words).

    Raises ``OSError`` when the file cannot be read and
    :class:`~truc_p2p.protocol.TranscriptFormatError` (a ``ValueError``) when it is
    not a transcript, or, with ``torn=False``, when its end is torn or corrupt (a
    finished game's file never is).
    """
    scan = scan_transcript_file(path)
    if not torn and scan.damage is not None:
        raise TranscriptFormatError(f"the transcript is {scan.damage}")
    return scan, verify_transcript(scan.envelopes, local_secret=local_secret)
