"""``protocol_spec/vectors/relay_ws_v1.json`` (connect.md §9): the WebSocket transport's
bytes, computed by hand from RFC 6455, are what wsproto and the relay write and read."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
import trio
from wsproto import ConnectionType
from wsproto.connection import Connection
from wsproto.events import BytesMessage, CloseConnection
from wsproto.utilities import generate_accept_token

from truc_p2p.net import RelayServer
from truc_p2p.net._ws_stream import MAX_WS_MESSAGE, SUBPROTOCOL, CloseCode

SPEC_DIR = Path(__file__).resolve().parents[2] / "protocol_spec"
VECTORS: dict[str, Any] = json.loads((SPEC_DIR / "vectors" / "relay_ws_v1.json").read_text())
SPEC = (SPEC_DIR / "connect.md").read_text()


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "relay_ws_vectors", SPEC_DIR / "relay_ws_vectors.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_vectors_are_what_the_generator_writes() -> None:
    assert _generator().main(["--check"]) == 0
    assert "vectors/relay_ws_v1.json" in SPEC and "relay_ws_vectors.py" in SPEC


def test_constants_match_the_code_and_the_spec() -> None:
    assert VECTORS["subprotocol"] == SUBPROTOCOL
    assert VECTORS["max_message"] == MAX_WS_MESSAGE
    assert {c["code"] for c in VECTORS["closes"]} == {int(c) for c in CloseCode}
    assert f"`{SUBPROTOCOL}`" in SPEC and f"{MAX_WS_MESSAGE:,} bytes" in SPEC
    for code in CloseCode:
        assert f"| `{int(code)}` |" in SPEC, code


@pytest.mark.parametrize("case", VECTORS["handshakes"], ids=lambda c: c["key"])
def test_the_accept_value_is_rfc_6455s(case: dict[str, str]) -> None:
    guid = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    mine = base64.b64encode(hashlib.sha1(case["key"].encode() + guid).digest()).decode()
    assert case["accept"] == mine == generate_accept_token(case["key"].encode()).decode()
    assert f"Sec-WebSocket-Accept: {mine}\r\n" in case["response"]


@pytest.mark.parametrize("case", VECTORS["handshakes"], ids=lambda c: c["key"])
async def test_the_relay_answers_the_request_with_the_response_byte_for_byte(
    case: dict[str, str],
) -> None:
    server = RelayServer()
    async with trio.open_nursery() as nursery:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        nursery.start_soon(server.serve, listeners)
        port = listeners[0].socket.getsockname()[1]
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        async with stream:
            await stream.send_all(case["request"].encode())
            got = b""
            with trio.fail_after(5):
                while not got.endswith(b"\r\n\r\n"):
                    got += await stream.receive_some(1)
        nursery.cancel_scope.cancel()
    for listener in listeners:
        await listener.aclose()
    assert got.decode() == case["response"]


@pytest.mark.parametrize("case", VECTORS["frames"], ids=lambda c: c["label"])
def test_each_frame_is_what_wsproto_writes_and_reads(case: dict[str, Any]) -> None:
    payload = bytes.fromhex(case["payload"])
    data = bytes.fromhex(case["frame"])
    client = case["mask"] is not None
    # masking by hand: payload XOR the mask, repeated (RFC 6455 §5.3)
    if client:
        mask = bytes.fromhex(case["mask"])
        assert data[1] & 0x80
        body = data[-len(payload) :]
        assert data[-len(payload) - 4 : -len(payload)] == mask
        assert bytes(b ^ mask[i % 4] for i, b in enumerate(body)) == payload
    else:
        assert not data[1] & 0x80
        # a server's frame is not masked, so wsproto writes exactly these bytes
        server = Connection(ConnectionType.SERVER)
        assert server.send(BytesMessage(data=payload)) == data
    assert data[0] == 0x82  # FIN, binary
    # the receiving side reads the payload back
    receiver = Connection(ConnectionType.SERVER if client else ConnectionType.CLIENT)
    receiver.receive_data(data)
    events = list(receiver.events())
    assert all(isinstance(e, BytesMessage) for e in events)
    assert b"".join(e.data for e in events if isinstance(e, BytesMessage)) == payload


@pytest.mark.parametrize("case", VECTORS["closes"], ids=lambda c: str(c["code"]))
def test_each_close_frame_is_what_wsproto_writes(case: dict[str, Any]) -> None:
    server = Connection(ConnectionType.SERVER)
    assert server.send(CloseConnection(code=case["code"])) == bytes.fromhex(case["frame"])
