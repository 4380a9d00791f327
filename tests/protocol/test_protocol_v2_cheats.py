"""Deck v2 cheats caught at the message where they happen, live and by the verifier.

An honest pair plays with deck v2 up to a deal message, a shown card or a
redeal; the cheater's next envelope is replaced by a tampered copy, signed
again with the cheater's key so that it passes the signature, chain and
catalogue checks and reaches the proofs.  The receiver must raise
:class:`CheatDetectedError` naming the deck step and position, with the
signed envelope as evidence; the verifier must name the same message from
the victim's transcript alone (no seed is needed: none exists).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from helpers.deck_v2 import forge_d1, forge_d2
from helpers.protocol import (
    P0,
    P1,
    PLAYER,
    REDEALER,
    Pair,
    deliver_and_expect,
    is_action,
    is_type,
    with_payload,
)

from truc_p2p.deck import Role
from truc_p2p.deck.v2 import _ec as ec
from truc_p2p.deck.v2._derive import hand_digest, side_key
from truc_p2p.protocol import CheatDetectedError, MalformedMessageError, decode_envelope
from truc_p2p.protocol._session import local_seed_v2
from truc_p2p.protocol._wire import envelope_hash
from truc_p2p.rules import Player, Ruleset

G = ec.gmul(1)

Edit = Callable[[dict[str, Any]], Any]
#: a compressed secp256k1 point no honest session sends as a key share (the generator)
GENERATOR = bytes.fromhex("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")


def flip(data: bytes, at: int) -> bytes:
    out = bytearray(data)
    out[at] ^= 0x01
    return bytes(out)


def swap(items: list[Any], i: int, j: int) -> None:
    items[i], items[j] = items[j], items[i]


def v2_pair(first_dealer: Player, *, bots: Any = PLAYER, target: int = 1, **kw: Any) -> Pair:
    return Pair(
        ruleset=Ruleset(target=target),
        tag="v2-cheats",
        first_dealer=first_dealer,
        bots={P0: bots, P1: bots},
        deck="v2",
        **kw,
    )


def tamper_and_catch(
    pair: Pair, stop: Callable[[Player, bytes], bool], edit: Edit
) -> tuple[CheatDetectedError, Any, int]:
    cheater, raw = pair.run(until=stop)
    forged = with_payload(raw, pair.keys[cheater], edit)
    caught = deliver_and_expect(pair, cheater, forged, CheatDetectedError)
    assert isinstance(caught.error, CheatDetectedError)
    # The verifier pinpoints the same message from the transcript alone.
    report = caught.report
    assert report.error_code == "cheat", report.summary()
    assert report.error_message_no == caught.index, report.summary()
    assert report.audit == "failed" and report.deck == "v2"
    assert report.hidden_cards_revealed == 0
    return caught.error, report, caught.index


DEAL_CHEATS: list[tuple[str, str, Edit, str, int | None]] = [
    # (name, message type, edit, deck step, position)
    ("d1-swapped-entries", "v2deck1", lambda p: swap(p["deck"], 3, 17), "D1", None),
    ("d1-copied-entry", "v2deck1", lambda p: p["deck"].__setitem__(9, p["deck"][2]), "D1", 9),
    ("d1-forged-proof", "v2deck1", lambda p: p.update(proof=flip(p["proof"], 2143)), "D1", None),
    ("d1-forged-key-proof", "v2deck1", lambda p: p.update(pok=flip(p["pok"], 31)), "D1", None),
    ("d1-foreign-key", "v2deck1", lambda p: p.update(key=GENERATOR), "D1", None),
    ("d2-swapped-entries", "v2deck2", lambda p: swap(p["deck"], 0, 31), "D2", None),
    ("d2-copied-entry", "v2deck2", lambda p: p["deck"].__setitem__(2, p["deck"][0]), "D2", 2),
    ("d2-forged-proof", "v2deck2", lambda p: p.update(proof=flip(p["proof"], 2143)), "D2", None),
    ("d2-share-of-another-position", "v2deck2", lambda p: swap(p["shares"], 0, 1), "D2", 0),
    (
        "d2-forged-share-proof",
        "v2deck2",
        lambda p: p["shares"].__setitem__(2, flip(p["shares"][2], 64)),
        "D2",
        4,
    ),
    ("d3-share-of-another-position", "v2deck3", lambda p: swap(p["shares"], 1, 2), "D3", 3),
    (
        "d3-forged-share-proof",
        "v2deck3",
        lambda p: p["shares"].__setitem__(0, flip(p["shares"][0], 64)),
        "D3",
        1,
    ),
]


@pytest.mark.parametrize(
    ("mtype", "edit", "step", "position"),
    [c[1:] for c in DEAL_CHEATS],
    ids=[c[0] for c in DEAL_CHEATS],
)
def test_deal_cheats_are_caught_at_the_message(
    first_dealer: Player, mtype: str, edit: Edit, step: str, position: int | None
) -> None:
    pair = v2_pair(first_dealer)
    error, report, index = tamper_and_catch(pair, is_type(mtype), edit)
    assert error.step == step and error.position == position, error
    assert step in (report.error or "")
    assert decode_envelope(pair.records[error_victim(error)][index]).type == mtype


def error_victim(error: CheatDetectedError) -> Player:
    return Player(1 - decode_envelope(error.evidence[0]).sender)


def _played_share(edit: Callable[[dict[str, Any]], None]) -> Edit:
    """Apply ``edit`` to the action of a v2action or v2deck3 payload."""

    def go(p: dict[str, Any]) -> None:
        edit(p.get("action", p))

    return go


def test_a_forged_card_share_is_caught(first_dealer: Player) -> None:
    pair = v2_pair(first_dealer)
    edit = _played_share(lambda a: a.update(share=flip(a["share"], 70)))
    error, _, _ = tamper_and_catch(pair, is_action(first_dealer, "play"), edit)
    assert error.step == "show" and error.position is not None


def test_a_card_shown_with_the_share_of_another_held_position(first_dealer: Player) -> None:
    """The share of one own position presented as another own position's card."""
    pair = v2_pair(first_dealer)

    def other_pos(a: dict[str, Any]) -> None:
        held = (1, 3, 5) if a["pos"] % 2 else (0, 2, 4)
        a["pos"] = next(p for p in held if p != a["pos"])

    error, _, _ = tamper_and_catch(pair, is_action(first_dealer, "play"), _played_share(other_pos))
    assert error.step == "show" and error.position in (0, 1, 2, 3, 4, 5)


def test_showing_a_position_of_the_opponent_is_caught(first_dealer: Player) -> None:
    pair = v2_pair(first_dealer)

    def theirs(a: dict[str, Any]) -> None:
        a["pos"] = (a["pos"] + 1) % 6

    error, _, _ = tamper_and_catch(pair, is_action(first_dealer, "play"), _played_share(theirs))
    assert error.step == "show"


@pytest.mark.parametrize("who", ["dealer", "non-dealer", "non-dealer-on-action"])
def test_forged_redeal_shares_are_caught(first_dealer: Player, who: str) -> None:
    """The dealer's shares ride on its accept-redeal; the non-dealer's follow at once in
    its v2redeal (early redeal cards, wire.md 6a), or, without that feature, ride on its
    next action."""
    on_action = who == "non-dealer-on-action"
    pair = v2_pair(first_dealer, bots=REDEALER, early_redeals=(not on_action, not on_action))
    if who == "dealer":
        stop = is_action(first_dealer, "accept-redeal")
    elif on_action:
        stop = is_action(first_dealer.other, nth=2)  # its redeal request, then the next action
    else:
        stop = is_type("v2redeal", first_dealer.other)
    edit = _played_share(lambda a: swap(a["shares"], 0, 2))
    error, _, _ = tamper_and_catch(pair, stop, edit)
    assert error.step == "redeal"
    assert error.position == (6 if who == "dealer" else 7)


def test_missing_redeal_shares_are_malformed(first_dealer: Player) -> None:
    pair = v2_pair(first_dealer, bots=REDEALER)
    cheater, raw = pair.run(until=is_action(first_dealer, "accept-redeal"))
    forged = with_payload(raw, pair.keys[cheater], _played_share(lambda a: a.pop("shares")))
    caught = deliver_and_expect(pair, cheater, forged, MalformedMessageError)
    assert caught.report.error_message_no == caught.index


# -- cheats re-proven with the cheater's real keys: the false statement still fails -------


def _hand_public(pair: Pair, victim: Player) -> tuple[bytes, bytes, dict[str, Any]]:
    """(game id, context, D1 payload) of hand 0 from the victim's transcript."""
    records = pair.records[victim]
    at = next(i for i, r in enumerate(records) if decode_envelope(r).type == "v2deck1")
    return (
        pair.sessions[victim].game_id,
        envelope_hash(records[at - 1]),
        decode_envelope(records[at]).payload,
    )


def _cheater_key(pair: Pair, cheater: Player, role: Role, game_id: bytes, context: bytes) -> bytes:
    assert pair.secrets is not None
    t0 = hand_digest(game_id, 0, context)
    return side_key(local_seed_v2(pair.secrets[cheater], 0), t0, role.wire_byte)


def test_d1_with_a_card_twice_reproved_is_caught(first_dealer: Player) -> None:
    """The non-dealer deals one card twice (another never) and proves the 'shuffle'."""
    pair = v2_pair(first_dealer)
    cheater = first_dealer.other
    cheater_, raw = pair.run(until=is_type("v2deck1"))
    assert cheater_ is cheater
    game_id = pair.sessions[cheater].game_id
    context = envelope_hash(pair.records[cheater][-2])
    key = _cheater_key(pair, cheater, Role.NONDEALER, game_id, context)
    perm = list(range(32))
    perm[20] = perm[3]
    forged = forge_d1(perm=perm, t0=hand_digest(game_id, 0, context), key=key)
    error, _, _ = tamper_and_catch_raw(pair, cheater, raw, lambda p: p.update(forged))
    assert error.step == "D1" and "shuffle" in str(error)


def test_d2_copy_attack_reproved_is_caught(first_dealer: Player) -> None:
    """v1's dealer copy attack: at its own position 1 the dealer puts a re-encryption of the
    entry it sends to the non-dealer's position 0, and proves a 'shuffle' of it."""
    pair = v2_pair(first_dealer)
    cheater = first_dealer
    cheater_, raw = pair.run(until=is_type("v2deck2"))
    assert cheater_ is cheater
    game_id, context, d1 = _hand_public(pair, cheater)
    key = _cheater_key(pair, cheater, Role.DEALER, game_id, context)
    perm = list(range(32))
    perm[1] = perm[0]
    forged = forge_d2(d1, perm=perm, game_id=game_id, context=context, key=key)
    deck = {field: forged[field] for field in ("key", "pok", "deck", "proof")}
    error, _, _ = tamper_and_catch_raw(pair, cheater, raw, lambda p: p.update(deck))
    assert error.step == "D2" and "shuffle" in str(error)


def tamper_and_catch_raw(
    pair: Pair, cheater: Player, raw: bytes, edit: Edit
) -> tuple[CheatDetectedError, Any, int]:
    forged = with_payload(raw, pair.keys[cheater], edit)
    caught = deliver_and_expect(pair, cheater, forged, CheatDetectedError)
    assert isinstance(caught.error, CheatDetectedError)
    assert caught.report.error_code == "cheat"
    assert caught.report.error_message_no == caught.index, caught.report.summary()
    return caught.error, caught.report, caught.index
