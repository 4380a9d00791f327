"""The misbehaviours of the adversarial cases (:mod:`._adversary`): how the
runner's relay rebuilds, re-signs or garbles one of the runner's envelopes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import msgpack

from truc_p2p.crypto import SigningKey
from truc_p2p.interop._misbehave import Context, Mutator
from truc_p2p.interop._proxy import Raw
from truc_p2p.protocol import decode_envelope

SIGNATURE = 64

#: A change to the decoded body fields of an envelope (version ... payload), in place.
ChangeFields = Callable[[list[Any]], None]
#: A change to an envelope's payload map, in place.
ChangePayload = Callable[[dict[str, Any]], None]


# -- building envelopes ----------------------------------------------------------


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


def fields_of(raw: bytes) -> list[Any]:
    env = decode_envelope(raw)
    return [env.version, env.game_id, env.seq, env.prev, env.sender, env.type, dict(env.payload)]


def body_of(fields: list[Any]) -> bytes:
    return pack(fields)


def signed(body: bytes, key: SigningKey) -> bytes:
    return body + key.sign(body)


def resign(change: ChangeFields) -> Mutator:
    """Change the decoded body fields, re-encode, sign with the runner's key."""

    def mutate(raw: bytes, ctx: Context) -> list[bytes | Raw]:
        fields = fields_of(raw)
        change(fields)
        return [signed(body_of(fields), ctx.key)]

    return mutate


def rebody(make: Callable[[list[Any]], bytes]) -> Mutator:
    """Build the body bytes by hand from the decoded fields, sign with the runner's key."""

    def mutate(raw: bytes, ctx: Context) -> list[bytes | Raw]:
        return [signed(make(fields_of(raw)), ctx.key)]

    return mutate


def head(fields: list[Any]) -> bytes:
    """The body's array header and its first six fields, canonically packed."""
    return b"\x97" + b"".join(pack(f) for f in fields[:6])


def pack_map(pairs: list[tuple[bytes, bytes]]) -> bytes:
    n = len(pairs)
    head = bytes([0x80 | n]) if n < 16 else b"\xde" + n.to_bytes(2, "big")
    return head + b"".join(k + v for k, v in pairs)


def payload_pairs(payload: dict[str, Any]) -> list[tuple[bytes, bytes]]:
    return [(pack(k), pack(v)) for k, v in payload.items()]


def first_key(payload: dict[str, Any]) -> str:
    return next(iter(payload))


# -- the misbehaviours -------------------------------------------------------------


def set_field(index: int, value: Any) -> ChangeFields:
    def change(fields: list[Any]) -> None:
        fields[index] = value

    return change


def seq_by(delta: int) -> ChangeFields:
    def change(fields: list[Any]) -> None:
        fields[2] = max(0, fields[2] + delta) if delta > -100 else 0

    return change


def in_payload(change: ChangePayload) -> ChangeFields:
    def outer(fields: list[Any]) -> None:
        change(fields[6])

    return outer


def flip_sig(raw: bytes, ctx: Context) -> list[bytes | Raw]:
    return [raw[:-1] + bytes([raw[-1] ^ 0x01])]


def flip_body(raw: bytes, ctx: Context) -> list[bytes | Raw]:
    body = bytearray(raw[:-SIGNATURE])
    body[-1] ^= 0x01 if body[-1] not in (0xC0, 0xC1) else 0x02
    return [bytes(body) + raw[-SIGNATURE:]]


def foreign(raw: bytes, ctx: Context) -> list[bytes | Raw]:
    body = raw[:-SIGNATURE]
    return [signed(body, ctx.stranger)]


def zero_sig(raw: bytes, ctx: Context) -> list[bytes | Raw]:
    return [raw[:-SIGNATURE] + bytes(SIGNATURE)]


def header(length: int, body: bytes = b"") -> Mutator:
    def mutate(raw: bytes, ctx: Context) -> list[bytes | Raw]:
        return [Raw(length.to_bytes(4, "big") + body)]

    return mutate


def short(length: int) -> Mutator:
    def mutate(raw: bytes, ctx: Context) -> list[bytes | Raw]:
        return [Raw(length.to_bytes(4, "big") + raw[:length])]

    return mutate


def replay_previous(raw: bytes, ctx: Context) -> list[bytes | Raw]:
    return [ctx.mine[-1] if ctx.mine else raw]


def chain_hash(raw: bytes) -> bytes:
    return hashlib.sha256(raw).digest()


def wrong_type(new_type: str, payload: dict[str, Any] | None = None) -> Mutator:
    def change(fields: list[Any]) -> None:
        fields[5] = new_type
        if payload is not None:
            fields[6] = dict(payload)

    return resign(change)


SHARES = [b"\x02" + bytes(96)] * 3
#: A well-formed payload of each type (wire.md §3) that a case puts out of place.
WELL_FORMED: dict[str, dict[str, Any]] = {
    "coin": {"coin": bytes(32)},
    "result": {
        "winner": 0,
        "scores": [12, 0],
        "reason": "target",
        "hands": 1,
        "chain": bytes(32),
    },
    "v2open": {"hand": 1, "shares": SHARES},
    "v2redeal": {"shares": SHARES},
    "reveal": {"first": 0, "seeds": [bytes(32)]},
    "deck1": {"deck": [bytes(32)] * 32, "commitment": bytes(32)},
}


def resume_other_game(fields: list[Any]) -> None:
    fields[1] = hashlib.sha256(b"another game" + fields[1]).digest()


def resume_foreign_key(raw: bytes, ctx: Context) -> list[bytes | Raw]:
    return [signed(raw[:-SIGNATURE], ctx.stranger)]


def resume_other_chain(fields: list[Any]) -> None:
    """*have* 1 (the receiver holds it) with a ``prev`` that is not its hash."""
    fields[2] = 1
    fields[3] = hashlib.sha256(b"not our chain").digest()


def resume_lacks_own(fields: list[Any]) -> None:
    fields[2] = 0
    fields[3] = bytes(32)


def abort_instead(reason: str, detail: str) -> Mutator:
    return wrong_type("abort", {"reason": reason, "detail": detail})


def abort_behind_own(raw: bytes, ctx: Context) -> list[bytes | Raw]:
    """An abort at the position of the runner's previous envelope, chained like it:
    it points back over a message of its own sender (wire.md §8, R3)."""
    fields = fields_of(raw)
    mine = fields_of(ctx.mine[-1]) if ctx.mine else fields
    fields[2], fields[3] = mine[2], mine[3]
    fields[5], fields[6] = "abort", {"reason": "quit", "detail": "behind its own message"}
    return [signed(body_of(fields), ctx.key)]


def abort_other_chain(fields: list[Any]) -> None:
    fields[3] = hashlib.sha256(b"another chain" + fields[3]).digest()
    fields[5], fields[6] = "abort", {"reason": "quit", "detail": "on another chain"}


def illegal_act(payload: dict[str, Any]) -> None:
    """An act the rules engine cannot allow at the runner's first action: with a
    redeal pending, ``accept`` (no raise is); otherwise ``decline-redeal`` (no redeal
    is).  The shares and ``open`` it carried stay (but an ``accept-redeal``'s own
    shares, due only with it), so only its legality is wrong."""
    answering_redeal = payload["act"] in ("accept-redeal", "decline-redeal")
    for key in ("pos", "share") + (("shares",) if payload["act"] == "accept-redeal" else ()):
        payload.pop(key, None)
    payload["act"] = "accept" if answering_redeal else "decline-redeal"


def toggle(key: str) -> ChangePayload:
    """``key`` (three well-formed shares) added where it is absent, taken away where
    present: either way it is where it is not due, or missing where it is."""

    def change(payload: dict[str, Any]) -> None:
        if key in payload:
            del payload[key]
        else:
            payload[key] = list(SHARES)

    return change


def close(raw: bytes, ctx: Context) -> list[bytes | Raw] | None:
    return None


def flip_mid(data: bytes) -> bytes:
    b = bytearray(data)
    b[len(b) // 2] ^= 0x01
    return bytes(b)
