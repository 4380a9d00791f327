"""A session pinned to a peer fingerprint refuses any other key before sending."""

from __future__ import annotations

import secrets

import pytest

from truc_p2p.crypto import SigningKey
from truc_p2p.protocol import (
    NEED_DATA,
    GameStarted,
    PeerKeyMismatchError,
    Session,
    decode_envelope,
    fingerprint,
)
from truc_p2p.rules import Player


def _handshake(host_key: SigningKey, expected: str) -> tuple[Session, list[bytes]]:
    """A joiner pinned to ``expected`` that has just received the host's hello."""
    record: list[bytes] = []
    joiner = Session(
        identity=SigningKey.generate(),
        role=Player.P0,
        secret=secrets.token_bytes(32),
        record=record.append,
        expected_peer_fingerprint=expected,
    )
    host = Session(identity=host_key, role=Player.P1, secret=secrets.token_bytes(32))
    host.receive_data(joiner.data_to_send())
    assert host.next_event() is NEED_DATA
    joiner.receive_data(host.data_to_send())
    return joiner, record


def test_wrong_host_key_is_refused_before_anything_more_is_sent() -> None:
    impostor = SigningKey.generate()
    expected = fingerprint(SigningKey.generate().public_key())
    joiner, record = _handshake(impostor, expected)
    with pytest.raises(PeerKeyMismatchError) as info:
        joiner.next_event()
    assert info.value.code == "wrong-peer-key"
    assert info.value.evidence == (record[-1],)
    assert joiner.data_to_send() == b""  # no coin, no deck for an impostor
    assert [decode_envelope(r).type for r in record] == ["hello", "hello"]
    with pytest.raises(PeerKeyMismatchError):
        joiner.next_event()


def test_pinned_host_key_is_accepted() -> None:
    host = SigningKey.generate()
    joiner, record = _handshake(host, fingerprint(host.public_key()))
    event = joiner.next_event()
    assert isinstance(event, GameStarted)
    assert event.peer_fingerprint == fingerprint(host.public_key())
    assert joiner.data_to_send() != b""  # the coin goes out
    assert decode_envelope(record[2]).type == "coin"
