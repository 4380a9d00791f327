"""The bots' sizes (issue 31): modules split by what they hold, small constructors."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from truc_p2p.bots import SearchBot, SearchOptions, make_bot
from truc_p2p.bots._sim import RoundSim

BOTS = Path(__file__).resolve().parents[2] / "truc_p2p" / "bots"


@pytest.mark.parametrize("module", ["_search.py", "_cfr.py", "_sim.py", "_cfr_table.py"])
def test_the_bot_modules_stay_under_600_lines(module: str) -> None:
    lines = (BOTS / module).read_text(encoding="utf-8").count("\n")
    assert lines < 600, f"{module}: {lines} lines"


@pytest.mark.parametrize("init", [RoundSim.__init__, SearchBot.__init__])
def test_the_constructors_take_at_most_8_parameters(init: object) -> None:
    assert callable(init)
    params = [p for p in inspect.signature(init).parameters if p != "self"]
    assert len(params) <= 8, params


def test_the_expert_options_travel_in_one_frozen_object() -> None:
    hard = make_bot("hard", 1)
    assert isinstance(hard, SearchBot) and hard.options.game_model
    assert hard.options.rest_from == hard.rest_from == 6 and hard.mix == hard.options.mix > 0
    plain = SearchBot(1)
    assert plain.options == SearchOptions() and not plain.game_model
    with pytest.raises(AttributeError):
        hard.options.rest_from = 0  # type: ignore[misc]
