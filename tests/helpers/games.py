"""What a finished game between two sessions must hold, checked the same way by every
protocol test that plays one."""

from __future__ import annotations

from helpers.protocol import P0, P1, Pair, bot, transcript_types
from truc_p2p.protocol import (
    AuditPassed,
    CardsDealt,
    GameFinished,
    GameStarted,
    Stage,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.rules import Event, GameEnded, Player, RoundEnded, Ruleset


def check_finished_game(pair: Pair, *, first_dealer: Player | None = None) -> None:
    """Everything a finished honest game must satisfy, on both sides."""
    s0, s1 = pair.sessions[P0], pair.sessions[P1]
    for s in (s0, s1):
        assert s.stage is Stage.DONE and s.finished and s.error is None
    r0, r1 = s0.result, s1.result
    assert r0 is not None and r0 == r1
    # Both sides recorded the same transcript; it ends with the two co-signed results.
    records = pair.records[P0]
    assert records == pair.records[P1]
    assert r0.envelopes == (records[-2], records[-1])
    assert {decode_envelope(e).sender for e in r0.envelopes} == {0, 1}
    assert decode_envelope(r0.envelopes[0]).payload == decode_envelope(r0.envelopes[1]).payload
    types = transcript_types(records)
    deck = s0.deck
    assert s1.deck == deck
    assert types[:3] == ["hello", "hello", "coin"]
    if deck == "v1":
        assert types[-4:] == ["reveal", "reveal", "result", "result"]
        assert types.count("deck1") == types.count("deck4") == r0.hands
        assert not any(t.startswith("v2") for t in types)
    elif s0.pipeline:
        # Pipelined: the last hand's pre-deal may dangle (one v2deck1, maybe a v2deck2).
        assert s1.pipeline
        assert types[-2:] == ["result", "result"]
        assert types.count("v2deck1") - r0.hands in (0, 1)
        assert types.count("v2deck2") - r0.hands in (0, 1)
        assert types.count("v2deck3") == r0.hands
        assert set(types) <= {
            "hello",
            "coin",
            "v2deck1",
            "v2deck2",
            "v2open",
            "v2deck3",
            "v2action",
            "v2redeal",
            "result",
        }
    else:
        # Three deal messages per hand, no reveal: the result follows the last action.
        assert types[-2:] == ["result", "result"]
        assert types.count("v2deck1") == types.count("v2deck2") == r0.hands
        assert types.count("v2deck3") == r0.hands
        assert set(types) <= {
            "hello",
            "coin",
            "v2deck1",
            "v2deck2",
            "v2deck3",
            "v2action",
            "v2redeal",
            "result",
        }
    if deck == "v2":  # early redeal cards: one v2redeal per accepted redeal, when agreed
        accepted = sum(decode_envelope(r).payload.get("act") == "accept-redeal" for r in records)
        assert types.count("v2redeal") == (accepted if s0.early_redeal else 0)
    # The result is the rules engine's outcome, the same in both views.
    outcome = s0.outcome
    assert outcome is not None and outcome == s1.outcome
    assert r0.winner is outcome.winner and r0.scores == outcome.scores
    assert r0.reason == outcome.reason.value
    assert r0.game_id == s0.game_id == s1.game_id
    assert r0.hands == s0.hands_dealt == s1.hands_dealt
    # Events: the same rules events in both views, points conserved, one start, one end.
    rules_events = {p: [e for e in pair.events[p] if isinstance(e, Event)] for p in Player}
    assert rules_events[P0] == rules_events[P1]
    rounds = [e for e in rules_events[P0] if isinstance(e, RoundEnded)]
    assert len(rounds) == r0.hands
    scored = [0, 0]
    for e in rounds:
        if e.winner is not None:
            scored[e.winner] += e.points
        assert tuple(scored) == e.scores
    assert tuple(scored) == r0.scores
    assert [e for e in rules_events[P0] if isinstance(e, GameEnded)][-1].outcome == outcome
    for p in Player:
        events = pair.events[p]
        started = [e for e in events if isinstance(e, GameStarted)]
        assert len(started) == 1
        assert started[0].me is p
        assert started[0].peer_fingerprint == pair.sessions[p.other].fingerprint
        assert started[0].peer_name == pair.names[p.other]
        assert started[0].game_id == r0.game_id
        if first_dealer is not None:
            assert started[0].first_dealer is first_dealer
        assert isinstance(events[-1], GameFinished) and events[-1].result == r0
        dealt = [e for e in events if isinstance(e, CardsDealt)]
        assert len([e for e in dealt if not e.redeal]) == r0.hands
        for deal in dealt:
            assert len(deal.cards) == 3 and len(set(deal.cards)) == 3
        audited = [h for e in events if isinstance(e, AuditPassed) for h in e.hands]
        assert sorted(audited) == (list(range(r0.hands)) if deck == "v1" else [])
        assert started[0].deck == deck
        if pair.sessions[p].audit_mode == "hand":
            assert all(len(e.hands) == 1 for e in events if isinstance(e, AuditPassed))
    # The offline verifier agrees with both sessions.
    report = verify_transcript(records)
    assert report.valid, report.summary()
    assert report.error is None and report.audit == ("passed" if deck == "v1" else "proofs")
    assert report.deck == deck and report.to_json()["deck"] == deck
    plays = sum(
        1
        for r in records
        for p in [decode_envelope(r).payload]
        if p.get("act", p.get("action", {}).get("act")) == "play"
    )
    # v1's audit opens all 32 positions of every hand; v2 never opens an unplayed card.
    hidden = 32 * r0.hands - plays if deck == "v1" else 0
    assert report.hidden_cards_revealed == hidden
    assert report.to_json()["hidden_cards_revealed"] == hidden
    assert report.game_id == r0.game_id.hex()
    assert report.hands == r0.hands and report.messages == len(records)
    assert report.score == r0.scores and report.winner == int(r0.winner)
    assert report.reason == r0.reason
    assert [p.fingerprint for p in report.players] == [s0.fingerprint, s1.fingerprint]
    assert [p.name for p in report.players] == list(pair.names)


def per_hand_cost(deck: str, pipeline: bool = False) -> tuple[float, float, float]:
    """(deal messages per hand, bytes per hand, all messages per hand) over a few games
    (the classic deal unless ``pipeline``)."""
    deals = messages = nbytes = hands = 0
    for seed in range(3):
        pair = Pair(
            ruleset=Ruleset(target=3),
            tag=f"cost/{seed}",
            bots={P0: bot("heuristic", seed), P1: bot("heuristic", seed + 7)},
            deck=deck,
            pipeline=pipeline,
        )
        pair.finish()
        result = pair.sessions[P0].result
        assert result is not None
        records = pair.records[P0]
        types = transcript_types(records)
        deals += sum(1 for t in types if "deck" in t or t == "v2open")
        messages += len(records) - 3  # hellos and coin are per game, not per hand
        nbytes += sum(len(r) + 4 for r in records[3:])
        hands += result.hands
    return deals / hands, nbytes / hands, messages / hands
