"""Transcript encoding: a magic line followed by the game's frames.

A transcript is self-contained: it starts with both hellos (hence both
public keys, the ruleset and the options) and holds every envelope sent or
received, in chain order, each framed exactly as on the wire (4-byte length,
envelope).  Appending a frame never rewrites earlier bytes, so a transcript
can be flushed to disk message by message.

A crash (or a full disk) while a frame is being appended can leave the file
**torn**: it ends inside the magic line, inside a frame header or inside a
frame, or (on file systems that extend the file before its data reaches the
disk) with a run of zero bytes.  :func:`scan_transcript` tells such a tear,
which only ever removes bytes at the end, from **corruption** (a frame header
that no writer could have produced, followed by more data), and says where
the whole frames end.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from truc_p2p.protocol._wire import FRAME_HEADER, MAX_ENVELOPE, frame

__all__ = [
    "TRANSCRIPT_MAGIC",
    "TranscriptFormatError",
    "TranscriptScan",
    "encode_transcript",
    "parse_transcript",
    "scan_transcript",
]

TRANSCRIPT_MAGIC = b"TRUC-P2P transcript v1\n"


class TranscriptFormatError(ValueError):
    """The bytes are not a transcript (bad magic or a truncated frame)."""


@dataclass(frozen=True, slots=True)
class TranscriptScan:
    """What :func:`scan_transcript` found in possibly damaged transcript bytes.

    ``envelopes`` are the whole frames before any damage and ``good_length``
    the number of bytes they take with the magic line: truncating the file to
    ``good_length`` repairs a tear.  ``damage`` is ``None`` for an intact
    transcript, ``"torn"`` when the bytes after ``good_length`` are the start
    of an unfinished frame (a crash while writing), ``"corrupt"`` when they
    cannot be; ``detail`` then says where and what, in one sentence.
    """

    envelopes: list[bytes]
    good_length: int
    length: int
    damage: Literal["torn", "corrupt"] | None = None
    detail: str = ""

    @property
    def torn(self) -> bool:
        """Whether the transcript ends inside an unfinished frame."""
        return self.damage == "torn"

    @property
    def dropped(self) -> int:
        """Bytes after the last whole frame (what a repair removes)."""
        return self.length - self.good_length

    @property
    def cut_message(self) -> int:
        """0-based number of the message the damage is in (= whole messages before it)."""
        return len(self.envelopes)


def encode_transcript(envelopes: Iterable[bytes]) -> bytes:
    """The transcript bytes of these envelopes."""
    return TRANSCRIPT_MAGIC + b"".join(frame(e) for e in envelopes)


def scan_transcript(data: bytes) -> TranscriptScan:
    """Split possibly torn transcript bytes into whole envelopes; never raises on a tear.

    Raises :class:`TranscriptFormatError` only when ``data`` is not a
    transcript at all: empty, or not starting with the magic line (a
    non-empty prefix of the magic line is a tear, at byte 0).
    """
    if not data:
        raise TranscriptFormatError("empty file, not a truc-p2p transcript")
    if not data.startswith(TRANSCRIPT_MAGIC):
        if TRANSCRIPT_MAGIC.startswith(data):
            return TranscriptScan(
                [], 0, len(data), "torn", f"cut inside the magic line after {len(data)} bytes"
            )
        raise TranscriptFormatError("not a truc-p2p transcript (bad magic line)")
    out: list[bytes] = []
    i = len(TRANSCRIPT_MAGIC)
    end = len(data)
    while i < end:
        n = len(out)
        if i + FRAME_HEADER > end:
            return TranscriptScan(
                out, i, end, "torn", f"cut inside the header of message {n} at byte {i}"
            )
        size = int.from_bytes(data[i : i + FRAME_HEADER], "big")
        if size == 0 or size > MAX_ENVELOPE:
            if not data[i:].strip(b"\0"):
                return TranscriptScan(
                    out,
                    i,
                    end,
                    "torn",
                    f"{end - i} zero bytes where message {n} should start at byte {i}",
                )
            return TranscriptScan(
                out,
                i,
                end,
                "corrupt",
                f"message {n} at byte {i} declares {size} bytes (allowed 1..{MAX_ENVELOPE})",
            )
        if i + FRAME_HEADER + size > end:
            present = end - i - FRAME_HEADER
            return TranscriptScan(
                out,
                i,
                end,
                "torn",
                f"cut inside message {n} at byte {i}: {present} of its {size} bytes present",
            )
        out.append(data[i + FRAME_HEADER : i + FRAME_HEADER + size])
        i += FRAME_HEADER + size
    return TranscriptScan(out, end, end)


def parse_transcript(data: bytes, *, allow_truncated: bool = False) -> list[bytes]:
    """Split transcript bytes into raw envelopes.

    A truncated last frame (a crash mid-write) is an error unless
    ``allow_truncated``, in which case it is dropped.  Corruption is always an
    error; :func:`scan_transcript` tells the two apart without raising.
    """
    if not data.startswith(TRANSCRIPT_MAGIC):
        raise TranscriptFormatError("not a truc-p2p transcript (bad magic line)")
    scan = scan_transcript(data)
    if scan.damage is None or (scan.torn and allow_truncated):
        return scan.envelopes
    raise TranscriptFormatError(scan.detail)
