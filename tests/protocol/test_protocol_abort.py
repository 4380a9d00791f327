"""The local side of ``abort``: reasons are checked, details are made printable."""

from __future__ import annotations

import pytest

from truc_p2p.memory_pair import make_pair
from truc_p2p.protocol import (
    NEED_DATA,
    LocalProtocolError,
    PeerAborted,
    RemoteProtocolError,
    Stage,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.protocol._wire import FrameBuffer
from truc_p2p.rules import Player


def test_an_unknown_abort_reason_is_a_local_error_and_sends_nothing() -> None:
    sessions = make_pair()
    p0 = sessions[Player.P0]
    p0.data_to_send()
    with pytest.raises(LocalProtocolError):
        p0.abort("bored")
    assert p0.data_to_send() == b"" and p0.stage is Stage.HELLO_RESPONDER


def test_abort_detail_is_made_printable_and_the_peer_accepts_it() -> None:
    """Also: the abort crosses the initiator's coin and deck1 in flight, and chains
    to the point where its sender stopped; the transcript still verifies as aborted."""
    record: list[bytes] = []
    sessions = make_pair(records=(record.append, None))
    p0, p1 = sessions[Player.P0], sessions[Player.P1]
    p1.receive_data(p0.data_to_send())
    assert p1.next_event() is NEED_DATA
    p0.receive_data(p1.data_to_send())
    while p0.next_event() is not NEED_DATA:
        pass
    p1.receive_data(p0.data_to_send())
    data = p1.abort("quit", "line\nbreak\x00" + "x" * 300)
    frames = FrameBuffer()
    frames.feed(data)
    raw = frames.next_envelope()
    assert raw is not None
    detail = decode_envelope(raw).payload["detail"]
    # a line break becomes a space, a control character goes (truc_p2p._text.printable)
    assert detail.isprintable() and detail == "line break" + "x" * 190
    p0.receive_data(data)
    events = []
    while (event := p0.next_event()) is not NEED_DATA and not isinstance(event, PeerAborted):
        events.append(event)
    assert isinstance(event, PeerAborted) and event.detail == detail
    assert p0.stage is Stage.ABORTED
    assert decode_envelope(record[-1]).seq < len(record) - 1  # it crossed messages
    report = verify_transcript(record)
    assert report.error_code == "aborted" and report.ended_by is not None
    assert "player 1 aborted" in report.ended_by


def test_bytes_after_a_remote_error_are_not_buffered() -> None:
    sessions = make_pair()
    p1 = sessions[Player.P1]
    p1.receive_data(b"\x00\x00\x00\x50" + b"\x00" * 0x50)  # a frame that is no envelope
    with pytest.raises(RemoteProtocolError) as first:
        p1.next_event()
    p1.receive_data(b"\xff" * 100_000)
    assert p1._link.frames.pending == 0
    with pytest.raises(RemoteProtocolError) as again:
        p1.next_event()
    assert again.value is first.value
