"""wire.md section 8's table of the abort a receiver signs after each remote error
is the one the program signs (``truc_p2p.net._outcome.abort_reason``), and it names
every remote error of the section's list."""

from __future__ import annotations

import re
from pathlib import Path

from truc_p2p.net._outcome import abort_reason
from truc_p2p.protocol._errors import (
    RemoteProtocolError,
    ResumeChainError,
    ResumeLieError,
    ResumeSequenceError,
)
from truc_p2p.protocol._messages import CATALOGUE

ROOT = Path(__file__).resolve().parents[2]
WIRE = (ROOT / "protocol_spec" / "wire.md").read_text(encoding="utf-8")


def _table() -> dict[str, str]:
    """code -> reason (``none``: no abort), from the table after "The abort after a
    remote error"."""
    section = WIRE.split("**The abort after a remote error.**", 1)[1]
    rows = re.findall(r"^\| (.+?) \| `?(\w+)`?\b.*\|$", section.split("\n\n", 2)[1], re.M)
    table: dict[str, str] = {}
    for codes, reason in rows:
        codes = codes.split("and a `resume`", 1)[0]  # the resume lies: checked below
        for code in re.findall(r"`([a-z-]+)`", codes):
            table.setdefault(code, reason)
    return table


def _classes() -> dict[str, type[RemoteProtocolError]]:
    """Every error class by its code (a resume's lie apart)."""
    found: dict[str, type[RemoteProtocolError]] = {}
    todo: list[type[RemoteProtocolError]] = [RemoteProtocolError]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if not issubclass(cls, ResumeLieError) and cls.code not in found:
            found[cls.code] = cls
    return found


def test_the_abort_reason_of_every_remote_error_is_the_table_of_section_8() -> None:
    table = _table()
    assert set(table.values()) == {"incompatible", "cheat", "error", "none"}
    classes = _classes()
    for code, reason in table.items():
        if reason == "none":  # the pinned key: the play loop ends before any abort
            continue
        assert abort_reason(classes[code]("x")) == reason, code
    for lie in (ResumeChainError, ResumeSequenceError):
        assert abort_reason(lie("x")) == "cheat"


def test_the_table_names_every_remote_error_of_the_list() -> None:
    listed = WIRE.split("raises a *remote* error", 1)[1].split("Errors of the local", 1)[0]
    codes = set(re.findall(r"`([a-z-]+)`", listed)) - set(CATALOGUE)  # "its `coin`"
    assert len(codes) >= 17
    assert codes <= set(_table())
