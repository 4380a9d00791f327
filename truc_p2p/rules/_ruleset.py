"""The :class:`Ruleset`: the variant options both peers must agree on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Final

from truc_p2p.rules._errors import RulesetError

__all__ = ["DEFAULT_RULESET", "MAX_TARGET", "Ladder", "RestRefused", "Ruleset"]

#: Largest accepted target score (keeps untrusted rulesets sane).
MAX_TARGET: Final = 1000


class Ladder(Enum):
    """The raise ladder: the successive round values after accepted raises."""

    #: 1 → 2 → 6 → 8 → 10 → … (literal reading of the rule sheet; default).
    LITERAL = "literal"
    #: 1 → 2 → 4 → 6 → 8 → … (alternative reading).
    EVEN = "even"

    @classmethod
    def _missing_(cls, value: object) -> Ladder:
        raise RulesetError(f"not a ladder: {value!r}")


class RestRefused(Enum):
    """What a refused (or folded-on) "my rest" is worth to its declarer."""

    #: The declarer wins the game at once (default).
    GAME = "game"
    #: The declarer scores the current round value; the game goes on.
    VALUE = "value"

    @classmethod
    def _missing_(cls, value: object) -> RestRefused:
        raise RulesetError(f"not a rest_refused value: {value!r}")


_FIELDS: Final = ("target", "ladder", "rest_refused")


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Variant options of a game; immutable, hashable and serialisable.

    ``to_dict``/``from_dict`` give the wire form, e.g.
    ``{"target": 12, "ladder": "literal", "rest_refused": "game"}``.
    """

    target: int = 12
    ladder: Ladder = Ladder.LITERAL
    rest_refused: RestRefused = RestRefused.GAME

    def __post_init__(self) -> None:
        if type(self.target) is not int:
            raise RulesetError(f"target must be an int, not {type(self.target).__name__}")
        if not 1 <= self.target <= MAX_TARGET:
            raise RulesetError(f"target must be in 1..{MAX_TARGET}, not {self.target}")
        if not isinstance(self.ladder, Ladder):
            raise RulesetError(f"ladder must be a Ladder, not {self.ladder!r}")
        if not isinstance(self.rest_refused, RestRefused):
            raise RulesetError(f"rest_refused must be a RestRefused, not {self.rest_refused!r}")

    def is_on_ladder(self, value: int) -> bool:
        """Whether ``value`` is a round value this ladder can reach from 1."""
        if type(value) is not int or value < 1:
            return False
        if value <= 2:
            return True
        floor = 6 if self.ladder is Ladder.LITERAL else 4
        return value >= floor and value % 2 == 0

    def next_value(self, value: int) -> int:
        """The round value after one more accepted raise from ``value``."""
        if not self.is_on_ladder(value):
            raise RulesetError(f"{value!r} is not on the {self.ladder.value} raise ladder")
        if value == 1:
            return 2
        if value == 2:
            return 6 if self.ladder is Ladder.LITERAL else 4
        return value + 2

    def to_dict(self) -> dict[str, int | str]:
        """The wire form: plain ``str``/``int`` values only."""
        return {
            "target": self.target,
            "ladder": self.ladder.value,
            "rest_refused": self.rest_refused.value,
        }

    @classmethod
    def from_dict(cls, obj: object) -> Ruleset:
        """Strictly parse the wire form; any defect raises :class:`RulesetError`.

        Exactly the three keys ``target``, ``ladder`` and ``rest_refused`` must
        be present; meant for untrusted input.
        """
        if not isinstance(obj, Mapping):
            raise RulesetError(f"ruleset must be a mapping, not {type(obj).__name__}")
        keys = list(obj.keys())
        if not all(isinstance(k, str) for k in keys):
            raise RulesetError("ruleset keys must be strings")
        missing = [k for k in _FIELDS if k not in keys]
        extra = sorted(str(k) for k in keys if k not in _FIELDS)
        if missing or extra:
            raise RulesetError(f"ruleset keys: missing {missing}, unknown {extra}")
        target, ladder, rest = obj["target"], obj["ladder"], obj["rest_refused"]
        if type(ladder) is not str or ladder not in {m.value for m in Ladder}:
            raise RulesetError(f"unknown ladder {ladder!r}")
        if type(rest) is not str or rest not in {m.value for m in RestRefused}:
            raise RulesetError(f"unknown rest_refused {rest!r}")
        if type(target) is not int:
            raise RulesetError(f"target must be an int, not {type(target).__name__}")
        return cls(target=target, ladder=Ladder(ladder), rest_refused=RestRefused(rest))


#: The default ruleset (target 12, literal ladder, refused rest wins the game).
DEFAULT_RULESET: Final = Ruleset()
