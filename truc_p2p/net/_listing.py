"""The lobby on a relay, trio-free: signed listings, the answer to ``LOBBY`` (connect.md 2.2).

Shared by the desktop (:mod:`._lobby`, trio) and the page (``truc_p2p.page``).

Theory of operation.  A public host signs, with its own Ed25519 key, what it
lists: its key, its game address and a short text of fields (name, rules,
deck options, match length), bound to its relay code.  The relay stores the
bytes after checking their shape and signature (so it stores no junk) and
hands them to whoever sends ``LOBBY``, optionally filtered by name or
fingerprint (:class:`LobbyFilter`); the joiner checks the signature again
(the relay is not trusted) and builds an :class:`~._invite.Invite` from the listing (game
address, fingerprint of the listed key, relay, code), so joining a listed game
is joining by invite: the hello pins the key.  A relay can hide or delay a
listing, or show it under another code (the signature then fails); it cannot
change a name or a rule, nor list a game under someone else's key.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from truc_p2p.crypto import BadSignatureError, SigningKey, VerifyKey
from truc_p2p.net._invite import HostSettings, Invite, InviteError
from truc_p2p.net._relay_wire import (
    MAX_LISTING,
    Addr,
    Msg,
    RelayProtocolError,
    decode_addr,
    encode_addr,
    relay_text,
)
from truc_p2p.protocol import fingerprint
from truc_p2p.rules import DEFAULT_RULESET

__all__ = [
    "LISTING_CONTEXT",
    "ListingError",
    "LobbyAnswer",
    "LobbyFilter",
    "LobbyGame",
    "LobbyListing",
    "LobbyReader",
    "listing_fields",
    "parse_game",
]

#: What every listing signature starts with (domain separation).
LISTING_CONTEXT = b"truc-p2p lobby listing v1"
#: Characters of a listed name at most.
MAX_NAME = 40
#: Characters of any listed field's value at most.
MAX_VALUE = 64
_SIG_LEN = 64
_KEY_LEN = 32


class ListingError(ValueError):
    """A listing that is malformed or whose signature does not hold."""


@dataclass(frozen=True, kw_only=True)
class LobbyListing:
    """What a public host lists: its key, where it listens, and the game.

    ``fields`` are text keys (``name``, ``target``, ``ladder``, ``rest``,
    ``audit``, ``deck``, ``pipeline``, ``early``, ``match``); a reader ignores
    keys it does not know, so later versions may add some.
    """

    key: bytes
    addr: Addr
    fields: dict[str, str] = field(default_factory=dict)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)

    @property
    def name(self) -> str:
        return self.fields.get("name", "?")

    @property
    def match(self) -> int:
        """Games in the match (1: a single game)."""
        try:
            return max(1, int(self.fields.get("match", "1")))
        except ValueError:
            return 1

    def _unsigned(self) -> bytes:
        text = urlencode(sorted(self.fields.items())).encode()
        return self.key + encode_addr(self.addr) + struct.pack("!H", len(text)) + text

    def sign(self, identity: SigningKey, code: str) -> bytes:
        """The ``LIST`` body: this listing and its signature over it and ``code``."""
        body = self._unsigned()
        signature = identity.sign(_signed(code, body))
        out = body + signature
        if len(out) > MAX_LISTING:
            raise ListingError(f"listing of {len(out)} bytes (at most {MAX_LISTING})")
        return out

    @classmethod
    def verify(cls, data: bytes, code: str) -> LobbyListing:
        """The listing in ``data`` if its signature by its own key holds for ``code``."""
        if len(data) < _KEY_LEN + _SIG_LEN + 2:
            raise ListingError("short listing")
        key = data[:_KEY_LEN]
        try:
            addr, at = decode_addr(data, _KEY_LEN)
        except RelayProtocolError as exc:
            raise ListingError(str(exc)) from None
        if at + 2 > len(data):
            raise ListingError("short listing")
        (size,) = struct.unpack("!H", data[at : at + 2])
        end = at + 2 + size
        if end + _SIG_LEN != len(data):
            raise ListingError("listing length does not add up")
        try:
            VerifyKey.from_bytes(key).verify(data[end:], _signed(code, data[:end]))
        except (BadSignatureError, ValueError):
            raise ListingError("the listing's signature does not hold") from None
        try:
            text = data[at + 2 : end].decode()
        except UnicodeDecodeError:
            raise ListingError("listing fields are not UTF-8") from None
        fields = {k: v for k, v in parse_qsl(text, keep_blank_values=True)}
        for k, v in fields.items():  # shown on terminals: no escape sequences
            if not (k + v).isprintable() or len(v) > MAX_VALUE:
                raise ListingError(f"the listing's {k[:20]!r} is not short printable text")
        if not 1 <= len(fields.get("name", "?")) <= MAX_NAME:
            raise ListingError(f"a listed name has 1 to {MAX_NAME} characters")
        return cls(key=key, addr=addr, fields=fields)


@dataclass(frozen=True, kw_only=True)
class LobbyFilter:
    """Which games a ``LOBBY`` asks for (connect.md 2.2): those whose name contains
    ``name`` (case-insensitively) and whose fingerprint starts with ``fingerprint``
    (hex); empty matches every game.  The relay applies it before it cuts its
    answer short, and the joiner applies it again (the relay is not trusted)."""

    name: str = ""
    fingerprint: str = ""

    def __post_init__(self) -> None:
        if len(self.name) > MAX_NAME or not (self.name + self.fingerprint).isprintable():
            raise ListingError(f"a name filter is printable text of at most {MAX_NAME} characters")
        fp = self.fingerprint
        if len(fp) > 64 or any(c not in "0123456789abcdef" for c in fp):
            raise ListingError("a fingerprint filter is lowercase hex, at most 64 digits")

    def __bool__(self) -> bool:
        return bool(self.name or self.fingerprint)

    def matches(self, listing: LobbyListing) -> bool:
        return self.name.casefold() in listing.name.casefold() and listing.fingerprint.startswith(
            self.fingerprint
        )

    def encode(self) -> bytes:
        """The ``LOBBY`` body: empty without a filter, else ``name=…&fp=…`` (form-encoded,
        each key only when set)."""
        fields = [("name", self.name), ("fp", self.fingerprint)]
        return urlencode([(k, v) for k, v in fields if v]).encode()

    @classmethod
    def decode(cls, body: bytes) -> LobbyFilter:
        """A ``LOBBY`` body; keys other than ``name`` and ``fp`` are ignored (later
        versions may add some).  :class:`ListingError` if malformed."""
        if not body:
            return cls()
        try:
            fields = dict(parse_qsl(body.decode(), keep_blank_values=True, strict_parsing=True))
        except (UnicodeDecodeError, ValueError):
            raise ListingError("a LOBBY filter is form-encoded UTF-8 text") from None
        return cls(name=fields.get("name", ""), fingerprint=fields.get("fp", ""))


def _signed(code: str, body: bytes) -> bytes:
    raw = code.encode("ascii")
    return LISTING_CONTEXT + bytes([len(raw)]) + raw + body


def listing_fields(
    *,
    name: str,
    ruleset: dict[str, Any],
    audit: str,
    deck: str,
    pipeline: bool | None,
    early: bool | None,
    match: int = 1,
) -> dict[str, str]:
    """The text fields of a listing, from a host's settings."""
    rules = {**DEFAULT_RULESET.to_dict(), **ruleset}
    fields = {
        "name": name[:MAX_NAME],
        "target": str(rules["target"]),
        "ladder": str(rules["ladder"]),
        "rest": str(rules["rest_refused"]),
        "audit": audit,
        "deck": deck,
        "match": str(match),
    }
    if pipeline is not None:
        fields["pipeline"] = "1" if pipeline else "0"
    if early is not None:
        fields["early"] = "1" if early else "0"
    return fields


@dataclass(frozen=True)
class LobbyGame:
    """One open game of a relay's lobby, its listing verified."""

    code: str
    waiting: int
    listing: LobbyListing
    invite: Invite

    def to_json(self) -> dict[str, Any]:
        f = self.listing.fields
        return {
            "name": self.listing.name,
            "fingerprint": self.listing.fingerprint,
            "target": _int(f.get("target")),
            "ladder": f.get("ladder"),
            "rest": f.get("rest"),
            "audit": f.get("audit"),
            "deck": f.get("deck"),
            "pipeline": _flag(f.get("pipeline")),
            "early": _flag(f.get("early")),
            "match": self.listing.match,
            "waiting_seconds": self.waiting,
            "code": self.code,
            "invite": str(self.invite),
        }


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def _flag(text: str | None) -> bool | None:
    return None if text is None else text == "1"


def parse_game(body: bytes, relay: tuple[str, int]) -> LobbyGame:
    """A ``GAME`` body as a verified :class:`LobbyGame` (:class:`ListingError` otherwise)."""
    if not body or len(body) < 1 + body[0] + 4:
        raise ListingError("short GAME")
    code = relay_text(body[1 : 1 + body[0]])
    (waiting,) = struct.unpack("!I", body[1 + body[0] : 5 + body[0]])
    listing = LobbyListing.verify(body[5 + body[0] :], code)
    said = dict(listing.fields)
    if said.get("match") == "1":  # a single game: its host's invite names no match
        del said["match"]
    try:
        invite = Invite(
            listing.addr[0],
            listing.addr[1],
            listing.fingerprint,
            relay=relay,
            code=code,
            settings=HostSettings.from_fields(said),  # as the host's invite says
        )
    except InviteError as exc:
        raise ListingError(f"the listing makes no invite: {exc}") from None
    return LobbyGame(code, waiting, listing, invite)


@dataclass(frozen=True, kw_only=True)
class LobbyAnswer:
    """What a relay answered to ``LOBBY``: the games that verify and match the filter,
    a note per listing dropped, and the relay's counts: listings it holds in all
    (``held``), those matching the filter (``matching``; a relay that predates
    filters reports none, then it is ``held``) and GAMEs it sent (``shown``)."""

    games: list[LobbyGame]
    notes: list[str]
    held: int
    matching: int
    shown: int


class LobbyReader:
    """The relay's answer to ``LOBBY``, one message at a time (sans-IO): ``GAME``
    bodies verified into games (a note per listing dropped), until ``END``."""

    def __init__(self, relay: tuple[str, int]) -> None:
        self.relay = relay
        self.games: list[LobbyGame] = []
        self.notes: list[str] = []
        self.shown = 0

    def message(self, kind: int, body: bytes) -> LobbyAnswer | None:
        """The answer once ``END`` comes, else ``None``; :class:`RelayProtocolError`
        for ``ERROR`` or any other message."""
        if kind == Msg.END:
            # END: held in all (2 bytes), then matching the filter (2 bytes, newer relays).
            held = struct.unpack("!H", body[:2])[0] if len(body) >= 2 else self.shown
            matching = struct.unpack("!H", body[2:4])[0] if len(body) >= 4 else held
            return LobbyAnswer(
                games=self.games, notes=self.notes, held=held, matching=matching, shown=self.shown
            )
        if kind == Msg.ERROR:
            raise RelayProtocolError("the relay says: " + relay_text(body))
        if kind != Msg.GAME:
            raise RelayProtocolError(f"unexpected message {kind:#x} in the lobby")
        self.shown += 1
        try:
            self.games.append(parse_game(body, self.relay))
        except ListingError as exc:
            self.notes.append(f"dropped a listing: {exc}")
        return None
