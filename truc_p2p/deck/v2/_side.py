"""Deck v2: one peer's side of a hand (three deal messages, opening, showing, redeal).

The non-dealer calls :meth:`DeckSideV2.d1` and :meth:`DeckSideV2.receive_d2`
(which opens its cards and returns D3); the dealer calls
:meth:`DeckSideV2.receive_d1` (which returns D2) and
:meth:`DeckSideV2.receive_d3` (which opens its cards).  Every secret and every
proof nonce derives from the seed, the hand and the statement proven
(:mod:`._v2_derive`), so a side rebuilt from the same seed re-sends
byte-identical messages.  Each ``receive_*`` checks every proof of the peer's
message before using it; a :class:`CheatError` (step, position, culprit)
kills the side.  See ``protocol_spec/deck_v2.md``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any

from truc_p2p.deck._errors import CheatError, DeckUsageError
from truc_p2p.deck._schedule import N_CARDS, Role, positions
from truc_p2p.deck._side_guard import SideGuard
from truc_p2p.deck.v2 import _ec
from truc_p2p.deck.v2._derive import derived_permutation, derived_scalar, side_key
from truc_p2p.deck.v2._ec import Point, Pt
from truc_p2p.deck.v2._hand import (
    _as_payload,
    _field,
    _Hand,
    binding,
    share_binding,
)
from truc_p2p.deck.v2._points import card_points
from truc_p2p.deck.v2._proofs import dleq_prove, pok_prove, shuffle_prove
from truc_p2p.deck.v2._record import HandRecordV2

__all__ = ["DeckSideV2"]

_SEED_SIZE = 32


class _State(enum.Enum):
    NEW = "new"
    SENT_D1 = "sent D1"  # non-dealer, waiting for D2
    GOT_D2_DECK = "got D2's deck"  # non-dealer, pipelined: waiting for the dealer's shares
    SENT_D2 = "sent D2"  # dealer, waiting for D3
    DEALT = "dealt"
    FAILED = "failed"


class DeckSideV2(SideGuard):
    """One peer's deck v2 state for one hand; self-contained, no global state.

    ``DeckSideV2(role, seed, game_id=..., hand=..., context=...)``: ``seed`` is
    32 secret bytes (the session derives it per hand from its stored secret),
    ``context`` 32 bytes both peers agree on (e.g. the envelope chain hash the
    hand starts from); every proof is bound to both.
    """

    _FAILED = _State.FAILED

    def __init__(
        self, role: Role, seed: bytes, *, game_id: bytes, hand: int, context: bytes
    ) -> None:
        if not isinstance(role, Role):
            raise DeckUsageError("role must be a Role")
        if not isinstance(seed, bytes) or len(seed) != _SEED_SIZE:
            raise DeckUsageError("seed must be 32 bytes")
        self._pub = _Hand(game_id=game_id, hand=hand, context=context)
        self._role = role
        self._peer = role.other
        self._key = side_key(seed, self._pub.t0, role.wire_byte)
        self._x = derived_scalar(self._key, b"key", b"", 0)
        self._y = _ec.gmul(self._x)
        self._state = _State.NEW
        self._failure: CheatError | None = None
        self._sent: dict[str, Any] = {}
        self._received: dict[str, Any] = {}
        self._own_cards: dict[int, int] = {}
        self._own_redeal_cards: dict[int, int] = {}
        self._redeal_sent: list[bytes] | None = None
        self._redeal_received: list[bytes] | None = None
        self._shown_sent: dict[int, bytes] = {}
        self._shown_received: dict[int, bytes] = {}
        self._d3_ahead: list[bytes] | None = None

    def __repr__(self) -> str:
        return f"DeckSideV2({self._role.value}, hand={self._pub.hand}, state={self._state.value})"

    # -- properties ------------------------------------------------------------------------

    @property
    def role(self) -> Role:
        return self._role

    @property
    def hand(self) -> int:
        return self._pub.hand

    @property
    def dealt(self) -> bool:
        """Whether the own cards are known."""
        return self._state is _State.DEALT

    @property
    def redeal(self) -> bool:
        """Whether the current hand is the redeal (positions 6-11)."""
        return self._pub.redeal

    @property
    def failure(self) -> CheatError | None:
        return self._failure

    @property
    def opponent_cards(self) -> dict[int, int]:
        """Position -> card of every card the opponent has shown."""
        return dict(self._pub.shown[self._peer])

    # -- plumbing --------------------------------------------------------------------------

    def _own_component(self, position: int) -> Pt:
        return self._pub.component(self._role, position)

    def _share(self, position: int, step: str) -> bytes:
        """The own share for ``position`` with its DLEQ proof (97 bytes)."""
        base = self._own_component(position)
        share = _ec.mul(base, self._x)
        assert share is not None  # x in [1, n-1] and base a valid point
        assert self._y is not None
        proof = dleq_prove(
            self._x,
            self._y,
            base,
            share,
            binding=share_binding(self._pub.t2, step, self._role, position),
            key=self._key,
        )
        return _ec.encode(share) + proof

    def _open_own(self, held: tuple[int, ...], step: str) -> dict[int, int]:
        out = {}
        for pos in held:
            own = _ec.mul(self._own_component(pos), self._x)
            out[pos] = self._pub.open_card(pos, step, self._peer, own=own)
        return out

    def _pok(self, t: bytes, step: str) -> bytes:
        assert self._y is not None
        return pok_prove(self._x, self._y, binding=binding(t, step, self._role), key=self._key)

    # -- the deal --------------------------------------------------------------------------

    def d1(self) -> dict[str, Any]:
        """Non-dealer: D1 = {key, pok, deck: 32 x (A_B || B), proof}."""
        self._require_role(Role.NONDEALER, "d1()")
        self._require(_State.NEW)
        y = self._y
        assert y is not None
        t0 = self._pub.t0
        perm = derived_permutation(self._key, t0, N_CARDS)
        sigma = [derived_scalar(self._key, b"mask", t0, i) for i in range(N_CARDS)]
        cards = card_points()
        inputs: list[tuple[Point, ...]] = [(None, m) for m in cards]
        outputs: list[tuple[Point, ...]] = []
        for i in range(N_CARDS):
            outputs.append((_ec.gmul(sigma[i]), _ec.add([cards[perm[i]], _ec.mul(y, sigma[i])])))
        proof = shuffle_prove(
            inputs,
            outputs,
            [(_ec.gmul(1), y)],
            perm,
            [[s] for s in sigma],
            binding=binding(t0, "D1", self._role),
            key=self._key,
        )
        payload = {
            "key": _ec.encode(y),
            "pok": self._pok(t0, "D1"),
            "deck": [_ec.encode(a) + _ec.encode(b) for a, b in outputs],
            "proof": proof.to_bytes(),
        }
        self._pub.accept_d1(payload, verify=False)
        self._sent["D1"] = payload
        self._state = _State.SENT_D1
        return dict(payload)

    def receive_d1(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """Dealer: check D1; return D2 = {key, pok, deck: 32 x (A_B || A_A || B), proof,
        shares: the dealer's shares for positions 0, 2, 4}."""
        self._require_role(Role.DEALER, "receive_d1()")
        self._require(_State.NEW)
        with self._guard():
            self._pub.accept_d1(payload, verify=True)
        self._received["D1"] = payload
        pub = self._pub
        assert pub.d1 is not None and self._y is not None
        y, y_b, t1 = self._y, pub.keys[Role.NONDEALER], pub.t1
        perm = derived_permutation(self._key, t1, N_CARDS)
        masks = [derived_scalar(self._key, b"mask", t1, i) for i in range(2 * N_CARDS)]
        g = _ec.gmul(1)
        inputs: list[tuple[Point, ...]] = [(a, None, b) for a, b in pub.d1.points]
        outputs: list[tuple[Point, ...]] = []
        for i in range(N_CARDS):
            s, r = masks[2 * i], masks[2 * i + 1]
            a_b, _, b = inputs[perm[i]]
            outputs.append(
                (
                    _ec.add([a_b, _ec.gmul(s)]),
                    _ec.gmul(r),
                    _ec.add([b, _ec.mul(y_b, s), _ec.mul(y, r)]),
                )
            )
        proof = shuffle_prove(
            inputs,
            outputs,
            [(g, None, y_b), (None, g, y)],
            perm,
            [[masks[2 * i], masks[2 * i + 1]] for i in range(N_CARDS)],
            binding=binding(t1, "D2", self._role),
            key=self._key,
        )
        out: dict[str, Any] = {
            "key": _ec.encode(y),
            "pok": self._pok(t1, "D2"),
            "deck": [b"".join(_ec.encode(p) for p in entry) for entry in outputs],
            "proof": proof.to_bytes(),
        }
        pub.accept_d2_deck(out, verify=False)
        out["shares"] = [self._share(p, "D2") for p in positions(Role.NONDEALER)]
        pub.accept_shares(Role.DEALER, positions(Role.NONDEALER), out["shares"], "D2", verify=False)
        self._sent["D2"] = out
        self._state = _State.SENT_D2
        return dict(out)

    def receive_d2(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """Non-dealer: check D2, open the own cards (positions 0, 2, 4); return
        D3 = {shares: the non-dealer's shares for positions 1, 3, 5}."""
        self.receive_d2_deck(payload)
        with self._guard():
            p = _as_payload(payload, "D2", Role.DEALER)
            shares = _field(p, "shares", "D2", Role.DEALER)
        return self.receive_d2_shares(shares)

    def receive_d2_deck(self, payload: Mapping[str, Any]) -> None:
        """Non-dealer, pipelined deal: check D2 without its shares (key, deck, proofs)
        and compute the own D3 shares ahead; nothing is opened yet."""
        self._require_role(Role.NONDEALER, "receive_d2_deck()")
        self._require(_State.SENT_D1)
        with self._guard():
            self._pub.accept_d2_deck(payload, verify=True)
        self._received["D2"] = {k: v for k, v in payload.items() if k != "shares"}
        self._d3_ahead = [self._share(p, "D3") for p in positions(Role.DEALER)]
        self._state = _State.GOT_D2_DECK

    def receive_d2_shares(self, shares: Sequence[bytes]) -> dict[str, Any]:
        """Non-dealer: check the dealer's shares for positions 0, 2, 4 (the rest of
        D2, sent later in a pipelined deal), open the own cards; return D3."""
        self._require_role(Role.NONDEALER, "receive_d2_shares()")
        self._require(_State.GOT_D2_DECK)
        with self._guard():
            self._pub.accept_shares(
                Role.DEALER, positions(Role.NONDEALER), shares, "D2", verify=True
            )
            self._own_cards = self._open_own(positions(Role.NONDEALER), "D2")
        self._received["D2"] = {**self._received["D2"], "shares": list(shares)}
        assert self._d3_ahead is not None
        out = {"shares": list(self._d3_ahead)}
        self._pub.accept_shares(
            Role.NONDEALER, positions(Role.DEALER), out["shares"], "D3", verify=False
        )
        self._sent["D3"] = out
        self._state = _State.DEALT
        return dict(out)

    def receive_d3(self, payload: Mapping[str, Any]) -> None:
        """Dealer: check D3 and open the own cards (positions 1, 3, 5)."""
        self._require_role(Role.DEALER, "receive_d3()")
        self._require(_State.SENT_D2)
        with self._guard():
            p = _as_payload(payload, "D3", Role.NONDEALER)
            shares = _field(p, "shares", "D3", Role.NONDEALER)
            self._pub.accept_shares(
                Role.NONDEALER, positions(Role.DEALER), shares, "D3", verify=True
            )
            self._own_cards = self._open_own(positions(Role.DEALER), "D3")
        self._received["D3"] = {"shares": list(shares)}
        self._state = _State.DEALT

    # -- after the deal --------------------------------------------------------------------

    def my_cards(self, redeal: bool = False) -> dict[int, int]:
        """Position -> card index of the own hand (the redeal hand if ``redeal``)."""
        self._require(_State.DEALT)
        if not redeal:
            return dict(self._own_cards)
        if self._redeal_received is None:
            raise DeckUsageError("the redeal cards are opened by receive_redeal_shares()")
        return dict(self._own_redeal_cards)

    def held_positions(self) -> tuple[int, int, int]:
        """The positions of the own current hand."""
        return positions(self._role, self._pub.redeal)

    def _check_redeal_allowed(self) -> None:
        self._require(_State.DEALT)
        if self._shown_sent or self._shown_received:
            raise DeckUsageError("no redeal once a card has been shown")

    def redeal_shares(self) -> list[bytes]:
        """Own shares (97 bytes each) for the opponent's redeal positions, in position
        order; switches to the redeal."""
        self._check_redeal_allowed()
        if self._redeal_sent is not None:
            raise DeckUsageError("redeal shares were already sent")
        out = [self._share(p, "redeal") for p in positions(self._peer, True)]
        self._pub.accept_redeal(self._role, out, verify=False)
        self._redeal_sent = out
        return list(out)

    def receive_redeal_shares(self, shares: Sequence[bytes]) -> None:
        """Check the opponent's shares for the own redeal positions and open those cards;
        switches to the redeal."""
        self._check_redeal_allowed()
        if self._redeal_received is not None:
            raise DeckUsageError("redeal shares were already received")
        with self._guard():
            self._pub.accept_redeal(self._peer, shares, verify=True)
            self._own_redeal_cards = self._open_own(positions(self._role, True), "redeal")
        self._redeal_received = list(shares)

    def show(self, position: int) -> bytes:
        """The own share for ``position`` of the own current hand (97 bytes): shows it."""
        self._require(_State.DEALT)
        if position not in self.held_positions():
            raise DeckUsageError(f"position {position} is not in the own current hand")
        if position in self._shown_sent:
            raise DeckUsageError(f"position {position} was already shown")
        card = self._all_own_cards().get(position)
        if card is None:
            raise DeckUsageError(f"the card at position {position} is not open yet")
        share = self._share(position, "show")
        self._pub.shown[self._role][position] = card
        self._pub.shares[(self._role, position)] = _ec.decode(share[: _ec.POINT_SIZE])
        self._shown_sent[position] = share
        return share

    def _all_own_cards(self) -> dict[int, int]:
        return {**self._own_cards, **self._own_redeal_cards}

    def receive_show(self, position: int, share: bytes) -> int:
        """Check a card the opponent shows at ``position``; return the card index."""
        self._require(_State.DEALT)
        with self._guard():
            card = self._pub.accept_show(self._peer, position, share, verify=True)
        self._shown_received[position] = share
        return card

    # -- the record ------------------------------------------------------------------------

    def record(self) -> HandRecordV2:
        """The public data of the hand so far, as sent (also after a detected cheat)."""
        msgs = {**self._sent, **self._received}
        if self._role is Role.DEALER:
            d_red, n_red = self._redeal_sent, self._redeal_received
            d_shown, n_shown = self._shown_sent, self._shown_received
        else:
            d_red, n_red = self._redeal_received, self._redeal_sent
            d_shown, n_shown = self._shown_received, self._shown_sent
        return HandRecordV2(
            game_id=self._pub.game_id,
            hand=self._pub.hand,
            context=self._pub.context,
            d1=msgs.get("D1"),
            d2=msgs.get("D2"),
            d3=msgs.get("D3"),
            dealer_redeal=d_red,
            nondealer_redeal=n_red,
            dealer_shown=dict(d_shown),
            nondealer_shown=dict(n_shown),
        )
