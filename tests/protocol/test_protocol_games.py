"""Full games between two in-memory sessions: every setting ends co-signed and verified."""

from __future__ import annotations

import itertools

import pytest
from helpers.protocol import P0, P1, Pair, bot, transcript_types

from truc_p2p.memory_pair import make_pair, run_pair
from truc_p2p.protocol import (
    AuditPassed,
    CardsDealt,
    GameFinished,
    GameStarted,
    SessionOptions,
    Stage,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.rules import Event, GameEnded, Ladder, Player, RestRefused, RoundEnded, Ruleset

SETTINGS = list(itertools.product(Ladder, RestRefused, ("game", "hand"), Player))
#: The mixed pairing (each bot in both seats) in the fast loop, every pairing in CI.
BOTS = [
    pytest.param("random", "random", marks=pytest.mark.slow),
    pytest.param("heuristic", "heuristic", marks=pytest.mark.slow),
    ("random", "heuristic"),
]
#: (target, seed) of the games played for every setting and bot pairing: three
#: one-hand games (target 1) and a longer one, to keep the suite fast.
GAMES = [(1, 0), (1, 1), (1, 2), (2, 3)]


def _id(value: object) -> str:
    if isinstance(value, Ladder | RestRefused):
        return value.value
    if isinstance(value, Player):
        return f"dealer-{value.name}"
    return str(value)


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
        for e in dealt:
            assert len(e.cards) == 3 and len(set(e.cards)) == 3
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


@pytest.mark.parametrize(("ladder", "rest", "audit", "dealer"), SETTINGS, ids=_id)
@pytest.mark.parametrize(("bot0", "bot1"), BOTS, ids=lambda b: b)
def test_full_games(
    ladder: Ladder, rest: RestRefused, audit: str, dealer: Player, bot0: str, bot1: str
) -> None:
    """Four games per setting and bot pairing (see ``GAMES``), bots in both seats."""
    for target, seed in GAMES:
        names = (bot0, bot1) if seed % 2 == 0 else (bot1, bot0)
        pair = Pair(
            ruleset=Ruleset(target=target, ladder=ladder, rest_refused=rest),
            audit=audit,
            first_dealer=dealer,
            tag=f"games/{seed}",
            bots={P0: bot(names[0], seed), P1: bot(names[1], seed + 100)},
        )
        pair.finish()
        check_finished_game(pair, first_dealer=dealer)


@pytest.mark.parametrize("audit", ["game", "hand"])
def test_redeals_travel_through_the_protocol(audit: str, first_dealer: Player) -> None:
    """Both players ask for and accept every redeal: the redeal keys ride on the
    dealer's accept-redeal and the non-dealer's next action, and every hand audits."""
    pair = Pair(
        ruleset=Ruleset(target=3),
        audit=audit,
        first_dealer=first_dealer,
        tag="redeal",
        bots={P0: bot("redealer", 0), P1: bot("redealer", 0)},
    )
    pair.finish()
    check_finished_game(pair, first_dealer=first_dealer)
    redeals = [e for e in pair.events[P0] if isinstance(e, CardsDealt) and e.redeal]
    assert len(redeals) == pair.sessions[P0].result.hands  # type: ignore[union-attr]
    keyed = [
        decode_envelope(r).payload
        for r in pair.records[P0]
        if decode_envelope(r).type == "action" and "keys" in decode_envelope(r).payload
    ]
    assert keyed and all(len(p["keys"]) == 3 for p in keyed)


def test_run_pair_and_make_pair_play_a_valid_game() -> None:
    """The public in-memory helpers of ``truc_p2p.memory_pair`` (what the demo uses)."""
    records: dict[Player, list[bytes]] = {P0: [], P1: []}
    sessions = make_pair(
        SessionOptions(ruleset=Ruleset(target=4, ladder=Ladder.EVEN), audit="hand"),
        records=(records[P0].append, records[P1].append),
    )
    seen: list[tuple[Player, object]] = []
    result = run_pair(
        sessions,
        {P0: bot("heuristic", 1), P1: bot("random", 2)},
        on_event=lambda p, e: seen.append((p, e)),
    )
    r0, r1 = result.results[P0], result.results[P1]
    assert r0 is not None and r0 == r1
    assert records[P0] == records[P1]
    assert result.nbytes == sum(len(r) + 4 for r in records[P0])
    assert [e for p, e in seen if isinstance(e, GameFinished)] == [
        GameFinished(result=r0),
        GameFinished(result=r0),
    ]
    report = verify_transcript(records[P0])
    assert report.valid and report.score == r0.scores and report.hands == r0.hands
