"""The rules engine's and bots' public names and frozen values.

Their layering is checked in tests/test_layering.py."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import truc_p2p.bots as bots
import truc_p2p.rules as rules

RULES_DIR = Path(rules.__file__).parent


def test_public_names_are_exported() -> None:
    for module in (rules, bots):
        assert sorted(set(module.__all__)) == sorted(module.__all__)
        for name in module.__all__:
            assert not name.startswith("_")
            assert hasattr(module, name), name
    assert (RULES_DIR.parent / "py.typed").exists()


def test_events_and_values_are_frozen_keyword_only() -> None:
    for name in ("Event", "Dealt", "Acted", "TrickEnded", "RoundEnded", "GameEnded", "Trick"):
        cls = getattr(rules, name)
        params = cls.__dataclass_params__
        assert params.frozen, name
        assert all(f.kw_only for f in dataclasses.fields(cls)), name
    for value_type in (rules.Card, rules.Action, rules.Ruleset, rules.Outcome):
        assert getattr(value_type, "__dataclass_params__").frozen  # noqa: B009
    event = rules.Dealt(round_no=0, dealer=rules.Player.P0, redeal=False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.round_no = 1  # type: ignore[misc]
