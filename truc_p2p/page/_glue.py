"""The worker's side of :class:`~.PageApp` as text: the calls take and give JSON, bytes
ride in it as base64 (``{"b64": ...}``), so ``worker.js`` needs no knowledge of
Pyodide's type conversions beyond strings and numbers (bytes from a WebSocket or a
file come in as a buffer, read with ``to_bytes()`` when it is a JS proxy)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from ._app import PageApp
from ._out import Output

__all__ = ["WorkerGlue"]


def _bytes(data: object) -> bytes:
    to_bytes = getattr(data, "to_bytes", None)  # a Pyodide JsProxy of a Uint8Array
    if callable(to_bytes):
        result = to_bytes()
        if isinstance(result, bytes):
            return result
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data)
    return b""


def _plain(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return {"b64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _unplain(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"b64"} and isinstance(value["b64"], str):
            return base64.b64decode(value["b64"])
        return {k: _unplain(v) for k, v in value.items()}
    return value


class WorkerGlue:
    """A :class:`PageApp` behind JSON text (see the module doc)."""

    def __init__(
        self,
        stored_json: str,
        *,
        randbytes: Callable[[int], bytes],
        site: str = "",
        relay: str | None = None,
        now: float = 0.0,
    ) -> None:
        try:
            stored = _unplain(json.loads(stored_json or "{}"))
        except ValueError:
            stored = {}
        self.app = PageApp(
            randbytes=randbytes,
            stored=stored if isinstance(stored, dict) else {},
            site=site,
            relay=relay or None,
            now=now,
        )
        self._first: list[Output] = self.app.handle({}, now)  # the key stored, if new

    @staticmethod
    def _text(outputs: list[Output]) -> str:
        return json.dumps(_plain(outputs), ensure_ascii=False)

    def start(self, message_json: str, now: float) -> str:
        """The first call: what the constructor wanted done, and ``hello``'s answer."""
        first, self._first = self._first, []
        return self._text(
            [o for o in first if o["do"] != "timer"] + self.app.handle(message_json, now)
        )

    @staticmethod
    def warm() -> None:
        """Import what a game needs (the page's boot leaves it out: the home screen
        comes first); the worker calls this once it is idle after ``start``."""
        from truc_p2p.bots import make_bot
        from truc_p2p.net import End
        from truc_p2p.protocol import verify_transcript
        from truc_p2p.ui import final_message

        from . import _games, _series

        del make_bot, End, verify_transcript, final_message, _games, _series

    def handle(self, message_json: str, data: object, now: float) -> str:
        try:
            message = json.loads(message_json)
        except ValueError:
            message = None
        if isinstance(message, dict) and data is not None:
            message["data"] = _bytes(data)
        return self._text(self.app.handle(message if isinstance(message, dict) else {}, now))

    def receive(self, socket: str, data: object, now: float) -> str:
        return self._text(self.app.receive(socket, _bytes(data), now))

    def closed(self, socket: str, now: float) -> str:
        return self._text(self.app.closed(socket, now))

    def tick(self, now: float) -> str:
        return self._text(self.app.tick(now))
