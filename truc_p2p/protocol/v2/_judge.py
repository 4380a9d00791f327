"""The judgements of deck v2's deal messages beyond their shape and turn (wire.md
sections 6, 6a and 6b), one home for the live session and the verifier.

The deck work itself (every proof) is :mod:`truc_p2p.deck`'s: the receiver's
:class:`~truc_p2p.deck.DeckSideV2` and the verifier's
:class:`~truc_p2p.deck.HandVerifierV2` run the same hand checks there.  What is
judged here is what the protocol adds around them: which hand a deal message
names, where shares may ride and whether early cards were agreed.
"""

from __future__ import annotations

from typing import Any

from truc_p2p.protocol._errors import MalformedMessageError
from truc_p2p.protocol._wire import Envelope

__all__ = ["check_predeal2", "check_v2deck2", "check_v2open", "deal_payload", "is_early_d3"]


def deal_payload(env: Envelope, index: int, *, pipelined: bool) -> dict[str, Any]:
    """The payload of a deal message without its ``hand`` field, which names hand
    ``index`` exactly when the deal is pipelined and is absent otherwise (6b)."""
    payload = dict(env.payload)
    got = payload.pop("hand", None)
    if got != (index if pipelined else None):
        raise MalformedMessageError(
            f"{env.type} names hand {got}, expected {index if pipelined else 'none'}",
            evidence=(env.raw,),
            message_no=env.seq,
        )
    return payload


def check_v2deck2(env: Envelope, payload: dict[str, Any]) -> None:
    """A hand's own ``v2deck2`` carries the dealer's shares for the non-dealer's cards."""
    if "shares" not in payload:
        raise MalformedMessageError(
            "v2deck2 without its shares", evidence=(env.raw,), message_no=env.seq
        )


def check_predeal2(env: Envelope, payload: dict[str, Any]) -> None:
    """A pre-dealt ``v2deck2`` carries no shares: they would show the next non-dealer
    its cards while this hand is played (6b)."""
    if "shares" in payload:
        raise MalformedMessageError(
            "a pre-dealt v2deck2 carries no shares", evidence=(env.raw,), message_no=env.seq
        )


def check_v2open(env: Envelope, hand: int) -> None:
    """``v2open`` names the hand that just opened, ``hand``."""
    if env.payload["hand"] != hand:
        raise MalformedMessageError(
            f"v2open names hand {env.payload['hand']}, expected {hand}",
            evidence=(env.raw,),
            message_no=env.seq,
        )


def is_early_d3(env: Envelope, payload: dict[str, Any], *, early: bool) -> bool:
    """Whether a ``v2deck3`` comes without the non-dealer's first action (early cards,
    6a), which only both hellos' ``early`` (``early``) allows."""
    without = "action" not in payload
    if without and not early:
        raise MalformedMessageError(
            "v2deck3 without the non-dealer's first action (early cards are off)",
            evidence=(env.raw,),
            message_no=env.seq,
        )
    return without
