"""A malicious peer breaking the game: turns, rules, cards, deck, audit and result.

Each test lets an honest pair play up to a point, then has one side (the
cheater) send something a correct session never sends, correctly signed and
chained so that it reaches the check under test.  The honest side must raise
the right remote error with the offending envelope as evidence and die.

The offline verifier must reject the honest side's transcript.  It pinpoints
the message whenever the transcript holds what is needed to see the fault: the
handshake, every fault of the envelope or payload shape, and anything in a hand
whose two seeds were revealed.  A fault inside a hand that was never audited
(the game stopped before the reveal, so no third party can know the cards) is
reported as that hand never being audited: :func:`check_unaudited`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from helpers.protocol import (
    P0,
    P1,
    PLAYER,
    REDEALER,
    Caught,
    N,
    Pair,
    ScriptedBot,
    deck_secrets,
    deliver_and_expect,
    digest,
    drain,
    expect_remote,
    index_of,
    is_action,
    is_type,
    local_seed,
    mul,
    not_a_point,
    resign,
    scalar,
    with_payload,
)

from truc_p2p.deck import DeckSide, Role, card_encodings, positions
from truc_p2p.deck.legacy_v1._secrets import derive_secrets
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    AuditFailedError,
    AuditPassed,
    AuditRefusedError,
    BadSignatureError,
    ChainError,
    CheatDetectedError,
    IllegalMoveError,
    LocalProtocolError,
    MalformedMessageError,
    OutOfTurnError,
    PeerAborted,
    RemoteProtocolError,
    ResultMismatchError,
    RulesetMismatchError,
    SequenceError,
    Session,
    Stage,
    UnexpectedMessageError,
    decode_envelope,
    frame,
    verify_transcript,
)
from truc_p2p.protocol._wire import GENESIS, envelope_hash, sign_envelope
from truc_p2p.rules import Action, ActionKind, Ladder, Player, RestRefused, Ruleset

ONE_HAND = Ruleset(target=1)
RAISER = ScriptedBot(ActionKind.RAISE, ActionKind.ACCEPT, ActionKind.PLAY)
QUITTER = ScriptedBot(ActionKind.REFUSE, ActionKind.FOLD)


def role_in_first_hand(p: Player, first_dealer: Player) -> Role:
    return Role.DEALER if p is first_dealer else Role.NONDEALER


def check_pinpointed(caught: Caught, codes: set[str], at: int | None = None) -> None:
    """The verifier names the offending message (``at``, default the last one)."""
    report = caught.report
    assert report.error_message_no == (caught.index if at is None else at), report.summary()
    assert report.error_code in codes, report.summary()


def caught_victim(caught: Caught) -> Player:
    """The player who recorded the offending envelope: not its sender."""
    return Player(1 - decode_envelope(caught.error.evidence[0]).sender)


def check_unaudited(caught: Caught, hand: int = 0) -> None:
    """The fault sits in a hand whose seeds were not both revealed.

    The verifier cannot replay that hand; it must still reject the transcript,
    either at the offending message or as an unaudited hand.
    """
    report = caught.report
    assert report.error_message_no in (None, caught.index), report.summary()
    # With the victim's own session secret the verifier replays the unrevealed
    # hand from the victim's view and names the offending message, like the
    # live session did.
    local = caught.local_report
    assert local is not None and local.error_message_no == caught.index, local.summary()
    assert local.local_secret_of == int(caught_victim(caught))
    if report.error_message_no is None:
        # Not evidence of a failed audit: the hand was simply never audited.
        assert report.error_code == "incomplete", report.summary()
        assert f"before hand {hand} was audited" in (report.error or "")
        assert report.audit == "not reached"


def cheater_at_turn(cheater: Player, *, first_dealer: Player, honest: Any = PLAYER) -> Pair:
    """A one-hand game stopped when ``cheater`` (which makes no decision itself) must act."""
    pair = Pair(
        ruleset=ONE_HAND,
        tag="cheats",
        first_dealer=first_dealer,
        bots={cheater: None, cheater.other: honest},
    )
    pair.run_to_turn(cheater)
    return pair


# -- turn order and message types -----------------------------------------------------------


@pytest.mark.parametrize("act", ["fold", "raise", "rest"])
def test_acting_out_of_turn(first_dealer: Player, act: str) -> None:
    """The honest side is to act (a decision is pending) and the cheater acts instead."""
    victim, cheater = P0, P1
    pair = Pair(
        ruleset=ONE_HAND,
        tag="cheats",
        first_dealer=first_dealer,
        bots={victim: None, cheater: PLAYER},
    )
    pair.run_to_turn(victim)
    forged = pair.inject(cheater, pair.forge_next(cheater, "action", {"act": act}))
    caught = expect_remote(pair, victim, OutOfTurnError, offending=forged)
    check_unaudited(caught)


def _valid_payload(pair: Pair, cheater: Player, mtype: str) -> dict[str, Any]:
    """A payload of ``mtype`` that passes the catalogue."""
    if mtype == "hello":
        hello = next(r for r in pair.records[cheater] if decode_envelope(r).sender == cheater)
        return decode_envelope(hello).payload
    return {
        "coin": {"coin": digest("coin")},
        "deck1": {"deck": [digest(f"e{i}") for i in range(32)], "commitment": digest("c")},
        "deck3": {"deck": [digest(f"e{i}") for i in range(32)], "keys": [scalar(5)] * 3},
        "reveal": {"first": 0, "seeds": [digest("seed")]},
        "result": {
            "winner": int(cheater),
            "scores": [1, 0],
            "reason": "target",
            "hands": 1,
            "chain": digest("chain"),
        },
    }[mtype]


@pytest.mark.parametrize("mtype", ["hello", "coin", "deck1", "deck3", "reveal", "result"])
def test_unexpected_message_type_during_play(mtype: str) -> None:
    """At its turn to act, the cheater sends a well-formed message of another stage."""
    cheater = P1
    pair = cheater_at_turn(cheater, first_dealer=cheater)
    payload = _valid_payload(pair, cheater, mtype)
    forged = pair.inject(cheater, pair.forge_next(cheater, mtype, payload))
    caught = expect_remote(pair, cheater.other, UnexpectedMessageError, offending=forged)
    check_unaudited(caught)


def test_first_message_that_is_not_a_hello() -> None:
    pair = Pair(ruleset=ONE_HAND, tag="cheats")
    forged = sign_envelope(
        pair.keys[P0],
        game_id=b"",
        seq=0,
        prev=GENESIS,
        sender=0,
        type="coin",
        payload={"coin": digest("coin")},
    )
    caught = deliver_and_expect(pair, P0, forged, UnexpectedMessageError)
    check_pinpointed(caught, {"unexpected-message"})


def test_responder_answers_the_hello_with_a_coin() -> None:
    pair = Pair(ruleset=ONE_HAND, tag="cheats")
    sender, hello = pair.run(until=is_type("hello", P1))
    forged = resign(pair.keys[P1], hello, type="coin", payload={"coin": digest("coin")})
    caught = deliver_and_expect(pair, sender, forged, UnexpectedMessageError)
    check_pinpointed(caught, {"unexpected-message"})


def test_initiator_deals_instead_of_opening_the_coin() -> None:
    pair = Pair(ruleset=ONE_HAND, tag="cheats")
    sender, coin = pair.run(until=is_type("coin"))
    forged = resign(pair.keys[P0], coin, type="deck1", payload=_valid_payload(pair, P0, "deck1"))
    caught = deliver_and_expect(pair, sender, forged, UnexpectedMessageError)
    check_pinpointed(caught, {"unexpected-message"}, at=2)


def test_coin_that_does_not_open_the_commitment() -> None:
    """The initiator committed to its coin in its hello; opening another one is a cheat."""
    pair = Pair(ruleset=ONE_HAND, tag="cheats")
    sender, coin = pair.run(until=is_type("coin"))
    forged = with_payload(coin, pair.keys[sender], lambda p: p.update(coin=digest("better coin")))
    caught = deliver_and_expect(pair, sender, forged, CheatDetectedError)
    assert caught.error.step == "coin"
    check_pinpointed(caught, {"cheat"}, at=2)


# -- actions the rules forbid -------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        {"act": "accept"},
        {"act": "refuse"},
        {"act": "decline-redeal"},
        {"act": "redeal"},
        {"act": "accept-redeal", "keys": [scalar(3), scalar(5), scalar(7)]},
    ],
    ids=lambda p: p["act"],
)
def test_illegal_action(payload: dict[str, Any]) -> None:
    """The dealer's first turn, after the non-dealer played a card: nothing is pending and
    a redeal can no longer be asked."""
    cheater = P1
    pair = cheater_at_turn(cheater, first_dealer=cheater)
    view = pair.sessions[cheater].game
    assert not view.is_legal(Action(ActionKind(payload["act"])))
    forged = pair.inject(cheater, pair.forge_next(cheater, "action", payload))
    caught = expect_remote(pair, cheater.other, IllegalMoveError, offending=forged)
    check_unaudited(caught)


def test_playing_a_card_while_a_raise_is_pending() -> None:
    """The card itself is genuine (held, right key); the rules forbid playing it now."""
    cheater = P1
    pair = cheater_at_turn(cheater, first_dealer=cheater, honest=RAISER)
    view = pair.sessions[cheater].game
    assert view.pending is ActionKind.RAISE
    pos = positions(Role.DEALER)[0]
    key = scalar(deck_secrets(pair, cheater, Role.DEALER).card_keys[pos])
    payload = {"act": "play", "pos": pos, "key": key}
    forged = pair.inject(cheater, pair.forge_next(cheater, "action", payload))
    caught = expect_remote(pair, cheater.other, IllegalMoveError, offending=forged)
    check_unaudited(caught)


def test_illegal_first_action_riding_on_deck4() -> None:
    cheater = P1  # the non-dealer: its first action rides on deck4
    pair = Pair(ruleset=ONE_HAND, tag="cheats", first_dealer=P0, bots={P0: PLAYER, P1: PLAYER})
    sender, deck4 = pair.run(until=is_type("deck4"))
    assert sender is cheater
    forged = with_payload(deck4, pair.keys[cheater], lambda p: p.update(action={"act": "accept"}))
    caught = deliver_and_expect(pair, cheater, forged, IllegalMoveError)
    check_unaudited(caught)


# -- cards: positions and keys -------------------------------------------------------------------

#: name -> (payload maker (dealer's own secrets -> payload), error, step, position)
CARD_ATTACKS: dict[str, tuple[Callable[[Any], dict[str, Any]], type[RemoteProtocolError], int]] = {
    "peer-position": (
        lambda s: {"act": "play", "pos": 0, "key": scalar(s.card_keys[0])},
        CheatDetectedError,
        0,
    ),
    "key-of-another-position": (
        lambda s: {"act": "play", "pos": 1, "key": scalar(s.card_keys[3])},
        CheatDetectedError,
        1,
    ),
    "zero-key": (lambda s: {"act": "play", "pos": 1, "key": bytes(32)}, CheatDetectedError, 1),
    "key-equal-to-order": (
        lambda s: {"act": "play", "pos": 1, "key": N.to_bytes(32, "big")},
        CheatDetectedError,
        1,
    ),
    "redeal-position-without-redeal": (
        lambda s: {"act": "play", "pos": 7, "key": scalar(s.card_keys[7])},
        CheatDetectedError,
        7,
    ),
}


@pytest.mark.parametrize("attack", list(CARD_ATTACKS))
def test_playing_a_card_not_held(attack: str) -> None:
    """The dealer (positions 1, 3, 5) plays a position it does not hold or a bad key."""
    cheater = P1
    pair = cheater_at_turn(cheater, first_dealer=cheater)
    make, cls, position = CARD_ATTACKS[attack]
    payload = make(deck_secrets(pair, cheater, Role.DEALER))
    forged = pair.inject(cheater, pair.forge_next(cheater, "action", payload))
    caught = expect_remote(pair, cheater.other, cls, offending=forged)
    assert isinstance(caught.error, CheatDetectedError)
    assert caught.error.step == "show" and caught.error.position == position
    check_unaudited(caught)


@pytest.mark.parametrize(
    ("payload", "where"),
    [
        ({"act": "play", "pos": 12, "key": scalar(5)}, "shape"),
        ({"act": "play", "pos": 1}, "shape"),
        ({"act": "play", "key": scalar(5)}, "shape"),
        ({"act": "fold", "pos": 1}, "shape"),
        ({"act": "fold", "keys": [scalar(3), scalar(5), scalar(7)]}, "replay"),
        ({"act": "accept-redeal"}, "replay"),
    ],
    ids=[
        "pos-12",
        "play-without-key",
        "play-without-pos",
        "fold-with-pos",
        "keys-not-due",
        "accept-redeal-without-keys",
    ],
)
def test_action_payload_inconsistent(payload: dict[str, Any], where: str) -> None:
    cheater = P1
    pair = cheater_at_turn(cheater, first_dealer=cheater)
    forged = pair.inject(cheater, pair.forge_next(cheater, "action", payload))
    caught = expect_remote(pair, cheater.other, MalformedMessageError, offending=forged)
    if where == "shape":  # visible from the envelope alone
        check_pinpointed(caught, {"malformed"})
    else:  # needs the game state
        check_unaudited(caught)


def test_showing_the_same_card_twice(first_dealer: Player) -> None:
    cheater = P0
    pair = Pair(
        ruleset=ONE_HAND,
        tag="cheats",
        first_dealer=first_dealer,
        bots={P0: PLAYER, P1: PLAYER},
    )
    sender, second = pair.run(until=is_action(cheater, "play", nth=2))
    plays = [
        decode_envelope(r).payload
        for r in pair.records[cheater.other]
        if decode_envelope(r).sender == cheater and decode_envelope(r).type in ("action", "deck4")
    ]
    first = plays[0].get("action", plays[0])
    assert first["act"] == "play"
    forged = with_payload(
        second, pair.keys[cheater], lambda p: p.update(pos=first["pos"], key=first["key"])
    )
    caught = deliver_and_expect(pair, sender, forged, CheatDetectedError)
    assert caught.error.step == "show" and caught.error.position == first["pos"]
    check_unaudited(caught)


def test_playing_a_card_of_the_hand_given_up_by_a_redeal(first_dealer: Player) -> None:
    """After an accepted redeal only positions 6-11 count: a genuine old card is refused."""
    cheater = P0
    pair = Pair(
        ruleset=ONE_HAND,
        tag="cheats",
        first_dealer=first_dealer,
        bots={P0: REDEALER, P1: REDEALER},
    )
    sender, play = pair.run(until=is_action(cheater, "play"))
    assert pair.sessions[cheater].game.redealt
    role = role_in_first_hand(cheater, first_dealer)
    old = positions(role)[0]
    key = scalar(deck_secrets(pair, cheater, role).card_keys[old])
    forged = with_payload(play, pair.keys[cheater], lambda p: p.update(pos=old, key=key))
    caught = deliver_and_expect(pair, sender, forged, CheatDetectedError)
    assert caught.error.step == "show" and caught.error.position == old
    check_unaudited(caught)


# -- the deal: decks and keys --------------------------------------------------------------------


def _deck_edit(step: str, attack: str) -> Callable[[Pair, dict[str, Any]], None]:
    def edit(pair: Pair, payload: dict[str, Any]) -> None:
        deck = payload["deck"]
        if attack == "duplicate-entry":
            deck[1] = deck[0]
        elif attack == "not-a-point":
            deck[5] = not_a_point()
        elif attack == "card-encoding":
            deck[2] = card_encodings()[9]
        elif attack == "previous-deck-entry":
            earlier = {"deck2": "deck1", "deck3": "deck2", "deck4": "deck3"}[step]
            records = pair.records[P0]  # P0 saw every message so far
            deck[3] = decode_envelope(records[index_of(records, earlier)]).payload["deck"][3]
        elif attack == "zero-key":
            payload["keys"][0] = bytes(32)
        elif attack == "key-equal-to-order":
            payload["keys"][0] = N.to_bytes(32, "big")
        elif attack == "wrong-key":
            payload["keys"][0] = scalar(0x5EC12E7)
        elif attack == "31-entries":
            del deck[31]
        elif attack == "33-entries":
            deck.append(digest("33rd"))
        elif attack == "short-entry":
            deck[4] = deck[4][:31]
        elif attack == "two-keys":
            del payload["keys"][2]
        elif attack == "short-commitment":
            payload["commitment"] = payload["commitment"][:31]
        else:  # pragma: no cover
            raise AssertionError(attack)

    return edit


#: (step, attack) -> expected position of the cheat (None: a malformed payload)
DECK_ATTACKS: dict[tuple[str, str], int | None] = {}
for _step in ("deck1", "deck2", "deck3", "deck4"):
    DECK_ATTACKS.update(
        {
            (_step, "duplicate-entry"): 1,
            (_step, "not-a-point"): 5,
            (_step, "card-encoding"): 2,
            (_step, "31-entries"): None,
            (_step, "33-entries"): None,
            (_step, "short-entry"): None,
        }
    )
    if _step != "deck1":
        DECK_ATTACKS[(_step, "previous-deck-entry")] = 3
    if _step in ("deck3", "deck4"):
        first_key_position = positions(Role.NONDEALER if _step == "deck3" else Role.DEALER)[0]
        DECK_ATTACKS.update(
            {
                (_step, "zero-key"): first_key_position,
                (_step, "key-equal-to-order"): first_key_position,
                (_step, "wrong-key"): first_key_position,
                (_step, "two-keys"): None,
            }
        )
    else:
        DECK_ATTACKS[(_step, "short-commitment")] = None


@pytest.mark.parametrize(("step", "attack"), list(DECK_ATTACKS), ids="-".join)
def test_deck_cheat_caught_on_receipt(step: str, attack: str) -> None:
    """Every check a receiver can run at once: the cheater is named at its deck message."""
    pair = Pair(ruleset=ONE_HAND, tag="cheats", first_dealer=P0, bots={P0: PLAYER, P1: PLAYER})
    sender, raw = pair.run(until=is_type(step))
    forged = with_payload(raw, pair.keys[sender], lambda p: _deck_edit(step, attack)(pair, p))
    position = DECK_ATTACKS[(step, attack)]
    if position is None:
        caught = deliver_and_expect(pair, sender, forged, MalformedMessageError)
        check_pinpointed(caught, {"malformed"})
        return
    caught = deliver_and_expect(pair, sender, forged, CheatDetectedError)
    assert caught.error.step == "D" + step[-1]
    assert caught.error.position == position
    check_unaudited(caught)


# -- cheats only the audit catches -----------------------------------------------------------------


def doctor_deck(
    monkeypatch: pytest.MonkeyPatch,
    session: Session,
    step: str,
    edit: Callable[[DeckSide, tuple[bytes, ...], list[bytes]], None],
) -> None:
    """Make ``session`` doctor the deck it sends at ``step`` of hand 0, consistently (it
    signs and chains the doctored deck itself), and skip its own audit, as a cheater would."""
    method = {"D2": "receive_d1", "D3": "receive_d2", "D4": "receive_d3"}[step]
    start_hand = session._play._start_hand

    def patched_start_hand() -> None:
        start_hand()
        side = session._play.cur.deck
        assert side is not None
        if side.hand != 0:
            return
        honest = getattr(side, method)

        def doctored(deck: tuple[bytes, ...], extra: Any) -> Any:
            out = honest(deck, extra)
            sent, keys = (out, None) if step == "D2" else out
            doctored_deck = list(sent)
            edit(side, tuple(deck), doctored_deck)
            return tuple(doctored_deck) if keys is None else (tuple(doctored_deck), keys)

        monkeypatch.setattr(side, method, doctored)

    def no_audit(hands: list[int], env: Any) -> None:
        session._events.append(AuditPassed(hands=tuple(hands)))

    monkeypatch.setattr(session._play, "_start_hand", patched_start_hand)
    monkeypatch.setattr(session._play, "_run_audit", no_audit)


def _scale_entry_20(side: DeckSide, received: tuple[bytes, ...], sent: list[bytes]) -> None:
    """Position 20 is never dealt: a re-keyed entry there passes every live check."""
    sent[20] = mul(3, sent[20])


def _copy_attack(side: DeckSide, received: tuple[bytes, ...], sent: list[bytes]) -> None:
    """D3[1] = (a_1 / a) * D2[0]: the dealer's position 1 opens to the non-dealer's card 0."""
    own = derive_secrets(side.seed, game_id=side.game_id, hand=0, role=Role.DEALER)
    sent[1] = mul(own.card_keys[1] * pow(own.global_key, -1, N), received[0])


#: name -> (doctored step, cheater's role in hand 0, edit, position named by the audit)
AUDIT_CHEATS = {
    "D2-substituted": ("D2", Role.NONDEALER, _scale_entry_20, 20),
    "D3-substituted": ("D3", Role.DEALER, _scale_entry_20, 20),
    "D4-substituted": ("D4", Role.NONDEALER, _scale_entry_20, 20),
    "D3-copy-attack": ("D3", Role.DEALER, _copy_attack, 1),
}


@pytest.mark.parametrize("order", ["honest-reveals-first", "cheater-reveals-first"])
@pytest.mark.parametrize("cheat", list(AUDIT_CHEATS))
def test_deck_cheat_caught_only_by_the_audit(
    monkeypatch: pytest.MonkeyPatch, cheat: str, order: str
) -> None:
    step, role, edit, position = AUDIT_CHEATS[cheat]
    cheater = P1
    first_dealer = cheater if role is Role.DEALER else cheater.other
    # The player who ends the hand reveals second; no card is ever shown.
    honest_first = order == "honest-reveals-first"
    pair = Pair(
        ruleset=ONE_HAND,
        tag="cheats",
        first_dealer=first_dealer,
        bots={
            cheater: QUITTER if honest_first else RAISER,
            cheater.other: RAISER if honest_first else QUITTER,
        },
    )
    doctor_deck(monkeypatch, pair.sessions[cheater], step, edit)
    victim = cheater.other
    with pytest.raises(AuditFailedError) as info:
        pair.run()
    exc = info.value
    records = pair.records[victim]
    reveals = [r for r in records if decode_envelope(r).type == "reveal"]
    assert decode_envelope(reveals[0]).sender == (int(victim) if honest_first else int(cheater))
    assert exc.step == step and exc.position == position
    deck_msg = records[index_of(records, "deck" + step[-1])]
    assert exc.evidence == (records[-1], deck_msg)
    assert decode_envelope(records[-1]).type == "reveal"
    caught = expect_remote(pair, victim, AuditFailedError)
    # Both seeds are in the transcript (honest first), or only the cheater's: one
    # player's seed is enough to recompute that player's messages, so the verifier
    # finds the doctored deck message either way.
    check_pinpointed(caught, {"audit-failed"}, at=records.index(deck_msg))


# -- the reveal ----------------------------------------------------------------------------------


def _reveal_edit(pair: Pair, cheater: Player, attack: str) -> Callable[[dict[str, Any]], None]:
    assert pair.secrets is not None

    def edit(payload: dict[str, Any]) -> None:
        if attack == "wrong-seed":
            payload["seeds"] = [digest("not my seed")]
        elif attack == "peer-seed":
            payload["seeds"] = [local_seed(pair.secrets[cheater.other], 0)]  # type: ignore[index]
        elif attack == "seed-of-next-hand":
            payload["seeds"] = [local_seed(pair.secrets[cheater], 1)]  # type: ignore[index]
        elif attack == "wrong-first-hand":
            payload["first"] = 1
        elif attack == "extra-seed":
            payload["seeds"].append(digest("extra"))
        else:  # pragma: no cover
            raise AssertionError(attack)

    return edit


#: attack -> (audit step named, what the verifier can see when the honest side revealed first)
REVEAL_ATTACKS = {
    "wrong-seed": ("audit", "commitment"),
    "peer-seed": ("audit", "commitment"),
    "seed-of-next-hand": ("audit", "commitment"),
    "wrong-first-hand": ("reveal", "unaudited"),
    "extra-seed": ("reveal", "reveal"),
}


@pytest.mark.parametrize("order", ["cheater-reveals-first", "cheater-reveals-second"])
@pytest.mark.parametrize("attack", list(REVEAL_ATTACKS))
def test_bad_reveal_fails_the_audit(first_dealer: Player, attack: str, order: str) -> None:
    cheater = P1
    pair = Pair(
        ruleset=ONE_HAND,
        tag="cheats",
        first_dealer=first_dealer,
        bots={P0: PLAYER, P1: PLAYER},
    )
    nth = 1 if order == "cheater-reveals-first" else 2
    seen: list[Player] = []

    def stop(sender: Player, raw: bytes) -> bool:
        if decode_envelope(raw).type == "reveal":
            seen.append(sender)
            return len(seen) == nth
        return False

    sender, reveal = pair.run(until=stop)
    if sender is not cheater:  # the hand ended the other way round: swap the roles
        cheater = sender
    forged = with_payload(reveal, pair.keys[cheater], _reveal_edit(pair, cheater, attack))
    caught = deliver_and_expect(pair, cheater, forged, AuditFailedError)
    step, seen_by_verifier = REVEAL_ATTACKS[attack]
    assert caught.error.step == step
    # With one reveal in the transcript the verifier audits the revealer alone,
    # so the fault is pinpointed whichever player revealed first.
    if seen_by_verifier == "unaudited" and nth == 2:
        check_unaudited(caught)
    elif seen_by_verifier in ("reveal", "unaudited"):
        check_pinpointed(caught, {"audit-failed"})
    else:  # the verifier names the reveal, and the message whose commitment it fails
        records = pair.records[cheater.other]
        role = role_in_first_hand(cheater, first_dealer)
        commit = index_of(records, "deck1" if role is Role.DEALER else "deck2")
        check_pinpointed(caught, {"audit-failed"})
        assert f"message {commit}" in (caught.report.error or "")


def test_aborting_instead_of_revealing(first_dealer: Player) -> None:
    """Aborting when one's reveal is due refuses the audit: a detected cheat."""
    pair = Pair(
        ruleset=ONE_HAND, tag="cheats", first_dealer=first_dealer, bots={P0: PLAYER, P1: PLAYER}
    )
    cheater, reveal = pair.run(until=is_type("reveal"))
    victim = pair.sessions[cheater.other]
    forged = resign(
        pair.keys[cheater], reveal, type="abort", payload={"reason": "quit", "detail": "bye"}
    )
    caught = deliver_and_expect(pair, cheater, forged, AuditRefusedError)
    assert caught.error.step == "reveal"
    assert victim.result is None
    with pytest.raises(LocalProtocolError):
        victim.send(Action.FOLD)
    report = caught.report
    assert not report.valid
    assert report.ended_by is not None and "aborted" in report.ended_by
    records = pair.records[cheater.other]
    if any(decode_envelope(r).type == "reveal" for r in records):
        # The victim revealed first: its seeds let the verifier replay the game from
        # its view up to the audit, and see whose reveal was due.
        check_pinpointed(caught, {"audit-refused"})
        assert report.audit == "failed"
    else:
        # Nobody revealed: a third party cannot tell the game was over.
        assert report.error_code == "aborted" and report.audit == "not reached"


def test_silence_instead_of_revealing(first_dealer: Player) -> None:
    pair = Pair(
        ruleset=ONE_HAND, tag="cheats", first_dealer=first_dealer, bots={P0: PLAYER, P1: PLAYER}
    )
    cheater, _reveal = pair.run(until=is_type("reveal"))
    victim = pair.sessions[cheater.other]
    pair.inflight[cheater].clear()
    assert drain(victim) == [] and victim.next_event() is NEED_DATA
    assert victim.stage in (Stage.REVEAL_FIRST, Stage.REVEAL_SECOND)
    assert victim.result is None
    assert not verify_transcript(pair.records[cheater.other]).valid


@pytest.mark.parametrize(("reason", "blamed"), [("quit", "waiter"), ("timeout", "due")])
def test_who_refused_the_audit_when_the_waiting_player_aborts(
    first_dealer: Player, reason: str, blamed: str
) -> None:
    """The first revealer waits for the second reveal and aborts.  With ``timeout``
    it blames the silent player whose reveal was due; with ``quit`` it broke the
    audit off itself."""
    pair = Pair(
        ruleset=ONE_HAND, tag="cheats", first_dealer=first_dealer, bots={P0: PLAYER, P1: PLAYER}
    )
    seen: list[Player] = []

    def second_reveal(sender: Player, raw: bytes) -> bool:
        if decode_envelope(raw).type == "reveal":
            seen.append(sender)
        return len(seen) == 2

    due, _reveal = pair.run(until=second_reveal)
    waiter = due.other
    pair.inflight[due].clear()  # the second reveal never arrives
    pair.sessions[waiter].abort(reason, "waited")
    report = verify_transcript(pair.records[waiter])
    assert not report.valid and report.error_code == "audit-refused", report.summary()
    if blamed == "waiter":
        assert f"player {int(waiter)} aborted while waiting" in (report.error or "")
    else:
        assert f"player {int(due)} did not reveal" in (report.error or "")
    assert report.error_message_no == len(pair.records[waiter]) - 1


def test_acting_instead_of_revealing(first_dealer: Player) -> None:
    pair = Pair(
        ruleset=ONE_HAND, tag="cheats", first_dealer=first_dealer, bots={P0: PLAYER, P1: PLAYER}
    )
    cheater, reveal = pair.run(until=is_type("reveal"))
    forged = resign(pair.keys[cheater], reveal, type="action", payload={"act": "fold"})
    caught = deliver_and_expect(pair, cheater, forged, UnexpectedMessageError)
    check_unaudited(caught)


# -- the result ----------------------------------------------------------------------------------

RESULT_EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "swapped-scores": lambda p: p.update(scores=p["scores"][::-1]),
    "other-winner": lambda p: p.update(winner=1 - p["winner"]),
    "other-reason": lambda p: p.update(reason="rest" if p["reason"] != "rest" else "target"),
    "more-hands": lambda p: p.update(hands=p["hands"] + 1),
    "other-chain": lambda p: p.update(chain=digest("another transcript")),
}


@pytest.mark.parametrize("nth", [1, 2], ids=["cheater-signs-first", "cheater-signs-second"])
@pytest.mark.parametrize("edit", list(RESULT_EDITS))
def test_result_that_disagrees_with_the_game(edit: str, nth: int) -> None:
    pair = Pair(
        ruleset=Ruleset(target=2), audit="hand", tag="cheats", bots={P0: PLAYER, P1: RAISER}
    )
    count: list[int] = []

    def stop(sender: Player, raw: bytes) -> bool:
        if decode_envelope(raw).type == "result":
            count.append(1)
            return len(count) == nth
        return False

    cheater, result = pair.run(until=stop)
    forged = with_payload(result, pair.keys[cheater], RESULT_EDITS[edit])
    caught = deliver_and_expect(pair, cheater, forged, ResultMismatchError)
    assert pair.sessions[cheater.other].result is None
    check_pinpointed(caught, {"result-mismatch"})


def test_the_co_signed_result_is_final(finished_pair: Pair) -> None:
    """Nothing the peer sends after the result changes it; the session stays closed."""
    session = finished_pair.sessions[P0]
    result = session.result
    assert result is not None and session.next_event() is CLOSED
    late = finished_pair.forge_next(P1, "action", {"act": "fold"})
    session.receive_data(frame(late))  # dropped: the game is over
    assert session.result == result and session.next_event() is CLOSED
    assert late not in finished_pair.records[P0]
    assert verify_transcript(finished_pair.records[P0]).valid


# -- the handshake -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "responder",
    [
        {"ruleset": Ruleset(target=11)},
        {"ruleset": Ruleset(ladder=Ladder.EVEN)},
        {"ruleset": Ruleset(rest_refused=RestRefused.VALUE)},
        {"audit": "hand"},
    ],
    ids=["target", "ladder", "rest-refused", "audit-option"],
)
def test_ruleset_mismatch_stops_both_sides_before_any_card(responder: dict[str, Any]) -> None:
    pair = Pair(
        rulesets=(Ruleset(), responder.get("ruleset", Ruleset())),
        audits=("game", responder.get("audit", "game")),
        tag="cheats",
    )
    p1 = pair.sessions[P1]
    hello0 = pair.deliver(P0)
    # The responder answers with its own hello first, so the initiator learns why.
    with pytest.raises(RulesetMismatchError) as info:
        drain(p1)
    assert info.value.evidence == (hello0,) and info.value.message_no == 0
    hello1 = pair.collect(P1)[0]
    assert decode_envelope(hello1).type == "hello"
    assert p1.stage is Stage.ERROR and p1.data_to_send() == b""
    pair.deliver(P1)
    caught = expect_remote(pair, P0, RulesetMismatchError, offending=hello1)
    check_pinpointed(caught, {"ruleset-mismatch"}, at=1)
    for p in Player:
        assert not any(decode_envelope(r).type.startswith("deck") for r in pair.records[p])


@pytest.mark.parametrize(
    "edit",
    [
        lambda p: p["ruleset"].update(extra=1),
        lambda p: p["ruleset"].pop("ladder"),
        lambda p: p["ruleset"].update(target="12"),
        lambda p: p["ruleset"].update(ladder="odd"),
        lambda p: p.update(options={"audit": "never"}),
    ],
    ids=["extra-key", "missing-key", "target-as-str", "unknown-ladder", "unknown-audit"],
)
def test_unreadable_ruleset_in_the_hello(edit: Callable[[dict[str, Any]], None]) -> None:
    pair = Pair(tag="cheats")
    sender, hello = pair.run(until=is_type("hello", P1))
    forged = with_payload(hello, pair.keys[sender], edit)
    victim = pair.sessions[P0]
    pair.deliver(sender, forged)
    with pytest.raises((MalformedMessageError, RulesetMismatchError)) as info:
        drain(victim)
    assert info.value.evidence == (forged,) and info.value.message_no == 1
    assert victim.stage is Stage.ERROR


def test_hello_presenting_the_receivers_own_key() -> None:
    pair = Pair(tag="cheats")
    sender, hello = pair.run(until=is_type("hello", P1))
    own = decode_envelope(pair.records[P0][0]).payload["key"]
    forged = with_payload(hello, pair.keys[sender], lambda p: p.update(key=own))
    caught = deliver_and_expect(pair, sender, forged, MalformedMessageError)
    check_pinpointed(caught, {"malformed", "bad-signature"})


# -- abort ---------------------------------------------------------------------------------------


def test_peer_abort_mid_game(first_dealer: Player) -> None:
    cheater = P1
    pair = cheater_at_turn(cheater, first_dealer=first_dealer)
    victim = pair.sessions[cheater.other]
    abort = pair.sessions[cheater].abort("quit", "had enough")
    envelopes = pair.collect(cheater, abort)
    assert len(envelopes) == 1
    pair.deliver(cheater)
    events = drain(victim)
    assert events == [PeerAborted(reason="quit", detail="had enough", envelope=envelopes[0])]
    assert victim.stage is Stage.ABORTED and victim.next_event() is CLOSED
    assert victim.result is None
    report = verify_transcript(pair.records[cheater.other])
    assert not report.valid and report.ended_by is not None


def test_abort_crossing_a_message_in_flight() -> None:
    """An abort may chain to the second-to-last envelope: it crossed the receiver's move."""
    victim, cheater = P0, P1
    pair = Pair(ruleset=ONE_HAND, tag="cheats", bots={victim: None, cheater: PLAYER})
    turn = pair.run_to_turn(victim)
    records = pair.records[victim]
    crossing = sign_envelope(
        pair.keys[cheater],
        game_id=pair.sessions[victim].game_id,
        seq=len(records),
        prev=envelope_hash(records[-1]),
        sender=int(cheater),
        type="abort",
        payload={"reason": "timeout", "detail": ""},
    )
    pair.act(victim, turn.legal_actions[0])  # the victim's move is now in flight
    pair.inject(cheater, crossing)
    events = drain(pair.sessions[victim])
    assert events[-1] == PeerAborted(reason="timeout", detail="", envelope=crossing)
    assert pair.sessions[victim].stage is Stage.ABORTED
    report = verify_transcript(pair.records[victim])
    assert not report.valid and report.error_code != "broken-chain", report.summary()


@pytest.mark.parametrize(
    ("change", "cls", "code"),
    [
        ({"prev": digest("nowhere")}, ChainError, "broken-chain"),
        ({"seq": 99}, SequenceError, "bad-sequence"),
    ],
    ids=["broken-chain", "bad-sequence"],
)
def test_abort_must_chain_to_one_of_the_last_two_messages(
    change: dict[str, Any], cls: type[RemoteProtocolError], code: str
) -> None:
    victim, cheater = P0, P1
    pair = Pair(ruleset=ONE_HAND, tag="cheats", bots={victim: None, cheater: PLAYER})
    pair.run_to_turn(victim)
    payload = {"reason": "quit", "detail": ""}
    forged = pair.inject(cheater, pair.forge_next(cheater, "abort", payload, **change))
    caught = expect_remote(pair, victim, cls, offending=forged)
    check_pinpointed(caught, {code})


@pytest.mark.parametrize(
    "payload",
    [{"reason": "bored", "detail": ""}, {"reason": "quit"}, {"reason": "quit", "detail": 5}],
    ids=["unknown-reason", "missing-detail", "detail-not-str"],
)
def test_malformed_abort(payload: dict[str, Any]) -> None:
    victim, cheater = P0, P1
    pair = Pair(ruleset=ONE_HAND, tag="cheats", bots={victim: None, cheater: PLAYER})
    pair.run_to_turn(victim)
    forged = pair.inject(cheater, pair.forge_next(cheater, "abort", payload))
    caught = expect_remote(pair, victim, MalformedMessageError, offending=forged)
    check_pinpointed(caught, {"malformed"})


def test_abort_with_a_bad_signature() -> None:
    victim, cheater = P0, P1
    pair = Pair(ruleset=ONE_HAND, tag="cheats", bots={victim: None, cheater: PLAYER})
    pair.run_to_turn(victim)
    abort = pair.forge_next(cheater, "abort", {"reason": "quit", "detail": ""})
    forged = pair.inject(cheater, abort[:-1] + bytes([abort[-1] ^ 0x80]))
    caught = expect_remote(pair, victim, BadSignatureError, offending=forged)
    check_pinpointed(caught, {"bad-signature"})
