"""Transcript encoding: a magic line followed by the game's frames.

A transcript is self-contained: it starts with both hellos (hence both
public keys, the ruleset and the options) and holds every envelope sent or
received, in chain order, each framed exactly as on the wire (4-byte length,
envelope).  Appending a frame never rewrites earlier bytes, so a transcript
can be flushed to disk message by message.
"""

from __future__ import annotations

from collections.abc import Iterable

from truc_p2p.protocol._wire import FRAME_HEADER, MAX_ENVELOPE, frame

__all__ = ["TRANSCRIPT_MAGIC", "TranscriptFormatError", "encode_transcript", "parse_transcript"]

TRANSCRIPT_MAGIC = b"TRUC-P2P transcript v1\n"


class TranscriptFormatError(ValueError):
    """The bytes are not a transcript (bad magic or a truncated frame)."""


def encode_transcript(envelopes: Iterable[bytes]) -> bytes:
    """The transcript bytes of these envelopes."""
    return TRANSCRIPT_MAGIC + b"".join(frame(e) for e in envelopes)


def parse_transcript(data: bytes, *, allow_truncated: bool = False) -> list[bytes]:
    """Split transcript bytes into raw envelopes.

    A truncated last frame (a crash mid-write) is an error unless
    ``allow_truncated``, in which case it is dropped.
    """
    if not data.startswith(TRANSCRIPT_MAGIC):
        raise TranscriptFormatError("not a truc-p2p transcript (bad magic line)")
    out: list[bytes] = []
    i = len(TRANSCRIPT_MAGIC)
    while i < len(data):
        if i + FRAME_HEADER > len(data):
            if allow_truncated:
                break
            raise TranscriptFormatError(f"truncated frame header at byte {i}")
        size = int.from_bytes(data[i : i + FRAME_HEADER], "big")
        if size == 0 or size > MAX_ENVELOPE:
            raise TranscriptFormatError(f"frame of {size} bytes at byte {i}")
        if i + FRAME_HEADER + size > len(data):
            if allow_truncated:
                break
            raise TranscriptFormatError(f"truncated frame at byte {i}")
        out.append(data[i + FRAME_HEADER : i + FRAME_HEADER + size])
        i += FRAME_HEADER + size
    return out
