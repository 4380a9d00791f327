"""The line of the opponent's ``abort``, in the player's language.

Apart from the outcome texts (``_outcome_text``), which load the net layer's
tables: the table model says an abort too, and the history commands replay it
without loading the net layer or the session.
"""

from __future__ import annotations

import re

from truc_p2p.i18n import N_, _

__all__ = ["ABORT_WHY", "SILENT", "abort_text"]

#: The detail of the reference implementation's ``timeout`` abort (net's
#: ``timeout_outcome``): how long it heard nothing from us.
SILENT = re.compile(r"no message for ([0-9]+(?:\.[0-9]+)?) s")

#: Why the opponent ended the game, by its ``abort`` reason (wire.md §8): its
#: detail follows, in its own words (see :func:`abort_text`).
ABORT_WHY: dict[str, str] = {
    "quit": N_("{name} left the game"),
    "timeout": N_("{name} ended the game: you took too long to play"),
    "cheat": N_("{name} ended the game: it says you cheated"),
    "error": N_("{name} ended the game: an error on its side"),
    "incompatible": N_("{name} ended the game: your settings do not match"),
    "abandoned": N_("{name} ended the game: the connection was lost for good"),
    "resign": N_("{name} resigned"),
}


def abort_text(name: str, reason: str, detail: str) -> str:
    """The line of the opponent's ``abort`` (its ``reason`` and ``detail``), in the
    language in use: a reason of the spec in words, the reference implementation's
    timeout detail too; any other detail is quoted as the opponent wrote it."""
    why = ABORT_WHY.get(reason)
    if why is None:
        return _("{name} ended the game: {reason} {detail}", name=name, reason=reason,
                 detail=detail).rstrip()  # fmt: skip
    text = _(why, name=name)
    silent = SILENT.fullmatch(detail) if reason == "timeout" else None
    if silent is not None:
        detail = _("no message for {seconds} s", seconds=silent[1])
    return _("{text}: {detail}", text=text, detail=detail) if detail else text
