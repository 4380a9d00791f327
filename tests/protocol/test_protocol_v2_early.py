"""Early cards (wire.md section 6a): the dealer sees its hand while the non-dealer thinks.

With ``"early": true`` in both hellos the non-dealer, handed the first turn of
a hand, sends its ``v2deck3`` with its shares only (``Session.work()`` makes
it, as the game loop calls it when the turn begins); its first action then
follows as a ``v2action`` (stage ``v2first``).  These tests drive two
sessions back to back in which the non-dealer *thinks* and check, for every
hand of a game, classic and pipelined deal, that the dealer's
:class:`CardsDealt` comes before the non-dealer's first action; that a cheat
in the new order is caught at its message; that a peer pinned to today's
options (no ``early``) plays with the program in either seat and both
transcripts verify; and that the option is negotiated down.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers.matrix import fast_first
from helpers.protocol import (
    P0,
    P1,
    PLAYER,
    Pair,
    deliver_and_expect,
    expect_remote,
    is_type,
    with_payload,
)

from truc_p2p.protocol import (
    CardsDealt,
    CheatDetectedError,
    MalformedMessageError,
    OutOfTurnError,
    RulesetMismatchError,
    Session,
    SessionOptions,
    Stage,
    UnexpectedMessageError,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.rules import Player, Ruleset

DEALS = pytest.mark.parametrize("pipeline", [False, True], ids=["classic", "pipelined"])


def early_pair(tag: str, pipeline: bool, first_dealer: Player, **kw: Any) -> Pair:
    """Two deck v2 sessions with early cards; both think and leave their turns pending."""
    kw.setdefault("bots", {P0: None, P1: None})
    kw.setdefault("think", frozenset(Player))
    return Pair(
        ruleset=kw.pop("ruleset", Ruleset(target=6)),
        tag=tag,
        first_dealer=first_dealer,
        deck="v2",
        pipeline=pipeline,
        **kw,
    )


def is_early_d3(raw: bytes) -> bool:
    env = decode_envelope(raw)
    return env.type == "v2deck3" and "action" not in env.payload


def dealt(pair: Pair, p: Player, round_no: int) -> bool:
    """Whether p's first (not redeal) cards of round ``round_no`` have come."""
    return any(
        isinstance(e, CardsDealt) and e.round_no == round_no and not e.redeal
        for e in pair.events[p]
    )


def play_thinking(pair: Pair) -> list[int]:
    """Play the game to its end; at the first turn of every hand the non-dealer
    thinks and does not act until everything in flight has been delivered.
    Returns, per hand, how many envelopes the dealer had received when its cards
    came (checked to be before the non-dealer's first action)."""
    bot = PLAYER
    checked: list[int] = []
    while len(pair.closed) < 2:
        pair.run(when=lambda: any(pair.waiting[p] for p in Player) or len(pair.closed) == 2)
        for p in Player:
            if pair.waiting[p] is None:
                continue
            session = pair.sessions[p]
            if session.stage is Stage.V2_FIRST:
                # p thought (work()) and sent its shares only; it has not acted yet.
                game = session.game
                dealer = game.dealer
                assert dealer == p.other
                pair.run(when=lambda: not pair.inflight[P0] and not pair.inflight[P1])
                assert pair.waiting[p] is not None, "the non-dealer has not acted"
                assert dealt(pair, dealer, game.round_no), "the dealer has no cards yet"
                checked.append(len(pair.records[dealer]))
            pair.act(p, bot.choose(session.game))
    return checked


@DEALS
def test_the_dealer_holds_its_cards_before_the_nondealer_acts_in_every_hand(
    first_dealer: Player, pipeline: bool
) -> None:
    pair = early_pair("early-think", pipeline, first_dealer)
    checked = play_thinking(pair)
    result = pair.sessions[P0].result
    assert result is not None and result == pair.sessions[P1].result
    assert len(checked) == result.hands >= 2
    assert pair.records[P0] == pair.records[P1]
    for p in Player:
        report = verify_transcript(pair.records[p])
        assert report.valid, report.summary()
    envs = [decode_envelope(raw) for raw in pair.records[P0]]
    before = [
        envs[i - 1].type + ("+open" if "open" in envs[i - 1].payload else "")
        for i, env in enumerate(envs)
        if is_early_d3(env.raw)
    ]
    assert len(before) == result.hands
    # every way a hand opens is followed by the shares-only v2deck3
    opens = {"v2deck2", "v2open", "v2action+open"} if pipeline else {"v2deck2"}
    assert set(before) == opens
    hello = decode_envelope(pair.records[P0][1]).payload["options"]
    assert hello.get("early") is True


@DEALS
def test_a_bot_that_answers_at_once_still_sends_its_action_on_v2deck3(
    first_dealer: Player, pipeline: bool
) -> None:
    """Early cards on, nobody thinks: every v2deck3 carries the first action, as before."""
    bots = {P0: PLAYER, P1: PLAYER}
    pair = early_pair("early-quick", pipeline, first_dealer, bots=bots, think=frozenset())
    pair.finish()
    assert pair.sessions[P0].early and pair.sessions[P1].early
    d3 = [decode_envelope(r) for r in pair.records[P0] if decode_envelope(r).type == "v2deck3"]
    assert d3 and all("action" in e.payload for e in d3)
    assert verify_transcript(pair.records[P1]).valid


@DEALS
def test_work_makes_the_shares_only_v2deck3_once_and_send_rides_on_it_otherwise(
    first_dealer: Player, pipeline: bool
) -> None:
    pair = early_pair("early-work", pipeline, first_dealer, think=frozenset())
    nondealer = first_dealer.other
    pair.run_to_turn(nondealer)
    session = pair.sessions[nondealer]
    assert session.stage is Stage.V2_DECK3
    assert session.work() is True
    (made,) = pair.collect(nondealer)
    env = decode_envelope(made)
    assert env.type == "v2deck3" and "action" not in env.payload
    assert list(env.payload) == (["hand", "shares"] if pipeline else ["shares"])
    assert session.stage is Stage.V2_FIRST
    assert session.work() is False and session.data_to_send() == b""
    (action,) = pair.act(nondealer, PLAYER.choose(session.game))
    assert decode_envelope(action).type == "v2action"
    assert decode_envelope(action).seq == env.seq + 1


# -- cheats and faults in the new order ----------------------------------------------


def test_a_shares_only_v2deck3_without_the_option_is_malformed(first_dealer: Player) -> None:
    pair = Pair(
        ruleset=Ruleset(target=1),
        tag="early-off",
        first_dealer=first_dealer,
        bots={P0: PLAYER, P1: PLAYER},
        deck="v2",
        early=False,
    )
    cheater, raw = pair.run(until=is_type("v2deck3"))
    forged = with_payload(raw, pair.keys[cheater], lambda p: p.pop("action"))
    caught = deliver_and_expect(pair, cheater, forged, MalformedMessageError)
    assert caught.report.error_code == "malformed"
    assert caught.report.error_message_no == caught.index


@DEALS
def test_a_bad_share_proof_in_a_shares_only_v2deck3_is_caught_there(
    first_dealer: Player, pipeline: bool
) -> None:
    pair = early_pair("early-cheat", pipeline, first_dealer, bots={P0: PLAYER, P1: PLAYER})
    cheater, raw = pair.run(until=lambda _s, r: is_early_d3(r))

    def forge(p: dict[str, Any]) -> None:
        share = bytearray(p["shares"][0])
        share[64] ^= 0x01
        p["shares"][0] = bytes(share)

    forged = with_payload(raw, pair.keys[cheater], forge)
    caught = deliver_and_expect(pair, cheater, forged, CheatDetectedError)
    assert isinstance(caught.error, CheatDetectedError)
    assert caught.error.step == "D3" and caught.error.position == 1
    assert caught.report.error_code == "cheat"
    assert caught.report.error_message_no == caught.index
    # the dealer got no cards from it
    assert not any(isinstance(e, CardsDealt) for e in pair.events[cheater.other][-1:])


def _early_d3_delivered(tag: str, pipeline: bool, first_dealer: Player) -> tuple[Pair, Player]:
    """A pair in which the non-dealer thought at its first turn: its shares-only
    v2deck3 is delivered and taken by the dealer, its action not sent."""
    pair = early_pair(tag, pipeline, first_dealer)
    nondealer = first_dealer.other
    pair.run_to_turn(nondealer)
    (raw,) = pair.inflight[nondealer]
    assert is_early_d3(raw)
    pair.deliver(nondealer)
    pair.pull(nondealer.other)
    assert pair.sessions[nondealer.other].stage is Stage.V2_FIRST
    assert dealt(pair, nondealer.other, 0)
    return pair, nondealer


@DEALS
def test_after_a_shares_only_v2deck3_the_dealer_may_not_act(
    first_dealer: Player, pipeline: bool
) -> None:
    pair, nondealer = _early_d3_delivered("early-order", pipeline, first_dealer)
    forged = pair.forge_next(nondealer.other, "v2action", {"act": "fold"})
    pair.inject(nondealer.other, forged)
    caught = expect_remote(pair, nondealer, OutOfTurnError, offending=forged)
    assert caught.report.error_code == "out-of-turn"
    assert caught.report.error_message_no == caught.index


@DEALS
def test_after_a_shares_only_v2deck3_only_a_v2action_may_follow(
    first_dealer: Player, pipeline: bool
) -> None:
    pair, nondealer = _early_d3_delivered("early-twice", pipeline, first_dealer)
    d3 = decode_envelope(pair.records[nondealer][-1]).payload
    forged = pair.forge_next(nondealer, "v2deck3", {**d3, "action": {"act": "fold"}})
    pair.inject(nondealer, forged)
    caught = expect_remote(pair, nondealer.other, UnexpectedMessageError, offending=forged)
    assert caught.report.error_code == "unexpected-message"
    assert caught.report.error_message_no == caught.index


# -- old peers: the option off, negotiated down ----------------------------------------


@DEALS
@pytest.mark.parametrize("old", fast_first(Player, ids=lambda p: f"old-{p.name}"))
def test_a_peer_pinned_to_todays_options_plays_with_the_program(
    first_dealer: Player, pipeline: bool, old: Player
) -> None:
    """Issue 22 point 7: ``old`` proposes no early cards (today's options); the other
    proposes them.  The game runs with early cards off, nothing in it differs from
    today's protocol, and both transcripts verify."""
    earlies: tuple[bool, bool] = (old is not P0, old is not P1)
    pair = early_pair(
        "early-old", pipeline, first_dealer, earlies=earlies, bots={P0: PLAYER, P1: PLAYER}
    )
    pair.finish()
    assert not pair.sessions[P0].early and not pair.sessions[P1].early
    hellos = [decode_envelope(pair.records[P0][i]).payload["options"] for i in (0, 1)]
    expected = {"audit": "game", "deck": "v2", **({"pipeline": True} if pipeline else {})}
    assert hellos[1] == expected  # the responder never answers with early cards off
    assert hellos[0] == (expected | {"early": True} if old is P1 else expected)
    assert not any(is_early_d3(r) for r in pair.records[P0])
    assert pair.sessions[P0].result is not None
    for p in Player:
        report = verify_transcript(pair.records[p])
        assert report.valid, report.summary()


def test_a_responder_may_not_turn_early_cards_on_unasked() -> None:
    pair = Pair(tag="early-unasked", deck="v2", earlies=(False, True), bots={P0: None, P1: None})
    hello = pair.inflight[P0][0]
    pair.deliver(P0)
    pair.pull(P1)
    answer = pair.inflight[P1][0]
    assert "early" not in decode_envelope(answer).payload["options"]
    # a responder that adds it anyway is refused as incompatible
    options = dict(decode_envelope(answer).payload["options"], early=True)
    forged = with_payload(answer, pair.keys[P1], lambda p: p.update(options=options))
    caught = deliver_and_expect(pair, P1, forged, RulesetMismatchError)
    assert caught.report.error_code == "ruleset-mismatch"
    assert decode_envelope(hello).payload["options"] == {"audit": "game", "deck": "v2"} | (
        {"pipeline": True} if pair.sessions[P0].pipeline else {}
    )


def test_early_false_spelled_out_is_malformed() -> None:
    pair = Pair(tag="early-false", deck="v2", bots={P0: None, P1: None})
    hello = pair.inflight[P0][0]
    options = dict(decode_envelope(hello).payload["options"], early=False)
    forged = with_payload(hello, pair.keys[P0], lambda p: p.update(options=options))
    pair.deliver(P0, forged)
    with pytest.raises(MalformedMessageError):
        pair.pull(P1)
    assert not verify_transcript([forged]).valid


def test_early_cards_are_on_by_default_and_need_deck_v2() -> None:
    from truc_p2p.protocol import LocalProtocolError

    pair = Pair(tag="early-default", deck="v2", bots={P0: PLAYER, P1: PLAYER})
    assert pair.sessions[P0].early
    hello = decode_envelope(pair.inflight[P0][0]).payload
    assert hello["options"]["early"] is True
    assert list(hello["options"])[-1] == "early"  # canonical key order: last
    v1 = Pair(tag="early-v1", deck="v1", bots={P0: PLAYER, P1: PLAYER})
    assert not v1.sessions[P0].early
    with pytest.raises(LocalProtocolError):
        Session(
            identity=pair.keys[P0],
            role=P0,
            secret=bytes(32),
            options=SessionOptions(deck="v1", early=True),
        )


@DEALS
def test_a_game_with_early_cards_restores_byte_for_byte(
    first_dealer: Player, pipeline: bool
) -> None:
    """Crash restore (wire.md 13.3) regenerates a shares-only v2deck3 too."""
    pair = early_pair("early-restore", pipeline, first_dealer)
    play_thinking(pair)
    for p in Player:
        assert any(is_early_d3(r) and decode_envelope(r).sender == p for r in pair.records[p])
        restored = Session.restore(
            pair.records[p],
            identity=pair.keys[p],
            role=p,
            secret=pair.secrets[p] if pair.secrets else b"",
        )
        assert restored.early and restored.stage is Stage.DONE
