"""A game's settings, trio-free (the game loop's, :mod:`._play_options`, and the
page's, :mod:`truc_p2p.page`): the protocol's default clocks, one table, the
:class:`Clocks` value, and :class:`GameSettings`, a session's options and its clocks."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

from truc_p2p.protocol import Series, SessionOptions
from truc_p2p.rules import Player, Ruleset

__all__ = [
    "DEFAULT_AWAY_BUDGET",
    "DEFAULT_BOT_TIMEOUT",
    "DEFAULT_DEAD_AFTER",
    "DEFAULT_GRACE",
    "DEFAULT_HEARTBEAT",
    "DEFAULT_HELLO_TIMEOUT",
    "DEFAULT_TURN_TIMEOUT",
    "Clocks",
    "GameSettings",
]

#: Seconds the opponent may take for a move when it may be a human.
DEFAULT_TURN_TIMEOUT = 300.0
#: Seconds a bot opponent may take (``truc-p2p demo``).
DEFAULT_BOT_TIMEOUT = 30.0
#: Seconds the peer may take to send its hello after connecting.
DEFAULT_HELLO_TIMEOUT = 10.0
#: Seconds a disconnected opponent has to come back before the game is abandoned.
DEFAULT_GRACE = 120.0
#: Seconds the opponent may be away over a whole game, all drops together (wire.md 13.4).
DEFAULT_AWAY_BUDGET = 600.0
#: Seconds of silence on our side after which we send a heartbeat (wire.md 13.3).
DEFAULT_HEARTBEAT = 5.0
#: Seconds without any frame from the peer after which its link counts as dead.
DEFAULT_DEAD_AFTER = 20.0


@dataclass(frozen=True, kw_only=True)
class Clocks:
    """The clocks that bound a game: ``turn_timeout`` an opponent's move,
    ``hello_timeout`` a new connection's first message, ``grace`` how long a dropped
    opponent has to come back, ``away_budget`` how long it may be away over the
    whole game, all drops together (wire.md 13.4; a resume suspends the turn clock,
    13.5).  ``heartbeat`` is how long we stay silent on a link before a heartbeat,
    ``dead_after`` how long without any frame from the peer before its link counts
    as dead and the game resumes on a new one (wire.md 13.6; ``math.inf`` turns
    either off).  A clock that is not a number above 0 (the first four: finite)
    raises ``ValueError``: an infinite timeout would silently turn a guard off."""

    turn_timeout: float = DEFAULT_TURN_TIMEOUT
    hello_timeout: float = DEFAULT_HELLO_TIMEOUT
    grace: float = DEFAULT_GRACE
    away_budget: float = DEFAULT_AWAY_BUDGET
    heartbeat: float = DEFAULT_HEARTBEAT
    dead_after: float = DEFAULT_DEAD_AFTER

    def __post_init__(self) -> None:
        for key in ("turn_timeout", "hello_timeout", "grace", "away_budget"):
            value = getattr(self, key)
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise ValueError(f"Clocks.{key} must be finite and above 0, not {value!r}")
        for key in ("heartbeat", "dead_after"):  # math.inf turns it off
            value = getattr(self, key)
            if not (isinstance(value, int | float) and value > 0):
                raise ValueError(f"Clocks.{key} must be above 0, not {value!r}")


@dataclass(frozen=True, kw_only=True)
class GameSettings:
    """One game's settings: what our session proposes (:class:`SessionOptions`: the
    ruleset, our name, the deck, the match...) and the :class:`Clocks` that bound
    it.  ``truc-p2p resume`` stores it beside the transcript (:meth:`to_json`)."""

    session: SessionOptions = field(default_factory=SessionOptions)
    clocks: Clocks = field(default_factory=Clocks)

    def to_json(self) -> dict[str, Any]:
        """The settings as JSON values (:meth:`from_json` reads them back)."""
        s = self.session
        series = s.series
        return {
            "session": {
                "ruleset": dict(s.ruleset.to_dict()),
                "name": s.name,
                "audit": s.audit,
                "deck": s.deck,
                "pipeline": s.pipeline,
                "early": s.early,
                "resign": s.resign,
                "rest_final": s.rest_final,
                "early_redeal": s.early_redeal,
                "heartbeat": s.heartbeat,
                "resume_clock": s.resume_clock,
                "series": {
                    "match": series.match,
                    "prev": series.prev.hex() if series.prev is not None else None,
                    "dealer": int(series.dealer) if series.dealer is not None else None,
                },
            },
            "clocks": {f.name: getattr(self.clocks, f.name) for f in fields(Clocks)},
        }

    @classmethod
    def from_json(cls, obj: object) -> GameSettings:
        """The settings :meth:`to_json` wrote; ``ValueError`` (or ``TypeError``,
        ``KeyError``) when they are not."""
        if not isinstance(obj, dict):
            raise ValueError("the game settings are not a JSON object")
        s, c = dict(obj["session"]), dict(obj["clocks"])
        series = dict(s.pop("series"))
        prev, dealer = series.get("prev"), series.get("dealer")
        session = SessionOptions(
            ruleset=Ruleset.from_dict(s.pop("ruleset")),
            series=Series(
                match=int(series.get("match", 1)),
                prev=bytes.fromhex(prev) if prev is not None else None,
                dealer=Player(int(dealer)) if dealer is not None else None,
            ),
            **{key: _typed(key, s[key], bool if key in _FLAGS else str) for key in s},
        )
        clocks = Clocks(**{key: _typed(key, c[key], float) for key in c})
        return cls(session=session, clocks=clocks)

    @classmethod
    def stored(cls, meta: dict[str, Any]) -> GameSettings:
        """The settings stored in a game's ``.meta.json`` (its ``settings``, or what a
        build before them stored: the name, ruleset, audit and three clocks, the rest
        being in the transcript's hello); ``ValueError`` (or ``TypeError``,
        ``KeyError``) when they are not."""
        if "settings" in meta:
            return cls.from_json(meta["settings"])
        return cls(
            session=SessionOptions(
                ruleset=Ruleset.from_dict(meta["ruleset"]),
                name=str(meta["name"]),
                audit=str(meta["audit"]),
            ),
            clocks=Clocks(
                turn_timeout=_old_clock(meta, "timeout", DEFAULT_TURN_TIMEOUT),
                hello_timeout=_old_clock(meta, "hello_timeout", DEFAULT_HELLO_TIMEOUT),
                grace=_old_clock(meta, "grace", DEFAULT_GRACE),
            ),
        )


#: The :class:`SessionOptions` fields :meth:`GameSettings.from_json` reads as flags.
_FLAGS = frozenset(
    {"pipeline", "early", "resign", "rest_final", "early_redeal", "heartbeat", "resume_clock"}
)


def _typed(key: str, value: object, kind: type) -> Any:
    """``value`` when it is a ``kind`` (an int counts as a float), else ``ValueError``."""
    if kind is float and type(value) is int:
        return float(value)
    if type(value) is not kind:
        raise ValueError(f"{key} must be a {kind.__name__}, not {value!r}")
    return value


def _old_clock(meta: dict[str, Any], key: str, default: float) -> float:
    """A clock an older build stored (``None`` or absent: the default then)."""
    value = meta.get(key)
    return default if value is None else float(value)
