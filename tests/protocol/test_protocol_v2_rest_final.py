"""The rest-final rule (wire.md section 6b): no pre-deal while "my rest" decides the hand.

Both hello nonces announce feature bit 1; then, from the moment "my rest" is
pending (with ``rest_refused`` "game") or accepted, neither pre-deal message
of the next hand is owed, and one sent anyway is ``unexpected-message`` for
the session and the verifier.  A peer that does not announce the bit (every
peer of the older spec) gets the pre-deal exactly as before.
"""

from __future__ import annotations

import hashlib

import pytest

from truc_p2p.crypto import SigningKey
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    Session,
    SessionOptions,
    UnexpectedMessageError,
    YourTurn,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.protocol._values import FEATURE_REST_FINAL, nonce_features
from truc_p2p.protocol._wire import frame
from truc_p2p.rules import Action, Player, Ruleset

RULESET = Ruleset.from_dict({"target": 3, "ladder": "literal", "rest_refused": "game"})


def _fixed(label: str) -> bytes:
    return hashlib.sha256(b"test-rest-final/" + label.encode()).digest()


def _choose(session: Session, event: YourTurn) -> Action:
    """From hand 1 on the non-dealer says "my rest" first and the dealer accepts;
    otherwise accept what is asked and play the lowest card."""
    kinds = {a.kind.value: a for a in event.legal_actions}
    if session.game.round_no >= 1 and "rest" in kinds:
        return kinds["rest"]
    for preferred in ("accept", "accept-redeal"):
        if preferred in kinds:
            return kinds[preferred]
    plays = [a for a in event.legal_actions if a.card is not None]
    return min(plays, key=lambda a: a.card.index if a.card is not None else 0)


def _play(rest_final: tuple[bool, bool], *, lie: bool = False) -> list[bytes]:
    """Play the script; returns player 0's transcript.  With ``lie`` both hellos
    announce the rule but both sessions then behave as if it were off."""
    transcript: list[bytes] = []
    sessions = {
        p: Session(
            identity=SigningKey.from_bytes(_fixed(f"id{int(p)}")),
            role=p,
            secret=_fixed(f"secret{int(p)}"),
            record=transcript.append if p is Player.P0 else None,
            options=SessionOptions(
                ruleset=RULESET, deck="v2", pipeline=True, early=False, rest_final=rest_final[p]
            ),
        )
        for p in (Player.P0, Player.P1)
    }
    closed: set[Player] = set()
    while len(closed) < 2:
        for me in (Player.P0, Player.P1):
            if me in closed:
                continue
            s = sessions[me]
            event = s.next_event()
            sessions[me.other].receive_data(s.data_to_send())
            if lie and len(transcript) >= 2:
                s.rest_final_feature = False
            if event is CLOSED:
                closed.add(me)
            elif isinstance(event, YourTurn):
                sessions[me.other].receive_data(s.send(_choose(s, event)))
            else:
                assert event is NEED_DATA or not isinstance(event, YourTurn)
    return transcript


def _predeals_after_rest(transcript: list[bytes]) -> list[str]:
    """The pre-deal messages (``v2deck1``/``v2deck2`` of a later hand) on the chain
    after the first "rest"."""
    envs = [decode_envelope(raw) for raw in transcript]
    start = next(
        i for i, e in enumerate(envs) if (e.payload.get("action") or e.payload).get("act") == "rest"
    )
    return [e.type for e in envs[start:] if e.type in ("v2deck1", "v2deck2")]


def test_with_the_rule_no_predeal_is_owed_once_rest_decides_the_hand() -> None:
    transcript = _play((True, True))
    envs = [decode_envelope(raw) for raw in transcript]
    assert all(nonce_features(e.payload["nonce"]) & FEATURE_REST_FINAL for e in envs[:2])
    assert _predeals_after_rest(transcript) == []
    report = verify_transcript(transcript)
    assert report.valid, report.summary()


@pytest.mark.parametrize("old", [Player.P0, Player.P1])
def test_a_peer_without_the_rule_gets_the_predeal_as_before(old: Player) -> None:
    """A peer of the older spec (no feature bit) owes and receives the pre-deal."""
    flags = (old is not Player.P0, old is not Player.P1)
    transcript = _play(flags)
    assert _predeals_after_rest(transcript) == ["v2deck1", "v2deck2"]
    report = verify_transcript(transcript)
    assert report.valid, report.summary()


def test_a_predeal_where_the_rule_forbids_it_is_rejected() -> None:
    """Both hellos announce the rule, yet the pre-deal is sent after "my rest":
    the verifier (and a session that keeps the rule) rejects it."""
    transcript = _play((True, True), lie=True)
    assert _predeals_after_rest(transcript) == ["v2deck1", "v2deck2"]
    report = verify_transcript(transcript)
    assert not report.valid
    assert report.error_code == "unexpected-message"
    bad = next(
        i
        for i, raw in enumerate(transcript)
        if decode_envelope(raw).type == "v2deck1" and decode_envelope(raw).payload["hand"] == 2
    )
    assert report.error_message_no == bad
    # a session that keeps the rule refuses the same message
    keeper = Session.restore(
        transcript[:bad],
        identity=SigningKey.from_bytes(_fixed("id0")),
        role=Player.P0,
        secret=_fixed("secret0"),
    )
    assert keeper.rest_final
    keeper.receive_data(frame(transcript[bad]))
    with pytest.raises(UnexpectedMessageError):
        while keeper.next_event() is not NEED_DATA:
            pass


@pytest.mark.parametrize("rest_refused", ["game", "value"])
def test_random_games_full_of_rests_finish_and_verify(rest_refused: str) -> None:
    """Players that say and answer "my rest" often, under both rest variants (with
    "value" a pending rest does not decide the hand, a refused one lets the game go
    on): both sessions finish on the same result and every transcript verifies."""
    import random

    from truc_p2p.memory_pair import make_pair

    rests = 0
    for seed in range(6):
        rng = random.Random(seed)
        records: list[bytes] = []
        ruleset = Ruleset.from_dict(
            {"target": 6, "ladder": "literal", "rest_refused": rest_refused}
        )
        sessions = make_pair(
            SessionOptions(ruleset=ruleset, pipeline=True), records=(records.append, None)
        )
        closed: set[Player] = set()
        while len(closed) < 2:
            for me in (Player.P0, Player.P1):
                if me in closed:
                    continue
                s = sessions[me]
                event = s.next_event()
                sessions[me.other].receive_data(s.data_to_send())
                if event is CLOSED:
                    closed.add(me)
                elif isinstance(event, YourTurn):
                    kinds = {a.kind.value: a for a in event.legal_actions}
                    if "rest" in kinds and rng.random() < 0.5:
                        action, rests = kinds["rest"], rests + 1
                    elif "accept" in kinds and rng.random() < 0.7:
                        action = kinds["accept"]
                    else:
                        action = rng.choice(event.legal_actions)
                    sessions[me.other].receive_data(s.send(action))
        result = sessions[Player.P0].result
        assert result is not None and result == sessions[Player.P1].result
        report = verify_transcript(records)
        assert report.valid, report.summary()
    assert rests >= 3
