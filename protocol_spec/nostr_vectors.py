"""Generate (or check) the test vectors of the lobby on Nostr (connect.md §10).

    python protocol_spec/nostr_vectors.py          # rewrite vectors/nostr_lobby_v1.json
    python protocol_spec/nostr_vectors.py --check  # exit 1 if it is out of date

A host whose Ed25519 seed is ``SHA-256("truc-p2p nostr vector host")`` lists its
game at ``created_at`` 1700000000 for 600 s, registered with the relay
``relay.example.org:4456`` under the code ``45sjajpekleh2ojq``.  Its Nostr key is
derived from its identity (§10.1); the BIP-340 auxiliary randomness of every
signature is ``SHA-256("truc-p2p nostr vector aux " + label)``, so every byte is
reproducible.  The vector holds the event as published (with the serialization
whose SHA-256 is its id), the listing's bytes and binding, the invite a joiner
builds, the deletion at the first card, and events a joiner must drop (each
names the check of §10.4 it fails), all judged at ``now`` 1700000100.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from truc_p2p.crypto import SigningKey
from truc_p2p.net._lobby import LobbyListing, listing_fields
from truc_p2p.net._nostr import (
    LISTING_KIND,
    ListedRelay,
    NostrEvent,
    NostrKey,
    deletion_event,
    listing_binding,
    listing_event,
    nostr_key_for,
    serialize,
    sign_event,
    verify_listing_event,
)

OUT = Path(__file__).resolve().parent / "vectors" / "nostr_lobby_v1.json"
RELAY = ("relay.example.org", 4456)
CODE = "45sjajpekleh2ojq"
NOW = 1700000000
LIFETIME = 600
CHECKED_AT = 1700000100


def _seed(label: str) -> bytes:
    return hashlib.sha256(b"truc-p2p nostr vector " + label.encode()).digest()


def _aux(label: str) -> bytes:
    return hashlib.sha256(b"truc-p2p nostr vector aux " + label.encode()).digest()


def _identity(label: str) -> SigningKey:
    return SigningKey.from_bytes(_seed(label))


def _listing(identity: SigningKey, name: str) -> LobbyListing:
    return LobbyListing(
        key=identity.public_key().to_bytes(),
        addr=("203.0.113.7", 4455),
        fields=listing_fields(
            name=name,
            ruleset={"target": 12, "ladder": "literal", "rest_refused": "game"},
            audit="game",
            deck="v2",
            pipeline=True,
            early=None,
        ),
    )


def _event(identity: SigningKey, label: str, **kw: Any) -> NostrEvent:
    key = kw.pop("key", None) or nostr_key_for(identity)
    return listing_event(
        key,
        identity,
        _listing(identity, kw.pop("name", "ana")),
        now=kw.pop("now", NOW),
        lifetime=kw.pop("lifetime", LIFETIME),
        aux=_aux(label),
        relay=ListedRelay(RELAY, CODE),
        since=NOW,
    )


def _resigned(event: NostrEvent, key: NostrKey, label: str, **changes: Any) -> NostrEvent:
    """``event`` with ``changes``, signed again by ``key`` (so only §10.4's later
    checks can catch it)."""
    changed = replace(event, **changes)
    return sign_event(
        key,
        created_at=changed.created_at,
        kind=changed.kind,
        tags=changed.tags,
        content=changed.content,
        aux=_aux(label),
    )


def vectors() -> dict[str, Any]:
    host = _identity("host")
    key = nostr_key_for(host)
    event = _event(host, "listing")
    body = json.loads(event.content)
    expiration = NOW + LIFETIME
    _, game = verify_listing_event(event.to_json(), now=CHECKED_AT)
    deletion = deletion_event(
        key, game.listing.fingerprint, now=NOW + 30, aux=_aux("deletion"), listed=[event.id]
    )
    other = nostr_key_for(_identity("thief"))
    forger = _identity("forger")
    broken = dict(body)
    broken["listing"] = body["listing"][:-2] + "00"
    dropped = [
        ("bad-nostr-signature", "signature", replace(event, sig=event.sig[:-2] + "00")),
        (
            "content-changed",
            "id",
            replace(event, content=event.content.replace(CODE, "a" * len(CODE))),
        ),
        ("kind-changed", "kind", _resigned(event, key, "kind", kind=30000)),
        ("no-expiration", "expiration", _resigned(event, key, "noexp", tags=event.tags[:1])),
        ("expired", "expiration", _event(host, "expired", now=NOW - LIFETIME)),
        ("lives-too-long", "expiration", _event(host, "long", lifetime=7200)),
        ("carried-by-another-nostr-key", "listing signature", _resigned(event, other, "thief")),
        (
            "listing-signature-broken",
            "listing signature",
            _resigned(event, key, "broken", content=json.dumps(broken, sort_keys=True)),
        ),
        (
            "d-tag-of-another-host",
            "d tag",
            _resigned(
                _event(forger, "forger", name="ana"),
                nostr_key_for(forger),
                "forger-d",
                tags=[["d", game.listing.fingerprint], ["expiration", str(expiration)]],
            ),
        ),
    ]
    return {
        "schema": "schemas/nostr_lobby_v1.schema.json",
        "description": "connect.md §10: a host's listing on Nostr, its deletion, and "
        "events a joiner drops; generated by protocol_spec/nostr_vectors.py",
        "kind": LISTING_KIND,
        "now": CHECKED_AT,
        "host": {
            "ed25519_seed": _seed("host").hex(),
            "nostr_secret": key.secret.hex(),
            "nostr_pubkey": key.pubkey_hex,
            "fingerprint": game.listing.fingerprint,
        },
        "listing": {
            "aux": _aux("listing").hex(),
            "event": event.to_json(),
            "serialized": serialize(
                event.pubkey, event.created_at, event.kind, event.tags, event.content
            ).decode(),
            "binding": listing_binding(key.pubkey_hex, expiration),
            "listing_bytes": body["listing"],
            "invite": str(game.invite),
            "waiting": game.waiting,
        },
        "deletion": {"aux": _aux("deletion").hex(), "event": deletion.to_json()},
        "dropped": [
            {"label": label, "fails": fails, "event": bad.to_json()}
            for label, fails, bad in dropped
        ],
    }


def main(argv: list[str]) -> int:
    text = json.dumps(vectors(), indent=2, ensure_ascii=False) + "\n"
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is out of date: run python {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
