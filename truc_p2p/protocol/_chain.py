"""The chain of a game as one player holds it: every envelope in transcript order.

The session appends each envelope it signs or accepts; the control plane
reads the chain to answer a resume.  The checks that depend on the chain
alone live here, in :meth:`Chain.check_link`, which the live session and the
verifier's first pass both run on every envelope: the game id, where the
envelope may go (the next position, or for an abort the point where its sender
stopped) and whether it is a second, different envelope for a position its
sender already filled (equivocation, wire.md section 13.3).  A hello's key is
judged by :func:`hello_key`, for both too.
"""

from __future__ import annotations

from truc_p2p.crypto import VerifyKey
from truc_p2p.protocol._errors import (
    ChainError,
    EquivocationError,
    MalformedMessageError,
    SequenceError,
    WrongGameError,
)
from truc_p2p.protocol._messages import MessageType
from truc_p2p.protocol._wire import GENESIS, Envelope, decode_envelope

__all__ = ["Chain", "hello_key"]


def hello_key(env: Envelope, *, taken: bytes | None) -> VerifyKey:
    """The Ed25519 key a hello presents, or ``malformed``: no 32-byte key, not a
    key, or ``taken`` (the other player's key: two players never share one)."""
    evidence, n = (env.raw,), env.seq
    key = env.payload.get("key")
    if not isinstance(key, bytes) or len(key) != 32:
        raise MalformedMessageError("hello without a 32-byte key", evidence=evidence, message_no=n)
    if key == taken:
        raise MalformedMessageError("both players use one key", evidence=evidence, message_no=n)
    try:
        return VerifyKey.from_bytes(key)
    except ValueError:
        raise MalformedMessageError(
            "hello key is not an Ed25519 key", evidence=evidence, message_no=n
        ) from None


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

    def signed_beyond_hello(self, sender: int) -> bool:
        """Whether ``sender`` signed a message of the game beyond its hello and an abort
        (a host that turns our options down after its hello played nothing)."""
        signed = [n for n in range(self.seq) if self.sender(n) == sender]
        if signed and decode_envelope(self.raw(signed[-1])).type == MessageType.ABORT:
            signed.pop()
        return len(signed) > 1

    def check_link(self, env: Envelope, game_id: bytes) -> None:
        """Whether ``env`` (its signature checked) links into this chain: it names the
        game ``game_id``; an abort chains to the point where its sender stopped
        (:meth:`check_abort`); any other envelope is not a second one for a position
        its sender filled (:meth:`check_equivocation`) and takes the next position
        (:meth:`check_next`).  The one judgement of the chain, for the live session
        and the verifier's first pass."""
        if env.game_id != game_id:
            raise WrongGameError(
                "envelope names another game", evidence=(env.raw,), message_no=env.seq
            )
        if env.type == MessageType.ABORT:
            self.check_abort(env)
            return
        self.check_equivocation(env)
        self.check_next(env)

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

    def check_abort(self, env: Envelope) -> None:
        """An abort may cross the other player's messages in flight (wire.md section
        8): it chains to the point where its sender stopped, and everything after
        that point is the other player's."""
        evidence, k = (env.raw,), env.seq
        if k > self.seq or any(s == env.sender for s, _ in self._links[k:]):
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

    def check_equivocation(self, env: Envelope) -> None:
        """A second, different envelope signed by its sender (the signature is checked
        before) for a position that sender already filled."""
        n = env.seq
        if n >= self.seq or self.sender(n) != env.sender or self._raws[n] == env.raw:
            return  # a replay of the same message is a sequence error, not equivocation
        raise EquivocationError(
            f"player {env.sender} signed two different messages at position {n}",
            step="chain",
            evidence=(self._raws[n], env.raw),
            message_no=n,
        )
