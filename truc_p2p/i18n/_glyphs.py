"""Whether the terminal shows suit symbols or ASCII cards."""

from __future__ import annotations

import sys
from typing import TextIO

__all__ = ["use_ascii"]

_SAMPLE = "♠♥♦♣“”·–"


def use_ascii(requested: bool, stream: TextIO | None = None) -> bool:
    """ASCII cards if asked for, or if ``stream`` cannot encode suit symbols."""
    if requested:
        return True
    stream = stream if stream is not None else sys.stdout
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        _SAMPLE.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return True
    return False
