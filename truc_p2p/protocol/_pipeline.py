"""The pipelined deal: the next hand, pre-dealt while this one is played (wire.md 6b).

With ``"pipeline": true`` two v2 hands are alive at once: the session's
current hand *n*, which is played, and hand *n + 1*, whose two heavy deal
messages travel meanwhile.  :class:`Pipeline` holds that next hand
(a :class:`~.v2._hand.HandStateV2`) and its bookkeeping: whether we may owe
a pre-deal message since we were handed our turn, the put-off check of the
peer's pre-deal message (and our answer to it), and the shares its dealer
holds back until hand *n* is over.

The session's referee (:class:`~._referee_core.RefereeCore`) keeps the stage
and counts the next hand's pre-deal messages on the chain; the session's table
keeps the chain and the current hand.  It tells the pipeline when a pre-deal
message is applied and when the next hand opens, and takes from it the shares
an action carries as ``open``.  The pipeline makes hands with the session's
factory and sends through the session's ``emit`` (which applies the message,
so it comes back through the session's handlers).  A cheat found by the
put-off work is reported against the pre-deal message itself and ends the
session through ``fail`` wherever the work runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from truc_p2p.deck import Role
from truc_p2p.protocol._errors import ProtocolError, RemoteProtocolError, blame
from truc_p2p.protocol._messages import MessageType
from truc_p2p.protocol._state import Stage
from truc_p2p.protocol._wire import Envelope
from truc_p2p.protocol.v2._hand import HandStateV2

__all__ = ["Pipeline"]


class Pipeline:
    """One player's side of the pipelined deal (see the module docstring).

    ``enabled`` is the session's ``pipeline`` option; when false nothing is
    ever pre-dealt.  ``new_hand(index, role, context)`` makes (and files) a
    v2 hand, ``emit(type, payload)`` signs, chains and applies a message of
    ours, and ``fail(error)`` puts the session in its error state.
    """

    def __init__(
        self,
        *,
        enabled: bool,
        new_hand: Callable[[int, Role, bytes], HandStateV2],
        emit: Callable[[str, dict[str, Any]], None],
        fail: Callable[[ProtocolError], None],
    ) -> None:
        self.enabled = enabled
        self._new_hand = new_hand
        self._emit = emit
        self._fail = fail
        #: The pre-dealt next hand, from its first pre-deal message until it opens.
        self.next: HandStateV2 | None = None
        # A pre-deal message we may owe is made after our YourTurn is handed out:
        # on the next next_event() (while the player thinks) or at the latest by send().
        self._flush = False

    # -- the chain's progress ------------------------------------------------------

    def drop(self) -> None:
        """A hand is dealt from its ``v2deck1``: a dangling pre-deal is never opened."""
        self.next = None

    def on_predeal1(self, env: Envelope, mine: bool, index: int) -> None:
        """The next non-dealer's ``v2deck1`` of hand ``index`` is on the chain."""
        if not mine:
            # We deal the next hand; its proofs are bound to the envelope before this one.
            # Checking this message and computing our v2deck2 waits until there is time.
            self.next = self._new_hand(index, Role.DEALER, env.prev)
            self.next.deferred = env
        assert self.next is not None
        self.next.envelopes[env.type] = env.raw

    def on_predeal2(self, env: Envelope, mine: bool) -> None:
        """The next dealer's ``v2deck2`` without its shares is on the chain."""
        nxt = self.next
        assert nxt is not None
        nxt.envelopes[env.type] = env.raw
        if not mine:
            nxt.deferred = env  # checked when there is time, at the latest when it opens

    # -- what we owe -----------------------------------------------------------------

    def turn_handed(self) -> None:
        """We were handed our turn: a pre-deal message we owe is made from now on."""
        self._flush = self.enabled

    def flush_due(self) -> bool:
        """Whether we may owe a pre-deal message since our last turn; forgets it."""
        flush, self._flush = self._flush, False
        return flush

    def send_predeal(self, due: Stage, index: int, context: bytes) -> None:
        """Send the pre-deal message of hand ``index`` we owe; ``due`` names it
        (``v2predeal1`` or ``v2predeal2``) and ``context`` is the chain's last hash."""
        if due is Stage.V2_PREDEAL1:
            self.next = self._new_hand(index, Role.NONDEALER, context)
            self._emit(MessageType.V2DECK1, {"hand": index, **self.next.deck.d1()})
        else:
            self.work()  # our v2deck2 answers the peer's v2deck1
            assert self.next is not None and self.next.pending_d2 is not None
            self._emit(MessageType.V2DECK2, self.next.pending_d2)

    # -- opening the next hand -------------------------------------------------------

    def take_open_shares(self) -> list[bytes]:
        """Our held-back shares of the next hand, to ride on our action as ``open``."""
        nxt = self.next
        assert nxt is not None and nxt.pending_open is not None
        shares, nxt.pending_open = nxt.pending_open, None
        return list(shares)

    def open(self) -> HandStateV2:
        """The pre-dealt hand opens (the current one ended): its deck is checked
        first.  Returns it; nothing is pre-dealt until it is dealt in turn."""
        nxt = self.next
        assert nxt is not None
        self.work()
        self.next = None
        return nxt

    def release(self, hand: HandStateV2, stage: Stage) -> None:
        """As the dealer of the just-opened ``hand``, send the shares its pre-deal
        held back: in ``v2open`` or in a ``v2deck2`` with them, as ``stage`` says."""
        shares, hand.pending_open = hand.pending_open, None
        assert shares is not None and hand.pending_d2 is not None
        if stage is Stage.V2_OPEN:
            self._emit(MessageType.V2OPEN, {"hand": hand.index, "shares": shares})
        else:
            self._emit(MessageType.V2DECK2, {**hand.pending_d2, "shares": shares})

    # -- the put-off deck work -------------------------------------------------------

    def work(self) -> bool:
        """Check and answer the peer's put-off pre-deal message, if any; True if
        there was one.  A cheat fails the session and names that message."""
        nxt = self.next
        if nxt is None or nxt.deferred is None:
            return False
        env, nxt.deferred = nxt.deferred, None
        payload = {k: v for k, v in env.payload.items() if k != "hand"}
        try:
            with blame(env):
                if env.type == MessageType.V2DECK1:
                    d2 = nxt.deck.receive_d1(payload)
                    nxt.pending_open = list(d2.pop("shares"))  # held until hand n is over
                    nxt.pending_d2 = {"hand": nxt.index, **d2}
                else:
                    nxt.deck.receive_d2_deck(payload)
        except RemoteProtocolError as exc:
            self._fail(exc)
            raise
        return True
