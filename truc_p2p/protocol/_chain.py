"""The chain of a game as one player holds it: every envelope in transcript order.

The session appends each envelope it signs or accepts; the control plane
reads the chain to answer a resume.  The checks that depend on the chain
alone live here: where a received envelope may go (the next position, or
for an abort the point where the peer stopped) and whether it is a second,
different envelope for a position the peer already filled (equivocation,
wire.md section 13.3).
"""

from __future__ import annotations

from truc_p2p.crypto import VerifyKey
from truc_p2p.protocol._errors import ChainError, EquivocationError, SequenceError
from truc_p2p.protocol._messages import MessageType
from truc_p2p.protocol._wire import GENESIS, Envelope, verify_signature

__all__ = ["Chain"]


class Chain:
    """Sender, hash and raw bytes of every envelope of one game, in order."""

    def __init__(self) -> None:
        # (sender, hash) per envelope: an abort may chain to an earlier point
        # when our own messages crossed it in flight.
        self._links: list[tuple[int, bytes]] = []
        self._raws: list[bytes] = []  # for resending after a resume

    @property
    def seq(self) -> int:
        """How many envelopes the chain holds: the next sequence number."""
        return len(self._links)

    @property
    def prev(self) -> bytes:
        """Hash of the last envelope (:data:`GENESIS` while empty)."""
        return self.hash_before(self.seq)

    def hash_before(self, n: int) -> bytes:
        """Hash of envelope ``n - 1``, the ``prev`` of position ``n``."""
        return self._links[n - 1][1] if n else GENESIS

    def sender(self, n: int) -> int:
        return self._links[n][0]

    def raw(self, n: int) -> bytes:
        return self._raws[n]

    def append(self, sender: int, raw: bytes, digest: bytes) -> None:
        self._links.append((sender, digest))
        self._raws.append(raw)

    def check_next(self, env: Envelope) -> None:
        """``env`` must take the next position: its sequence number and prev."""
        evidence, n = (env.raw,), env.seq
        if env.seq != self.seq:
            raise SequenceError(
                f"sequence number {env.seq}, expected {self.seq}",
                evidence=evidence,
                message_no=n,
            )
        if env.prev != self.prev:
            raise ChainError(
                "previous-hash does not match the last message",
                evidence=evidence,
                message_no=n,
            )

    def check_abort(self, env: Envelope, me: int) -> None:
        """An abort may cross our messages in flight: it chains to the point
        where the peer stopped, and everything after that point is ours."""
        evidence, k = (env.raw,), env.seq
        if k > self.seq or any(s != me for s, _ in self._links[k:]):
            raise SequenceError(
                f"abort with sequence number {k} skips messages",
                evidence=evidence,
                message_no=k,
            )
        if env.prev != self.hash_before(k):
            raise ChainError(
                "abort does not chain to the message before it",
                evidence=evidence,
                message_no=k,
            )

    def check_equivocation(self, env: Envelope, peer: int, peer_key: VerifyKey | None) -> None:
        """A second, different envelope signed by the peer for a position it already filled."""
        n = env.seq
        if env.type == MessageType.ABORT or n >= self.seq or peer_key is None:
            return
        if self.sender(n) != env.sender or env.sender != peer:
            return
        if self._raws[n] == env.raw:
            return  # a replay of the same message: a sequence error, not equivocation
        verify_signature(env, peer_key)
        raise EquivocationError(
            f"the peer signed two different messages at position {n}",
            step="chain",
            evidence=(self._raws[n], env.raw),
            message_no=n,
        )
