"""Every message type's one judgement, and the one dispatch that runs it.

h11 runs one state machine for both sides of a connection.  Here one referee
(:class:`~._referee_core.RefereeCore`: the stage, the turn, the ending) judges
every message: the live session runs it on its own messages and on the peer's,
and the offline verifier on both players', and it finds a message's judgement in
:data:`RULEBOOK`: the handler each judge has for the type
(``on_`` + :attr:`Judgement.handler`, found by :func:`handler`, the one
dispatch) and the functions that hold the checks themselves, each in one home
that both judges call (:mod:`._chain`, :mod:`._judge`, :mod:`.v2._judge`, the
deck layer's hand checks).  The signed messages outside the chain (``resume``,
``refuse``, ``bye``) are in no transcript: only the session's control plane
judges them.  ``tests/protocol/test_protocol_referee.py`` fails when a message
type has no judgement here, or a handler on one side only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from truc_p2p.protocol import _chain, _judge
from truc_p2p.protocol._errors import UnexpectedMessageError
from truc_p2p.protocol._messages import MessageType
from truc_p2p.protocol.v2 import _judge as _v2

__all__ = ["RULEBOOK", "Judgement", "handler"]


@dataclass(frozen=True)
class Judgement:
    """How one message type is judged: by the handler ``on_<handler>`` of the session
    and of the referee (of the session's control plane only when not ``chained``),
    with the checks of ``homes`` (the one place each is written)."""

    handler: str
    homes: tuple[Callable[..., Any], ...]
    chained: bool = True


#: What every chained message shares: the envelope's signature, the chain, the payload's
#: shape (:func:`~._messages.validate_payload`) and the turn.
_EVERY = (_chain.Chain.check_link, _judge.check_turn, _judge.check_not_ended)
_ACTION = (
    *_EVERY,
    _judge.check_redeal_material,
    _judge.conditions_after,
    _judge.expected_result,
)

_TABLE: dict[str, Judgement] = {
    MessageType.HELLO: Judgement(
        "hello", (*_EVERY, _chain.hello_key, _judge.hello_terms, _judge.hellos_agree)
    ),
    MessageType.COIN: Judgement("coin", (*_EVERY, _judge.coin_toss)),
    MessageType.DECK1: Judgement("deck1", _EVERY),
    MessageType.DECK2: Judgement("deck2", _EVERY),
    MessageType.DECK3: Judgement("deck3", _EVERY),
    MessageType.DECK4: Judgement("deck4", _ACTION),
    MessageType.ACTION: Judgement("action", _ACTION),
    MessageType.V2DECK1: Judgement("v2deck1", (*_EVERY, _v2.deal_payload)),
    MessageType.V2DECK2: Judgement(
        "v2deck2", (*_EVERY, _v2.deal_payload, _v2.check_v2deck2, _v2.check_predeal2)
    ),
    MessageType.V2DECK3: Judgement(
        "v2deck3", (*_ACTION, _v2.deal_payload, _v2.is_early_d3, _judge.open_due)
    ),
    MessageType.V2ACTION: Judgement("v2action", (*_ACTION, _judge.open_due, _judge.check_open)),
    MessageType.V2OPEN: Judgement("v2open", (*_EVERY, _v2.check_v2open)),
    MessageType.V2REDEAL: Judgement("v2redeal", _EVERY),
    MessageType.REVEAL: Judgement("reveal", (*_EVERY, _judge.check_reveal_covers)),
    MessageType.RESULT: Judgement("result", (*_EVERY, _judge.expected_result, _judge.check_result)),
    MessageType.ABORT: Judgement(
        "abort",
        (
            _chain.Chain.check_abort,
            _judge.check_not_ended,
            _judge.audit_refusal,
            _judge.check_resignation,
        ),
    ),
    MessageType.RESUME: Judgement("resume", (), chained=False),
    MessageType.REFUSE: Judgement("refuse", (), chained=False),
    MessageType.BYE: Judgement("bye", (), chained=False),
}
#: Each message type's one judgement (see the module docstring).
RULEBOOK: Mapping[str, Judgement] = MappingProxyType(_TABLE)


def handler(judge: object, mtype: str) -> Callable[..., None]:
    """The handler ``judge`` (the session's or the referee's) runs for a chained
    message of type ``mtype``: the one dispatch of both."""
    rule = RULEBOOK.get(mtype)
    if rule is None or not rule.chained:  # pragma: no cover - the shape check refuses it first
        raise UnexpectedMessageError(f"{mtype!r} is not a message of the chain")
    found: Callable[..., None] = getattr(judge, "on_" + rule.handler)
    return found
