"""Resignation (wire.md section 8.1): a signed ``abort`` {reason: ``resign``} that gives
the game to the opponent, negotiated in the hello nonce.

Pairs of real sessions resign at their own turn, at the opponent's turn, and with
the opponent's move crossing the resignation on the wire, in deck v1, deck v2 and
the pipelined deal; both transcripts must verify as complete with the same winner,
score and hand.  A peer of the older spec gets a plain ``quit``; forged, misplaced
and unnegotiated resignations are rejected by the session and by the verifier.
"""

from __future__ import annotations

import random

import pytest
from helpers.protocol import (
    P0,
    P1,
    Pair,
    bot,
    drain,
    expect_remote,
    is_type,
    resign,
)

from truc_p2p.protocol import (
    BadSignatureError,
    LocalProtocolError,
    MalformedMessageError,
    PeerAborted,
    PeerResigned,
    Stage,
    UnexpectedMessageError,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.protocol._values import FEATURE_TAG, nonce_features
from truc_p2p.rules import Player, Ruleset

#: (deck, pipeline) of the three deals
DEALS = [("v1", None), ("v2", False), ("v2", True)]
DEAL_IDS = ["v1", "v2", "v2-pipelined"]


def _to_first_turn(pair: Pair) -> Player:
    """Play until a player has a turn pending; return that player."""
    pair.run(when=lambda: any(pair.waiting.values()))
    return P0 if pair.waiting[P0] is not None else P1


def _settle(pair: Pair) -> None:
    """Deliver everything in flight (a closed session drops what it gets)."""
    while pair.peek() is not None:
        pair.deliver(pair.peek()[0])  # type: ignore[index]
        for p in Player:
            pair.pull(p)


def _check_both(pair: Pair, resigner: Player) -> None:
    """Both sides hold the same resignation, and both transcripts verify as it says."""
    winner = resigner.other
    ours, theirs = pair.sessions[resigner], pair.sessions[winner]
    assert ours.stage is theirs.stage is Stage.ABORTED
    r = ours.resignation
    assert r is not None and r == theirs.resignation
    assert (r.by, r.winner) == (resigner, winner)
    peer_events = [e for e in pair.events[winner] if isinstance(e, PeerAborted)]
    assert len(peer_events) == 1 and isinstance(peer_events[0], PeerResigned)
    assert peer_events[0].resignation == r and peer_events[0].reason == "resign"
    assert not any(isinstance(e, PeerAborted) for e in pair.events[resigner])
    names = pair.names
    for p in Player:
        report = verify_transcript(pair.records[p])
        assert report.valid and report.status == "complete", report.summary()
        assert (report.reason, report.winner, report.resigned_by) == (
            "resigned",
            int(winner),
            int(resigner),
        )
        assert report.hands == r.hand
        assert report.audit == ("proofs" if pair.sessions[p].deck == "v2" else "not reached")
        if pair.sessions[p].deck == "v2":
            assert report.score == r.scores
        headline = report.headline()
        assert headline.startswith(
            f"{names[resigner]} resigned in hand {r.hand}; {names[winner]} wins"
        ), headline
        assert report.to_json()["resigned_by_name"] == names[resigner]


@pytest.mark.parametrize(("deck", "pipeline"), DEALS, ids=DEAL_IDS)
def test_resign_at_your_turn(deck: str, pipeline: bool | None) -> None:
    pair = Pair(deck=deck, pipeline=pipeline, tag=f"resign-own/{deck}", bots={P0: None, P1: None})
    actor = _to_first_turn(pair)
    assert pair.sessions[actor].can_resign and pair.sessions[actor.other].can_resign
    pair.collect(actor, pair.sessions[actor].resign("enough"))
    _settle(pair)
    _check_both(pair, actor)
    assert pair.records[P0] == pair.records[P1]  # nothing crossed
    assert decode_envelope(pair.records[P0][-1]).payload == {"reason": "resign", "detail": "enough"}


@pytest.mark.parametrize(("deck", "pipeline"), DEALS, ids=DEAL_IDS)
def test_resign_at_the_opponents_turn(deck: str, pipeline: bool | None) -> None:
    pair = Pair(deck=deck, pipeline=pipeline, tag=f"resign-opp/{deck}", bots={P0: None, P1: None})
    actor = _to_first_turn(pair)
    resigner = actor.other  # not its turn: an abort needs none
    pair.collect(resigner, pair.sessions[resigner].resign())
    _settle(pair)
    _check_both(pair, resigner)
    # the actor can no longer act
    with pytest.raises(LocalProtocolError):
        pair.act(actor, next(iter(pair.sessions[actor].game.legal_actions())))


@pytest.mark.parametrize(("deck", "pipeline"), DEALS, ids=DEAL_IDS)
def test_a_move_that_crosses_the_resignation_is_void(deck: str, pipeline: bool | None) -> None:
    """The opponent plays before the resignation reaches it: its transcript holds the
    move and then the resignation (chained to the earlier position), the resigner's
    does not; both state the winner, the score and the hand before the move."""
    pair = Pair(deck=deck, pipeline=pipeline, tag=f"resign-x/{deck}", bots={P0: None, P1: None})
    pair.bots[P0] = pair.bots[P1] = bot("random", 3)
    pair.run(until=is_type("v2action" if deck == "v2" else "action"))  # into the play
    pair.bots[P0] = pair.bots[P1] = None
    actor = _to_first_turn(pair)
    resigner = actor.other
    before = pair.sessions[actor].game.scores
    pair.collect(resigner, pair.sessions[resigner].resign())
    turn = pair.waiting[actor]
    assert turn is not None
    # a fold scores for the resigner: the crossed move would change the score
    fold = next((a for a in turn.legal_actions if a.kind.value == "fold"), turn.legal_actions[0])
    pair.act(actor, fold)
    _settle(pair)
    _check_both(pair, resigner)
    winner_record, resigner_record = pair.records[actor], pair.records[resigner]
    assert len(winner_record) > len(resigner_record)
    abort = decode_envelope(winner_record[-1])
    assert abort.seq == len(resigner_record) - 1 < len(winner_record) - 1
    r = pair.sessions[actor].resignation
    assert r is not None and r.scores == before


def test_an_old_peer_gets_a_quit_and_the_game_is_unfinished() -> None:
    """A peer of the older spec announces nothing (we announce resignation, the
    rest-final rule and early redeal cards): resign() is refused and leaving is
    today's ``quit``; the transcript verifies as unfinished, not as a violation."""
    pair = Pair(deck="v2", tag="resign-old", bots={P0: None, P1: None}, resigns=(True, False))
    actor = _to_first_turn(pair)
    nonces = [decode_envelope(r).payload["nonce"] for r in pair.records[P0][:2]]
    assert [nonce_features(n) for n in nonces] == [7, 0]
    assert nonces[0][24:28] == FEATURE_TAG
    for p in Player:
        assert not pair.sessions[p].resign_agreed and not pair.sessions[p].can_resign
    with pytest.raises(LocalProtocolError, match="does not support"):
        pair.sessions[P0].resign()
    with pytest.raises(LocalProtocolError):
        pair.sessions[P0].abort("resign")
    pair.collect(actor, pair.sessions[actor].abort("quit", "bye"))
    _settle(pair)
    events = [e for e in pair.events[actor.other] if isinstance(e, PeerAborted)]
    assert len(events) == 1 and type(events[0]) is PeerAborted and events[0].reason == "quit"
    report = verify_transcript(pair.records[actor.other])
    assert not report.valid and report.status == "unfinished" and report.resigned_by is None
    assert report.headline().startswith(f"Unfinished: {pair.names[actor]} ended the game")


def test_no_resignation_before_the_coin_or_once_the_game_is_decided() -> None:
    pair = Pair(deck="v1", tag="resign-when", ruleset=Ruleset(target=1), bots={P0: None, P1: None})
    assert not pair.sessions[P0].can_resign  # only our hello is out
    pair.bots[P0] = pair.bots[P1] = bot("random", 5)
    pair.run(until=is_type("reveal"))  # the game is decided: the audit is due
    for p in Player:
        session = pair.sessions[p]
        assert session.resign_agreed and not session.can_resign
        with pytest.raises(LocalProtocolError, match="cannot resign"):
            session.resign()


def test_a_resignation_once_the_game_is_decided_is_rejected() -> None:
    """A forged resign where a reveal is due: unexpected-message, for the receiver and
    the verifier (it would have been a refused audit)."""
    pair = Pair(deck="v1", tag="resign-late", ruleset=Ruleset(target=1))
    sender, _ = pair.run(until=is_type("reveal"))
    forged = pair.forge_next(sender.other, "abort", {"reason": "resign", "detail": ""})
    pair.inject(sender.other, forged)
    caught = expect_remote(pair, sender, UnexpectedMessageError, offending=forged)
    assert caught.report.status == "violation" and caught.report.error_code == "unexpected-message"
    assert caught.report.culprit == int(sender.other)


def test_an_unnegotiated_resignation_is_malformed() -> None:
    """With an old peer a resign is what the older spec says: malformed."""
    pair = Pair(deck="v2", tag="resign-unneg", resigns=(False, True), bots={P0: None, P1: None})
    actor = _to_first_turn(pair)
    forged = pair.forge_next(actor.other, "abort", {"reason": "resign", "detail": ""})
    pair.inject(actor.other, forged)
    caught = expect_remote(pair, actor, MalformedMessageError, offending=forged)
    assert "not announced" in str(caught.error)
    assert caught.report.status == "violation" and caught.report.resigned_by is None


@pytest.mark.parametrize("tamper", ["signature", "wrong-player", "detail"])
def test_a_tampered_resignation_is_rejected(tamper: str) -> None:
    """The resignation is the loser's signature: the winner cannot forge or alter it."""
    pair = Pair(deck="v2", tag=f"resign-tamper/{tamper}", bots={P0: None, P1: None})
    actor = _to_first_turn(pair)
    loser, winner = actor, actor.other
    [raw] = pair.collect(loser, pair.sessions[loser].resign("gg"))
    if tamper == "signature":
        forged = raw[:-1] + bytes([raw[-1] ^ 1])
    elif tamper == "wrong-player":  # the winner signs a resignation in the loser's name
        forged = resign(pair.keys[winner], raw)
    else:  # the detail changed after signing
        forged = raw.replace(b"gg", b"GG")
    pair.deliver(loser, forged)
    with pytest.raises(BadSignatureError):
        drain(pair.sessions[winner])
    assert pair.sessions[winner].resignation is None
    report = verify_transcript(pair.records[winner])
    assert report.status == "violation" and report.error_code == "bad-signature"
    assert report.resigned_by is None and report.culprit is None
    summary = report.summary()
    assert "every shuffle, key and card proven" not in summary
    assert "proven up to message 4; message 5 is where it failed" in summary


def test_a_resignation_is_final_for_the_resigner() -> None:
    pair = Pair(deck="v2", tag="resign-final", bots={P0: None, P1: None})
    actor = _to_first_turn(pair)
    session = pair.sessions[actor]
    session.resign()
    assert session.finished and not session.can_resign and not session.resumable
    assert session.resign_agreed
    with pytest.raises(LocalProtocolError):
        session.resign()
    assert session.abort("quit") == b""


def test_a_quit_stays_a_quit_with_resignation_agreed() -> None:
    """The older reasons are unchanged when resignation is agreed: a quit (e.g. from
    a program that calls ``abort`` itself) is an unfinished game, not a resignation."""
    pair = Pair(deck="v2", tag="resign-quit", bots={P0: None, P1: None})
    actor = _to_first_turn(pair)
    pair.collect(actor, pair.sessions[actor].abort("quit"))
    _settle(pair)
    assert pair.sessions[actor.other].resignation is None
    report = verify_transcript(pair.records[actor.other])
    assert report.status == "unfinished" and report.abort_reason == "quit"
    assert report.resigned_by is None and not report.valid


@pytest.mark.parametrize("seed", range(16))
def test_resigning_anywhere_gives_both_sides_the_same_result(seed: int) -> None:
    """A random player resigns at a random point of a random game (any deal), while
    the other may still send a few messages that cross it: both sessions hold the
    same resignation and both transcripts verify to it (hand, and score in v2)."""
    rng = random.Random(seed)
    deck, pipeline = rng.choice(DEALS)
    pair = Pair(
        deck=deck,
        pipeline=pipeline,
        ruleset=Ruleset(target=3),
        tag=f"resign-anywhere/{seed}",
        bots={P0: bot("random", seed), P1: bot("random", seed + 1)},
    )
    ticks, stop_at = [0], rng.randrange(2, 14)

    def reached() -> bool:
        ticks[0] += 1
        return ticks[0] >= stop_at

    try:
        pair.run(when=reached)
    except AssertionError:  # the game ended first: nothing to resign
        assert pair.closed == {P0, P1}
        return
    resigner = rng.choice(list(Player))
    if not pair.sessions[resigner].can_resign:  # the game is decided: nothing to test
        return
    pair.collect(resigner, pair.sessions[resigner].resign())
    for _ in range(rng.randrange(4)):  # the other side goes on: its messages cross
        pair.pull(resigner.other)
        if pair.inflight[resigner.other]:
            pair.deliver(resigner.other)
    _settle(pair)
    _check_both(pair, resigner)


@pytest.mark.parametrize(("deck", "pipeline"), DEALS, ids=DEAL_IDS)
def test_a_resignation_lost_in_a_cut_leaves_two_true_records(
    deck: str, pipeline: bool | None
) -> None:
    """wire.md 8.1: a ``resign`` the cut swallowed is never redelivered (the resigner
    cannot resume); the opponent records ``abandoned``.  The resigner's transcript is
    complete, the opponent's unfinished; the ``resign`` in place of the ``abandoned``
    completes the opponent's, appended after it is a second ending."""
    pair = Pair(deck=deck, pipeline=pipeline, tag=f"resign-cut/{deck}", bots={P0: None, P1: None})
    _to_first_turn(pair)
    resigner, other = P1, P0
    [raw] = pair.collect(resigner, pair.sessions[resigner].resign("bye"))
    pair.inflight[resigner].clear()  # the connection drops with it
    assert not pair.sessions[resigner].resumable
    with pytest.raises(LocalProtocolError):
        pair.sessions[resigner].reconnect(bytes(16), dialer=True)
    pair.sessions[other].abort("abandoned")  # its grace period ran out
    mine, theirs = pair.records[resigner], pair.records[other]
    complete = verify_transcript(mine)
    assert (complete.status, complete.resigned_by, complete.winner) == ("complete", 1, 0)
    abandoned = verify_transcript(theirs)
    assert (abandoned.status, abandoned.abort_reason, abandoned.winner) == (
        "unfinished",
        "abandoned",
        None,
    )
    in_place = verify_transcript([*theirs[:-1], raw])
    assert (in_place.status, in_place.resigned_by) == ("complete", 1), in_place.summary()
    after = verify_transcript([*theirs, raw])
    assert (after.status, after.error_code) == ("violation", "unexpected-message")
    assert "second ending" in (after.error or "")
