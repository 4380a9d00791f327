"""What the page's Python asks the worker to do: one list of plain dicts per call.

Each output has a ``do``:

* ``page`` -- ``message``: a message for the main thread (the table's, or the app's);
* ``open`` -- ``socket`` (an id) and ``relay`` (``host:port``): open a WebSocket to
  that relay (``/ws``, subprotocol ``truc-p2p.relay.v1``);
* ``send`` -- ``socket``, ``data`` (bytes): send one binary message; the worker
  queues sends made before the socket opened;
* ``close`` -- ``socket``: close it (no ``closed`` call follows);
* ``store`` -- ``key``, ``value`` (a string or bytes): keep it in IndexedDB;
* ``delete`` -- ``key``: drop it from IndexedDB;
* ``download`` -- ``name``, ``data`` (bytes): offer a file to save;
* ``timer`` -- ``at``: call ``tick`` at this time (the clock the calls pass in), the
  last output of every call (``None``: no timer needed).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Outbox", "Output"]

#: One instruction to the worker.
Output = dict[str, Any]


class Outbox:
    """Collects the outputs of one call, in order."""

    def __init__(self) -> None:
        self.items: list[Output] = []

    def publish(self, message: dict[str, Any]) -> None:
        """A message for the page (the table's publisher)."""
        self.items.append({"do": "page", "message": message})

    def open(self, socket: str, relay: str) -> None:
        self.items.append({"do": "open", "socket": socket, "relay": relay})

    def send(self, socket: str, data: bytes) -> None:
        if data:
            self.items.append({"do": "send", "socket": socket, "data": bytes(data)})

    def close(self, socket: str) -> None:
        self.items.append({"do": "close", "socket": socket})

    def store(self, key: str, value: str | bytes) -> None:
        self.items.append({"do": "store", "key": key, "value": value})

    def delete(self, key: str) -> None:
        self.items.append({"do": "delete", "key": key})

    def download(self, name: str, data: bytes) -> None:
        self.items.append({"do": "download", "name": name, "data": bytes(data)})

    def take(self, timer: float | None) -> list[Output]:
        """The outputs so far and the timer, and a fresh start."""
        items, self.items = self.items, []
        items.append({"do": "timer", "at": timer})
        return items
