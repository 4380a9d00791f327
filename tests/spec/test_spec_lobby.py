"""``protocol_spec/vectors/lobby_v1.json`` (connect.md §2.2): the lobby's bytes are
what the code writes and reads, and the listings a joiner must drop are dropped."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from truc_p2p.crypto import SigningKey
from truc_p2p.net import ListingError, LobbyListing
from truc_p2p.net._lobby import parse_game
from truc_p2p.net._relay_wire import MAX_BODY, MAX_LISTING

SPEC_DIR = Path(__file__).resolve().parents[2] / "protocol_spec"
VECTORS: dict[str, Any] = json.loads((SPEC_DIR / "vectors" / "lobby_v1.json").read_text())
SPEC = (SPEC_DIR / "connect.md").read_text()
RELAY = (VECTORS["relay"][0], VECTORS["relay"][1])


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("lobby_vectors", SPEC_DIR / "lobby_vectors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_vectors_are_what_the_generator_writes() -> None:
    assert _generator().main(["--check"]) == 0


def _body(message_hex: str, kind: int) -> bytes:
    message = bytes.fromhex(message_hex)
    assert message[0] == kind and int.from_bytes(message[1:3], "big") == len(message) - 3
    assert len(message) - 3 <= MAX_BODY
    return message[3:]


@pytest.mark.parametrize("case", VECTORS["listed"], ids=lambda c: c["label"])
def test_a_listed_game_reads_as_its_invite(case: dict[str, Any]) -> None:
    listing = _body(case["list_message"], 0x06)
    assert len(listing) <= MAX_LISTING and listing[-64:].hex() == case["signature"]
    read = LobbyListing.verify(listing, case["code"])
    assert read.key.hex() == case["public_key"] and read.fields == case["fields"]
    game = parse_game(_body(case["game_message"], 0x87), RELAY)
    assert game.code == case["code"] and game.waiting == case["waiting"]
    assert game.listing.fingerprint == case["fingerprint"]
    assert str(game.invite) == case["invite"]
    assert game.listing.addr == tuple(case["addr"])
    signed = bytes.fromhex(case["signed_bytes"])
    assert signed.startswith(b"truc-p2p lobby listing v1" + bytes([len(case["code"])]))
    assert case["fields_text"].encode() in signed
    # the key's seed is in the vector: the signature can be made again
    key = SigningKey.from_bytes(bytes.fromhex(case["key_seed"]))
    assert key.public_key().to_bytes().hex() == case["public_key"]
    assert key.sign(signed).hex() == case["signature"]
    # the match length travels: a joiner of this listing plays the host's match
    games = int(case["fields"]["match"])
    assert game.invite.settings.match == (games if games > 1 else None)
    assert ("&match=" in case["invite"]) == (games > 1)


@pytest.mark.parametrize("case", VECTORS["dropped"], ids=lambda c: c["label"])
def test_an_altered_listing_is_dropped(case: dict[str, Any]) -> None:
    with pytest.raises(ListingError):
        parse_game(_body(case["game_message"], 0x87), RELAY)


def test_the_spec_names_the_vectors_and_the_context() -> None:
    assert "vectors/lobby_v1.json" in SPEC and "lobby_vectors.py" in SPEC
    assert '"truc-p2p lobby listing v1"' in SPEC


def test_the_lobby_limits_quoted_in_the_spec_are_the_relays() -> None:
    from truc_p2p.net import RelayLimits
    from truc_p2p.net._lobby import MAX_NAME, MAX_VALUE

    limits = RelayLimits()
    for text in (
        f"{limits.max_listings} listings, {limits.max_listings_per_ip} per\nhost address",
        f"{limits.listing_ttl:g} s of life after the last renewal",
        f"{limits.max_lobby_games} games per LOBBY",
        f"at most **{limits.listing_ttl:g} s** after its last renewal",
        f"≤ {MAX_LISTING} bytes",
        f"at most {MAX_VALUE} characters and the name 1 to {MAX_NAME}",
    ):
        assert text in SPEC, text


def test_a_filtered_lobby_request_and_the_newer_end() -> None:
    """connect.md 2.2: the filter's bytes, which listings it matches (a name part in
    any case, a fingerprint prefix), and END's two counts; the old END still reads."""
    from truc_p2p.net import LobbyFilter

    case = VECTORS["filtered"]
    request = bytes.fromhex(case["lobby_request"])
    assert request[:8] == b"TRUCRLY1"
    wanted = LobbyFilter.decode(_body(request[8:].hex(), 0x07))
    assert (wanted.name, wanted.fingerprint) == (case["name"], case["fp"])
    assert wanted.encode() == _body(request[8:].hex(), 0x07)
    for listed in VECTORS["listed"]:
        listing = LobbyListing.verify(_body(listed["list_message"], 0x06), listed["code"])
        assert wanted.matches(listing) is case["matches"][listed["label"]]
    assert LobbyFilter.decode(b"name=ANA&later=1") == LobbyFilter(name="ANA")  # unknown: ignored
    for bad in (b"fp=XYZ", b"\xff", b"name=" + b"a" * 41):
        with pytest.raises(ListingError):
            LobbyFilter.decode(bad)
    end = _body(case["end_message"], 0x88)
    assert (int.from_bytes(end[:2], "big"), int.from_bytes(end[2:4], "big")) == (2, 1)
    old_end = _body(VECTORS["end_message"], 0x88)
    assert len(old_end) == 2  # what a relay that predates filters sends
    assert "name=TEXT and/or fp=HEX" in SPEC
