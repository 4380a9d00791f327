"""The adversarial cases of the envelope itself (wire.md §1, §2, §5, §13.3):
frames, signatures, the envelope's fields and strict msgpack, the chain, the
message table and equivocation.  Data tables, and one small builder per section;
:mod:`._adversary` lists them in the spec's order.
"""

from __future__ import annotations

import msgpack

from truc_p2p.interop._misbehave import (
    ACT,
    COIN,
    DECK,
    REFUSE,
    Misbehave,
    Mutator,
    Target,
    abort_with,
)
from truc_p2p.interop._mutators import (
    WELL_FORMED,
    ChangeFields,
    chain_hash,
    first_key,
    flip_body,
    flip_sig,
    foreign,
    head,
    header,
    in_payload,
    pack,
    pack_map,
    payload_pairs,
    rebody,
    replay_previous,
    resign,
    seq_by,
    set_field,
    short,
    wrong_type,
    zero_sig,
)

__all__ = ["envelope_cases"]

_ENVELOPE_TARGETS = (COIN, DECK, ACT)

#: W §1: (length, what) of a frame cut short.
_SHORT_FRAMES = (
    (1, "a 1-byte frame"),
    (32, "a 32-byte frame"),
    (64, "a 64-byte frame (the least is 65)"),
)
#: W §1: lengths a header may announce but no receiver reads.
_OVERSIZE = (16385, 65536, 0x7FFFFFFF, 0xFFFFFFFF)

#: W §2: (name, mutator, what) of a bad signature.
_SIGNATURE_FAULTS: tuple[tuple[str, Mutator, str], ...] = (
    ("flipped-signature", flip_sig, "the signature's last bit flipped"),
    ("flipped-body-bit", flip_body, "a bit of the body flipped, signature kept"),
    ("foreign-key", foreign, "signed by a key that is not the runner's"),
    ("zero-signature", zero_sig, "64 zero bytes as signature"),
)

#: W §2: (name, row, mutator, what) of a body that breaks the envelope's shape or the
#: strict msgpack rules, under a valid signature: ``malformed``.
_SHAPES: tuple[tuple[str, str, Mutator, str], ...] = (
    ("not-an-array", "F5", rebody(lambda f: pack(f[6])), "the payload map alone as body"),
    ("six-fields", "F5", rebody(lambda f: pack(f[:6])), "a 6-array body"),
    ("eight-fields", "F5", rebody(lambda f: pack([*f, 0])), "an 8-array body"),
    ("version-str", "F5", resign(set_field(0, "1")), "version as a string"),
    ("version-bool", "F7", resign(set_field(0, True)), "version as a bool"),
    ("game-id-str", "F5", resign(lambda f: f.__setitem__(1, "x" * 32)), "game id as str"),
    ("seq-bin", "F5", resign(lambda f: f.__setitem__(2, b"\x03")), "seq as bin"),
    ("seq-bool", "F7", resign(lambda f: f.__setitem__(2, True)), "seq as a bool"),
    ("seq-negative", "F5", resign(set_field(2, -1)), "seq -1"),
    (
        "prev-short",
        "F5",
        resign(lambda f: f.__setitem__(3, f[3][:31])),
        "prev of 31 bytes",
    ),
    ("prev-str", "F5", resign(lambda f: f.__setitem__(3, "0" * 32)), "prev as str"),
    (
        "sender-bool",
        "F7",
        resign(lambda f: f.__setitem__(4, bool(f[4]))),
        "sender as bool",
    ),
    ("sender-2", "F5", resign(set_field(4, 2)), "sender 2"),
    ("type-bin", "F5", resign(lambda f: f.__setitem__(5, f[5].encode())), "type as bin"),
    ("type-unknown", "F5", resign(set_field(5, "gossip")), "an unknown type"),
    (
        "payload-array",
        "F5",
        resign(lambda f: f.__setitem__(6, list(f[6].values()))),
        "payload as array",
    ),
    ("payload-nil", "F5", resign(set_field(6, None)), "payload nil"),
    (
        "ext-type",
        "F7",
        rebody(
            lambda f: (
                head(f)
                + pack_map([*payload_pairs(f[6]), (pack("x"), pack(msgpack.ExtType(5, b"x")))])
            )
        ),
        "an ext value in the payload",
    ),
    (
        "timestamp",
        "F7",
        rebody(
            lambda f: (
                head(f) + pack_map([*payload_pairs(f[6]), (pack("t"), pack(msgpack.Timestamp(0)))])
            )
        ),
        "a timestamp in the payload",
    ),
    (
        "string-too-long",
        "F7",
        rebody(lambda f: head([*f[:5], "x" * 1025]) + pack(f[6])),
        "a type string of 1025 bytes",
    ),
    (
        "too-many-items",
        "F7",
        rebody(
            lambda f: (
                head(f)
                + pack_map([*payload_pairs(f[6]), *((pack(f"k{i}"), pack(i)) for i in range(65))])
            )
        ),
        "a payload map of more than 64 entries",
    ),
    (
        "nested-too-deep",
        "F7",
        rebody(
            lambda f: head(f) + pack_map([*payload_pairs(f[6]), (pack("n"), b"\x91" * 9 + b"\x90")])
        ),
        "a value nested 10 deep",
    ),
    (
        "duplicate-key",
        "F7",
        rebody(lambda f: head(f) + pack_map([*payload_pairs(f[6]), payload_pairs(f[6])[0]])),
        "a payload key twice",
    ),
    (
        "int-map-key",
        "F7",
        rebody(lambda f: head(f) + pack_map([*payload_pairs(f[6]), (pack(1), pack(1))])),
        "an int map key",
    ),
    (
        "unknown-field",
        "M1",
        resign(in_payload(lambda p: p.__setitem__("zz", 1))),
        "an unknown payload field",
    ),
    (
        "missing-field",
        "M1",
        resign(in_payload(lambda p: p.pop(first_key(p)))),
        "its first payload field left out",
    ),
    (
        "field-wrong-type",
        "M1",
        resign(in_payload(lambda p: p.__setitem__(first_key(p), 7.5))),
        "its first payload field a float",
    ),
)

#: W §2: (name, row, change, code, what) of a bad sequence, chain or game id.
_CHAIN: tuple[tuple[str, str, ChangeFields, str, str], ...] = (
    ("seq-ahead", "F12", seq_by(1), "bad-sequence", "seq one ahead"),
    ("seq-far", "F12", seq_by(1000), "bad-sequence", "seq 1000 ahead"),
    ("seq-behind", "F12", set_field(2, 1), "bad-sequence", "seq 1 (the peer's hello)"),
    (
        "broken-chain",
        "F12",
        lambda f: f.__setitem__(3, chain_hash(f[3])),
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
        lambda f: f.__setitem__(1, chain_hash(f[1])),
        "wrong-game",
        "another game's id",
    ),
    ("empty-game-id", "F14", set_field(1, b""), "wrong-game", "an empty game id"),
)


def _frames() -> list[Misbehave]:
    """W §1: frames.  A bad length is a link fault on a live connection (W 13.7)."""
    short_frames = [
        Misbehave(
            f"wire-1-short-frame-{length}",
            "F2",
            f"the runner's coin travels as {what}",
            COIN,
            short(length),
            REFUSE,
        )
        for length, what in _SHORT_FRAMES
    ]
    return short_frames + [
        Misbehave(
            f"wire-1-oversize-header-{length:x}",
            "F2",
            f"a header announcing {length} bytes and no body: refused from the header",
            COIN,
            header(length),
            REFUSE,
        )
        for length in _OVERSIZE
    ]


def _signatures() -> list[Misbehave]:
    """W §2: signatures.  On a live connection a bad signature is a link fault (13.7)."""
    return [
        Misbehave(
            f"wire-13.7-{name}-{t.name}",
            "F8",
            f"the runner's {t.name} with {what}",
            t,
            mut,
            REFUSE,
        )
        for t in _ENVELOPE_TARGETS
        for name, mut, what in _SIGNATURE_FAULTS
    ]


def _envelope(t: Target) -> list[Misbehave]:
    """W §2: the envelope of ``t``, signed by the runner (a valid signature over a
    bad body): its version, its shape, its sequence, chain and game id."""
    cases = [
        Misbehave(
            f"wire-2-version-{version}-{t.name}",
            "F6",
            f"the runner's {t.name} with version {version}",
            t,
            resign(set_field(0, version)),
            abort_with("version-mismatch"),
        )
        for version in (0, 2, 255)
    ]
    cases += [
        Misbehave(
            f"wire-2-{name}-{t.name}",
            row,
            f"the runner's {t.name} with {what}, signed",
            t,
            mut,
            abort_with("malformed"),
        )
        for name, row, mut, what in _SHAPES
    ]
    cases += [
        Misbehave(
            f"wire-2-{name}-{t.name}",
            row,
            f"the runner's {t.name} with {what}, signed",
            t,
            resign(change),
            abort_with(code),
        )
        for name, row, change, code, what in _CHAIN
    ]
    if t is not COIN:  # what the coin would replay is the hello, of the empty game id
        cases.append(
            Misbehave(
                f"wire-2-replayed-envelope-{t.name}",
                "F13",
                f"the runner sends its previous envelope again in place of its {t.name}",
                t,
                replay_previous,
                abort_with("bad-sequence"),
            )
        )
    return cases


def _message_table() -> list[Misbehave]:
    """W §3, §5: the message table.  Each a well-formed payload of its type, so that
    only the type is out of place."""
    return [
        Misbehave(
            f"wire-5-unexpected-{new_type}-for-{t.name}",
            "M2" if new_type in ("deck1", "action") else "S1",
            f"a well-formed {new_type} in place of the runner's {t.name}, signed",
            t,
            wrong_type(new_type, payload),
            abort_with("unexpected-message"),
        )
        for t in (COIN, DECK, ACT)
        for new_type, payload in WELL_FORMED.items()
        if new_type != t.name
    ]


def _equivocation() -> list[Misbehave]:
    """W §13.3: another envelope of the runner for a position it filled (its coin's)."""
    return [
        Misbehave(
            f"wire-13.3-equivocation-{t.name}",
            "N9",
            f"the runner's {t.name} at the position of its coin (2), signed",
            t,
            resign(set_field(2, 2)),
            abort_with("equivocation"),
        )
        for t in (DECK, ACT)
    ]


def envelope_cases() -> list[Misbehave]:
    """The cases of wire.md §1, §2, §5 and §13.3, in the spec's order."""
    cases = _frames() + _signatures()
    for t in _ENVELOPE_TARGETS:
        cases += _envelope(t)
    return cases + _message_table() + _equivocation()
