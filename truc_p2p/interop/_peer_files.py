"""Reading the peer's transcripts without trusting the peer's folder
(``protocol_spec/interop.md`` §5, "Bounds").

The peer writes whatever it likes below ``TRUC_OUT``, and the judge reads it
after the case, so every read here is bounded: the walk looks at
:data:`MAX_ENTRIES` directory entries at most, :data:`MAX_DEPTH` folders
deep, never through a symbolic link; a ``*.truc`` name is opened with
``O_NOFOLLOW | O_NONBLOCK`` (a link is refused, a named pipe does not block)
and read only if the opened file is a regular file of at most
:data:`MAX_TRANSCRIPT_BYTES`; at most :data:`MAX_CANDIDATES` of them are
read, within :data:`READ_SECONDS` in all.  Only the files of the games the case
expects are verified (their game ids come from the runner's own transcripts),
and a file that *is* one of the runner's own (a hard link to it) is refused.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from truc_p2p.protocol import (
    RemoteProtocolError,
    TranscriptFormatError,
    decode_envelope,
    parse_transcript,
)

__all__ = [
    "MAX_CANDIDATES",
    "MAX_DEPTH",
    "MAX_ENTRIES",
    "MAX_TRANSCRIPT_BYTES",
    "READ_SECONDS",
    "STDERR_TAIL",
    "PeerFile",
    "peer_transcripts",
    "read_bounded",
    "read_tail",
]

#: Directory entries the walk below ``TRUC_OUT`` looks at, at most.
MAX_ENTRIES = 4096
#: Folders below ``TRUC_OUT`` it goes into, at most.
MAX_DEPTH = 8
#: ``*.truc`` files it reads, at most.
MAX_CANDIDATES = 64
#: Bytes of one transcript, at most: the relay's byte budget for a whole session
#: (connect.md §2); a game takes 35-130 kB.
MAX_TRANSCRIPT_BYTES = 8 << 20
#: Seconds the walk and the reads may take in all.
READ_SECONDS = 10.0
#: Bytes of the end of ``peer.stderr`` read for its last line.
STDERR_TAIL = 64 << 10


@dataclass(frozen=True)
class PeerFile:
    """One ``*.truc`` file below ``TRUC_OUT`` read within the bounds."""

    path: Path
    envelopes: list[bytes]
    game_id: str


def _candidates(folder: Path, deadline: float) -> Iterator[Path]:
    """``*.truc`` names below ``folder``, breadth first, in name order, never through a
    symbolic link, within the entry, depth and time bounds."""
    seen = 0
    level = [folder]
    for _ in range(MAX_DEPTH + 1):
        below: list[Path] = []
        for directory in level:
            try:
                with os.scandir(directory) as it:
                    entries = []
                    for entry in it:
                        seen += 1
                        if seen > MAX_ENTRIES or time.monotonic() > deadline:
                            break
                        entries.append(entry)
            except OSError:
                continue
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.name.endswith(".truc"):
                    yield Path(entry.path)  # a link is refused when opened, and said so
                elif entry.is_dir(follow_symlinks=False):
                    below.append(Path(entry.path))
            if seen > MAX_ENTRIES or time.monotonic() > deadline:
                return
        level = below


def read_bounded(path: Path, limit: int = MAX_TRANSCRIPT_BYTES) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file ``path`` (not a link, a pipe or a device), at most
    ``limit`` of them; ``OSError`` otherwise (``EFBIG`` when it is longer)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if st.st_size > limit:
            raise OSError(errno.EFBIG, "longer than a transcript may be", str(path))
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:
            raise OSError(errno.EFBIG, "longer than a transcript may be", str(path))
        return b"".join(chunks), st
    finally:
        os.close(fd)


def read_tail(path: Path, size: int) -> bytes:
    """The last ``size`` bytes at most of the regular file ``path`` (not a link, a
    pipe or a device: ``OSError``)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return os.pread(fd, size, max(0, st.st_size - size))
    finally:
        os.close(fd)


def _game_id(envelopes: list[bytes]) -> str | None:
    for raw in envelopes:
        try:
            game_id = decode_envelope(raw).game_id
        except RemoteProtocolError:
            return None
        if game_id:
            return game_id.hex()
    return None


def peer_transcripts(
    folder: Path, expected: Iterable[str], runner_files: Iterable[Path] = ()
) -> tuple[dict[str, PeerFile], list[str]]:
    """The peer's transcript of each game id in ``expected`` (the first by path), and
    notes on the files refused: a link, not a regular file, too long, the runner's
    own file (the same inode as one of ``runner_files``), or past the bounds."""
    wanted = set(expected)
    own: set[tuple[int, int]] = set()
    for path in runner_files:
        try:
            st = os.stat(path)
        except OSError:
            continue
        own.add((st.st_dev, st.st_ino))
    deadline = time.monotonic() + READ_SECONDS
    found: dict[str, PeerFile] = {}
    notes: list[str] = []
    read = 0
    for path in _candidates(folder, deadline):
        if not wanted - found.keys():
            break
        if read >= MAX_CANDIDATES or time.monotonic() > deadline:
            notes.append(f"stopped after {read} files ({READ_SECONDS:g} s, {MAX_CANDIDATES} files)")
            break
        read += 1
        name = path.relative_to(folder)
        try:
            data, st = read_bounded(path)
        except OSError as exc:
            notes.append(f"{name}: {exc.strerror or exc}")
            continue
        if (st.st_dev, st.st_ino) in own:
            notes.append(f"{name}: it is the runner's own transcript, not the peer's")
            continue
        try:
            envelopes = parse_transcript(data)
        except TranscriptFormatError:
            continue
        game_id = _game_id(envelopes)
        if game_id is not None and game_id in wanted and game_id not in found:
            found[game_id] = PeerFile(path, envelopes, game_id)
    return found, notes
