"""The relay's lobby (``protocol_spec/connect.md`` §2.2): the games its registered
hosts list, and the answer to a ``LOBBY``.

A listing's shape and signature (for its registration's code) are checked before
it is stored; it lives as long as its registration and ``listing_ttl`` seconds
after its last renewal.  Listings are bounded overall and per address group, a
full lobby makes room by dropping the oldest listing of the address block holding
the most, and an answer takes its games round by round, one listing of every
block per round (see :mod:`._relay`'s docstring).
"""

from __future__ import annotations

import random
import struct
from collections import Counter

import trio

from truc_p2p.net._lobby import ListingError, LobbyFilter, LobbyListing
from truc_p2p.net._relay_state import RelayLimits, _Registration
from truc_p2p.net._relay_wire import MAX_LISTING, Msg, RelayProtocolError, encode

__all__ = ["RelayLobby"]

Stream = trio.abc.HalfCloseableStream


class RelayLobby:
    """The listings of the registrations in ``registrations`` (the relay's own
    table, by code), bounded by ``limits``; ``stats`` counts what happens to them
    and ``rng`` orders the address blocks of each round of an answer."""

    def __init__(
        self,
        limits: RelayLimits,
        registrations: dict[str, _Registration],
        stats: Counter[str],
        rng: random.Random,
    ) -> None:
        self.limits = limits
        self._registrations = registrations
        self.stats = stats
        self._rng = rng
        self._lists_per_ip: Counter[str] = Counter()

    def expire(self) -> None:
        """Drop the listings not renewed for ``listing_ttl`` seconds."""
        now = trio.current_time()
        for reg in list(self._registrations.values()):
            if reg.listing is not None and now - reg.renewed > self.limits.listing_ttl:
                self.unlist(reg)

    def unlist(self, reg: _Registration) -> None:
        if reg.listing is None:
            return
        reg.listing = reg.parsed = None
        self._lists_per_ip[reg.ip] -= 1
        if not self._lists_per_ip[reg.ip]:
            del self._lists_per_ip[reg.ip]

    def _listed(self) -> list[_Registration]:
        return [r for r in self._registrations.values() if r.listing is not None]

    def _make_room(self, reg: _Registration) -> str:
        """Room for ``reg``'s first listing: ``""``, or why there is none.  A full lobby
        drops the oldest listing of the address block (:func:`~._host.address_block`)
        holding the most, if that holds more than one beyond the newcomer's block: a
        flood fills at most its share of the lobby, also from 256 groups of a /48."""
        limits = self.limits
        held = self._lists_per_ip
        if held[reg.ip] >= limits.max_listings_per_ip:
            return "lobby full: too many games listed from your address"
        if sum(held.values()) < limits.max_listings:
            return ""
        blocks = Counter(r.block for r in self._listed())  # wider than held's groups
        top = {b for b, n in blocks.items() if n > blocks[reg.block] + 1}
        victims = sorted((r for r in self._listed() if r.block in top), key=lambda r: r.listed_at)
        if not victims:
            return "lobby full: too many games listed"
        # Of the blocks holding the most, the one whose oldest listing is oldest.
        most = max(blocks[r.block] for r in victims)
        victim = next(r for r in victims if blocks[r.block] == most)
        self.unlist(victim)
        self.stats["evicted_listings"] += 1
        return ""

    def list_game(self, reg: _Registration, listing: bytes) -> str:
        """List (or with an empty body unlist) ``reg``'s game; the reason it is not
        listed, or ``""``.  A listing whose shape or signature (for ``reg``'s code)
        does not hold is refused and not stored (connect.md 2.2)."""
        if len(listing) > MAX_LISTING:
            raise RelayProtocolError("listing too long")
        now = trio.current_time()
        if not listing:
            self.unlist(reg)
            return ""
        if listing == reg.listing:  # the same listing again: a renewal, checked already
            reg.renewed = now
            return ""
        try:
            parsed = LobbyListing.verify(listing, reg.code)
        except ListingError as exc:
            self.stats["invalid_listings"] += 1
            return f"listing refused: {exc}"
        if reg.listing is None:
            self.expire()
            why = self._make_room(reg)
            if why:
                self.stats["refused_listings"] += 1
                return why
            self._lists_per_ip[reg.ip] += 1
            reg.listed_at = now
            self.stats["listings"] += 1
        reg.listing, reg.parsed, reg.renewed = listing, parsed, now
        return ""

    def ranked(self, wanted: LobbyFilter) -> tuple[list[_Registration], int, int]:
        """The listings matching ``wanted`` in the order of an answer, and how many are
        held in all and match: round by round, one listing of each address block per
        round, the groups of a round in a random order, a group's listings oldest
        first (connect.md 2.2)."""
        listed = self._listed()
        groups: dict[str, list[_Registration]] = {}
        matching = 0
        for reg in sorted(listed, key=lambda r: r.listed_at):
            assert reg.parsed is not None
            if wanted.matches(reg.parsed):
                groups.setdefault(reg.block, []).append(reg)
                matching += 1
        order: list[_Registration] = []
        rounds = list(groups.values())
        depth = 0
        while len(order) < matching:
            this = [regs[depth] for regs in rounds if depth < len(regs)]
            self._rng.shuffle(this)
            order += this
            depth += 1
        return order, len(listed), matching

    async def answer(self, stream: Stream, body: bytes) -> None:
        """Answer ``LOBBY``: the listed games that match its filter, ranked by
        :meth:`ranked`, then ``END`` with the counts held and matching."""
        try:
            wanted = LobbyFilter.decode(body)
        except ListingError as exc:
            raise RelayProtocolError(f"bad LOBBY: {exc}") from None
        self.stats["lobby_requests"] += 1
        self.expire()
        ranked, held, matching = self.ranked(wanted)
        now = trio.current_time()
        out = bytearray()
        for reg in ranked[: self.limits.max_lobby_games]:
            assert reg.listing is not None
            waiting = min(int(now - reg.listed_at), 0xFFFFFFFF)
            out += encode(
                Msg.GAME,
                bytes([len(reg.code)])
                + reg.code.encode()
                + struct.pack("!I", waiting)
                + reg.listing,
            )
        out += encode(Msg.END, struct.pack("!HH", min(held, 0xFFFF), min(matching, 0xFFFF)))
        with trio.fail_after(10):
            await stream.send_all(bytes(out))
