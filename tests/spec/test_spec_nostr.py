"""``protocol_spec/vectors/nostr_lobby_v1.json`` (connect.md §10): the listing event's
bytes are what the code writes, its BIP-340 signatures are made again from the vector's
key and auxiliary randomness, and the events a joiner must drop are dropped."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from coincurve import PublicKeyXOnly
from helpers.examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from truc_p2p.crypto import SigningKey
from truc_p2p.net import ListingError
from truc_p2p.net._nostr import (
    DELETION_KIND,
    LISTING_KIND,
    NostrKey,
    merge_listings,
    nostr_key_for,
    serialize,
    sign_event,
    verify_event,
    verify_listing_event,
)

SPEC_DIR = Path(__file__).resolve().parents[2] / "protocol_spec"
VECTORS: dict[str, Any] = json.loads((SPEC_DIR / "vectors" / "nostr_lobby_v1.json").read_text())
SPEC = (SPEC_DIR / "connect.md").read_text()
NOW = VECTORS["now"]


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("nostr_vectors", SPEC_DIR / "nostr_vectors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_vectors_are_what_the_generator_writes() -> None:
    assert _generator().main(["--check"]) == 0


def test_the_nostr_key_is_derived_from_the_identity() -> None:
    host = VECTORS["host"]
    identity = SigningKey.from_bytes(bytes.fromhex(host["ed25519_seed"]))
    seed = bytes.fromhex(host["ed25519_seed"])
    assert hashlib.sha256(b"truc-p2p nostr key v1" + seed).hexdigest() == host["nostr_secret"]
    key = nostr_key_for(identity)
    assert key.pubkey_hex == host["nostr_pubkey"]


def test_the_listing_event_is_signed_as_nip01_and_bip340_say() -> None:
    case = VECTORS["listing"]
    event = case["event"]
    text = serialize(
        event["pubkey"], event["created_at"], event["kind"], event["tags"], event["content"]
    )
    assert text.decode() == case["serialized"]
    assert hashlib.sha256(text).hexdigest() == event["id"]
    digest = bytes.fromhex(event["id"])
    pub = PublicKeyXOnly(bytes.fromhex(event["pubkey"]))
    assert pub.verify(bytes.fromhex(event["sig"]), digest)
    key = NostrKey(bytes.fromhex(VECTORS["host"]["nostr_secret"]))
    assert key.sign(digest, bytes.fromhex(case["aux"])).hex() == event["sig"]
    assert event["kind"] == LISTING_KIND == VECTORS["kind"]
    assert event["tags"][0] == ["d", VECTORS["host"]["fingerprint"]]
    expiration = int(event["tags"][1][1])
    assert event["tags"][1][0] == "expiration" and expiration == event["created_at"] + 600
    assert case["binding"] == f"nostr {event['pubkey']} {expiration}"
    read, game = verify_listing_event(event, now=NOW)
    assert read.id == event["id"] and str(game.invite) == case["invite"]
    assert game.waiting == case["waiting"] == NOW - event["created_at"]
    assert game.listing.fingerprint == VECTORS["host"]["fingerprint"]


def test_the_deletion_names_the_address_and_the_event() -> None:
    event = VECTORS["deletion"]["event"]
    assert verify_event(event).kind == DELETION_KIND == 5
    listing = VECTORS["listing"]["event"]
    address = f"{LISTING_KIND}:{listing['pubkey']}:{VECTORS['host']['fingerprint']}"
    assert ["a", address] in event["tags"] and ["e", listing["id"]] in event["tags"]
    key = NostrKey(bytes.fromhex(VECTORS["host"]["nostr_secret"]))
    aux = bytes.fromhex(VECTORS["deletion"]["aux"])
    assert key.sign(bytes.fromhex(event["id"]), aux).hex() == event["sig"]


@pytest.mark.parametrize("case", VECTORS["dropped"], ids=lambda c: c["label"])
def test_a_bad_event_is_dropped(case: dict[str, Any]) -> None:
    with pytest.raises(ListingError):
        verify_listing_event(case["event"], now=NOW)


def test_the_dropped_events_hide_no_host_and_are_noted() -> None:
    events = [c["event"] for c in VECTORS["dropped"]] + [VECTORS["listing"]["event"]]
    games, notes = merge_listings([("wss://a", events), ("wss://b", events[::-1])], now=NOW)
    assert [g.game.listing.fingerprint for g in games] == [VECTORS["host"]["fingerprint"]]
    assert games[0].relays == ("wss://a", "wss://b")
    assert len(notes) == len(VECTORS["dropped"])  # each judged once, not once per relay


@pytest.mark.parametrize(
    "junk", [None, 5, "x", [], {"id": 1}, {**VECTORS["listing"]["event"], "tags": 3}]
)
def test_junk_is_a_listing_error(junk: object) -> None:
    with pytest.raises(ListingError):
        verify_listing_event(junk, now=NOW)


def test_the_spec_names_the_kind_and_the_vectors() -> None:
    assert "vectors/nostr_lobby_v1.json" in SPEC and "nostr_vectors.py" in SPEC
    assert f"kind {LISTING_KIND}" in SPEC and '"truc-p2p nostr key v1"' in SPEC


@pytest.mark.parametrize("expiration", ["²", "1e9", "-5", " 1700000600", "9" * 40])
def test_an_odd_expiration_is_a_listing_error(expiration: str) -> None:
    listing = VECTORS["listing"]["event"]
    key = NostrKey(bytes.fromhex(VECTORS["host"]["nostr_secret"]))
    tags = [listing["tags"][0], ["expiration", expiration]]
    event = sign_event(
        key, created_at=NOW, kind=LISTING_KIND, tags=tags, content=listing["content"], aux=b""
    )
    with pytest.raises(ListingError):
        verify_listing_event(event.to_json(), now=NOW)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)


@settings(max_examples=examples(80), deadline=None)
@given(
    field=st.sampled_from(["id", "pubkey", "created_at", "kind", "tags", "content", "sig"]),
    value=_JSON,
)
def test_any_field_changed_is_a_listing_error_or_the_same_listing(
    field: str, value: object
) -> None:
    event = {**VECTORS["listing"]["event"], field: value}
    try:
        _, game = verify_listing_event(event, now=NOW)
    except ListingError:
        return
    assert str(game.invite) == VECTORS["listing"]["invite"]  # unchanged in effect


@settings(max_examples=examples(80), deadline=None)
@given(events=st.lists(_JSON, max_size=6))
def test_any_relay_answer_merges_without_raising(events: list[object]) -> None:
    good = VECTORS["listing"]["event"]
    games, notes = merge_listings([("wss://a", [*events, good])], now=NOW)
    assert [g.game.listing.fingerprint for g in games] == [VECTORS["host"]["fingerprint"]]
    assert len(notes) <= len(events)  # each bad one noted at most once
