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
:class:`HandVerifierV2`, the third-party verifier, which checks everything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from coincurve import PublicKey

from truc_p2p.deck import _ec
from truc_p2p.deck._ec import POINT_SIZE, Point
from truc_p2p.deck._errors import (
    CardAlreadySeenError,
    CheatError,
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
from truc_p2p.deck._v2_derive import CONTEXT_SIZE, GAME_ID_SIZE, digest, hand_digest
from truc_p2p.deck._v2_points import card_lookup, card_points
from truc_p2p.deck._v2_proofs import (
    DLEQ_SIZE,
    ProofFormatError,
    ShuffleProof,
    dleq_verify,
    pok_verify,
)
from truc_p2p.deck._v2_proofs import shuffle_verify as _shuffle_verify

__all__ = [
    "D1_ENTRY_SIZE",
    "D2_ENTRY_SIZE",
    "SHARE_SIZE",
    "STEP_BYTES",
    "DeckReportV2",
    "HandRecordV2",
    "HandVerifierV2",
    "share_binding",
    "verify_hand_v2",
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
    points: tuple[tuple[PublicKey, ...], ...]


class _Hand:
    """The public state of one hand, fed message by message."""

    def __init__(self, *, game_id: bytes, hand: int, context: bytes) -> None:
        check_hand_args(game_id, hand, context)
        self.game_id, self.hand, self.context = game_id, hand, context
        self.t0 = hand_digest(game_id, hand, context)
        self.t1 = b""
        self.t2 = b""
        self.keys: dict[Role, PublicKey] = {}
        self.d1: _Deck | None = None
        self.d2: _Deck | None = None
        self.shares: dict[tuple[Role, int], PublicKey] = {}
        self.shown: dict[Role, dict[int, int]] = {Role.DEALER: {}, Role.NONDEALER: {}}
        self.redeal = False
        self.redeal_sent: dict[Role, bool] = {Role.DEALER: False, Role.NONDEALER: False}
        self.seen: set[int] = set()
        self.checked: list[str] = []

    # -- parsing -------------------------------------------------------------------------

    def _key(self, payload: Mapping[str, Any], step: str, culprit: Role) -> PublicKey:
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

    def _pok(
        self, y: PublicKey, payload: Mapping[str, Any], t: bytes, step: str, culprit: Role
    ) -> bytes:
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
        self.t1 = digest(b"T1", self.t0, y.format(), pok, b"".join(deck.raw), p["proof"])
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
        self.t2 = digest(b"T2", self.t1, y.format(), pok, b"".join(deck.raw), p["proof"])

    def component(self, role: Role, position: int) -> PublicKey:
        """The ciphertext component of ``position`` that ``role``'s share applies to."""
        assert self.d2 is not None
        return self.d2.points[position][1 if role is Role.DEALER else 0]

    def accept_share(
        self, role: Role, position: int, raw: object, step: str, *, verify: bool
    ) -> PublicKey:
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

    def open_card(
        self, position: int, step: str, culprit: Role, own: PublicKey | None = None
    ) -> int:
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


# -- the record and the third-party verifier ---------------------------------------------


def _empty_shown() -> dict[int, bytes]:
    return {}


@dataclass(frozen=True, kw_only=True)
class HandRecordV2:
    """Everything public about one v2 hand, as signed by its senders.

    ``d1``/``d2``/``d3`` are the deck payloads as sent (``None`` if never
    sent); ``dealer_redeal``/``nondealer_redeal`` the redeal share arrays;
    ``dealer_shown``/``nondealer_shown`` position -> 97-byte share, in the
    order shown.  Nothing in it opens a card that was not shown.
    """

    game_id: bytes
    hand: int
    context: bytes
    d1: Mapping[str, Any] | None = None
    d2: Mapping[str, Any] | None = None
    d3: Mapping[str, Any] | None = None
    dealer_redeal: Sequence[bytes] | None = None
    nondealer_redeal: Sequence[bytes] | None = None
    dealer_shown: Mapping[int, bytes] = field(default_factory=_empty_shown)
    nondealer_shown: Mapping[int, bytes] = field(default_factory=_empty_shown)


@dataclass(frozen=True)
class DeckReportV2:
    """What a verified v2 hand discloses: only the cards that were shown."""

    shown: Mapping[Role, Mapping[int, int]]
    redeal: bool
    checked: tuple[str, ...]
    deck: str = "v2"
    hidden_cards_revealed: int = 0

    @property
    def opened(self) -> dict[int, int]:
        """Position -> card of every card anyone can open from the messages."""
        return {**self.shown[Role.DEALER], **self.shown[Role.NONDEALER]}

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (for ``truc-p2p verify --json``)."""
        return {
            "deck": self.deck,
            "hidden_cards_revealed": self.hidden_cards_revealed,
            "redeal": self.redeal,
            "shown": {r.value: dict(sorted(s.items())) for r, s in self.shown.items()},
            "checked": list(self.checked),
        }


class HandVerifierV2:
    """Third-party verifier of one v2 hand: feed the signed payloads in transcript order.

    Each method checks every proof of its message and raises the same
    :class:`CheatError` (step, position, culprit) the receiving player raised;
    the verifier is then dead.  :meth:`show` returns the card the message opens.
    """

    def __init__(self, *, game_id: bytes, hand: int, context: bytes) -> None:
        self._hand = _Hand(game_id=game_id, hand=hand, context=context)
        self._failure: CheatError | None = None
        self._d3 = False

    def _run(self, fn: Any, *args: Any) -> Any:
        if self._failure is not None:
            raise DeckUsageError(f"the verifier stopped at a cheat: {self._failure}")
        try:
            return fn(*args)
        except CheatError as err:
            self._failure = err
            raise

    def d1(self, payload: Mapping[str, Any]) -> None:
        """Check the non-dealer's D1."""
        self._run(lambda: self._hand.accept_d1(payload, verify=True))

    def d2(self, payload: Mapping[str, Any]) -> None:
        """Check the dealer's D2 (deck, proofs and its shares for positions 0, 2, 4)."""

        def go() -> None:
            self._hand.accept_d2_deck(payload, verify=True)
            p = _as_payload(payload, "D2", Role.DEALER)
            shares = _field(p, "shares", "D2", Role.DEALER)
            self._hand.accept_shares(
                Role.DEALER, positions(Role.NONDEALER), shares, "D2", verify=True
            )
            self._hand.checked.append("D2")

        self._run(go)

    def d3(self, payload: Mapping[str, Any]) -> None:
        """Check the non-dealer's D3 (its shares for positions 1, 3, 5)."""

        def go() -> None:
            if self._hand.d2 is None or self._d3:
                raise DeckUsageError("D3 comes once, after D2")
            p = _as_payload(payload, "D3", Role.NONDEALER)
            shares = _field(p, "shares", "D3", Role.NONDEALER)
            self._hand.accept_shares(
                Role.NONDEALER, positions(Role.DEALER), shares, "D3", verify=True
            )
            self._d3 = True
            self._hand.checked.append("D3")

        self._run(go)

    def redeal(self, role: Role, shares: Sequence[bytes]) -> None:
        """Check ``role``'s redeal shares."""
        _check_role(role)
        self._run(lambda: self._hand.accept_redeal(role, shares, verify=True))

    def show(self, role: Role, position: int, share: bytes) -> int:
        """Check a card ``role`` shows; return the card index."""
        _check_role(role)
        result: int = self._run(lambda: self._hand.accept_show(role, position, share, verify=True))
        return result

    def report(self) -> DeckReportV2:
        """The cards shown, the redeal flag and the messages checked so far."""
        h = self._hand
        return DeckReportV2(
            shown={r: dict(s) for r, s in h.shown.items()},
            redeal=h.redeal,
            checked=tuple(h.checked),
        )


def _check_role(role: object) -> None:
    if not isinstance(role, Role):
        raise DeckUsageError("role must be a Role")


def verify_hand_v2(record: HandRecordV2) -> DeckReportV2:
    """Check a whole v2 hand from its public record (every proof, every shown card).

    Messages are checked in protocol order: D1, D2, D3, the redeal shares, then
    the shown cards; the first failure raises its :class:`CheatError`.
    """
    v = HandVerifierV2(game_id=record.game_id, hand=record.hand, context=record.context)
    steps = [(record.d1, v.d1), (record.d2, v.d2), (record.d3, v.d3)]
    for payload, fn in steps:
        if payload is None:
            return v.report()
        fn(payload)
    if record.dealer_redeal is not None:
        v.redeal(Role.DEALER, record.dealer_redeal)
    if record.nondealer_redeal is not None:
        v.redeal(Role.NONDEALER, record.nondealer_redeal)
    for role, shown in (
        (Role.DEALER, record.dealer_shown),
        (Role.NONDEALER, record.nondealer_shown),
    ):
        for pos, share in shown.items():
            v.show(role, pos, share)
    return v.report()
