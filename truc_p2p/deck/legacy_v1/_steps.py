"""One peer's side of the four-step deal (D1-D4), card opening, showing and redeal.

Theory of operation.  Let ``m_c`` be the point of card ``c``, ``a``/``b`` the
dealer's/non-dealer's global keys, ``a_i``/``b_i`` their per-card keys for
position ``i`` and ``pA``/``pB`` their permutations (all from the seeds)::

    D1[i] = x(a * m[pA[i]])                      dealer: encrypt and shuffle
    D2[i] = x(b * D1[pB[i]])                     non-dealer: encrypt and shuffle
    D3[i] = x(a_i * a^-1 * D2[i]) = a_i b m      dealer: per-card keys, no shuffle
    D4[i] = x(b_i * b^-1 * D3[i]) = a_i b_i m    non-dealer: per-card keys

Position ``i`` of the final deck (D4) holds card ``pA[pB[i]]``.  Its holder opens
it with the other's key: the non-dealer multiplies ``D3[i]`` by
``(a_i b)^-1``, the dealer ``D4[i]`` by ``(a_i b_i)^-1``.  Showing a played card
means sending one's own per-card key for it.  Every step is one scalar
multiplication per deck entry; the points a side decoded while checking a
received deck (D3 for the non-dealer, D4 for the dealer) are kept so opening
and showing never decode again.

Each ``receive_*`` method checks the peer's message completely before using it
and raises a :class:`CheatError` naming the step, the position and the peer's
role; the side is then dead (every later call raises :class:`DeckUsageError`).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric import ec

from truc_p2p.deck._errors import (
    CardAlreadySeenError,
    CheatError,
    DeckUsageError,
    DuplicateEntryError,
    InvalidKeyError,
    InvalidPointError,
    MalformedDeckError,
    MalformedMessageError,
    NotACardError,
    PositionAlreadyShownError,
    UnchangedEntryError,
    WrongPositionError,
)
from truc_p2p.deck._schedule import N_CARDS, Role, positions
from truc_p2p.deck._side_guard import SideGuard
from truc_p2p.deck.legacy_v1 import _group
from truc_p2p.deck.legacy_v1._audit import AuditReport, audit_hand
from truc_p2p.deck.legacy_v1._encoding import card_index, card_points, encoding_set
from truc_p2p.deck.legacy_v1._record import HandRecord
from truc_p2p.deck.legacy_v1._secrets import commitment, derive_secrets

__all__ = ["DeckSide", "OpCounts"]

_ORDER = _group.ORDER
_ENTRY_SIZE = 32
_COMMITMENT_SIZE = 32


class _State(enum.Enum):
    NEW = "new"
    SENT_D1 = "sent D1"  # dealer, waiting for D2
    SENT_D2 = "sent D2"  # non-dealer, waiting for D3
    SENT_D3 = "sent D3"  # dealer, waiting for D4
    DEALT = "dealt"  # own cards known
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class OpCounts:
    """Crypto operations a side performed: what the per-hand cost is made of."""

    decodes: int
    derives: int
    multiplications: int
    inversions: int


def _is_position(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class DeckSide(SideGuard):
    """One peer's deck state for one hand.

    ``DeckSide(role, seed, game_id=..., hand=...)``; the dealer calls
    :meth:`d1`, :meth:`receive_d2`, :meth:`receive_d4`; the non-dealer
    :meth:`receive_d1`, :meth:`receive_d3`.  Afterwards both use
    :meth:`my_cards`, :meth:`show` / :meth:`receive_show` and, for a redeal,
    :meth:`redeal_keys` / :meth:`receive_redeal_keys` (either call switches the
    side's current hand to the redeal positions 6-11; it must come before any
    card is shown).
    """

    _FAILED = _State.FAILED

    def __init__(self, role: Role, seed: bytes, *, game_id: bytes, hand: int) -> None:
        if not isinstance(role, Role):
            raise DeckUsageError("role must be a Role")
        self._commitment = commitment(seed, game_id=game_id, hand=hand, role=role)
        self._role = role
        self._peer = role.other
        self._seed = seed
        self._game_id = game_id
        self._hand = hand
        self._secrets = derive_secrets(seed, game_id=game_id, hand=hand, role=role)
        self._state = _State.NEW
        self._failure: CheatError | None = None
        self._peer_commitment = b""
        self._decks: list[tuple[bytes, ...]] = []
        # Points of D3 (non-dealer) or D4 (dealer): what this side opens cards from.
        self._points: list[ec.EllipticCurvePublicKey] = []
        self._keys_d3: dict[int, bytes] = {}
        self._keys_d4: dict[int, bytes] = {}
        self._redeal = False
        self._redeal_sent: dict[int, bytes] | None = None
        self._redeal_received: dict[int, bytes] | None = None
        self._shown_sent: dict[int, bytes] = {}
        self._shown_received: dict[int, bytes] = {}
        self._own_cards: dict[int, int] = {}
        self._own_redeal_cards: dict[int, int] = {}
        self._opponent_cards: dict[int, int] = {}
        self._seen: set[int] = set()
        self._decodes = self._derives = self._mults = self._inversions = 0

    # -- public properties ---------------------------------------------------------

    @property
    def role(self) -> Role:
        return self._role

    @property
    def seed(self) -> bytes:
        """The own seed: reveal it for the audit, never before the hand is over."""
        return self._seed

    @property
    def commitment(self) -> bytes:
        """The own commitment, sent with D1 (dealer) or D2 (non-dealer)."""
        return self._commitment

    @property
    def peer_commitment(self) -> bytes:
        """The peer's commitment once received (``b""`` before)."""
        return self._peer_commitment

    @property
    def game_id(self) -> bytes:
        return self._game_id

    @property
    def hand(self) -> int:
        return self._hand

    @property
    def dealt(self) -> bool:
        """Whether this side's part of the deal is over and its own cards are known."""
        return self._state is _State.DEALT

    @property
    def redeal(self) -> bool:
        """Whether the current hand is the redeal (positions 6-11)."""
        return self._redeal

    @property
    def failure(self) -> CheatError | None:
        """The cheat that killed this side, if any."""
        return self._failure

    @property
    def opponent_cards(self) -> dict[int, int]:
        """Position -> card index of every card the opponent has shown."""
        return dict(self._opponent_cards)

    @property
    def op_counts(self) -> OpCounts:
        """Point decodings, key derivations, scalar multiplications and inversions so far."""
        return OpCounts(self._decodes, self._derives, self._mults, self._inversions)

    # -- plumbing --------------------------------------------------------------------

    def _cheat(
        self, cls: type[CheatError], message: str, step: str, position: int | None = None
    ) -> CheatError:
        return cls(message, step=step, position=position, culprit=self._peer)

    def _check_commitment(self, value: object, step: str) -> bytes:
        if not isinstance(value, bytes) or len(value) != _COMMITMENT_SIZE:
            raise self._cheat(MalformedMessageError, "commitment is not 32 bytes", step)
        return value

    def _check_deck(self, deck: object, step: str) -> tuple[bytes, ...]:
        """Shape, distinctness and freshness of a received deck (points are checked by
        the caller as it decodes them)."""
        if isinstance(deck, bytes | bytearray | str) or not isinstance(deck, Sequence):
            raise self._cheat(MalformedDeckError, "deck is not a sequence of entries", step)
        if len(deck) != N_CARDS:
            raise self._cheat(MalformedDeckError, f"deck has {len(deck)} entries, not 32", step)
        entries = tuple(deck)
        for i, entry in enumerate(entries):
            if not isinstance(entry, bytes) or len(entry) != _ENTRY_SIZE:
                raise self._cheat(MalformedDeckError, "entry is not 32 bytes", step, i)
        if len(set(entries)) != N_CARDS:
            first: dict[bytes, int] = {}
            for i, entry in enumerate(entries):
                if entry in first:
                    raise self._cheat(
                        DuplicateEntryError, f"entry equals entry {first[entry]}", step, i
                    )
                first[entry] = i
        earlier = encoding_set().union(*self._decks)
        if not earlier.isdisjoint(entries):
            for i, entry in enumerate(entries):
                if entry in earlier:
                    raise self._cheat(
                        UnchangedEntryError,
                        "entry equals a card encoding or an entry of an earlier deck",
                        step,
                        i,
                    )
        return entries

    def _decode_all(self, entries: tuple[bytes, ...], step: str) -> list[ec.EllipticCurvePublicKey]:
        decode = _group.decode
        points: list[ec.EllipticCurvePublicKey] = []
        try:
            for x in entries:
                points.append(decode(x))
        except ValueError:
            raise self._cheat(
                InvalidPointError,
                "entry is not the x-coordinate of a P-256 point",
                step,
                len(points),
            ) from None
        self._decodes += len(points)
        return points

    def _check_keys(self, keys: object, expected: tuple[int, ...], step: str) -> dict[int, int]:
        if not isinstance(keys, Mapping):
            raise self._cheat(MalformedMessageError, "keys are not a position -> key map", step)
        for pos in keys:
            if not _is_position(pos) or pos not in expected:
                where = pos if _is_position(pos) else None
                raise self._cheat(
                    WrongPositionError,
                    f"key for position {pos!r}, which is not one of {expected}",
                    step,
                    where,
                )
        out: dict[int, int] = {}
        for pos in expected:
            if pos not in keys:
                raise self._cheat(WrongPositionError, "missing key", step, pos)
            k = _group.parse_scalar(keys[pos])
            if k is None:
                raise self._cheat(InvalidKeyError, "key is not 32 bytes in [1, n-1]", step, pos)
            out[pos] = k
        return out

    def _open(self, position: int, scalar: int, step: str) -> int:
        """Decrypt own-side point ``position`` with ``scalar`` and check the card."""
        try:
            x = _group.derive_key(scalar).exchange(_group.ECDH, self._points[position])
        except ValueError:  # cannot happen for a scalar in [1, n-1]; never crash on it
            x = b""
        self._derives += 1
        self._mults += 1
        card = card_index().get(x)
        if card is None:
            raise self._cheat(NotACardError, "opened position is not a card", step, position)
        if card in self._seen:
            raise self._cheat(
                CardAlreadySeenError, f"opened card {card} was already seen", step, position
            )
        self._seen.add(card)
        return card

    def _opening_scalars(self, peer_keys: dict[int, int]) -> dict[int, int]:
        """Inverse of the full key product of each position (one inversion for all)."""
        own = self._secrets
        pos = list(peer_keys)
        if self._role is Role.DEALER:
            products = [own.card_keys[p] * peer_keys[p] % _ORDER for p in pos]
        else:
            products = [own.global_key * peer_keys[p] % _ORDER for p in pos]
        self._inversions += 1
        return dict(zip(pos, _group.batch_inverse(products), strict=True))

    # -- the deal --------------------------------------------------------------------

    def d1(self) -> tuple[bytes, ...]:
        """Dealer: D1, the card encodings encrypted with the global key and shuffled."""
        self._require_role(Role.DEALER, "d1()")
        self._require(_State.NEW)
        exchange = _group.derive_key(self._secrets.global_key).exchange
        ecdh = _group.ECDH
        points = card_points()
        d1 = tuple([exchange(ecdh, points[j]) for j in self._secrets.permutation])
        self._derives += 1
        self._mults += N_CARDS
        self._decks.append(d1)
        self._state = _State.SENT_D1
        return d1

    def receive_d1(self, deck: Sequence[bytes], commitment: bytes) -> tuple[bytes, ...]:
        """Non-dealer: check D1 and the dealer's commitment; return D2."""
        self._require_role(Role.NONDEALER, "receive_d1()")
        self._require(_State.NEW)
        with self._guard():
            peer_commitment = self._check_commitment(commitment, "D1")
            entries = self._check_deck(deck, "D1")
            decode = _group.decode
            exchange = _group.derive_key(self._secrets.global_key).exchange
            ecdh = _group.ECDH
            d2: list[bytes] = []
            j = 0
            try:
                for j in self._secrets.permutation:
                    d2.append(exchange(ecdh, decode(entries[j])))
            except ValueError:
                raise self._cheat(
                    InvalidPointError, "entry is not the x-coordinate of a P-256 point", "D1", j
                ) from None
            self._decodes += N_CARDS
            self._derives += 1
            self._mults += N_CARDS
            self._peer_commitment = peer_commitment
            self._decks.append(entries)
            self._decks.append(tuple(d2))
            self._state = _State.SENT_D2
            return self._decks[1]

    def receive_d2(
        self, deck: Sequence[bytes], commitment: bytes
    ) -> tuple[tuple[bytes, ...], dict[int, bytes]]:
        """Dealer: check D2 and the non-dealer's commitment; return D3 and the
        dealer's per-card keys for the non-dealer's positions 0, 2, 4."""
        self._require_role(Role.DEALER, "receive_d2()")
        self._require(_State.SENT_D1)
        with self._guard():
            peer_commitment = self._check_commitment(commitment, "D2")
            entries = self._check_deck(deck, "D2")
            decode = _group.decode
            derive = _group.derive_key
            ecdh = _group.ECDH
            inv = pow(self._secrets.global_key, -1, _ORDER)
            card_keys = self._secrets.card_keys
            d3: list[bytes] = []
            i = 0
            try:
                for i, x in enumerate(entries):
                    d3.append(derive(card_keys[i] * inv % _ORDER).exchange(ecdh, decode(x)))
            except ValueError:
                raise self._cheat(
                    InvalidPointError, "entry is not the x-coordinate of a P-256 point", "D2", i
                ) from None
            self._inversions += 1
            self._decodes += N_CARDS
            self._derives += N_CARDS
            self._mults += N_CARDS
            keys = {p: _group.scalar_bytes(card_keys[p]) for p in positions(Role.NONDEALER)}
            self._peer_commitment = peer_commitment
            self._decks.append(entries)
            self._decks.append(tuple(d3))
            self._keys_d3 = keys
            self._state = _State.SENT_D3
            return self._decks[2], dict(keys)

    def receive_d3(
        self, deck: Sequence[bytes], keys: Mapping[int, bytes]
    ) -> tuple[tuple[bytes, ...], dict[int, bytes]]:
        """Non-dealer: check D3 and the dealer's keys, open the own cards; return D4
        and the non-dealer's per-card keys for the dealer's positions 1, 3, 5."""
        self._require_role(Role.NONDEALER, "receive_d3()")
        self._require(_State.SENT_D2)
        with self._guard():
            entries = self._check_deck(deck, "D3")
            peer_keys = self._check_keys(keys, positions(Role.NONDEALER), "D3")
            self._points = self._decode_all(entries, "D3")
            self._decks.append(entries)
            self._keys_d3 = {p: keys[p] for p in peer_keys}
            own = self._secrets
            # One inversion gives b^-1 (for D4) and (a_i b)^-1 (to open positions 0, 2, 4).
            pos = list(peer_keys)
            invs = _group.batch_inverse(
                [own.global_key] + [own.global_key * peer_keys[p] % _ORDER for p in pos]
            )
            self._inversions += 1
            for p, scalar in zip(pos, invs[1:], strict=True):
                self._own_cards[p] = self._open(p, scalar, "D3")
            inv = invs[0]
            derive = _group.derive_key
            ecdh = _group.ECDH
            card_keys = own.card_keys
            points = self._points
            d4 = tuple(
                [
                    derive(card_keys[i] * inv % _ORDER).exchange(ecdh, points[i])
                    for i in range(N_CARDS)
                ]
            )
            self._derives += N_CARDS
            self._mults += N_CARDS
            self._decks.append(d4)
            out = {p: _group.scalar_bytes(card_keys[p]) for p in positions(Role.DEALER)}
            self._keys_d4 = out
            self._state = _State.DEALT
            return d4, dict(out)

    def receive_d4(self, deck: Sequence[bytes], keys: Mapping[int, bytes]) -> None:
        """Dealer: check D4 and the non-dealer's keys, and open the own cards."""
        self._require_role(Role.DEALER, "receive_d4()")
        self._require(_State.SENT_D3)
        with self._guard():
            entries = self._check_deck(deck, "D4")
            peer_keys = self._check_keys(keys, positions(Role.DEALER), "D4")
            self._points = self._decode_all(entries, "D4")
            self._decks.append(entries)
            self._keys_d4 = {p: keys[p] for p in peer_keys}
            for p, scalar in self._opening_scalars(peer_keys).items():
                self._own_cards[p] = self._open(p, scalar, "D4")
            self._state = _State.DEALT

    # -- after the deal ----------------------------------------------------------------

    def my_cards(self, redeal: bool = False) -> dict[int, int]:
        """Position -> card index of the own hand (the redeal hand if ``redeal``)."""
        self._require(_State.DEALT)
        if not redeal:
            return dict(self._own_cards)
        if self._redeal_received is None:
            raise DeckUsageError("the redeal cards are opened by receive_redeal_keys()")
        return dict(self._own_redeal_cards)

    def held_positions(self) -> tuple[int, int, int]:
        """The positions of the own current hand."""
        return positions(self._role, self._redeal)

    def _check_redeal_allowed(self) -> None:
        self._require(_State.DEALT)
        if self._shown_sent or self._shown_received:
            raise DeckUsageError("no redeal once a card has been shown")

    def redeal_keys(self) -> dict[int, bytes]:
        """Own per-card keys for the opponent's redeal positions; switches to the redeal."""
        self._check_redeal_allowed()
        if self._redeal_sent is not None:
            raise DeckUsageError("redeal keys were already sent")
        own = self._secrets.card_keys
        keys = {p: _group.scalar_bytes(own[p]) for p in positions(self._peer, True)}
        self._redeal_sent = keys
        self._redeal = True
        return dict(keys)

    def receive_redeal_keys(self, keys: Mapping[int, bytes]) -> None:
        """Check the opponent's keys for the own redeal positions and open those cards;
        switches to the redeal."""
        self._check_redeal_allowed()
        if self._redeal_received is not None:
            raise DeckUsageError("redeal keys were already received")
        with self._guard():
            peer_keys = self._check_keys(keys, positions(self._role, True), "keys")
            self._redeal_received = {p: keys[p] for p in peer_keys}
            self._redeal = True
            for p, scalar in self._opening_scalars(peer_keys).items():
                self._own_redeal_cards[p] = self._open(p, scalar, "keys")

    def show(self, position: int) -> bytes:
        """Own per-card key for ``position`` of the own current hand: shows that card."""
        self._require(_State.DEALT)
        if position not in self.held_positions():
            raise DeckUsageError(f"position {position} is not in the own current hand")
        if position in self._shown_sent:
            raise DeckUsageError(f"position {position} was already shown")
        key = _group.scalar_bytes(self._secrets.card_keys[position])
        self._shown_sent[position] = key
        return key

    def receive_show(self, position: int, key: bytes) -> int:
        """Check a card the opponent shows at ``position`` with its key; return the card."""
        self._require(_State.DEALT)
        with self._guard():
            if not _is_position(position):
                raise self._cheat(MalformedMessageError, "position is not an int", "show")
            if position not in positions(self._peer, self._redeal):
                raise self._cheat(
                    WrongPositionError,
                    "shown position is not in the opponent's current hand",
                    "show",
                    position,
                )
            if position in self._shown_received:
                raise self._cheat(
                    PositionAlreadyShownError, "position was already shown", "show", position
                )
            k = _group.parse_scalar(key)
            if k is None:
                raise self._cheat(
                    InvalidKeyError, "key is not 32 bytes in [1, n-1]", "show", position
                )
            self._shown_received[position] = key
            own = self._secrets
            if self._role is Role.DEALER:
                product = own.card_keys[position] * k % _ORDER
            else:
                product = own.global_key * k % _ORDER
            self._inversions += 1
            card = self._open(position, pow(product, -1, _ORDER), "show")
            self._opponent_cards[position] = card
            return card

    # -- the record --------------------------------------------------------------------

    def audit(self, peer_seed: bytes) -> AuditReport:
        """:func:`audit_hand` on :meth:`record` with the own seed and the peer's revealed one."""
        if self._role is Role.DEALER:
            return audit_hand(self.record(), dealer_seed=self._seed, nondealer_seed=peer_seed)
        return audit_hand(self.record(), dealer_seed=peer_seed, nondealer_seed=self._seed)

    def record(self) -> HandRecord:
        """The public data of the hand so far (also after a detected cheat)."""
        decks = self._decks + [()] * (4 - len(self._decks))
        if self._role is Role.DEALER:
            dealer_c, nondealer_c = self._commitment, self._peer_commitment
            dealer_redeal, nondealer_redeal = self._redeal_sent, self._redeal_received
            dealer_shown, nondealer_shown = self._shown_sent, self._shown_received
        else:
            dealer_c, nondealer_c = self._peer_commitment, self._commitment
            dealer_redeal, nondealer_redeal = self._redeal_received, self._redeal_sent
            dealer_shown, nondealer_shown = self._shown_received, self._shown_sent
        return HandRecord(
            game_id=self._game_id,
            hand=self._hand,
            dealer_commitment=dealer_c,
            nondealer_commitment=nondealer_c,
            d1=decks[0],
            d2=decks[1],
            d3=decks[2],
            d4=decks[3],
            d3_keys=self._keys_d3,
            d4_keys=self._keys_d4,
            dealer_redeal_keys=dealer_redeal or {},
            nondealer_redeal_keys=nondealer_redeal or {},
            dealer_shown=dealer_shown,
            nondealer_shown=nondealer_shown,
        )
