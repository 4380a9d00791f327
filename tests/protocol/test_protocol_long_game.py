"""A long game: the reveal stays bounded by auditing every 32 hands, even in game mode."""

from __future__ import annotations

import pytest

from truc_p2p.memory_pair import make_pair, run_pair
from truc_p2p.protocol import AuditPassed, SessionOptions, decode_envelope, verify_transcript
from truc_p2p.protocol._messages import MAX_SEEDS_PER_REVEAL
from truc_p2p.rules import Action, ActionKind, Game, Player, Ruleset


class CardsOnly:
    """Never raises, never folds: plays its lowest-index card, so every round is worth 1."""

    name = "cards-only"

    def choose(self, game: Game) -> Action:
        plays = [a for a in game.legal_actions() if a.kind is ActionKind.PLAY]
        if plays:
            return min(plays, key=lambda a: a.card.index if a.card else 0)
        return next(a for a in game.legal_actions() if a.kind is ActionKind.DECLINE_REDEAL)


@pytest.mark.slow
def test_more_than_32_hands_are_audited_in_bounded_reveals() -> None:
    record: list[bytes] = []
    events: list[object] = []
    # Rounds are worth 1 point at most, so a target of 33 needs at least 33 hands.
    sessions = make_pair(
        SessionOptions(ruleset=Ruleset(target=MAX_SEEDS_PER_REVEAL + 1), deck="v1"),
        records=(record.append, None),
        secrets=(bytes([1]) * 32, bytes([2]) * 32),
    )
    run_pair(
        sessions,
        {Player.P0: CardsOnly(), Player.P1: CardsOnly()},
        on_event=lambda p, e: events.append(e) if p is Player.P0 else None,
    )
    result = sessions[Player.P0].result
    assert result is not None and result == sessions[Player.P1].result
    assert result.hands > MAX_SEEDS_PER_REVEAL
    reveals = [decode_envelope(r).payload for r in record if decode_envelope(r).type == "reveal"]
    assert len(reveals) == 2 * (1 + (result.hands - 1) // MAX_SEEDS_PER_REVEAL)
    assert all(len(r["seeds"]) <= MAX_SEEDS_PER_REVEAL for r in reveals)
    audited = [h for e in events if isinstance(e, AuditPassed) for h in e.hands]
    assert audited == list(range(result.hands))
    report = verify_transcript(record)
    assert report.valid, report.summary()
    assert report.hands == result.hands
