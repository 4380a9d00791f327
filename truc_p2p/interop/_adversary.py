"""The adversarial cases of ``truc-p2p interop`` (``protocol_spec/interop.md`` §8).

Every receiver row of ``protocol_spec/conformance.md`` ("a receiver rejects X as
Y") is one or more cases here, named after its section h2spec-style
(``wire-13.1-resume-bad-clock-left``).  In each the runner is a deliberately
misbehaving peer, BoGo-style: its relay takes one of the runner's own envelopes
(the *target*: its ``hello``, ``coin``, first deck message, first action, or a
``resume`` after a cut) and replaces it with what the row forbids, signed with
the runner's key where the row needs a valid signature.  What the peer must do
is the case's :class:`Expect`: end the game with a signed ``abort`` of the
row's reason whose ``detail`` begins with the row's error code (the offending
envelope recorded before it when it joined the chain), or *refuse* it: close
that connection without an ``abort``, recording nothing of it.

A case is cheap: it misbehaves within the first messages of a game, and a
refusal is judged as soon as the next connection opens (the case stops there).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack

from truc_p2p.crypto import SigningKey
from truc_p2p.interop._proxy import Raw
from truc_p2p.protocol import decode_envelope

__all__ = [
    "ADVERSARIAL",
    "Expect",
    "Misbehave",
    "Raw",
    "Target",
]

SIGNATURE = 64


@dataclass(frozen=True)
class Expect:
    """What the peer must do: ``abort`` with ``reason`` and a ``detail`` that
    begins with ``code``; or ``refuse`` (close the connection, no abort, nothing
    recorded)."""

    kind: str  # "abort", "refuse" or "fallback" (dial again without early cards)
    code: str = ""
    reason: str = ""


def _abort(code: str) -> Expect:
    reason = {
        "version-mismatch": "incompatible",
        "ruleset-mismatch": "incompatible",
        "cheat": "cheat",
        "illegal-move": "cheat",
        "equivocation": "cheat",
        "result-mismatch": "cheat",
    }.get(code, "error")
    return Expect("abort", code, reason)


def _lie(code: str) -> Expect:
    """A resume answer that lies about the chain: ``abort`` ``cheat`` (wire.md 13.1 step 5)."""
    return Expect("abort", code, "cheat")


REFUSE = Expect("refuse")
FALLBACK = Expect("fallback")


@dataclass(frozen=True)
class Target:
    """Which envelope of the runner the relay changes: the first of ``types`` (any
    type when empty) that carries ``key`` in its payload, on connection 1 unless
    ``resume`` (then the first ``resume`` on a later connection, after the relay cut
    connection 1 at the runner's ``cut_at``-th envelope)."""

    name: str
    types: tuple[str, ...] = ()
    key: str | None = None
    resume: bool = False
    cut_at: int = 3
    #: the target comes at the end of a whole game: the case has an honest game's time
    late: bool = False


COIN = Target("coin", ("coin",))
DECK = Target("deck", ("v2deck1", "v2deck2"))
ACT = Target("act", (), key="act")
HELLO = Target("hello", ("hello",))
RESUME = Target("resume", ("resume",), resume=True)
RESULT = Target("result", ("result",), late=True)


@dataclass
class Context:
    """What a misbehaviour may use: the runner's key, the runner's envelopes so far
    on this connection and the peer's, and a stranger's key."""

    key: SigningKey
    mine: list[bytes] = field(default_factory=list)
    theirs: list[bytes] = field(default_factory=list)
    stranger: SigningKey = field(default_factory=SigningKey.generate)


#: ``misbehave(envelope, context)`` -> the frames to send instead (envelope bytes, or
#: :class:`Raw` bytes written as they are), or ``None`` to close the connection.
Mutator = Callable[[bytes, Context], list[bytes | Raw] | None]


@dataclass(frozen=True)
class Misbehave:
    """One adversarial case: ``row`` of conformance.md, ``section`` of the spec it
    is named after; ``level`` ``must`` or ``should`` (``--strict``)."""

    name: str
    row: str
    summary: str
    target: Target
    mutate: Mutator
    expect: Expect
    roles: tuple[str, ...] = ("host",)
    level: str = "must"


# -- building envelopes ----------------------------------------------------------


def _p(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


def _fields(raw: bytes) -> list[Any]:
    env = decode_envelope(raw)
    return [env.version, env.game_id, env.seq, env.prev, env.sender, env.type, dict(env.payload)]


def _body(fields: list[Any]) -> bytes:
    return _p(fields)


def _signed(body: bytes, key: SigningKey) -> bytes:
    return body + key.sign(body)


def _resign(change: Callable[[list[Any]], None]) -> Mutator:
    """Change the decoded body fields, re-encode, sign with the runner's key."""

    def mutate(raw: bytes, ctx: Context) -> list[bytes | Raw]:
        fields = _fields(raw)
        change(fields)
        return [_signed(_body(fields), ctx.key)]

    return mutate


def _rebody(make: Callable[[list[Any]], bytes]) -> Mutator:
    """Build the body bytes by hand from the decoded fields, sign with the runner's key."""

    def mutate(raw: bytes, ctx: Context) -> list[bytes | Raw]:
        return [_signed(make(_fields(raw)), ctx.key)]

    return mutate


def _head(fields: list[Any]) -> bytes:
    """The body's array header and its first six fields, canonically packed."""
    return b"\x97" + b"".join(_p(f) for f in fields[:6])


def _map(pairs: list[tuple[bytes, bytes]]) -> bytes:
    n = len(pairs)
    head = bytes([0x80 | n]) if n < 16 else b"\xde" + n.to_bytes(2, "big")
    return head + b"".join(k + v for k, v in pairs)


def _payload_pairs(payload: dict[str, Any]) -> list[tuple[bytes, bytes]]:
    return [(_p(k), _p(v)) for k, v in payload.items()]


def _first_key(payload: dict[str, Any]) -> str:
    return next(iter(payload))


# -- the misbehaviours -------------------------------------------------------------


def _set(index: int, value: Any) -> Callable[[list[Any]], None]:
    def change(fields: list[Any]) -> None:
        fields[index] = value

    return change


def _seq_by(delta: int) -> Callable[[list[Any]], None]:
    def change(fields: list[Any]) -> None:
        fields[2] = max(0, fields[2] + delta) if delta > -100 else 0

    return change


def _payload(change: Callable[[dict[str, Any]], None]) -> Callable[[list[Any]], None]:
    def outer(fields: list[Any]) -> None:
        change(fields[6])

    return outer


def _flip_sig(raw: bytes, ctx: Context) -> list[bytes | Raw]:
    return [raw[:-1] + bytes([raw[-1] ^ 0x01])]


def _flip_body(raw: bytes, ctx: Context) -> list[bytes | Raw]:
    body = bytearray(raw[:-SIGNATURE])
    body[-1] ^= 0x01 if body[-1] not in (0xC0, 0xC1) else 0x02
    return [bytes(body) + raw[-SIGNATURE:]]


def _foreign(raw: bytes, ctx: Context) -> list[bytes | Raw]:
    body = raw[:-SIGNATURE]
    return [_signed(body, ctx.stranger)]


def _zero_sig(raw: bytes, ctx: Context) -> list[bytes | Raw]:
    return [raw[:-SIGNATURE] + bytes(SIGNATURE)]


def _header(length: int, body: bytes = b"") -> Mutator:
    def mutate(raw: bytes, ctx: Context) -> list[bytes | Raw]:
        return [Raw(length.to_bytes(4, "big") + body)]

    return mutate


def _short(length: int) -> Mutator:
    def mutate(raw: bytes, ctx: Context) -> list[bytes | Raw]:
        return [Raw(length.to_bytes(4, "big") + raw[:length])]

    return mutate


def _replay_previous(raw: bytes, ctx: Context) -> list[bytes | Raw]:
    return [ctx.mine[-1] if ctx.mine else raw]


def _chain_hash(raw: bytes) -> bytes:
    return hashlib.sha256(raw).digest()


def _wrong_type(new_type: str, payload: dict[str, Any] | None = None) -> Mutator:
    def change(fields: list[Any]) -> None:
        fields[5] = new_type
        if payload is not None:
            fields[6] = dict(payload)

    return _resign(change)


_SHARES = [b"\x02" + bytes(96)] * 3
#: A well-formed payload of each type (wire.md §3) that a case puts out of place.
_WELL_FORMED: dict[str, dict[str, Any]] = {
    "coin": {"coin": bytes(32)},
    "result": {
        "winner": 0,
        "scores": [12, 0],
        "reason": "target",
        "hands": 1,
        "chain": bytes(32),
    },
    "v2open": {"hand": 1, "shares": _SHARES},
    "v2redeal": {"shares": _SHARES},
    "reveal": {"first": 0, "seeds": [bytes(32)]},
    "deck1": {"deck": [bytes(32)] * 32, "commitment": bytes(32)},
}


def _resume_other_game(fields: list[Any]) -> None:
    fields[1] = hashlib.sha256(b"another game" + fields[1]).digest()


def _resume_foreign_key(raw: bytes, ctx: Context) -> list[bytes | Raw]:
    return [_signed(raw[:-SIGNATURE], ctx.stranger)]


def _resume_other_chain(fields: list[Any]) -> None:
    """*have* 1 (the receiver holds it) with a ``prev`` that is not its hash."""
    fields[2] = 1
    fields[3] = hashlib.sha256(b"not our chain").digest()


def _resume_lacks_own(fields: list[Any]) -> None:
    fields[2] = 0
    fields[3] = bytes(32)


def _abort_instead(reason: str, detail: str) -> Mutator:
    return _wrong_type("abort", {"reason": reason, "detail": detail})


def _abort_behind_own(raw: bytes, ctx: Context) -> list[bytes | Raw]:
    """An abort at the position of the runner's previous envelope, chained like it:
    it points back over a message of its own sender (wire.md §8, R3)."""
    fields = _fields(raw)
    mine = _fields(ctx.mine[-1]) if ctx.mine else fields
    fields[2], fields[3] = mine[2], mine[3]
    fields[5], fields[6] = "abort", {"reason": "quit", "detail": "behind its own message"}
    return [_signed(_body(fields), ctx.key)]


def _abort_other_chain(fields: list[Any]) -> None:
    fields[3] = hashlib.sha256(b"another chain" + fields[3]).digest()
    fields[5], fields[6] = "abort", {"reason": "quit", "detail": "on another chain"}


def _illegal_act(payload: dict[str, Any]) -> None:
    """An act the rules engine cannot allow at the runner's first action: with a
    redeal pending, ``accept`` (no raise is); otherwise ``decline-redeal`` (no redeal
    is).  The shares and ``open`` it carried stay (but an ``accept-redeal``'s own
    shares, due only with it), so only its legality is wrong."""
    answering_redeal = payload["act"] in ("accept-redeal", "decline-redeal")
    for key in ("pos", "share") + (("shares",) if payload["act"] == "accept-redeal" else ()):
        payload.pop(key, None)
    payload["act"] = "accept" if answering_redeal else "decline-redeal"


def _toggle(key: str) -> Callable[[dict[str, Any]], None]:
    """``key`` (three well-formed shares) added where it is absent, taken away where
    present: either way it is where it is not due, or missing where it is."""

    def change(payload: dict[str, Any]) -> None:
        if key in payload:
            del payload[key]
        else:
            payload[key] = list(_SHARES)

    return change


# -- the table ---------------------------------------------------------------------------

_ENVELOPE_TARGETS = (COIN, DECK, ACT)


def _build() -> list[Misbehave]:
    cases: list[Misbehave] = []

    def add(
        name: str,
        row: str,
        summary: str,
        target: Target,
        mutate: Mutator,
        expect: Expect,
        *,
        roles: tuple[str, ...] = ("host",),
        level: str = "must",
    ) -> None:
        cases.append(Misbehave(name, row, summary, target, mutate, expect, roles, level))

    # W §1: frames.  A bad length is a link fault on a live connection (W 13.7).
    for length, what in (
        (1, "a 1-byte frame"),
        (32, "a 32-byte frame"),
        (64, "a 64-byte frame (the least is 65)"),
    ):
        add(
            f"wire-1-short-frame-{length}",
            "F2",
            f"the runner's coin travels as {what}",
            COIN,
            _short(length),
            REFUSE,
        )
    for length in (16385, 65536, 0x7FFFFFFF, 0xFFFFFFFF):
        add(
            f"wire-1-oversize-header-{length:x}",
            "F2",
            f"a header announcing {length} bytes and no body: refused from the header",
            COIN,
            _header(length),
            REFUSE,
        )
    # W §2: signatures.  On a live connection a bad signature is a link fault (13.7).
    for t in _ENVELOPE_TARGETS:
        faults: tuple[tuple[str, Mutator, str], ...] = (
            ("flipped-signature", _flip_sig, "the signature's last bit flipped"),
            ("flipped-body-bit", _flip_body, "a bit of the body flipped, signature kept"),
            ("foreign-key", _foreign, "signed by a key that is not the runner's"),
            ("zero-signature", _zero_sig, "64 zero bytes as signature"),
        )
        for name, mut, what in faults:
            add(
                f"wire-13.7-{name}-{t.name}",
                "F8",
                f"the runner's {t.name} with {what}",
                t,
                mut,
                REFUSE,
            )
    # W §2: the envelope, signed by the runner (a valid signature over a bad body).
    for t in _ENVELOPE_TARGETS:
        for version in (0, 2, 255):
            add(
                f"wire-2-version-{version}-{t.name}",
                "F6",
                f"the runner's {t.name} with version {version}",
                t,
                _resign(_set(0, version)),
                _abort("version-mismatch"),
            )
        shapes: list[tuple[str, str, Mutator, str]] = [
            ("not-an-array", "F5", _rebody(lambda f: _p(f[6])), "the payload map alone as body"),
            ("six-fields", "F5", _rebody(lambda f: _p(f[:6])), "a 6-array body"),
            ("eight-fields", "F5", _rebody(lambda f: _p([*f, 0])), "an 8-array body"),
            ("version-str", "F5", _resign(_set(0, "1")), "version as a string"),
            ("version-bool", "F7", _resign(_set(0, True)), "version as a bool"),
            ("game-id-str", "F5", _resign(lambda f: f.__setitem__(1, "x" * 32)), "game id as str"),
            ("seq-bin", "F5", _resign(lambda f: f.__setitem__(2, b"\x03")), "seq as bin"),
            ("seq-bool", "F7", _resign(lambda f: f.__setitem__(2, True)), "seq as a bool"),
            ("seq-negative", "F5", _resign(_set(2, -1)), "seq -1"),
            (
                "prev-short",
                "F5",
                _resign(lambda f: f.__setitem__(3, f[3][:31])),
                "prev of 31 bytes",
            ),
            ("prev-str", "F5", _resign(lambda f: f.__setitem__(3, "0" * 32)), "prev as str"),
            (
                "sender-bool",
                "F7",
                _resign(lambda f: f.__setitem__(4, bool(f[4]))),
                "sender as bool",
            ),
            ("sender-2", "F5", _resign(_set(4, 2)), "sender 2"),
            ("type-bin", "F5", _resign(lambda f: f.__setitem__(5, f[5].encode())), "type as bin"),
            ("type-unknown", "F5", _resign(_set(5, "gossip")), "an unknown type"),
            (
                "payload-array",
                "F5",
                _resign(lambda f: f.__setitem__(6, list(f[6].values()))),
                "payload as array",
            ),
            ("payload-nil", "F5", _resign(_set(6, None)), "payload nil"),
            (
                "ext-type",
                "F7",
                _rebody(
                    lambda f: (
                        _head(f)
                        + _map([*_payload_pairs(f[6]), (_p("x"), _p(msgpack.ExtType(5, b"x")))])
                    )
                ),
                "an ext value in the payload",
            ),
            (
                "timestamp",
                "F7",
                _rebody(
                    lambda f: (
                        _head(f)
                        + _map([*_payload_pairs(f[6]), (_p("t"), _p(msgpack.Timestamp(0)))])
                    )
                ),
                "a timestamp in the payload",
            ),
            (
                "string-too-long",
                "F7",
                _rebody(lambda f: _head([*f[:5], "x" * 1025]) + _p(f[6])),
                "a type string of 1025 bytes",
            ),
            (
                "too-many-items",
                "F7",
                _rebody(
                    lambda f: (
                        _head(f)
                        + _map([*_payload_pairs(f[6]), *((_p(f"k{i}"), _p(i)) for i in range(65))])
                    )
                ),
                "a payload map of more than 64 entries",
            ),
            (
                "nested-too-deep",
                "F7",
                _rebody(
                    lambda f: (
                        _head(f) + _map([*_payload_pairs(f[6]), (_p("n"), b"\x91" * 9 + b"\x90")])
                    )
                ),
                "a value nested 10 deep",
            ),
            (
                "duplicate-key",
                "F7",
                _rebody(
                    lambda f: _head(f) + _map([*_payload_pairs(f[6]), _payload_pairs(f[6])[0]])
                ),
                "a payload key twice",
            ),
            (
                "int-map-key",
                "F7",
                _rebody(lambda f: _head(f) + _map([*_payload_pairs(f[6]), (_p(1), _p(1))])),
                "an int map key",
            ),
            (
                "unknown-field",
                "M1",
                _resign(_payload(lambda p: p.__setitem__("zz", 1))),
                "an unknown payload field",
            ),
            (
                "missing-field",
                "M1",
                _resign(_payload(lambda p: p.pop(_first_key(p)))),
                "its first payload field left out",
            ),
            (
                "field-wrong-type",
                "M1",
                _resign(_payload(lambda p: p.__setitem__(_first_key(p), 7.5))),
                "its first payload field a float",
            ),
        ]
        for name, row, mut, what in shapes:
            add(
                f"wire-2-{name}-{t.name}",
                row,
                f"the runner's {t.name} with {what}, signed",
                t,
                mut,
                _abort("malformed"),
            )
        # W §2: sequence, chain, game id
        for name, row, change, code, what in (
            ("seq-ahead", "F12", _seq_by(1), "bad-sequence", "seq one ahead"),
            ("seq-far", "F12", _seq_by(1000), "bad-sequence", "seq 1000 ahead"),
            ("seq-behind", "F12", _set(2, 1), "bad-sequence", "seq 1 (the peer's hello)"),
            (
                "broken-chain",
                "F12",
                lambda f: f.__setitem__(3, _chain_hash(f[3])),
                "broken-chain",
                "a prev that is not the last envelope's hash",
            ),
            (
                "prev-zero",
                "F12",
                lambda f: f.__setitem__(3, bytes(32)),
                "broken-chain",
                "32 zero bytes as prev",
            ),
            (
                "wrong-game-id",
                "F14",
                lambda f: f.__setitem__(1, _chain_hash(f[1])),
                "wrong-game",
                "another game's id",
            ),
            ("empty-game-id", "F14", _set(1, b""), "wrong-game", "an empty game id"),
        ):
            add(
                f"wire-2-{name}-{t.name}",
                row,
                f"the runner's {t.name} with {what}, signed",
                t,
                _resign(change),
                _abort(code),
            )
        if t is COIN:
            continue  # what it would replay is the hello, of the empty game id
        add(
            f"wire-2-replayed-envelope-{t.name}",
            "F13",
            f"the runner sends its previous envelope again in place of its {t.name}",
            t,
            _replay_previous,
            _abort("bad-sequence"),
        )
    # W §3, §5: the message table.  Each a well-formed payload of its type, so that
    # only the type is out of place.
    for t in (COIN, DECK, ACT):
        for new_type, payload in _WELL_FORMED.items():
            if new_type == t.name:
                continue
            add(
                f"wire-5-unexpected-{new_type}-for-{t.name}",
                "M2" if new_type in ("deck1", "action") else "S1",
                f"a well-formed {new_type} in place of the runner's {t.name}, signed",
                t,
                _wrong_type(new_type, payload),
                _abort("unexpected-message"),
            )
    # W §13.3: another envelope of the runner for a position it filled (its coin's)
    for t in (DECK, ACT):
        add(
            f"wire-13.3-equivocation-{t.name}",
            "N9",
            f"the runner's {t.name} at the position of its coin (2), signed",
            t,
            _resign(_set(2, 2)),
            _abort("equivocation"),
        )
    # W §4: hello and coin
    add(
        "wire-4.4-coin-does-not-open",
        "H5",
        "the runner's coin is not the one its hello committed to",
        COIN,
        _resign(_payload(lambda p: p.__setitem__("coin", _chain_hash(p["coin"])))),
        _abort("cheat"),
    )
    add(
        "wire-4.4-coin-short",
        "H5",
        "the runner's coin has 31 bytes",
        COIN,
        _resign(_payload(lambda p: p.__setitem__("coin", p["coin"][:31]))),
        _abort("malformed"),
    )
    for name, change, code, what in (
        (
            "ruleset-target",
            lambda p: p["ruleset"].__setitem__("target", 24),
            "ruleset-mismatch",
            "another target",
        ),
        (
            "ruleset-ladder",
            lambda p: p["ruleset"].__setitem__("ladder", "zz"),
            "malformed",
            "an unknown ladder",
        ),
        (
            "options-classic",
            lambda p: p["options"].pop("pipeline", None),
            "ruleset-mismatch",
            "no pipelined deal",
        ),
        (
            "options-early-false",
            lambda p: p["options"].__setitem__("early", False),
            "malformed",
            "early false spelled out",
        ),
        (
            "options-unknown",
            lambda p: p["options"].__setitem__("zz", True),
            "malformed",
            "an unknown option",
        ),
    ):
        add(
            f"wire-4-hello-{name}",
            "H2" if code == "ruleset-mismatch" else "H3",
            f"the runner answers the peer's hello with {what}",
            HELLO,
            _resign(_payload(change)),
            _abort(code),
            roles=("join",),
        )
    # W §3, §6a: deck and action payloads
    add(
        "wire-6a-deck-wrong-hand",
        "M4",
        "the runner's first deck message names hand 1",
        DECK,
        _resign(_payload(lambda p: p.__setitem__("hand", 1))),
        _abort("malformed"),
    )
    add(
        "wire-6a-deck-extra-shares",
        "S8",
        "the runner's first deck message carries shares",
        DECK,
        _resign(_payload(lambda p: p.__setitem__("shares", [bytes(33)]))),
        _abort("malformed"),
    )
    for name, change, what in (
        (
            "deck-proof-bit",
            lambda p: p.__setitem__("proof", _flip_mid(p["proof"])),
            "a bit of its proof flipped",
        ),
        (
            "deck-pok-bit",
            lambda p: p.__setitem__("pok", _flip_mid(p["pok"])),
            "a bit of its key proof flipped",
        ),
        (
            "deck-key-bit",
            lambda p: p.__setitem__("key", _flip_mid(p["key"])),
            "a bit of its key flipped",
        ),
        (
            "deck-duplicate-entry",
            lambda p: p.__setitem__("deck", [p["deck"][1], *p["deck"][1:]]),
            "its first deck entry a copy of the second",
        ),
        (
            "deck-swapped-entries",
            lambda p: p.__setitem__("deck", [p["deck"][1], p["deck"][0], *p["deck"][2:]]),
            "two deck entries swapped",
        ),
        (
            "deck-bad-point",
            lambda p: p.__setitem__("deck", [b"\x05" + p["deck"][0][1:], *p["deck"][1:]]),
            "a deck entry that is no point",
        ),
        (
            "deck-proof-short",
            lambda p: p.__setitem__("proof", p["proof"][:-1]),
            "a proof one byte short",
        ),
    ):
        add(
            f"deck-7-{name}",
            "S6",
            f"the runner's first deck message with {what}, signed",
            DECK,
            _resign(_payload(change)),
            _abort("malformed" if name == "deck-proof-short" else "cheat"),
        )
    add(
        "wire-6a-action-unknown-act",
        "M1",
        "the runner's first action names an unknown act",
        ACT,
        _resign(_payload(lambda p: p.__setitem__("act", "dance"))),
        _abort("malformed"),
    )
    add(
        "wire-6a-action-pos-out-of-range",
        "M3",
        "the runner's first action carries pos 99",
        ACT,
        _resign(_payload(lambda p: p.__setitem__("pos", 99))),
        _abort("malformed"),
    )
    # W §8: aborts
    for name, reason, detail, code in (
        ("abort-unknown-reason", "bored", "x", "malformed"),
        ("abort-detail-too-long", "error", "x" * 201, "malformed"),
        ("abort-detail-control", "error", "bad\x07bell", "malformed"),
        ("abort-resign-before-coin", "resign", "", "unexpected-message"),
    ):
        add(
            f"wire-8-{name}",
            "R4" if code == "malformed" else "R7",
            f"an abort {reason!r} in place of the runner's coin",
            COIN,
            _abort_instead(reason, detail),
            _abort(code),
        )
    # W §8: where an abort may chain (R3: back to k only over the receiver's messages)
    add(
        "wire-8-abort-behind-its-own",
        "R3",
        "an abort in place of the runner's first action, at the place of the runner's "
        "previous envelope (over a message of its own)",
        ACT,
        _abort_behind_own,
        _abort("bad-sequence"),
    )
    add(
        "wire-8-abort-broken-chain",
        "R3",
        "an abort in place of the runner's first action, its prev of another chain",
        ACT,
        _resign(_abort_other_chain),
        _abort("broken-chain"),
    )
    # W §6, §6a, §6b: the action's legality, redeal shares and open
    add(
        "wire-6a-action-illegal",
        "S2",
        "the runner's first action is one its rules engine cannot allow then",
        ACT,
        _resign(_payload(_illegal_act)),
        _abort("illegal-move"),
    )
    add(
        "wire-6a-action-redeal-shares-out-of-place",
        "S5",
        "the runner's first action with redeal shares where none are due (or without "
        "them where they are)",
        ACT,
        _resign(_payload(_toggle("shares"))),
        _abort("malformed"),
    )
    add(
        "wire-6b-action-open-out-of-place",
        "S9",
        "the runner's first action with open where it is not due (or without it where it is)",
        ACT,
        _resign(_payload(_toggle("open"))),
        _abort("malformed"),
    )
    # W §7: the co-signed result
    for name, change, what in (
        ("hands", lambda p: p.__setitem__("hands", p["hands"] + 1), "one hand more"),
        ("winner", lambda p: p.__setitem__("winner", 1 - p["winner"]), "the other winner"),
    ):
        add(
            f"wire-7-result-mismatch-{name}",
            "R1",
            f"the runner's result names {what} than the game",
            RESULT,
            _resign(_payload(change)),
            _abort("result-mismatch"),
        )
    # W §13.1: resumes.  From the dialer (the runner joins, the peer listens): refused.
    for name, change, what in (
        (
            "resume-bad-clock-left",
            _payload(lambda p: p.__setitem__("left", 86_400_001)),
            "left beyond 86 400 000",
        ),
        ("resume-bad-clock-away", _payload(lambda p: p.__setitem__("away", -1)), "a negative away"),
        ("resume-clock-float", _payload(lambda p: p.__setitem__("away", 1.5)), "a float away"),
        ("resume-clock-nil-away", _payload(lambda p: p.__setitem__("away", None)), "a nil away"),
        ("resume-clock-missing", _payload(lambda p: p.pop("away", None)), "no away"),
        ("resume-clock-str", _payload(lambda p: p.__setitem__("left", "5")), "left as a string"),
        (
            "resume-echo-not-empty",
            _payload(lambda p: p.__setitem__("echo", bytes(16))),
            "a non-empty echo",
        ),
        (
            "resume-short-nonce",
            _payload(lambda p: p.__setitem__("nonce", bytes(15))),
            "a 15-byte nonce",
        ),
        ("resume-unknown-key", _payload(lambda p: p.__setitem__("zz", 1)), "an unknown key"),
        ("resume-other-game", _resume_other_game, "another game's id"),
        ("resume-wrong-seat", lambda f: f.__setitem__(4, 1 - f[4]), "the peer's seat as sender"),
        ("resume-lacks-own", _resume_lacks_own, "have 0 (only a dialer judges bad-sequence)"),
    ):
        add(
            f"wire-13.1-{name}",
            "N20" if "clock" in name else "N3",
            f"the runner's resume (it dials) with {what}: the connection only is refused",
            RESUME,
            _resign(change),
            REFUSE,
        )
    add(
        "wire-13.1-resume-broken-chain",
        "N5",
        "the runner's resume (it dials) says have 1 with a prev of another chain",
        RESUME,
        _resign(_resume_other_chain),
        _lie("broken-chain"),
    )
    add(
        "wire-13.1-resume-foreign-key",
        "N3",
        "the runner's resume signed by a stranger: refused",
        RESUME,
        _resume_foreign_key,
        REFUSE,
    )
    add(
        "wire-13.1-resume-garbage",
        "N4",
        "a frame of garbage in place of the runner's resume: refused",
        RESUME,
        lambda raw, ctx: [bytes(100)],
        REFUSE,
    )
    # From the listener (the peer dials): the answer.
    for name, change, expect, what in (
        (
            "answer-wrong-echo",
            _payload(lambda p: p.__setitem__("echo", bytes(16))),
            REFUSE,
            "an echo that is not the dialer's nonce",
        ),
        (
            "answer-bad-clock-left",
            _payload(lambda p: p.__setitem__("left", 86_400_001)),
            REFUSE,
            "left beyond 86 400 000",
        ),
        ("answer-other-game", _resume_other_game, REFUSE, "another game's id"),
        (
            "answer-broken-chain",
            _resume_other_chain,
            _lie("broken-chain"),
            "a prev of another chain",
        ),
        (
            "answer-lacks-own",
            _resume_lacks_own,
            _lie("bad-sequence"),
            "have 0: it claims to lack its own envelopes",
        ),
    ):
        add(
            f"wire-13.1-{name}",
            "N5" if expect.kind == "abort" else "N3",
            f"the runner's resume answer (it listens) with {what}",
            RESUME,
            _resign(change),
            expect,
            roles=("join",),
        )
    # W §11.1, C §1.1: the early-cards fallback, a SHOULD (wire.md §11.1's table)
    for name, mut, what in (
        ("close", _close, "closes the connection instead of its hello"),
        (
            "malformed",
            _abort_instead("error", "malformed at message 0: early"),
            "a malformed abort",
        ),
        (
            "incompatible",
            _abort_instead("incompatible", "ruleset-mismatch at message 0: early"),
            "an incompatible abort",
        ),
    ):
        add(
            f"wire-11.1-early-fallback-{name}",
            "N17",
            f"the runner (a host that predates early cards) {what}: the peer dials again "
            "without proposing them",
            HELLO,
            mut,
            FALLBACK,
            roles=("join",),
            level="should",
        )
    return cases


def _close(raw: bytes, ctx: Context) -> list[bytes | Raw] | None:
    return None


def _flip_mid(data: bytes) -> bytes:
    b = bytearray(data)
    b[len(b) // 2] ^= 0x01
    return bytes(b)


ADVERSARIAL: dict[str, Misbehave] = {case.name: case for case in _build()}
