"""Linked games (wire.md section 4.1): the vector is reproduced, malformed option maps
are refused, a mismatch names the option, and the first dealer alternates."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from truc_p2p.crypto import SigningKey
from truc_p2p.protocol import (
    NEED_DATA,
    RemoteProtocolError,
    Series,
    Session,
    SessionOptions,
    decode_envelope,
)
from truc_p2p.rules import Player

SPEC = Path(__file__).resolve().parents[2] / "protocol_spec"


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("truc_linked_vectors", SPEC / "linked_vectors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def vector() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SPEC / "vectors" / "linked_games.json").read_text())
    return data


def test_the_vector_is_reproduced_byte_for_byte(
    generator: ModuleType, vector: dict[str, Any]
) -> None:
    assert generator.linked_vector() == vector


@pytest.mark.parametrize("game", ["first", "rematch", "match_game_1", "match_game_2"])
def test_the_vector_is_reproduced_from_its_own_seeds(vector: dict[str, Any], game: str) -> None:
    """What another implementation has: the seeds, names and secrets in the vector and
    the options; the hellos, the coin and the game id follow from them alone."""
    case, seeds = vector[game], vector["seeds"]
    options = case["options"]
    prev = options.get("prev")
    series = Series(
        match=options.get("match", 1),
        prev=bytes.fromhex(prev) if prev is not None else None,
        dealer=Player(options["dealer"]) if "dealer" in options else None,
    )
    sides = [
        Session(
            identity=SigningKey.from_bytes(bytes.fromhex(seeds["key"][p])),
            role=Player(p),
            secret=bytes.fromhex(case["secrets"][p]),
            options=SessionOptions(
                name=seeds["names"][p],
                series=series or Series(),
                rest_final=seeds["rest_final"],
                early_redeal=seeds["early_redeal"],
            ),
        )
        for p in (0, 1)
    ]
    for _ in range(6):
        for p in (0, 1):
            data = sides[p].data_to_send()
            if data:
                sides[1 - p].receive_data(data)
        for p in (0, 1):
            while sides[p].next_event() is not NEED_DATA:
                pass
    assert sides[0].started and sides[1].started
    hellos = sides[0]._hello.hellos
    assert [h.hex() for h in hellos] == [case["hello_initiator"], case["hello_responder"]]
    assert sides[0].game_id.hex() == sides[1].game_id.hex() == case["game_id"]
    assert int(sides[0].game.first_dealer) == case["first_dealer"]


def test_the_dealer_alternates_and_overrides_the_coins(vector: dict[str, Any]) -> None:
    first, rematch = vector["first"], vector["rematch"]
    assert "prev" not in first["options"] and first["first_dealer"] == first["coin_dealer"]
    assert rematch["options"]["prev"] == first["game_id"]
    assert rematch["first_dealer"] == 1 - first["first_dealer"]
    assert rematch["coin_dealer"] != rematch["first_dealer"]  # the coins did not decide
    two = vector["match_game_2"]
    assert (
        two["options"]["match"] == 3 and two["options"]["prev"] == vector["match_game_1"]["game_id"]
    )
    assert two["first_dealer"] == 1 - vector["match_game_1"]["first_dealer"]
    for game in ("first", "rematch", "match_game_1", "match_game_2"):
        hello = decode_envelope(bytes.fromhex(vector[game]["hello_responder"]))
        assert (
            hello.payload["options"]
            == decode_envelope(bytes.fromhex(vector[game]["hello_initiator"])).payload["options"]
        )  # both hellos carry the same keys


def test_malformed_linked_options_are_refused(
    generator: ModuleType, vector: dict[str, Any]
) -> None:
    assert vector["rejected"]
    assert generator.check_rejected(vector) == []


def _handshake(mine: Series | None, theirs: Series | None) -> list[Session]:
    sides = [
        Session(
            identity=SigningKey.generate(),
            role=Player(p),
            secret=bytes([p + 1]) * 32,
            options=SessionOptions(series=(mine, theirs)[p] or Series()),
        )
        for p in (0, 1)
    ]
    for _ in range(6):
        for p in (0, 1):
            data = sides[p].data_to_send()
            if data:
                sides[1 - p].receive_data(data)
        for p in (0, 1):
            try:
                while sides[p].next_event() is not NEED_DATA:
                    pass
            except RemoteProtocolError:
                pass
    return sides


def test_a_match_length_mismatch_is_refused_naming_the_option() -> None:
    sides = _handshake(Series(match=3), None)
    assert sides[1].error is not None and "'match': 3" in str(sides[1].error)
    assert sides[0].error is not None


def test_a_rematch_of_an_unknown_game_is_refused_unless_adopted() -> None:
    asked = Series(prev=b"\x07" * 32, dealer=Player.P1)
    sides = _handshake(asked, None)
    assert sides[1].error is not None and "prev" in str(sides[1].error)
    adopted = [
        Session(
            identity=SigningKey.generate(),
            role=Player(p),
            secret=bytes([p + 3]) * 32,
            accept_series=(lambda s, fp: s.prev == b"\x07" * 32) if p == 1 else None,
            options=SessionOptions(series=asked if p == 0 else Series()),
        )
        for p in (0, 1)
    ]
    for _ in range(6):
        for p in (0, 1):
            data = adopted[p].data_to_send()
            if data:
                adopted[1 - p].receive_data(data)
        for p in (0, 1):
            while adopted[p].next_event() is not NEED_DATA:
                pass
    assert adopted[1].error is None and adopted[1].series == asked
    assert adopted[0].started and adopted[0].game.first_dealer is Player.P1
