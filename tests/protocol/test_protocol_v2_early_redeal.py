"""Early redeal cards (wire.md section 6a, feature bit 2): after an accepted redeal the
dealer sees its new cards while the non-dealer thinks.

Without the feature the non-dealer's shares for the dealer's redeal positions
7, 9, 11 ride on its next action, so the dealer looks at no hand until the
non-dealer has decided.  With it (both hello nonces announce bit 2) they follow
the ``accept-redeal`` at once in a ``v2redeal`` (stage ``v2redeal``) and the
next action carries none.  These tests check, classic and pipelined deal, that
both players hold their redealt cards before the non-dealer's next decision
(and that without the feature the dealer does not); that the receiver and the
verifier accept exactly the form the hellos agree and catch a cheat in the new
message there; that a peer without the feature plays with the program in either
seat; and that a game with ``v2redeal`` restores byte for byte.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers.matrix import fast_first
from helpers.protocol import (
    P0,
    P1,
    REDEALER,
    Pair,
    deliver_and_expect,
    is_action,
    with_payload,
)

from truc_p2p.protocol import (
    CardsDealt,
    CheatDetectedError,
    MalformedMessageError,
    Session,
    Stage,
    UnexpectedMessageError,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.protocol._values import FEATURE_EARLY_REDEAL, nonce_features
from truc_p2p.protocol._wire import envelope_hash
from truc_p2p.rules import Player, Ruleset

DEALS = pytest.mark.parametrize("pipeline", [False, True], ids=["classic", "pipelined"])
RULESET = Ruleset(target=6)


def redeal_pair(tag: str, pipeline: bool, first_dealer: Player, **kw: Any) -> Pair:
    """Two deck v2 sessions that redeal every hand; both think and leave their turns
    pending (the test acts for them with :data:`REDEALER`)."""
    kw.setdefault("bots", {P0: None, P1: None})
    kw.setdefault("think", frozenset(Player))
    return Pair(
        ruleset=RULESET, tag=tag, first_dealer=first_dealer, deck="v2", pipeline=pipeline, **kw
    )


def redealt(pair: Pair, p: Player, round_no: int) -> bool:
    """Whether p's redealt cards of round ``round_no`` have come."""
    return any(
        isinstance(e, CardsDealt) and e.round_no == round_no and e.redeal for e in pair.events[p]
    )


def play_redeals(pair: Pair) -> dict[int, bool]:
    """Play the game to its end with :data:`REDEALER` (every hand redealt).  At the
    non-dealer's first decision after each accepted redeal it thinks: everything in
    flight is delivered before it acts.  Returns, per round, whether the dealer held
    its redealt cards then (the non-dealer always does: they rode on the accept)."""
    seen: dict[int, bool] = {}
    while len(pair.closed) < 2:
        pair.run(when=lambda: any(pair.waiting[p] for p in Player) or len(pair.closed) == 2)
        for p in Player:
            if pair.waiting[p] is None:
                continue
            game = pair.sessions[p].game
            if game.redealt and game.dealer != p and game.round_no not in seen:
                assert not game.table and game.trick_no == 0
                pair.run(when=lambda: not pair.inflight[P0] and not pair.inflight[P1])
                assert pair.waiting[p] is not None, "the non-dealer has not decided yet"
                assert redealt(pair, p, game.round_no)
                seen[game.round_no] = redealt(pair, game.dealer, game.round_no)
            pair.act(p, REDEALER.choose(pair.sessions[p].game))
    return seen


def envelopes(records: list[bytes]) -> list[Any]:
    return [decode_envelope(raw) for raw in records]


@DEALS
def test_both_players_hold_their_redealt_cards_before_the_nondealer_decides(
    first_dealer: Player, pipeline: bool
) -> None:
    pair = redeal_pair("early-redeal", pipeline, first_dealer)
    seen = play_redeals(pair)
    result = pair.sessions[P0].result
    assert result is not None and result == pair.sessions[P1].result
    assert len(seen) == result.hands >= 2 and all(seen.values()), seen
    assert pair.records[P0] == pair.records[P1]
    for p in Player:
        report = verify_transcript(pair.records[p])
        assert report.valid, report.summary()
        assert pair.sessions[p].early_redeal
    envs = envelopes(pair.records[P0])
    for hello in envs[:2]:
        assert nonce_features(hello.payload["nonce"]) & FEATURE_EARLY_REDEAL
    accepts = [i for i, e in enumerate(envs) if e.payload.get("act") == "accept-redeal"]
    assert len(accepts) == result.hands
    for i in accepts:
        answer = envs[i + 1]
        assert answer.type == "v2redeal" and answer.sender != envs[i].sender
        assert list(answer.payload) == ["shares"]
    # no action of the non-dealer carries redeal shares any more
    assert not [
        e
        for e in envs
        if e.type == "v2action"
        and e.payload.get("act") != "accept-redeal"
        and "shares" in e.payload
    ]


@DEALS
def test_without_the_feature_the_dealer_waits_for_the_decision(
    first_dealer: Player, pipeline: bool
) -> None:
    """The same game with the feature off: the check above fails (today's protocol)."""
    pair = redeal_pair("early-redeal-off", pipeline, first_dealer, early_redeals=(False, False))
    seen = play_redeals(pair)
    assert seen and not any(seen.values()), seen
    assert "v2redeal" not in [e.type for e in envelopes(pair.records[P0])]
    assert verify_transcript(pair.records[P1]).valid


@DEALS
def test_a_bot_that_answers_at_once_gets_the_same_chain(
    first_dealer: Player, pipeline: bool
) -> None:
    """``v2redeal`` is automatic, not the player's choice: a bot that decides at once
    sends it first too, and both transcripts verify."""
    bots = {P0: REDEALER, P1: REDEALER}
    pair = redeal_pair("early-redeal-quick", pipeline, first_dealer, bots=bots, think=frozenset())
    pair.finish()
    types = [e.type for e in envelopes(pair.records[P0])]
    assert types.count("v2redeal") == pair.sessions[P0].hands_dealt
    for p in Player:
        assert verify_transcript(pair.records[p]).valid


# -- the receiver and the verifier accept exactly the agreed form ---------------------


def _at_accept(tag: str, pipeline: bool, first_dealer: Player, **kw: Any) -> tuple[Pair, Player]:
    """A pair stopped right after the non-dealer applied the first accept-redeal: what
    it sent in answer is in flight, undelivered, and its decision is pending."""
    nondealer = first_dealer.other
    bots: dict[Player, Any] = {nondealer: None, nondealer.other: REDEALER}
    pair = redeal_pair(tag, pipeline, first_dealer, bots=bots, think=frozenset(), **kw)
    pair.run_to_turn(nondealer)
    pair.act(nondealer, REDEALER.choose(pair.sessions[nondealer].game))  # asks for a redeal
    pair.run(until=is_action(nondealer.other, "accept-redeal"))
    pair.deliver(nondealer.other)
    pair.pull(nondealer)
    assert pair.waiting[nondealer] is not None
    return pair, nondealer


def _deliver_all(pair: Pair, sender: Player) -> None:
    while pair.inflight[sender]:
        pair.deliver(sender)
    pair.pull(sender.other)


@DEALS
def test_the_action_in_place_of_v2redeal_is_unexpected(
    first_dealer: Player, pipeline: bool
) -> None:
    """With the feature agreed the non-dealer's next action may not carry the shares
    instead: the receiver and the verifier both reject it at that message."""
    pair, nondealer = _at_accept("early-redeal-skip", pipeline, first_dealer)
    raw = pair.inflight[nondealer][0]
    assert decode_envelope(raw).type == "v2redeal"
    shares = decode_envelope(raw).payload["shares"]
    forged = pair.forge_next(nondealer, "v2action", {"act": "fold", "shares": shares})
    caught = deliver_and_expect(pair, nondealer, forged, UnexpectedMessageError)
    assert caught.report.error_code == "unexpected-message"
    assert caught.report.error_message_no == caught.index


@DEALS
def test_redeal_shares_again_on_the_next_action_are_malformed(
    first_dealer: Player, pipeline: bool
) -> None:
    pair, nondealer = _at_accept("early-redeal-twice", pipeline, first_dealer)
    shares = decode_envelope(pair.inflight[nondealer][0]).payload["shares"]
    _deliver_all(pair, nondealer)
    assert pair.sessions[nondealer.other].stage is Stage.V2_PLAY
    (raw,) = pair.act(nondealer, REDEALER.choose(pair.sessions[nondealer].game))
    assert "shares" not in decode_envelope(raw).payload
    forged = with_payload(raw, pair.keys[nondealer], lambda p: p.update(shares=shares))
    caught = deliver_and_expect(pair, nondealer, forged, MalformedMessageError)
    assert caught.report.error_code == "malformed"
    assert caught.report.error_message_no == caught.index


@DEALS
def test_a_v2redeal_without_the_feature_is_unexpected(first_dealer: Player, pipeline: bool) -> None:
    """Only one side announces the bit: the shares ride on the action as before, and a
    v2redeal in their place is refused by the receiver and the verifier."""
    pair, nondealer = _at_accept(
        "early-redeal-unagreed", pipeline, first_dealer, early_redeals=(True, False)
    )
    assert not pair.sessions[P0].early_redeal and not pair.sessions[P1].early_redeal
    assert "v2redeal" not in [decode_envelope(r).type for r in pair.inflight[nondealer]]
    _deliver_all(pair, nondealer)  # a pre-deal message it owed, if any
    (action,) = pair.act(nondealer, REDEALER.choose(pair.sessions[nondealer].game))
    shares = decode_envelope(action).payload["shares"]  # they ride on the action
    forged = pair.forge_next(nondealer, "v2redeal", {"shares": shares})
    caught = deliver_and_expect(pair, nondealer, forged, UnexpectedMessageError)
    assert caught.report.error_code == "unexpected-message"
    assert caught.report.error_message_no == caught.index


@DEALS
def test_a_bad_share_proof_in_v2redeal_is_caught_there(
    first_dealer: Player, pipeline: bool
) -> None:
    pair, nondealer = _at_accept("early-redeal-cheat", pipeline, first_dealer)
    raw = pair.inflight[nondealer][0]

    def forge(p: dict[str, Any]) -> None:
        share = bytearray(p["shares"][1])
        share[64] ^= 0x01
        p["shares"][1] = bytes(share)

    forged = with_payload(raw, pair.keys[nondealer], forge)
    caught = deliver_and_expect(pair, nondealer, forged, CheatDetectedError)
    assert isinstance(caught.error, CheatDetectedError)
    assert caught.error.step == "redeal"
    assert caught.report.error_code == "cheat"
    assert caught.report.error_message_no == caught.index
    assert not redealt(pair, nondealer.other, 0)  # the dealer got no cards from it


@DEALS
def test_the_dealer_may_not_send_where_the_v2redeal_is_due(
    first_dealer: Player, pipeline: bool
) -> None:
    """A transcript in which the dealer's message follows its own accept-redeal: the
    verifier names it out of turn (stage ``v2redeal``); the dealer's session is in
    that stage until the v2redeal comes, and may not act."""
    pair, nondealer = _at_accept("early-redeal-order", pipeline, first_dealer)
    dealer = nondealer.other
    assert pair.sessions[dealer].stage is Stage.V2_REDEAL
    assert pair.sessions[nondealer].stage is Stage.V2_PLAY  # it made its v2redeal
    forged = pair.forge_next(
        nondealer.other,
        "v2action",
        {"act": "fold"},
        seq=len(pair.records[dealer]),
        prev=envelope_hash(pair.records[dealer][-1]),
    )
    report = verify_transcript([*pair.records[dealer], forged])
    assert report.error_code == "out-of-turn"
    assert report.error_message_no == len(pair.records[dealer])
    _deliver_all(pair, nondealer)
    assert redealt(pair, dealer, 0) and pair.sessions[dealer].stage is Stage.V2_PLAY


# -- a peer without the feature --------------------------------------------------------


@DEALS
@pytest.mark.parametrize("old", fast_first(Player, ids=lambda p: f"old-{p.name}"))
def test_a_peer_without_the_feature_plays_to_the_end(
    first_dealer: Player, pipeline: bool, old: Player
) -> None:
    """``old`` announces no bit 2 (today's program with the feature off): the other's
    bit is ignored, the game runs in today's protocol to its co-signed result, the
    shares ride on the action, and both transcripts verify."""
    announce = (old is not P0, old is not P1)
    pair = redeal_pair(
        "early-redeal-old",
        pipeline,
        first_dealer,
        early_redeals=announce,
        bots={P0: REDEALER, P1: REDEALER},
        think=frozenset(),
    )
    pair.finish()
    assert pair.sessions[P0].result is not None
    assert pair.sessions[P0].result == pair.sessions[P1].result
    envs = envelopes(pair.records[P0])
    features = [nonce_features(envs[i].payload["nonce"]) & FEATURE_EARLY_REDEAL for i in (0, 1)]
    assert [bool(f) for f in features] == list(announce)
    assert "v2redeal" not in [e.type for e in envs]
    actions = [e.payload for e in envs if e.type == "v2action"]
    accepts = [a for a in actions if a["act"] == "accept-redeal"]
    riding = [a for a in actions if a["act"] != "accept-redeal" and "shares" in a]
    assert len(riding) == len(accepts) >= 2  # every redeal, as before
    for p in Player:
        report = verify_transcript(pair.records[p])
        assert report.valid, report.summary()


# -- crash restore ----------------------------------------------------------------------


@DEALS
def test_a_game_with_early_redeal_cards_restores_byte_for_byte(
    first_dealer: Player, pipeline: bool
) -> None:
    pair = redeal_pair("early-redeal-restore", pipeline, first_dealer)
    play_redeals(pair)
    for p in Player:
        records = pair.records[p]
        assert any(decode_envelope(r).type == "v2redeal" for r in records)
        restored = Session.restore(
            records,
            identity=pair.keys[p],
            role=p,
            secret=pair.secrets[p] if pair.secrets else b"",
        )
        assert restored.early_redeal and restored.stage is Stage.DONE
        # cut right after an accept-redeal the non-dealer received: it owes the v2redeal
        cut = next(
            i + 1
            for i, r in enumerate(records)
            if decode_envelope(r).payload.get("act") == "accept-redeal"
            and decode_envelope(r).sender != p
        )
        regenerated: list[bytes] = []
        Session.restore(
            records[:cut],
            identity=pair.keys[p],
            role=p,
            secret=pair.secrets[p] if pair.secrets else b"",
            record=regenerated.append,
        )
        assert regenerated and regenerated == records[cut : cut + len(regenerated)]
        assert decode_envelope(records[cut]).type == "v2redeal"


def test_early_redeal_cards_are_announced_by_default() -> None:
    pair = Pair(tag="early-redeal-default", deck="v2", bots={P0: None, P1: None})
    hello = decode_envelope(pair.inflight[P0][0]).payload
    assert nonce_features(hello["nonce"]) & FEATURE_EARLY_REDEAL
    assert "early_redeal" not in hello["options"]  # the nonce, not the options


def test_the_first_v2redeal_is_the_stage_after_the_accept(first_dealer: Player) -> None:
    """The state table: an accept-redeal leads to ``v2redeal`` only when agreed."""
    pair, nondealer = _at_accept("early-redeal-stage", False, first_dealer)
    assert pair.sessions[nondealer.other].stage is Stage.V2_REDEAL
    off, nd = _at_accept("early-redeal-stage-off", False, first_dealer, early_redeals=(False, True))
    assert off.sessions[nd.other].stage is Stage.V2_PLAY
    assert "v2redeal" not in [decode_envelope(r).type for r in off.inflight[nd]]
