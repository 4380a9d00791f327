"""vectors/nostr_lobby_v1.json: the lobby on Nostr (connect.md §10, NIP-01, BIP-340)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from coincurve import PrivateKey
from common import Ed25519, fingerprint
from lobby import invite, sign

FILE = "nostr_lobby_v1.json"
INDENT = 2
KIND = 37313
RELAY = "relay.example.org:4456"
CODE = "45sjajpekleh2ojq"
NOW, LIFETIME, CHECKED_AT = 1700000000, 600, 1700000100
ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def _seed(label: str) -> bytes:
    return hashlib.sha256(b"truc-p2p nostr vector " + label.encode()).digest()


def _aux(label: str) -> bytes:
    return hashlib.sha256(b"truc-p2p nostr vector aux " + label.encode()).digest()


class Nostr:
    """connect.md §10.1: the Nostr key derived from an Ed25519 seed."""

    def __init__(self, seed: bytes) -> None:
        extra = b""
        while True:
            secret = hashlib.sha256(b"truc-p2p nostr key v1" + seed + extra).digest()
            if 0 < int.from_bytes(secret, "big") < ORDER:
                break
            extra = bytes([len(extra) + 1])
        self.secret = secret
        self._key = PrivateKey(secret)
        self.pubkey = self._key.public_key.format(compressed=True)[1:].hex()

    def event(
        self, created_at: int, kind: int, tags: list[list[str]], content: str, aux: str
    ) -> dict[str, Any]:
        data = serialize(self.pubkey, created_at, kind, tags, content)
        ident = hashlib.sha256(data).digest()
        sig = self._key.sign_schnorr(ident, _aux(aux))
        return {
            "id": ident.hex(),
            "pubkey": self.pubkey,
            "created_at": created_at,
            "kind": kind,
            "tags": tags,
            "content": content,
            "sig": sig.hex(),
        }


def serialize(
    pubkey: str, created_at: int, kind: int, tags: list[list[str]], content: str
) -> bytes:
    """NIP-01: compact JSON of [0, pubkey, created_at, kind, tags, content], UTF-8."""
    value = [0, pubkey, created_at, kind, tags, content]
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


FIELDS = {
    "name": "ana", "target": "12", "ladder": "literal", "rest": "game", "audit": "game",
    "deck": "v2", "pipeline": "1", "match": "1",
}  # fmt: skip
HOST = ("203.0.113.7", 4455)


def _content(identity: Ed25519, nostr: Nostr, expiration: int) -> str:
    binding = f"nostr {nostr.pubkey} {expiration}"
    listing = sign(identity, HOST, FIELDS, binding)
    body = {"code": CODE, "listing": listing.hex(), "relay": RELAY, "since": NOW}
    return json.dumps(body, sort_keys=True, separators=(",", ":"))


def _listing_event(
    identity: Ed25519, aux: str, now: int = NOW, life: int = LIFETIME
) -> dict[str, Any]:
    nostr = Nostr(identity.seed)
    expiration = now + life
    tags = [["d", fingerprint(identity.public)], ["expiration", str(expiration)]]
    return nostr.event(now, KIND, tags, _content(identity, nostr, expiration), aux)


def _resigned(event: dict[str, Any], nostr: Nostr, aux: str, **changes: Any) -> dict[str, Any]:
    e = {**event, **changes}
    return nostr.event(e["created_at"], e["kind"], e["tags"], e["content"], aux)


def build() -> dict[str, Any]:
    host = Ed25519(_seed("host"))
    nostr = Nostr(host.seed)
    fp = fingerprint(host.public)
    event = _listing_event(host, "listing")
    body = json.loads(event["content"])
    expiration = NOW + LIFETIME
    deletion = nostr.event(
        NOW + 30, 5,
        [["a", f"{KIND}:{nostr.pubkey}:{fp}"], ["e", event["id"]], ["k", str(KIND)]],
        "", "deletion",
    )  # fmt: skip
    forger = Ed25519(_seed("forger"))
    broken = {**body, "listing": body["listing"][:-2] + "00"}
    dropped = [
        ("bad-nostr-signature", "signature", {**event, "sig": event["sig"][:-2] + "00"}),
        ("content-changed", "id",
         {**event, "content": event["content"].replace(CODE, "a" * len(CODE))}),
        ("kind-changed", "kind", _resigned(event, nostr, "kind", kind=30000)),
        ("no-expiration", "expiration", _resigned(event, nostr, "noexp", tags=event["tags"][:1])),
        ("expired", "expiration", _listing_event(host, "expired", now=NOW - LIFETIME)),
        ("lives-too-long", "expiration", _listing_event(host, "long", life=7200)),
        ("carried-by-another-nostr-key", "listing signature",
         _resigned(event, Nostr(_seed("thief")), "thief")),
        # the content of this one is written with JSON's default separators
        ("listing-signature-broken", "listing signature",
         _resigned(event, nostr, "broken", content=json.dumps(broken, sort_keys=True))),
        ("d-tag-of-another-host", "d tag",
         _resigned(_listing_event(forger, "forger"), Nostr(forger.seed), "forger-d",
                   tags=[["d", fp], ["expiration", str(expiration)]])),
    ]  # fmt: skip
    fields = {k: FIELDS[k] for k in FIELDS if k != "name"}
    return {
        "schema": "schemas/nostr_lobby_v1.schema.json",
        "description": "connect.md §10: a host's listing on Nostr, its deletion, and "
        "events a joiner drops; generated by protocol_spec/nostr_vectors.py",
        "kind": KIND,
        "now": CHECKED_AT,
        "host": {
            "ed25519_seed": host.seed.hex(),
            "nostr_secret": nostr.secret.hex(),
            "nostr_pubkey": nostr.pubkey,
            "fingerprint": fp,
        },
        "listing": {
            "aux": _aux("listing").hex(),
            "event": event,
            "serialized": serialize(
                nostr.pubkey, NOW, KIND, event["tags"], event["content"]
            ).decode(),
            "binding": f"nostr {nostr.pubkey} {expiration}",
            "listing_bytes": body["listing"],
            "invite": invite(HOST, fp, RELAY, CODE, fields),
            "waiting": CHECKED_AT - body["since"],
        },
        "deletion": {"aux": _aux("deletion").hex(), "event": deletion},
        "dropped": [{"label": a, "fails": b, "event": c} for a, b, c in dropped],
    }
