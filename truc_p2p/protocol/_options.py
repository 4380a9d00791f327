"""A player's local settings for one game, as one value (:class:`SessionOptions`).

The knobs a :class:`~truc_p2p.protocol.Session` is built with used to be listed
one by one in every signature that makes or rebuilds a session; they travel as
one frozen value instead.  :class:`SessionKnobs` types the same settings as
keywords, so ``Session(deck="v1", resign=False, ...)`` keeps working.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

from truc_p2p.protocol._errors import LocalProtocolError
from truc_p2p.protocol._messages import DECK_VERSIONS
from truc_p2p.protocol._values import AUDIT_MODES, EARLY_DEFAULT, PIPELINE_DEFAULT, Series
from truc_p2p.rules import Ruleset

__all__ = ["RestoreKnobs", "SessionKnobs", "SessionOptions"]


class SessionKnobs(TypedDict, total=False):
    """The keyword form of :class:`SessionOptions` (what ``Session(...)`` accepts)."""

    ruleset: Ruleset | None
    name: str
    audit: str
    deck: str
    pipeline: bool | None
    resign: bool
    early: bool | None
    rest_final: bool
    series: Series | None
    early_redeal: bool
    heartbeat: bool
    resume_clock: bool


class RestoreKnobs(TypedDict, total=False):
    """What ``Session.restore`` accepts: ``None`` reads the setting from the transcript."""

    ruleset: Ruleset | None
    name: str
    audit: str
    deck: str | None
    pipeline: bool | None
    resign: bool | None
    early: bool | None
    rest_final: bool | None
    series: Series | None
    early_redeal: bool | None
    heartbeat: bool | None
    resume_clock: bool | None


@dataclass(frozen=True, kw_only=True)
class SessionOptions:
    """One player's settings; see :class:`~truc_p2p.protocol.Session` for each.

    ``pipeline`` and ``early`` left ``None`` take the deck's default; the settings
    are checked when the value is made (:class:`LocalProtocolError`).
    """

    ruleset: Ruleset = field(default_factory=Ruleset)
    name: str = "player"
    audit: str = "game"
    deck: str = "v2"
    pipeline: bool = False
    resign: bool = True
    early: bool = False
    rest_final: bool = True
    series: Series = field(default_factory=Series)
    early_redeal: bool = True
    heartbeat: bool = False
    resume_clock: bool = False

    @classmethod
    def of(cls, knobs: SessionKnobs) -> SessionOptions:
        """The options the keywords name, defaults filled in and checked."""
        deck = knobs.get("deck", "v2")
        pipeline = knobs.get("pipeline")
        early = knobs.get("early")
        if pipeline is None:
            pipeline = deck == "v2" and PIPELINE_DEFAULT
        if pipeline and deck != "v2":
            raise LocalProtocolError("the pipelined deal needs deck v2")
        if early is None:
            early = deck == "v2" and EARLY_DEFAULT
        if early and deck != "v2":
            raise LocalProtocolError("early cards need deck v2")
        audit = knobs.get("audit", "game")
        if audit not in AUDIT_MODES:
            raise LocalProtocolError(f"audit must be one of {AUDIT_MODES}")
        if deck not in DECK_VERSIONS:
            raise LocalProtocolError(f"deck must be one of {DECK_VERSIONS}")
        name = knobs.get("name", "player")
        if not (1 <= len(name) <= 40 and name.isprintable()):
            raise LocalProtocolError("name must be 1 to 40 printable characters")
        ruleset, series = knobs.get("ruleset"), knobs.get("series")
        return cls(
            ruleset=ruleset if ruleset is not None else Ruleset(),
            name=name,
            audit=audit,
            deck=deck,
            pipeline=bool(pipeline),
            resign=knobs.get("resign", True),
            early=bool(early),
            rest_final=knobs.get("rest_final", True),
            series=series if series is not None else Series(),
            early_redeal=knobs.get("early_redeal", True),
            heartbeat=knobs.get("heartbeat", False),
            resume_clock=knobs.get("resume_clock", False),
        )
