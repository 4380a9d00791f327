"""The lobby on Nostr, without I/O: listing events and their checks (``connect.md`` §10).

Theory of operation.  A public host wraps the Ed25519-signed listing of the
relay lobby (:class:`~._lobby.LobbyListing`) in a Nostr event (NIP-01) of
kind :data:`LISTING_KIND`, addressable (one per host: its ``d`` tag is the
host's key fingerprint, and a newer event replaces an older one) and
expiring (NIP-40 ``expiration``).  The event is signed by a Nostr key
(BIP-340 Schnorr over secp256k1) derived from the host's identity, so a
restarted host replaces its own earlier listing instead of leaving a ghost
beside it; the Ed25519 signature of the listing covers that Nostr key and
the expiration (:func:`listing_binding`), so nobody else's Nostr key can
carry a host's listing and nobody can extend its life.  A Nostr relay can
hide a listing; it can forge none.

A joiner (:func:`verify_listing_event`) checks, in order: the event's shape,
its id (sha256 of the serialized array), its Schnorr signature, the kind,
the expiration (present, in the future, at most :data:`MAX_LIFETIME`
ahead), the listing's Ed25519 signature over the binding, and that the
``d`` tag is the listed key's fingerprint.  :func:`merge_listings` keeps the
newest verified listing per host key across relays.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from coincurve import PrivateKey, PublicKeyXOnly

from truc_p2p.crypto import SigningKey
from truc_p2p.net._invite import HostSettings, Invite, InviteError, host_port, parse_host_port
from truc_p2p.net._lobby import ListingError, LobbyFilter, LobbyGame, LobbyListing

__all__ = [
    "DELETION_KIND",
    "LISTING_KIND",
    "MAX_LIFETIME",
    "ListedRelay",
    "NostrEvent",
    "NostrKey",
    "deletion_event",
    "listing_binding",
    "listing_event",
    "merge_listings",
    "nostr_key_for",
    "verify_event",
    "verify_listing_event",
]

#: The kind of a truc-p2p listing: addressable (NIP-01: 30000 to 39999).
LISTING_KIND = 37313
#: NIP-09 deletion request.
DELETION_KIND = 5
#: A listing may claim to live this many seconds at most (a joiner drops one
#: whose expiration lies further ahead).
MAX_LIFETIME = 3600
#: The largest event content a joiner reads (a listing is under 1 KiB).
MAX_CONTENT = 4096
#: What the Nostr key derivation hashes first (domain separation).
KEY_CONTEXT = b"truc-p2p nostr key v1"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX128 = re.compile(r"[0-9a-f]{128}")


class NostrKey:
    """A Nostr secret key (secp256k1) and its x-only public key."""

    def __init__(self, secret: bytes) -> None:
        self._key = PrivateKey(secret)
        self.secret = secret
        self.pubkey = self._key.public_key_xonly.format()

    @property
    def pubkey_hex(self) -> str:
        return self.pubkey.hex()

    def sign(self, event_id: bytes, aux: bytes) -> bytes:
        """BIP-340 signature of the 32-byte ``event_id`` with ``aux`` randomness."""
        return self._key.sign_schnorr(event_id, aux)


def nostr_key_for(identity: SigningKey) -> NostrKey:
    """The host's Nostr key: sha256(:data:`KEY_CONTEXT` || Ed25519 seed), tried
    with a counter byte appended until it is a valid secp256k1 scalar (the first
    try is, but for a chance of about 2^-128).  Deterministic, so a restarted host
    addresses, replaces and deletes the same event."""
    seed = identity.to_bytes()
    counter = 0
    while True:
        extra = b"" if counter == 0 else bytes([counter])
        secret = hashlib.sha256(KEY_CONTEXT + seed + extra).digest()
        try:
            return NostrKey(secret)
        except ValueError:
            counter += 1


@dataclass(frozen=True, kw_only=True)
class NostrEvent:
    """A NIP-01 event; :meth:`to_json` is what goes on the wire."""

    id: str
    pubkey: str
    created_at: int
    kind: int
    tags: list[list[str]]
    content: str
    sig: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "pubkey": self.pubkey,
            "created_at": self.created_at,
            "kind": self.kind,
            "tags": self.tags,
            "content": self.content,
            "sig": self.sig,
        }

    def tag(self, name: str) -> str | None:
        """The first value of the tag ``name``, if any."""
        for tag in self.tags:
            if len(tag) >= 2 and tag[0] == name:
                return tag[1]
        return None


def serialize(
    pubkey: str, created_at: int, kind: int, tags: list[list[str]], content: str
) -> bytes:
    """NIP-01's serialization, whose sha256 is the event id: compact JSON, UTF-8."""
    array = [0, pubkey, created_at, kind, tags, content]
    return json.dumps(array, separators=(",", ":"), ensure_ascii=False).encode()


def sign_event(
    key: NostrKey,
    *,
    created_at: int,
    kind: int,
    tags: list[list[str]],
    content: str,
    aux: bytes,
) -> NostrEvent:
    """A signed event (``aux``: 32 bytes of BIP-340 auxiliary randomness)."""
    pubkey = key.pubkey_hex
    digest = hashlib.sha256(serialize(pubkey, created_at, kind, tags, content)).digest()
    return NostrEvent(
        id=digest.hex(),
        pubkey=pubkey,
        created_at=created_at,
        kind=kind,
        tags=tags,
        content=content,
        sig=key.sign(digest, aux).hex(),
    )


def verify_event(data: object) -> NostrEvent:
    """``data`` (a decoded JSON object from a relay) as an event whose id and
    signature hold; :class:`ListingError` otherwise."""
    if not isinstance(data, dict):
        raise ListingError("an event is a JSON object")
    pubkey, sig, eid = data.get("pubkey"), data.get("sig"), data.get("id")
    created_at, kind = data.get("created_at"), data.get("kind")
    tags, content = data.get("tags"), data.get("content")
    if not (isinstance(pubkey, str) and _HEX64.fullmatch(pubkey)):
        raise ListingError("an event's pubkey is 64 lowercase hex digits")
    if not (isinstance(eid, str) and _HEX64.fullmatch(eid)):
        raise ListingError("an event's id is 64 lowercase hex digits")
    if not (isinstance(sig, str) and _HEX128.fullmatch(sig)):
        raise ListingError("an event's sig is 128 lowercase hex digits")
    for value in (created_at, kind):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 40:
            raise ListingError("an event's created_at and kind are whole numbers")
    assert isinstance(created_at, int) and isinstance(kind, int)
    if not isinstance(tags, list) or not all(
        isinstance(t, list) and all(isinstance(s, str) for s in t) for t in tags
    ):
        raise ListingError("an event's tags are lists of strings")
    if not isinstance(content, str) or len(content) > MAX_CONTENT:
        raise ListingError(f"an event's content is text of at most {MAX_CONTENT} characters")
    digest = hashlib.sha256(serialize(pubkey, created_at, kind, tags, content)).digest()
    if digest.hex() != eid:
        raise ListingError("the event's id is not the hash of its fields")
    try:
        good = PublicKeyXOnly(bytes.fromhex(pubkey)).verify(bytes.fromhex(sig), digest)
    except (ValueError, TypeError):
        good = False
    if not good:
        raise ListingError("the event's Nostr signature does not hold")
    return NostrEvent(
        id=eid,
        pubkey=pubkey,
        created_at=created_at,
        kind=kind,
        tags=tags,
        content=content,
        sig=sig,
    )


def listing_binding(nostr_pubkey: str, expiration: int) -> str:
    """What the listing's Ed25519 signature covers in place of a relay code
    (``connect.md`` §10.2): the Nostr key that carries it and when it expires."""
    return f"nostr {nostr_pubkey} {expiration}"


@dataclass(frozen=True)
class ListedRelay:
    """The truc-p2p relay a listed host is registered with (host, port), and the
    code a joiner names there (``connect.md`` §10.2)."""

    address: tuple[str, int]
    code: str


def listing_event(
    key: NostrKey,
    identity: SigningKey,
    listing: LobbyListing,
    *,
    now: int,
    lifetime: int,
    aux: bytes,
    relay: ListedRelay | None = None,
    since: int | None = None,
) -> NostrEvent:
    """The host's listing event, valid from ``now`` for ``lifetime`` seconds;
    ``relay`` when the host is registered with a truc-p2p relay, ``since``: when
    the host began to wait (default ``now``)."""
    expiration = now + lifetime
    signed = listing.sign(identity, listing_binding(key.pubkey_hex, expiration))
    body: dict[str, Any] = {"listing": signed.hex(), "since": now if since is None else since}
    if relay is not None:
        body["relay"] = host_port(*relay.address)
        body["code"] = relay.code
    tags = [["d", listing.fingerprint], ["expiration", str(expiration)]]
    content = json.dumps(body, separators=(",", ":"), sort_keys=True)
    return sign_event(key, created_at=now, kind=LISTING_KIND, tags=tags, content=content, aux=aux)


def deletion_event(
    key: NostrKey, fingerprint: str, *, now: int, aux: bytes, listed: list[str]
) -> NostrEvent:
    """The NIP-09 request deleting the host's listing: its address (``a``) and the
    ids of the events it published (``e``)."""
    address = f"{LISTING_KIND}:{key.pubkey_hex}:{fingerprint}"
    tags = [["a", address], *(["e", eid] for eid in listed), ["k", str(LISTING_KIND)]]
    return sign_event(key, created_at=now, kind=DELETION_KIND, tags=tags, content="", aux=aux)


@dataclass(frozen=True)
class NostrGame:
    """A verified listing found on Nostr: the game and the event that carried it."""

    game: LobbyGame
    created_at: int
    relays: tuple[str, ...]


def verify_listing_event(data: object, *, now: int) -> tuple[NostrEvent, LobbyGame]:
    """The joiner's checks (``connect.md`` §10.4) of one event from a relay, and
    the game it lists; :class:`ListingError` naming the first check that fails."""
    event = verify_event(data)
    if event.kind != LISTING_KIND:
        raise ListingError(f"an event of kind {event.kind}, not a listing")
    text = event.tag("expiration")
    if text is None or not re.fullmatch(r"[0-9]{1,12}", text):
        raise ListingError("a listing without an expiration")
    expiration = int(text)
    if expiration <= now:
        raise ListingError("an expired listing")
    if expiration > now + MAX_LIFETIME:
        raise ListingError(f"a listing that claims to live over {MAX_LIFETIME} s")
    try:
        body = json.loads(event.content)
    except ValueError:
        raise ListingError("a listing's content is not JSON") from None
    if not isinstance(body, dict) or not isinstance(body.get("listing"), str):
        raise ListingError("a listing's content has no listing")
    try:
        raw = bytes.fromhex(body["listing"])
    except ValueError:
        raise ListingError("a listing's listing is not hex") from None
    listing = LobbyListing.verify(raw, listing_binding(event.pubkey, expiration))
    if event.tag("d") != listing.fingerprint:
        raise ListingError("a listing whose d tag is not its key's fingerprint")
    relay_text, code = body.get("relay"), body.get("code")
    relay: tuple[str, int] | None = None
    if relay_text is not None or code is not None:
        if not isinstance(relay_text, str) or not isinstance(code, str):
            raise ListingError("a listing's relay and code go together, as text")
        try:
            relay = parse_host_port(relay_text, what="relay")
        except InviteError as exc:
            raise ListingError(f"a listing's relay: {exc}") from None
    since = body.get("since")
    waiting = 0
    if isinstance(since, int) and not isinstance(since, bool) and 0 <= since <= now:
        waiting = now - since
    said = dict(listing.fields)
    if said.get("match") == "1":  # a single game: its host's invite names no match
        del said["match"]
    try:
        invite = Invite(
            listing.addr[0],
            listing.addr[1],
            listing.fingerprint,
            relay=relay,
            code=code if relay is not None else None,
            settings=HostSettings.from_fields(said),
        )
    except InviteError as exc:
        raise ListingError(f"the listing makes no invite: {exc}") from None
    return event, LobbyGame(code or "", min(waiting, 1 << 31), listing, invite)


def merge_listings(
    found: list[tuple[str, list[object]]], *, now: int, wanted: LobbyFilter | None = None
) -> tuple[list[NostrGame], list[str]]:
    """The games of what several relays answered (``found``: relay URL and its
    events), each host key once (its newest verified listing), those that match
    ``wanted``; and a note per event dropped (an exact copy from another relay
    is noted once).  An event that fails a check hides nothing: one with the id
    of a good event but a bad signature is dropped, and the good one still counts."""
    wanted = wanted or LobbyFilter()
    best: dict[bytes, tuple[int, str, LobbyGame, list[str]]] = {}
    kept: set[str] = set()  # ids of verified events (the id fixes every field)
    dropped: set[str] = set()  # the exact events dropped (a copy is not noted again)
    notes: list[str] = []
    for url, events in found:
        for data in events:
            eid = data.get("id") if isinstance(data, dict) else None
            if isinstance(eid, str) and eid in kept:
                for entry in best.values():  # the same event on another relay
                    if entry[1] == eid and url not in entry[3]:
                        entry[3].append(url)
                continue
            try:
                event, game = verify_listing_event(data, now=now)
            except ListingError as exc:
                try:
                    exact = json.dumps(data, sort_keys=True)
                except (TypeError, ValueError):
                    exact = repr(data)
                if exact not in dropped:
                    dropped.add(exact)
                    notes.append(f"dropped a listing from {url}: {exc}")
                continue
            kept.add(event.id)
            key = game.listing.key
            old = best.get(key)
            if old is None or (event.created_at, event.id) > (old[0], old[1]):
                best[key] = (event.created_at, event.id, game, [url])
    games = [
        NostrGame(game, created, tuple(urls))
        for created, _, game, urls in best.values()
        if wanted.matches(game.listing)
    ]
    games.sort(key=lambda g: (-g.created_at, g.game.listing.fingerprint))
    return games, notes
