"""vectors/wire_v1.json: the scripted deck v1 game (wire.md §12)."""

from __future__ import annotations

from typing import Any

from game1 import play_v1
from wire_v2 import layout, script_choice, setup

FILE = "wire_v1.json"
INDENT = 1


def build() -> dict[str, Any]:
    ruleset = {"target": 2, "ladder": "literal", "rest_refused": "game"}
    play = setup("", ruleset, {"audit": "game"}, (0, 0))
    return layout(play, {}, play_v1(play, script_choice))
