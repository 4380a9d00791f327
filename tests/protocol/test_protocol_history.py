"""A restored session hands its screen the game so far: the events the live session
gave, in order, once (the one road into a game for ``resume``)."""

from __future__ import annotations

import pytest
from helpers.protocol import P0, P1
from helpers.replay import new_pair, restore

from truc_p2p.protocol import YourTurn
from truc_p2p.rules import Player


def _past(events: list[object]) -> list[object]:
    return [e for e in events if not isinstance(e, YourTurn)]


@pytest.mark.parametrize("p", [P0, P1])
@pytest.mark.parametrize("deck", ["v1", "v2"])
def test_a_restored_session_tells_the_whole_game_again(p: Player, deck: str) -> None:
    pair = new_pair("game", deck)
    pair.finish()
    restored = restore(pair, p, list(pair.records[p]))
    history = restored.take_history()
    assert list(history) == _past(pair.events[p])
    assert restored.take_history() == ()  # handed out once


@pytest.mark.parametrize("fraction", [0.2, 0.5, 0.8])
def test_a_cut_transcript_tells_the_game_up_to_the_cut(fraction: float) -> None:
    pair = new_pair("game", "v2")
    pair.finish()
    envelopes = list(pair.records[P0])
    cut = envelopes[: int(len(envelopes) * fraction)]
    history = list(restore(pair, P0, cut).take_history())
    live = _past(pair.events[P0])
    assert history and history == live[: len(history)]
    kinds = {type(e).__name__ for e in history}
    assert "GameStarted" in kinds
    if fraction >= 0.5:  # past the first deal: the cards and the moves are told again
        assert {"CardsDealt", "Acted"} <= kinds


def test_a_new_session_has_no_past() -> None:
    pair = new_pair("game", "v2")
    assert pair.sessions[P0].take_history() == ()
