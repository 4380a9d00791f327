"""Append-only transcript files (the I/O half of :mod:`truc_p2p.protocol._transcript`)."""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType

from truc_p2p.protocol import TRANSCRIPT_MAGIC, frame, parse_transcript

__all__ = ["TranscriptWriter", "read_transcript"]


class TranscriptWriter:
    """Appends envelopes to a transcript file, flushing (and fsyncing) each one.

    Pass :meth:`append` as a session's ``record`` callback: every envelope is
    on disk before the session acts on it, so nothing is lost on an error.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, fsync: bool = True, lazy: bool = False
    ) -> None:
        self.path = Path(path)
        self._fsync = fsync and not lazy
        self._lazy = fsync and lazy
        self._dirty = False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "xb")  # noqa: SIM115 - closed in close()
        self._write(TRANSCRIPT_MAGIC)
        self.count = 0

    @classmethod
    def open_append(
        cls, path: str | os.PathLike[str], *, fsync: bool = True, lazy: bool = False
    ) -> tuple[TranscriptWriter, list[bytes], int]:
        """Continue an existing transcript: ``(writer, envelopes, torn bytes dropped)``.

        A last frame torn by a crash is cut off (it was never acted on).
        """
        path = Path(path)
        data = path.read_bytes()
        envelopes = parse_transcript(data, allow_truncated=True)
        good = len(TRANSCRIPT_MAGIC) + sum(4 + len(e) for e in envelopes)
        self = cls.__new__(cls)
        self.path = path
        self._fsync = fsync and not lazy
        self._lazy = fsync and lazy
        self._dirty = False
        if good < len(data):
            os.truncate(path, good)
        self._file = open(path, "ab")  # noqa: SIM115 - closed in close()
        self.count = len(envelopes)
        return self, envelopes, len(data) - good

    def _write(self, data: bytes) -> None:
        self._file.write(data)
        self._file.flush()
        if self._fsync:
            os.fsync(self._file.fileno())
        else:
            self._dirty = True

    def sync(self) -> None:
        """Make everything appended so far durable (lazy mode: only when something is new)."""
        if self._lazy and self._dirty:
            os.fsync(self._file.fileno())
            self._dirty = False

    def append(self, envelope: bytes) -> None:
        """Write one envelope as a frame and flush it to disk."""
        self._write(frame(envelope))
        self.count += 1

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def read_transcript(path: str | os.PathLike[str]) -> list[bytes]:
    """Read a transcript file into raw envelopes (``OSError`` / ``ValueError`` on failure)."""
    return parse_transcript(Path(path).read_bytes())
