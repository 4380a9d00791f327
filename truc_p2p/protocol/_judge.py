"""Judgements the live session and the offline verifier share.

Where a receiver and a referee must reach the same verdict on the same
bytes, they call one function here rather than keeping two copies in step:
what hello options are well formed and whether the responder's answer the
initiator's (wire.md section 4), and that a game has one ending (section 8).
"""

from __future__ import annotations

from typing import Any

from truc_p2p.protocol._errors import MalformedMessageError, UnexpectedMessageError
from truc_p2p.protocol._state import Stage
from truc_p2p.protocol._values import parse_options, without_early
from truc_p2p.protocol._wire import Envelope

__all__ = ["answer_agrees", "check_not_ended", "check_options"]


def check_options(options: Any, *, message_no: int | None = None) -> tuple[str, str, bool, bool]:
    """(audit, deck, pipeline, early) of a hello's ``options``, or ``malformed``:
    any shape :func:`~._values.parse_options` refuses (an unknown key, a value
    other than those listed, ``false``, ``nil`` or ``1`` for a flag, a deck v2
    option with deck v1).  Checked before any comparison with the other hello,
    so a malformed hello is ``malformed`` whoever reads it."""
    parsed = parse_options(options) if isinstance(options, dict) else None
    if parsed is None:
        raise MalformedMessageError(f"bad options {options}", message_no=message_no)
    return parsed


def answer_agrees(initiator: dict[str, Any], responder: dict[str, Any]) -> bool:
    """Whether the responder's (well-formed) options answer the initiator's: equal but
    for ``early``, which the responder may leave out and never add (early cards
    are negotiated down, wire.md section 4)."""
    added = responder.get("early") is True and initiator.get("early") is not True
    return not added and without_early(responder) == without_early(initiator)


def check_not_ended(stage: Stage, ending: str, env: Envelope) -> None:
    """One ending per game (wire.md section 8): after the co-signed result or an
    ``abort`` (a resignation included) nothing may follow, and another ``abort`` is
    a second ending.  ``ending`` names the first ("a resignation", ...)."""
    if stage not in (Stage.DONE, Stage.ABORTED):
        return
    if env.type == "abort":
        what = "resignation" if env.payload.get("reason") == "resign" else "abort"
        raise UnexpectedMessageError(
            f"a second ending: {what} after {ending} (a game has one ending)",
            evidence=(env.raw,),
        )
    after = "the co-signed result" if stage is Stage.DONE else ending
    raise UnexpectedMessageError(f"message after {after}", evidence=(env.raw,))
