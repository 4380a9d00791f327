"""Deck v2 public state of one hand: every check a receiver or a third party runs.

Theory of operation.  Cards are points ``M_c``; a dealt position holds a
two-layer ElGamal ciphertext ``(A_B, A_A, B) = (s G, r G, M + s Y_B + r Y_A)``
where ``Y_A = x_A G`` (dealer) and ``Y_B = x_B G`` (non-dealer) are the
players' key shares.  Three messages deal a hand::

    D1  non-dealer  Y_B + key proof; the 32 cards shuffled and encrypted under Y_B
                    (entries (A_B, B)) + shuffle proof
    D2  dealer      Y_A + key proof; D1 shuffled, both layers re-randomised, the
                    dealer's layer added (entries (A_B, A_A, B)) + shuffle proof;
                    the dealer's shares x_A*A_A for positions 0, 2, 4 + DLEQ proofs
    D3  non-dealer  the non-dealer's shares x_B*A_B for positions 1, 3, 5 + DLEQ proofs

A position opens as ``B - x_B A_B - x_A A_A``: the holder adds its own share
to the other's.  Showing a card is sending the own share (with its proof);
a redeal is each player sending its shares for the other's redeal positions.
No message ever carries both shares of a position the holder did not show.

:class:`_Hand` parses and checks messages into that state; with
``verify=False`` (a side's own messages) it only parses.  It is shared by
:class:`~truc_p2p.deck.DeckSideV2` (for the peer's messages) and by
:class:`~truc_p2p.deck.HandVerifierV2`, the third-party verifier, which
checks everything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from truc_p2p.deck._errors import (
    CardAlreadySeenError,
    DeckUsageError,
    DuplicateEntryError,
    InvalidKeyProofError,
    InvalidPointError,
    InvalidShareError,
    InvalidShuffleProofError,
    MalformedDeckError,
    MalformedMessageError,
    MalformedProofError,
    NotACardError,
    PositionAlreadyShownError,
    WrongPositionError,
)
from truc_p2p.deck._schedule import N_CARDS, Role, positions
from truc_p2p.deck.v2 import _ec
from truc_p2p.deck.v2._derive import CONTEXT_SIZE, GAME_ID_SIZE, digest, hand_digest
from truc_p2p.deck.v2._ec import POINT_SIZE, Point, Pt
from truc_p2p.deck.v2._points import card_lookup, card_points
from truc_p2p.deck.v2._proofs import (
    DLEQ_SIZE,
    ProofFormatError,
    ShuffleProof,
    dleq_verify,
    pok_verify,
)
from truc_p2p.deck.v2._proofs import shuffle_verify as _shuffle_verify

__all__ = [
    "D1_ENTRY_SIZE",
    "D2_ENTRY_SIZE",
    "SHARE_SIZE",
    "STEP_BYTES",
    "binding",
    "check_hand_args",
    "share_binding",
]

D1_ENTRY_SIZE = 2 * POINT_SIZE
D2_ENTRY_SIZE = 3 * POINT_SIZE
SHARE_SIZE = POINT_SIZE + DLEQ_SIZE
STEP_BYTES = {"D1": b"\x01", "D2": b"\x02", "D3": b"\x03", "show": b"\x04", "redeal": b"\x05"}
_G = _ec.gmul(1)


def check_hand_args(game_id: object, hand: object, context: object) -> None:
    """Validate the local arguments that name a hand (a :class:`DeckUsageError` if bad)."""
    if not isinstance(game_id, bytes) or len(game_id) != GAME_ID_SIZE:
        raise DeckUsageError("game_id must be 32 bytes")
    if not isinstance(hand, int) or isinstance(hand, bool) or not 0 <= hand < 2**32:
        raise DeckUsageError("hand must be an int in [0, 2**32)")
    if not isinstance(context, bytes) or len(context) != CONTEXT_SIZE:
        raise DeckUsageError("context must be 32 bytes")


def binding(t: bytes, step: str, role: Role) -> bytes:
    """What a proof of ``step`` by ``role`` is bound to: ``T || step byte || role byte``."""
    return t + STEP_BYTES[step] + role.wire_byte


def share_binding(t2: bytes, step: str, role: Role, position: int) -> bytes:
    """A share proof's binding: ``T2 || step || role || position byte``."""
    return binding(t2, step, role) + bytes([position])


def _field(payload: Mapping[str, Any], name: str, step: str, culprit: Role) -> Any:
    if name not in payload:
        raise MalformedMessageError(f"missing field {name!r}", step=step, culprit=culprit)
    return payload[name]


def _as_payload(payload: object, step: str, culprit: Role) -> Mapping[str, Any]:
    if not isinstance(payload, Mapping):
        raise MalformedMessageError("payload is not a map", step=step, culprit=culprit)
    return payload


@dataclass
class _Deck:
    raw: tuple[bytes, ...]
    points: tuple[tuple[Pt, ...], ...]


class _Hand:
    """The public state of one hand, fed message by message."""

    def __init__(self, *, game_id: bytes, hand: int, context: bytes) -> None:
        check_hand_args(game_id, hand, context)
        self.game_id, self.hand, self.context = game_id, hand, context
        self.t0 = hand_digest(game_id, hand, context)
        self.t1 = b""
        self.t2 = b""
        self.keys: dict[Role, Pt] = {}
        self.d1: _Deck | None = None
        self.d2: _Deck | None = None
        self.shares: dict[tuple[Role, int], Pt] = {}
        self.shown: dict[Role, dict[int, int]] = {Role.DEALER: {}, Role.NONDEALER: {}}
        self.redeal = False
        self.redeal_sent: dict[Role, bool] = {Role.DEALER: False, Role.NONDEALER: False}
        self.seen: set[int] = set()
        self.checked: list[str] = []

    # -- parsing -------------------------------------------------------------------------

    def _key(self, payload: Mapping[str, Any], step: str, culprit: Role) -> Pt:
        raw = _field(payload, "key", step, culprit)
        try:
            return _ec.decode(raw)
        except ValueError:
            raise InvalidPointError(
                "key share is not a compressed secp256k1 point", step=step, culprit=culprit
            ) from None

    def _deck(self, payload: Mapping[str, Any], step: str, culprit: Role, width: int) -> _Deck:
        deck = _field(payload, "deck", step, culprit)
        if isinstance(deck, bytes | bytearray | str) or not isinstance(deck, Sequence):
            raise MalformedDeckError("deck is not a sequence", step=step, culprit=culprit)
        if len(deck) != N_CARDS:
            raise MalformedDeckError(
                f"deck has {len(deck)} entries, not 32", step=step, culprit=culprit
            )
        size = width * POINT_SIZE
        raw = tuple(deck)
        first: dict[bytes, int] = {}
        points = []
        for i, entry in enumerate(raw):
            if not isinstance(entry, bytes) or len(entry) != size:
                raise MalformedDeckError(
                    f"entry is not {size} bytes", step=step, position=i, culprit=culprit
                )
            # No two entries may share a component: equal layers would make the share
            # of one position open another (the proof rules this out too; this names it).
            for k in range(width):
                part = bytes([k]) + entry[k * POINT_SIZE : (k + 1) * POINT_SIZE]
                if part in first:
                    raise DuplicateEntryError(
                        f"component {k} equals that of entry {first[part]}",
                        step=step,
                        position=i,
                        culprit=culprit,
                    )
                first[part] = i
            try:
                points.append(
                    tuple(
                        _ec.decode(entry[k * POINT_SIZE : (k + 1) * POINT_SIZE])
                        for k in range(width)
                    )
                )
            except ValueError:
                raise InvalidPointError(
                    "entry holds an invalid point", step=step, position=i, culprit=culprit
                ) from None
        return _Deck(raw, tuple(points))

    def _shuffle_proof(
        self, payload: Mapping[str, Any], step: str, culprit: Role, vectors: int
    ) -> ShuffleProof:
        try:
            return ShuffleProof.from_bytes(
                _field(payload, "proof", step, culprit), N_CARDS, vectors
            )
        except ProofFormatError as exc:
            raise MalformedProofError(str(exc), step=step, culprit=culprit) from None

    def _pok(self, y: Pt, payload: Mapping[str, Any], t: bytes, step: str, culprit: Role) -> bytes:
        proof = _field(payload, "pok", step, culprit)
        try:
            ok = pok_verify(y, proof, binding=binding(t, step, culprit))
        except ProofFormatError as exc:
            raise MalformedProofError(str(exc), step=step, culprit=culprit) from None
        if not ok:
            raise InvalidKeyProofError("key proof fails", step=step, culprit=culprit)
        assert isinstance(proof, bytes)
        return proof

    # -- the deal ------------------------------------------------------------------------

    def accept_d1(self, payload: object, *, verify: bool) -> None:
        """The non-dealer's D1: key share, key proof, 32 entries (A_B, B), shuffle proof."""
        step, culprit = "D1", Role.NONDEALER
        if self.d1 is not None:
            raise DeckUsageError("D1 was already accepted")
        p = _as_payload(payload, step, culprit)
        y = self._key(p, step, culprit)
        pok = p.get("pok", b"") if not verify else self._pok(y, p, self.t0, step, culprit)
        deck = self._deck(p, step, culprit, 2)
        if verify:  # (a side's own message is only parsed, not re-checked)
            proof = self._shuffle_proof(p, step, culprit, 1)
            inputs = [(None, m) for m in card_points()]
            if not _shuffle_verify(
                inputs,
                deck.points,
                [(_G, y)],
                proof,
                binding=binding(self.t0, step, culprit),
            ):
                raise InvalidShuffleProofError(
                    "D1 is not the 32 cards shuffled and encrypted under the key share",
                    step=step,
                    culprit=culprit,
                )
        self.keys[culprit] = y
        self.d1 = deck
        self.t1 = digest(b"T1", self.t0, _ec.encode(y), pok, b"".join(deck.raw), p["proof"])
        self.checked.append(step)

    def accept_d2_deck(self, payload: object, *, verify: bool) -> None:
        """The dealer's D2 minus its shares: key share, key proof, 32 entries, proof."""
        step, culprit = "D2", Role.DEALER
        if self.d1 is None or self.d2 is not None:
            raise DeckUsageError("D2 comes once, after D1")
        p = _as_payload(payload, step, culprit)
        y = self._key(p, step, culprit)
        pok = p.get("pok", b"") if not verify else self._pok(y, p, self.t1, step, culprit)
        deck = self._deck(p, step, culprit, 3)
        y_b = self.keys[Role.NONDEALER]
        if verify:
            proof = self._shuffle_proof(p, step, culprit, 2)
            inputs = [(a, None, b) for a, b in self.d1.points]
            vectors: list[tuple[Point, ...]] = [(_G, None, y_b), (None, _G, y)]
            if not _shuffle_verify(
                inputs, deck.points, vectors, proof, binding=binding(self.t1, step, culprit)
            ):
                raise InvalidShuffleProofError(
                    "D2 is not D1 shuffled and re-encrypted under both key shares",
                    step=step,
                    culprit=culprit,
                )
        self.keys[culprit] = y
        self.d2 = deck
        self.t2 = digest(b"T2", self.t1, _ec.encode(y), pok, b"".join(deck.raw), p["proof"])

    def component(self, role: Role, position: int) -> Pt:
        """The ciphertext component of ``position`` that ``role``'s share applies to."""
        assert self.d2 is not None
        return self.d2.points[position][1 if role is Role.DEALER else 0]

    def accept_share(
        self, role: Role, position: int, raw: object, step: str, *, verify: bool
    ) -> Pt:
        """One 97-byte share ``S || e || s`` by ``role`` for ``position``."""
        if self.d2 is None:
            raise DeckUsageError("no share before D2")
        if not isinstance(raw, bytes) or len(raw) != SHARE_SIZE:
            raise MalformedMessageError(
                f"share is not {SHARE_SIZE} bytes", step=step, position=position, culprit=role
            )
        try:
            share = _ec.decode(raw[:POINT_SIZE])
        except ValueError:
            raise InvalidPointError(
                "share is not a compressed point", step=step, position=position, culprit=role
            ) from None
        if verify:
            try:
                ok = dleq_verify(
                    self.keys[role],
                    self.component(role, position),
                    share,
                    raw[POINT_SIZE:],
                    binding=share_binding(self.t2, step, role, position),
                )
            except ProofFormatError as exc:
                raise MalformedProofError(
                    str(exc), step=step, position=position, culprit=role
                ) from None
            if not ok:
                raise InvalidShareError(
                    "share does not open the position it claims with the sender's key",
                    step=step,
                    position=position,
                    culprit=role,
                )
        self.shares[(role, position)] = share
        return share

    def accept_shares(
        self, role: Role, expected: tuple[int, ...], raw: object, step: str, *, verify: bool
    ) -> None:
        """``role``'s shares for ``expected`` positions, an array in position order."""
        if isinstance(raw, bytes | bytearray | str) or not isinstance(raw, Sequence):
            raise MalformedMessageError("shares are not an array", step=step, culprit=role)
        if len(raw) != len(expected):
            raise WrongPositionError(
                f"{len(raw)} shares, not one for each of {expected}", step=step, culprit=role
            )
        for pos, item in zip(expected, raw, strict=True):
            self.accept_share(role, pos, item, step, verify=verify)

    def open_card(self, position: int, step: str, culprit: Role, own: Pt | None = None) -> int:
        """The card at ``position`` from both shares (``own``: a side's unsent share)."""
        assert self.d2 is not None
        dealer = self.shares.get((Role.DEALER, position))
        nondealer = self.shares.get((Role.NONDEALER, position))
        if own is not None:
            if culprit is Role.DEALER:
                nondealer = own
            else:
                dealer = own
        if dealer is None or nondealer is None:
            raise DeckUsageError(f"position {position} lacks a share")
        m = _ec.add([self.d2.points[position][2], _ec.neg(dealer), _ec.neg(nondealer)])
        card = card_lookup().get(_ec.encode(m))
        if card is None:
            raise NotACardError(
                "opened position is not a card", step=step, position=position, culprit=culprit
            )
        if card in self.seen:
            raise CardAlreadySeenError(
                f"opened card {card} was already seen",
                step=step,
                position=position,
                culprit=culprit,
            )
        self.seen.add(card)
        return card

    def accept_redeal(self, role: Role, raw: object, *, verify: bool) -> None:
        """``role``'s shares for the other's redeal positions; switches to the redeal."""
        if self.d2 is None:
            raise DeckUsageError("no redeal before the deal")
        if self.redeal_sent[role]:
            raise DeckUsageError(f"{role.value} already sent its redeal shares")
        if any(self.shown.values()):
            raise DeckUsageError("no redeal once a card has been shown")
        self.accept_shares(role, positions(role.other, True), raw, "redeal", verify=verify)
        self.redeal_sent[role] = True
        self.redeal = True
        self.checked.append(f"redeal {role.value}")

    def accept_show(self, role: Role, position: object, raw: object, *, verify: bool) -> int:
        """``role`` shows ``position`` with its own share: check it and open the card."""
        step = "show"
        if not isinstance(position, int) or isinstance(position, bool):
            raise MalformedMessageError("position is not an int", step=step, culprit=role)
        if position not in positions(role, self.redeal):
            raise WrongPositionError(
                "shown position is not in the shower's current hand",
                step=step,
                position=position,
                culprit=role,
            )
        if position in self.shown[role]:
            raise PositionAlreadyShownError(
                "position was already shown", step=step, position=position, culprit=role
            )
        self.accept_share(role, position, raw, step, verify=verify)
        card = self.open_card(position, step, role)
        self.shown[role][position] = card
        self.checked.append(f"show {role.value} {position}")
        return card
