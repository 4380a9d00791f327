"""The message catalogue: every message type and the exact shape of its payload.

The catalogue is data (:data:`CATALOGUE`) so that the validator, the spec
generator (``protocol_spec/wire.md``) and the tests all read one table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from truc_p2p.protocol._errors import MalformedMessageError

__all__ = [
    "ABORT_REASONS",
    "CATALOGUE",
    "CONTROL",
    "DECK_VERSIONS",
    "MAX_CLOCK_MS",
    "MAX_SEEDS_PER_REVEAL",
    "REFUSE_REASONS",
    "RESUME_CLOCK",
    "RESUME_NONCE_SIZE",
    "Field",
    "MessageType",
    "validate_payload",
]

#: Why a player may end a game early (the ``reason`` of an ``abort``).
ABORT_REASONS = ("quit", "timeout", "cheat", "error", "incompatible", "abandoned", "resign")
#: Why a host turns a connection away (the ``reason`` of a ``refuse``).
REFUSE_REASONS = ("busy", "not-allowed", "unknown-game", "played")
#: Bytes of the fresh nonce in a ``resume``.
RESUME_NONCE_SIZE = 16
#: The largest ``left`` and ``away`` of a ``resume`` with the clock (wire.md 13.1):
#: one day in milliseconds.  A larger value is a malformed resume (refused).
MAX_CLOCK_MS = 86_400_000
#: Seeds are revealed at least every this many hands so a reveal stays small.
MAX_SEEDS_PER_REVEAL = 32
#: Deck versions a session can play (negotiated in the hello's ``options``).
DECK_VERSIONS = ("v1", "v2")


class MessageType:
    """Wire names of the message types."""

    HELLO = "hello"
    COIN = "coin"
    DECK1 = "deck1"
    DECK2 = "deck2"
    DECK3 = "deck3"
    DECK4 = "deck4"
    ACTION = "action"
    # Deck v2 (protocol_spec/deck_v2.md): three deal messages, proofs on arrival.
    V2DECK1 = "v2deck1"
    V2DECK2 = "v2deck2"
    V2DECK3 = "v2deck3"
    V2ACTION = "v2action"
    V2OPEN = "v2open"
    V2REDEAL = "v2redeal"
    REVEAL = "reveal"
    RESULT = "result"
    ABORT = "abort"
    # Connection messages: signed, never chained, never in a transcript.
    RESUME = "resume"
    REFUSE = "refuse"
    BYE = "bye"


@dataclass(frozen=True)
class Field:
    """One payload field: its wire type in words and the check it must pass."""

    kind: str
    check: Callable[[Any], bool]
    required: bool = True
    doc: str = ""


def _bin(n: int) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, bytes) and len(v) == n


def _str(lo: int, hi: int) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and lo <= len(v) <= hi and v.isprintable()


def _int(lo: int, hi: int) -> Callable[[Any], bool]:
    return lambda v: type(v) is int and lo <= v <= hi


def _list(item: Callable[[Any], bool], lo: int, hi: int) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, list) and lo <= len(v) <= hi and all(item(x) for x in v)


def _map(v: Any) -> bool:
    return isinstance(v, dict)


def _one_of(*values: str) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and v in values


_ACTION_NAMES = (
    "play",
    "raise",
    "rest",
    "accept",
    "refuse",
    "fold",
    "redeal",
    "accept-redeal",
    "decline-redeal",
)

_DECK = Field("array of 32 bin(32)", _list(_bin(32), 32, 32), doc="the encrypted deck")
_KEYS3 = Field(
    "array of 3 bin(32)",
    _list(_bin(32), 3, 3),
    doc="per-card keys, in the order of the receiver's positions",
)

ACTION_FIELDS: Mapping[str, Field] = {
    "act": Field("str", _one_of(*_ACTION_NAMES), doc="the action, as in rules.md"),
    "pos": Field("int 0..11", _int(0, 11), required=False, doc="deck position of a played card"),
    "key": Field("bin(32)", _bin(32), required=False, doc="holder's key for that position"),
    "keys": Field(
        "array of 3 bin(32)",
        _list(_bin(32), 3, 3),
        required=False,
        doc="redeal keys for the opponent's positions 6-11, when due",
    ),
}

# Deck v2 sizes (deck_v2.md section 5): 33-byte compressed secp256k1 points,
# 97-byte shares (point, challenge, response), shuffle proofs of 1 and 2 vectors.
_POINT = 33
_SHARE = _POINT + 64

V2_ACTION_FIELDS: Mapping[str, Field] = {
    "act": ACTION_FIELDS["act"],
    "pos": ACTION_FIELDS["pos"],
    "share": Field(
        f"bin({_SHARE})",
        _bin(_SHARE),
        required=False,
        doc="holder's share for that position (shows the card)",
    ),
    "shares": Field(
        f"array of 3 bin({_SHARE})",
        _list(_bin(_SHARE), 3, 3),
        required=False,
        doc="redeal shares for the opponent's positions 6-11, when due",
    ),
    "open": Field(
        f"array of 3 bin({_SHARE})",
        _list(_bin(_SHARE), 3, 3),
        required=False,
        doc="pipelined deal: the next dealer's shares for positions 0, 2, 4 of the "
        "pre-dealt hand, on its action that ends the hand (wire.md 6b)",
    ),
}

_V2_KEY = Field(f"bin({_POINT})", _bin(_POINT), doc="sender's key share Y for the hand")
_V2_POK = Field("bin(64)", _bin(64), doc="proof of knowledge of the key share")
_V2_HAND = Field(
    "int",
    _int(0, 1 << 20),
    required=False,
    doc="the hand this deal message belongs to: present exactly when the deal is pipelined",
)

CATALOGUE: Mapping[str, Mapping[str, Field]] = {
    MessageType.HELLO: {
        "name": Field("str 1..40", _str(1, 40), doc="display name"),
        "key": Field("bin(32)", _bin(32), doc="sender's Ed25519 public key"),
        "nonce": Field("bin(32)", _bin(32), doc="fresh random bytes"),
        "ruleset": Field("map", _map, doc="Ruleset.to_dict(), must equal the peer's"),
        "options": Field(
            "map",
            _map,
            doc='session options: deck v1 {"audit": "game"|"hand"}; '
            'deck v2 {"audit": "game"|"hand", "deck": "v2"}, then `"pipeline": true` for '
            'the pipelined deal and `"early": true` for early cards, in that order, each '
            "absent when off (wire.md 4)",
        ),
        "coin": Field(
            "bin(32)",
            _bin(32),
            doc="initiator: SHA-256 commitment to its coin; responder: its coin in clear",
        ),
    },
    MessageType.COIN: {
        "coin": Field("bin(32)", _bin(32), doc="initiator's coin, opening its commitment"),
    },
    MessageType.DECK1: {
        "deck": _DECK,
        "commitment": Field("bin(32)", _bin(32), doc="dealer's seed commitment"),
    },
    MessageType.DECK2: {
        "deck": _DECK,
        "commitment": Field("bin(32)", _bin(32), doc="non-dealer's seed commitment"),
    },
    MessageType.DECK3: {"deck": _DECK, "keys": _KEYS3},
    MessageType.DECK4: {
        "deck": _DECK,
        "keys": _KEYS3,
        "action": Field("map", _map, doc="the non-dealer's first action (action payload)"),
    },
    MessageType.ACTION: ACTION_FIELDS,
    MessageType.V2DECK1: {
        "hand": _V2_HAND,
        "key": _V2_KEY,
        "pok": _V2_POK,
        "deck": Field(
            f"array of 32 bin({2 * _POINT})",
            _list(_bin(2 * _POINT), 32, 32),
            doc="D1: the 32 cards shuffled and encrypted, `A_B || C` each",
        ),
        "proof": Field("bin(4320)", _bin(4320), doc="shuffle proof of D1"),
    },
    MessageType.V2DECK2: {
        "hand": _V2_HAND,
        "key": _V2_KEY,
        "pok": _V2_POK,
        "deck": Field(
            f"array of 32 bin({3 * _POINT})",
            _list(_bin(3 * _POINT), 32, 32),
            doc="D2: D1 shuffled and re-encrypted, `A_B || A_A || C` each",
        ),
        "proof": Field("bin(4352)", _bin(4352), doc="shuffle proof of D2"),
        "shares": Field(
            f"array of 3 bin({_SHARE})",
            _list(_bin(_SHARE), 3, 3),
            required=False,
            doc="dealer's shares for positions 0, 2, 4; absent in a pre-deal (sent in v2open)",
        ),
    },
    MessageType.V2OPEN: {
        "hand": Field("int", _int(0, 1 << 20), doc="the pre-dealt hand that starts"),
        "shares": Field(
            f"array of 3 bin({_SHARE})",
            _list(_bin(_SHARE), 3, 3),
            doc="dealer's shares for positions 0, 2, 4 of that hand (its D2's shares)",
        ),
    },
    MessageType.V2DECK3: {
        "hand": _V2_HAND,
        "shares": Field(
            f"array of 3 bin({_SHARE})",
            _list(_bin(_SHARE), 3, 3),
            doc="non-dealer's shares for positions 1, 3, 5",
        ),
        "action": Field(
            "map",
            _map,
            required=False,
            doc="the non-dealer's first action (v2 action payload); may be absent only "
            'when both hellos have `"early": true` (early cards, wire.md 6a): the action '
            "then follows as a `v2action`",
        ),
    },
    MessageType.V2ACTION: V2_ACTION_FIELDS,
    MessageType.V2REDEAL: {
        "shares": Field(
            f"array of 3 bin({_SHARE})",
            _list(_bin(_SHARE), 3, 3),
            doc="early redeal cards (feature bit 2, wire.md 6a): the non-dealer's shares "
            "for the dealer's redeal positions 7, 9, 11, right after the dealer's "
            "`accept-redeal`; its next action then carries no `shares`",
        ),
    },
    MessageType.REVEAL: {
        "first": Field("int", _int(0, 1 << 20), doc="hand number of the first seed"),
        "seeds": Field(
            f"array of 1..{MAX_SEEDS_PER_REVEAL} bin(32)",
            _list(_bin(32), 1, MAX_SEEDS_PER_REVEAL),
            doc="the sender's seeds of consecutive hands",
        ),
    },
    MessageType.RESULT: {
        "winner": Field("int 0..1", _int(0, 1)),
        "scores": Field("array of 2 int", _list(_int(0, 1 << 16), 2, 2)),
        "reason": Field("str", _str(1, 40), doc="GameEndReason value"),
        "hands": Field(
            "int",
            _int(1, 1 << 20),
            doc="hands started, as a resignation counts them (section 8.1); a pre-dealt "
            "hand the end left unstarted is not counted",
        ),
        "chain": Field("bin(32)", _bin(32), doc="hash of the last envelope before the results"),
    },
    MessageType.ABORT: {
        "reason": Field(
            "str",
            _one_of(*ABORT_REASONS),
            doc="why the sender ends the game (section 8); `resign` only when both "
            "hellos announce it (section 8.1)",
        ),
        "detail": Field("str 0..200", _str(0, 200), doc="human-readable detail"),
    },
}


#: Connection-level messages (wire.md section 13): signed but outside the chain.
CONTROL: Mapping[str, Mapping[str, Field]] = {
    MessageType.RESUME: {
        "nonce": Field(
            f"bin({RESUME_NONCE_SIZE})", _bin(RESUME_NONCE_SIZE), doc="fresh random bytes"
        ),
        "echo": Field(
            f"bin(0) or bin({RESUME_NONCE_SIZE})",
            lambda v: isinstance(v, bytes) and len(v) in (0, RESUME_NONCE_SIZE),
            doc="empty from the dialer; the dialer's nonce in the listener's answer",
        ),
    },
    MessageType.BYE: {},
    MessageType.REFUSE: {
        "key": Field("bin(32)", _bin(32), doc="the refusing host's Ed25519 public key"),
        "reason": Field("str", _one_of(*REFUSE_REASONS), doc="why the host turns us away"),
        "detail": Field("str 0..200", _str(0, 200), doc="human-readable detail"),
    },
}


def _clock_ms(v: Any) -> bool:
    return type(v) is int and 0 <= v <= MAX_CLOCK_MS


#: A ``resume`` when both hellos announce the clock in resume (feature bit 4,
#: wire.md 11.1, 13.1): ``nonce``, ``echo``, then the sender's view of the clock.
RESUME_CLOCK: Mapping[str, Field] = {
    **CONTROL[MessageType.RESUME],
    "left": Field(
        f"int 0..{MAX_CLOCK_MS} or nil",
        lambda v: v is None or _clock_ms(v),
        doc="milliseconds the sender's turn clock left the player it times (the "
        "receiver) when it stopped at the drop; nil when it times nobody",
    ),
    "away": Field(
        f"int 0..{MAX_CLOCK_MS}",
        _clock_ms,
        doc="milliseconds of the away budget the sender counted before this drop",
    ),
}


def validate_fields(
    payload: Mapping[str, Any], fields: Mapping[str, Field], what: str
) -> list[str]:
    """Return the problems of ``payload`` against ``fields`` (empty when valid)."""
    problems = [f"unknown field {k!r}" for k in payload if k not in fields]
    for name, spec in fields.items():
        if name not in payload:
            if spec.required:
                problems.append(f"missing field {name!r}")
        elif not spec.check(payload[name]):
            problems.append(f"field {name!r} is not {spec.kind}")
    return [f"{what}: {p}" for p in problems]


def validate_payload(
    mtype: str, payload: dict[str, Any], *, evidence: tuple[bytes, ...], message_no: int
) -> None:
    """Raise :class:`MalformedMessageError` unless the payload matches the catalogue."""
    fields = CATALOGUE.get(mtype)
    if fields is None:
        raise MalformedMessageError(
            f"unknown message type {mtype!r}", evidence=evidence, message_no=message_no
        )
    problems = validate_fields(payload, fields, mtype)
    if not problems and mtype == MessageType.DECK4:
        problems = validate_fields(payload["action"], ACTION_FIELDS, "deck4.action")
    v2deck3_action = mtype == MessageType.V2DECK3 and "action" in payload  # early cards: absent
    if not problems and v2deck3_action:
        problems = validate_fields(payload["action"], V2_ACTION_FIELDS, "v2deck3.action")
    if not problems and mtype == MessageType.ACTION:
        problems = _action_problems(payload)
    if not problems and mtype == MessageType.DECK4:
        problems = _action_problems(payload["action"])
    if not problems and mtype == MessageType.V2ACTION:
        problems = _action_problems(payload, "share")
    if not problems and v2deck3_action:
        problems = _action_problems(payload["action"], "share")
    if problems:
        raise MalformedMessageError("; ".join(problems), evidence=evidence, message_no=message_no)


def _action_problems(action: Mapping[str, Any], card_field: str = "key") -> list[str]:
    is_play = action["act"] == "play"
    has_card = "pos" in action and card_field in action
    if is_play and not has_card:
        return [f"a play needs 'pos' and {card_field!r}"]
    if not is_play and ("pos" in action or card_field in action):
        return [f"{action['act']!r} takes no 'pos' or {card_field!r}"]
    return []
