"""Replay: a session rebuilt from its transcript and its secret is the same session."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import P0, P1, Pair, bot, digest, identity, with_payload
from test_protocol_games import check_finished_game

from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    GameFinished,
    LocalProtocolError,
    RemoteProtocolError,
    RulesetMismatchError,
    Session,
    Stage,
    YourTurn,
    decode_envelope,
)
from truc_p2p.rules import Ladder, Player, RestRefused, Ruleset

RULESET = Ruleset(target=3, rest_refused=RestRefused.VALUE)
FRACTIONS = (0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0)


def new_pair(audit: str) -> Pair:
    """The same game every time: fixed keys, secrets and freshly seeded bots."""
    return Pair(
        ruleset=RULESET,
        audit=audit,
        tag="replay",
        bots={P0: bot("random", 11), P1: bot("heuristic", 12)},
    )


def restore(pair: Pair, p: Player, envelopes: list[bytes], **changes: Any) -> Session:
    assert pair.secrets is not None
    options: dict[str, Any] = {
        "identity": pair.keys[p],
        "role": p,
        "secret": pair.secrets[p],
        "ruleset": pair.sessions[p].ruleset,
        "name": pair.names[p],
        "audit": pair.sessions[p].audit_mode,
    }
    options.update(changes)
    return Session.restore(envelopes, **options)


def same_state(restored: Session, live: Session) -> None:
    assert restored.stage is live.stage
    assert restored.hands_dealt == live.hands_dealt
    assert restored.game_id == live.game_id
    assert restored.fingerprint == live.fingerprint
    assert restored.peer_fingerprint == live.peer_fingerprint
    assert restored.peer_name == live.peer_name
    assert restored.outcome == live.outcome
    assert restored.result == live.result
    if live.stage not in (Stage.HELLO_INITIATOR, Stage.HELLO_RESPONDER, Stage.COIN):
        assert restored.game == live.game
    assert restored.data_to_send() == b""


@functools.cache
def reference(audit: str) -> tuple[bytes, ...]:
    """The transcript of the uninterrupted game."""
    pair = new_pair(audit)
    pair.finish()
    assert pair.records[P0] == pair.records[P1]
    return tuple(pair.records[P0])


@pytest.mark.parametrize("audit", ["game", "hand"])
@pytest.mark.parametrize("side", list(Player), ids=lambda p: f"restore-{p.name}")
@pytest.mark.parametrize("fraction", FRACTIONS)
def test_restore_mid_game_and_finish(side: Player, audit: str, fraction: float) -> None:
    """Cut the game at a point, rebuild one side from its transcript, compare it with the
    live session, swap it in and finish: the game ends exactly as if never interrupted."""
    full = reference(audit)
    cut = max(1, int(fraction * len(full)))
    pair = new_pair(audit)
    pair.run(when=lambda: len(pair.records[side]) >= cut or side in pair.closed)
    live = pair.sessions[side]
    records = list(pair.records[side])
    assert records == list(full[: len(records)])
    restored = restore(pair, side, records)
    same_state(restored, live)
    # A turn pending in the live session is pending in the restored one.
    events = []
    while (event := restored.next_event()) not in (NEED_DATA, CLOSED):
        events.append(event)
    turns = [e for e in events if isinstance(e, YourTurn)]
    live_game = (
        live.game
        if live.stage not in (Stage.HELLO_INITIATOR, Stage.HELLO_RESPONDER, Stage.COIN)
        else None
    )
    if live_game is not None and live_game.to_act is side and not live.finished:
        assert turns == [YourTurn(legal_actions=tuple(live_game.legal_actions()))]
    else:
        assert turns == []
    # Swap the rebuilt session in; it records from where the transcript stopped.
    continued = list(records)
    pair.sessions[side] = restore(pair, side, records, record=continued.append)
    pair.records[side] = continued
    pair.events[side] = []
    pair.finish()
    assert tuple(pair.records[side]) == full
    assert tuple(pair.records[side.other]) == full
    assert pair.sessions[P0].result == pair.sessions[P1].result is not None
    if len(records) < len(full):
        assert any(isinstance(e, GameFinished) for e in pair.events[side])


@pytest.mark.parametrize("side", list(Player), ids=lambda p: p.name)
def test_restore_a_finished_game(side: Player, finished_pair: Pair) -> None:
    live = finished_pair.sessions[side]
    restored = restore(finished_pair, side, finished_pair.records[side])
    same_state(restored, live)
    assert restored.stage is Stage.DONE and restored.result is not None
    assert restored.next_event() is CLOSED


@pytest.mark.parametrize(
    "change",
    [
        {"secret": digest("another secret")},
        {"identity": identity("another key")},
        {"name": "mallory"},
        {"ruleset": Ruleset(target=3, ladder=Ladder.EVEN, rest_refused=RestRefused.VALUE)},
        {"audit": "hand"},
    ],
    ids=["secret", "identity", "name", "ruleset", "audit"],
)
@pytest.mark.parametrize("side", list(Player), ids=lambda p: p.name)
def test_restore_with_other_local_settings_is_refused(side: Player, change: dict[str, Any]) -> None:
    """Own messages are regenerated and must match the transcript byte for byte.

    (The responder checks the initiator's ruleset and options before it compares
    its own hello, so another ruleset or audit mode is reported as a mismatch.)
    """
    full = list(reference("game"))
    pair = new_pair("game")
    expected: type[Exception] = LocalProtocolError
    if side is P1 and ("ruleset" in change or "audit" in change):
        expected = RulesetMismatchError
    for cut in (2, len(full) // 2, len(full)):
        with pytest.raises(expected):
            restore(pair, side, full[:cut], **change)


def test_restore_with_the_wrong_role_is_refused() -> None:
    full = list(reference("game"))
    pair = new_pair("game")
    assert pair.secrets is not None
    with pytest.raises(LocalProtocolError):
        restore(pair, P0, full, identity=pair.keys[P1], role=P0, secret=pair.secrets[P1])


def test_restore_of_a_transcript_holding_a_remote_fault_raises_it() -> None:
    """Replaying the peer's messages runs every check again."""
    full = list(reference("game"))
    pair = new_pair("game")
    index = next(i for i, r in enumerate(full) if decode_envelope(r).type == "deck2")
    sender = Player(decode_envelope(full[index]).sender)
    bad = with_payload(
        full[index], pair.keys[sender], lambda p: p["deck"].__setitem__(1, p["deck"][0])
    )
    with pytest.raises(RemoteProtocolError) as info:
        restore(pair, sender.other, [*full[:index], bad])
    assert info.value.evidence[0] == bad and info.value.message_no == index


@settings(max_examples=6, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10_000),
    ladder=st.sampled_from(Ladder),
    rest=st.sampled_from(RestRefused),
    audit=st.sampled_from(["game", "hand"]),
    names=st.sampled_from([("random", "random"), ("heuristic", "random"), ("random", "redealer")]),
)
def test_random_games_terminate_conserve_points_and_replay(
    seed: int, ladder: Ladder, rest: RestRefused, audit: str, names: tuple[str, str]
) -> None:
    pair = Pair(
        ruleset=Ruleset(target=2, ladder=ladder, rest_refused=rest),
        audit=audit,
        tag=f"property/{seed}",
        bots={P0: bot(names[0], seed), P1: bot(names[1], seed + 1)},
    )
    pair.finish()
    check_finished_game(pair)
    for p in Player:
        same_state(restore(pair, p, pair.records[p]), pair.sessions[p])
