"""A player's local settings for one game, as one value (:class:`SessionOptions`).

Every signature that makes or rebuilds a session (:class:`~truc_p2p.protocol.Session`,
:meth:`~truc_p2p.protocol.Session.restore`) takes them as this one frozen value;
each default is written here once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from truc_p2p.protocol._errors import LocalProtocolError
from truc_p2p.protocol._messages import DECK_VERSIONS
from truc_p2p.protocol._values import AUDIT_MODES, EARLY_DEFAULT, PIPELINE_DEFAULT, Series
from truc_p2p.rules import Ruleset

__all__ = ["SessionOptions"]


@dataclass(frozen=True, kw_only=True)
class SessionOptions:
    """One player's settings; see :class:`~truc_p2p.protocol.Session` for each.

    ``pipeline`` and ``early`` are deck v2's (wire.md 6b, 6a): on by default, and
    always off with deck v1 (asking for either with deck v1 is an error).  The
    settings are checked when the value is made (:class:`LocalProtocolError`).
    """

    ruleset: Ruleset = field(default_factory=Ruleset)
    name: str = "player"
    audit: str = "game"
    deck: str = "v2"
    #: ``None``: the deck's default (deck v2: :data:`~._values.PIPELINE_DEFAULT`)
    pipeline: bool | None = None
    #: ``None``: the deck's default (deck v2: :data:`~._values.EARLY_DEFAULT`)
    early: bool | None = None
    resign: bool = True
    rest_final: bool = True
    series: Series = field(default_factory=Series)
    early_redeal: bool = True
    heartbeat: bool = False
    resume_clock: bool = False

    def __post_init__(self) -> None:
        if self.deck not in DECK_VERSIONS:
            raise LocalProtocolError(f"deck must be one of {DECK_VERSIONS}")
        if self.pipeline and self.deck != "v2":
            raise LocalProtocolError("the pipelined deal needs deck v2")
        if self.early and self.deck != "v2":
            raise LocalProtocolError("early cards need deck v2")
        if self.audit not in AUDIT_MODES:
            raise LocalProtocolError(f"audit must be one of {AUDIT_MODES}")
        if not (1 <= len(self.name) <= 40 and self.name.isprintable()):
            raise LocalProtocolError("name must be 1 to 40 printable characters")
        v2 = self.deck == "v2"
        if self.pipeline is None:
            object.__setattr__(self, "pipeline", v2 and PIPELINE_DEFAULT)
        if self.early is None:
            object.__setattr__(self, "early", v2 and EARLY_DEFAULT)
