"""Driving a :class:`~truc_p2p.page.PageApp` as the site's worker and page would:
a player that clicks what the table offers, a clock, and for network games the
relay WebSockets carried over plain TCP (the same bytes, SITE.md)."""

from __future__ import annotations

import contextlib
import os
import random
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from truc_p2p.page import Output, PageApp


class FakeClock:
    """A steady clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0


class PagePlayer:
    """The page's side of a :class:`PageApp`: keeps what the page was sent, answers
    each turn with a legal choice (``pick`` chooses among the offered actions), and
    carries the app's outputs out (``sockets``: the worker's WebSockets)."""

    def __init__(
        self,
        app: PageApp,
        *,
        pick: Callable[[list[str]], str] | None = None,
        seed: int = 1,
    ) -> None:
        self.app = app
        self.messages: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        self.final: dict[str, Any] | None = None
        self.stored: dict[str, Any] = {}
        self.downloads: dict[str, bytes] = {}
        self.timer: float | None = None
        self.opened: list[tuple[str, str]] = []
        self.sent: dict[str, list[bytes]] = {}
        self.closed: list[str] = []
        self._rng = random.Random(seed)
        self._pick = pick or (lambda actions: self._rng.choice(actions))
        self._answered: int | None = None
        self.quit_at_turn: int | None = None
        #: Turns answered so far, and how many to answer at most (``None``: all): a
        #: test stops the player at a turn, then reloads the page there.
        self.answers = 0
        self.answer_limit: int | None = None

    def take(self, outputs: list[Output]) -> None:
        for out in outputs:
            do = out["do"]
            if do == "page":
                message = out["message"]
                self.messages.append(message)
                if message.get("type") == "state":
                    self.state = message
                elif message.get("type") == "final":
                    self.final = message
                elif message.get("type") == "new_game":
                    self.final = None
            elif do == "store":
                self.stored[out["key"]] = out["value"]
            elif do == "delete":
                self.stored.pop(out["key"], None)
            elif do == "download":
                self.downloads[out["name"]] = out["data"]
            elif do == "timer":
                self.timer = out["at"]
            elif do == "open":
                self.opened.append((out["socket"], out["relay"]))
            elif do == "send":
                self.sent.setdefault(out["socket"], []).append(out["data"])
            elif do == "close":
                self.closed.append(out["socket"])

    def call(self, message: dict[str, Any], now: float) -> None:
        self.take(self.app.handle(message, now))

    def offered(self) -> list[str]:
        """The actions the table offers now (cards, then buttons), if it is our turn."""
        table = (self.state or {}).get("table")
        if not table or self.final is not None:
            return []
        actions = [c["action"] for c in table["hand"] if c.get("action")]
        actions += [b["action"] for b in table["buttons"]]
        return actions

    def step(self, now: float) -> bool:
        """Answer the turn on the table, once per turn; whether it clicked."""
        actions = self.offered()
        turn = ((self.state or {}).get("table") or {}).get("turn")
        if not actions or turn is None or turn == self._answered:
            return False
        if self.answer_limit is not None and self.answers >= self.answer_limit:
            return False
        self._answered = turn
        self.answers += 1
        if self.quit_at_turn is not None and turn >= self.quit_at_turn:
            self.call({"type": "quit", "turn": turn}, now)
            return True
        self.call({"type": "act", "turn": turn, "action": self._pick(actions)}, now)
        return True

    def texts(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("type") == kind]


def new_app(**kwargs: Any) -> PageApp:
    return PageApp(randbytes=os.urandom, **kwargs)


class TcpWorker:
    """The worker's WebSockets as plain TCP connections to a relay (same bytes): one
    reader thread per socket puts what it reads in a queue the test drains."""

    def __init__(self, player: PagePlayer, relay: tuple[str, int]) -> None:
        self.player = player
        self.relay = relay
        self.socks: dict[str, socket.socket] = {}
        self._lock = threading.Lock()
        self._inbox: list[tuple[str, bytes | None]] = []
        self._seen_open = 0
        self._seen_sent: dict[str, int] = {}
        self._seen_closed = 0
        self._retired: list[socket.socket] = []

    def _reader(self, name: str, sock: socket.socket) -> None:
        while True:
            try:
                data = sock.recv(65536)
            except OSError:
                data = b""
            with self._lock:
                self._inbox.append((name, data or None))
            if not data:
                return

    def carry(self) -> None:
        """Open, send and close what the app asked since the last call."""
        p = self.player
        for name, _relay in p.opened[self._seen_open :]:
            sock = socket.create_connection(self.relay, timeout=10)
            sock.settimeout(None)
            self.socks[name] = sock
            threading.Thread(target=self._reader, args=(name, sock), daemon=True).start()
        self._seen_open = len(p.opened)
        for name, chunks in p.sent.items():
            seen = self._seen_sent.get(name, 0)
            target = self.socks.get(name)
            for chunk in chunks[seen:]:
                if target is not None:
                    with contextlib.suppress(OSError):
                        target.sendall(chunk)
            self._seen_sent[name] = len(chunks)
        for name in p.closed[self._seen_closed :]:
            gone = self.socks.pop(name, None)
            if gone is not None:
                self._retired.append(gone)
                with contextlib.suppress(OSError):
                    gone.shutdown(socket.SHUT_WR)
        self._seen_closed = len(p.closed)

    def pump(self, now: Callable[[], float]) -> bool:
        """Deliver what the sockets read to the app; whether anything came."""
        with self._lock:
            inbox, self._inbox = self._inbox, []
        for name, data in inbox:
            if data is None:
                self.player.take(self.player.app.closed(name, now()))
            else:
                self.player.take(self.player.app.receive(name, data, now()))
        return bool(inbox)

    def close(self) -> None:
        for sock in [*self.socks.values(), *self._retired]:
            sock.close()
        self.socks.clear()
        self._retired.clear()


def run_page(
    players: list[tuple[PagePlayer, TcpWorker | None]],
    *,
    until: Callable[[], bool],
    timeout: float = 120.0,
) -> None:
    """Carry bytes and clicks for each page until ``until()`` or the timeout."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        moved = False
        for player, worker in players:
            now = time.monotonic()
            if worker is not None:
                worker.carry()
                moved |= worker.pump(time.monotonic)
                worker.carry()
            moved |= player.step(now)
            if player.timer is not None and now >= player.timer:
                player.take(player.app.tick(now))
        if until():
            return
        if not moved:
            time.sleep(0.01)
    raise AssertionError("the page's game did not end in time")


class Relay:
    """A ``truc-p2p relay`` process on loopback (``--port 0``) and its port."""

    def __init__(self, tmp_path: Any) -> None:
        import json
        import subprocess

        from helpers.cli import LIMIT, spawn

        self.proc = spawn(tmp_path, "relay", "--bind", "127.0.0.1", "--port", "0", "--json")
        timer = threading.Timer(LIMIT, self.proc.kill)
        timer.start()
        try:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                if '"listening"' in line:
                    self.port: int = json.loads(line)["addresses"][0][1]
                    break
            else:
                raise AssertionError("the relay did not start")
        finally:
            timer.cancel()
        self._subprocess = subprocess

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.communicate(timeout=10)
        except self._subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()
