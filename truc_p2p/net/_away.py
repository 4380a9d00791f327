"""The away time a game has used, kept beside its transcript so that a restarted
process goes on counting it (wire.md 13.4), in the resume clock's milliseconds."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from truc_p2p.protocol import MAX_CLOCK_MS

__all__ = ["away_path_for", "ms", "read_away", "write_away"]


def away_path_for(transcript: Path) -> Path:
    """The file beside ``transcript`` that keeps the away time used (wire.md 13.4)."""
    return transcript.with_name(transcript.name + ".away.json")


def read_away(path: Path | None) -> float:
    """Seconds of the away budget used, as :func:`write_away` kept them (0 without)."""
    if path is None:
        return 0.0
    try:
        value = json.loads(path.read_text()).get("away_ms")
    except (OSError, ValueError, AttributeError):
        return 0.0
    return value / 1000 if type(value) is int and 0 <= value <= MAX_CLOCK_MS else 0.0


def write_away(path: Path, seconds: float) -> None:
    """Keep the away time used beside the transcript, synced, replacing the last."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as f:
        f.write(json.dumps({"format": 1, "away_ms": ms(seconds)}) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def ms(seconds: float) -> int:
    """Whole milliseconds within a resume clock's range (wire.md 13.1)."""
    if not math.isfinite(seconds):
        return MAX_CLOCK_MS if seconds > 0 else 0
    return max(0, min(MAX_CLOCK_MS, round(seconds * 1000)))
