"""The verifier's first pass (:func:`first_pass`: what needs no game state) and the
facts about a transcript the passes share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from truc_p2p.crypto import VerifyKey
from truc_p2p.deck import (
    N_CARDS,
    canonical_key,
)
from truc_p2p.protocol._chain import Chain, hello_key
from truc_p2p.protocol._errors import (
    AuditFailedError,
    RemoteProtocolError,
    UnexpectedMessageError,
)
from truc_p2p.protocol._judge import check_reveal_covers
from truc_p2p.protocol._messages import MessageType, validate_payload
from truc_p2p.protocol._values import (
    FEATURE_EARLY_REDEAL,
    FEATURE_HEARTBEAT,
    FEATURE_RESIGN,
    FEATURE_REST_FINAL,
    FEATURE_RESUME_CLOCK,
    SERIES_KEYS,
    game_id_of,
    local_seed,
    nonce_features,
    nonce_is_from,
)
from truc_p2p.protocol._wire import (
    Envelope,
    decode_envelope,
    verify_signature,
)
from truc_p2p.rules import (
    Player,
)

if TYPE_CHECKING:
    pass


__all__ = [
    "Scan",
    "add_local_seeds",
    "canonical_keys",
    "check_lone_reveal",
    "first_pass",
    "unknown_features",
    "v1_hidden_cards",
]

#: The nonce feature bits this verifier knows (wire.md sections 8.1 and 11.1).
KNOWN_FEATURES = (
    FEATURE_RESIGN | FEATURE_REST_FINAL | FEATURE_EARLY_REDEAL | FEATURE_HEARTBEAT
) | FEATURE_RESUME_CLOCK
#: The hello option keys this verifier knows (wire.md sections 4 and 4.1).
KNOWN_OPTIONS = frozenset({"audit", "deck", "pipeline", "early", *SERIES_KEYS})


@dataclass
class Scan:
    envelopes: list[Envelope] = field(default_factory=list)
    keys: list[VerifyKey] = field(default_factory=list)
    # (player, hand) -> (seed, message number of the reveal)
    seeds: dict[tuple[Player, int], tuple[bytes, int]] = field(default_factory=dict)
    # (sender, message number) of every reveal, in order
    reveals: list[tuple[Player, int]] = field(default_factory=list)
    error: RemoteProtocolError | None = None


def first_pass(raws: Sequence[bytes], *, payloads: bool = True) -> Scan:
    """Pass 1: envelopes, signatures, the chain's judgement (game id, position,
    equivocation: :meth:`~._chain.Chain.check_link`, as the live session runs it),
    payload shapes.

    ``payloads=False`` checks the envelope layer alone (wire.md sections 1 and 2,
    which no feature changes): no payload is judged but the hellos' keys."""
    scan = Scan()
    game_id = b""
    chain = Chain()
    for n, raw in enumerate(raws):
        try:
            env = decode_envelope(raw, message_no=n)
            ev = (raw,)
            if n < 2:
                if env.type != MessageType.HELLO or env.sender != n:
                    raise UnexpectedMessageError(
                        f"message {n} must be player {n}'s hello", evidence=ev, message_no=n
                    )
                if payloads:
                    validate_payload(env.type, env.payload, evidence=ev, message_no=n)
                taken = scan.envelopes[0].payload["key"] if n else None
                scan.keys.append(hello_key(env, taken=taken))
            verify_signature(env, scan.keys[env.sender])
            chain.check_link(env, game_id)
            if payloads:
                validate_payload(env.type, env.payload, evidence=ev, message_no=n)
            if payloads and env.type == MessageType.REVEAL:
                sender = Player(env.sender)
                scan.reveals.append((sender, n))
                for k, seed in enumerate(env.payload["seeds"]):
                    scan.seeds.setdefault((sender, env.payload["first"] + k), (seed, n))
        except RemoteProtocolError as exc:
            exc.message_no = n
            scan.error = exc
            break
        scan.envelopes.append(env)
        chain.append(env.sender, raw, env.hash)
        if n == 1:
            game_id = game_id_of(scan.envelopes[0].raw, raw)
    return scan


def unknown_features(raws: Sequence[bytes]) -> tuple[int | str, ...]:
    """What the two hellos use that this verifier does not know (wire.md section
    11.2): each nonce feature bit both hellos announce (an ``int``, the bit's
    number) and each option key both hellos carry (a ``str``), outside
    :data:`KNOWN_FEATURES` and :data:`KNOWN_OPTIONS`.  A key in one hello only is
    no agreed feature: the hello is ``malformed``, as a live receiver finds it.
    Empty unless both hellos decode and their signatures check (an edited hello is
    judged as usual)."""
    hellos = []
    for n, raw in enumerate(raws[:2]):
        try:
            env = decode_envelope(raw, message_no=n)
            key = VerifyKey.from_bytes(env.payload["key"])
            verify_signature(env, key)
        except (RemoteProtocolError, KeyError, TypeError, ValueError):
            return ()
        if env.type != MessageType.HELLO or env.sender != n:
            return ()
        hellos.append(env.payload)
    if len(hellos) < 2:
        return ()
    masks = [nonce_features(h["nonce"]) if isinstance(h.get("nonce"), bytes) else 0 for h in hellos]
    agreed = masks[0] & masks[1] & ~KNOWN_FEATURES
    bits: list[int | str] = [b for b in range(32) if agreed >> b & 1]
    options = [h["options"] if isinstance(h.get("options"), dict) else {} for h in hellos]
    keys = {k for k in options[0] if k in options[1] and k not in KNOWN_OPTIONS}
    return (*bits, *sorted(str(k) for k in keys))


def canonical_keys(keys: Sequence[bytes]) -> list[bytes]:
    """Keys compared as the audit compares them: ``k`` and ``n - k`` are one key."""
    return [canonical_key(k) for k in keys]


def check_lone_reveal(scan: Scan) -> RemoteProtocolError | None:
    """A reveal that is not answered must still cover exactly the unaudited hands."""
    _, at = scan.reveals[-1]
    hands = sum(1 for e in scan.envelopes[:at] if e.type == MessageType.DECK1)
    start = 0
    if len(scan.reveals) > 1:
        last = scan.envelopes[scan.reveals[-2][1]].payload
        start = last["first"] + len(last["seeds"])
    try:
        check_reveal_covers(scan.envelopes[at], audited=start, hands=hands)
    except AuditFailedError as exc:
        exc.message_no = at
        return exc
    return None


def add_local_seeds(scan: Scan, secret: bytes) -> Player | None:
    """Add the seeds a session secret derives for its owner's unrevealed hands.

    The owner is the player whose hello carries the nonce the secret derives
    (wire.md section 9); ``None`` if the secret fits neither player.
    """
    owner = None
    for env in scan.envelopes[:2]:
        if nonce_is_from(env.payload["nonce"], secret):
            owner = Player(env.sender)
    if owner is None:
        return None
    hands = sum(1 for e in scan.envelopes if e.type == MessageType.DECK1)
    for hand in range(hands):
        scan.seeds.setdefault((owner, hand), (local_seed(secret, hand), -1))
    return owner


def v1_hidden_cards(scan: Scan) -> int:
    """Cards never played that v1's audit disclosed: with both seeds of a hand
    revealed, anyone can open all 32 positions of its deck."""
    plays: list[int] = []
    for env in scan.envelopes:
        if env.type == MessageType.DECK1:
            plays.append(0)
        action = env.payload.get("action") if env.type == MessageType.DECK4 else env.payload
        if plays and env.type in (MessageType.DECK4, MessageType.ACTION):
            plays[-1] += isinstance(action, dict) and action.get("act") == "play"
    revealed = [
        hand
        for hand in range(len(plays))
        if all(scan.seeds.get((p, hand), (b"", -1))[1] >= 0 for p in Player)
    ]
    return sum(N_CARDS - plays[hand] for hand in revealed)
