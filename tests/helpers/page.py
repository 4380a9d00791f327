"""Driving a :class:`~truc_p2p.page.PageApp` as the site's worker and page would:
a player that clicks what the table offers, a clock, and for network games the
relay WebSockets carried over plain TCP (the same bytes, SITE.md)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from truc_p2p.page import Output, PageApp
from truc_p2p.protocol import encode_transcript

#: The repository's root.
ROOT = Path(__file__).resolve().parents[2]


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


SHOTS = ROOT / "test-artifacts" / "page"


PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "has_touch": True,
    "is_mobile": True,
    "device_scale_factor": 2,
}


#: Booting Pyodide on a loaded 2-core machine takes seconds; this bounds it.
BOOT_MS = 120_000


GAME_SECONDS = 240.0


#: What a pooled phone's origins lose when it closes: all a visit keeps, except the
#: origin private file system, where boot.js keeps the memory snapshot of this build
#: (CDP's Storage.clearDataForOrigin names; "file_systems" is the one left out).
CLEARED_STORAGE = "cookies,indexeddb,local_storage,websql,service_workers,cache_storage"

#: Free contexts of this test process, by browser and locale: a phone takes one (or
#: makes one) and gives it back on close with its origins cleared (``Phone.close``).
_SPARE: dict[tuple[int, str | None], list[Any]] = {}

#: In the worker: once a memory snapshot being made is stored (or 30 s went by).
_SNAPSHOT_SAVED_JS = """() => new Promise((done) => {
  const end = Date.now() + 30000;
  const look = () => (!self.trucTimes || !self.trucTimes.saving || Date.now() > end)
    ? done(self.trucTimes ? self.trucTimes.snapshot : null) : setTimeout(look, 50);
  look();
})"""


class Phone:
    """One page at a phone's size, with its own cookies, IndexedDB, local storage,
    service worker and caches.

    By default its browser context comes from a pool of this test process: a context
    a closed phone gave back, whose origins were cleared of all but the origin private
    file system, so the page's Python starts from the memory snapshot it kept (boot.js
    still reads and checks it) in 1–2 s rather than 6–7 s.  Two phones open at once
    have two contexts.  ``fresh=True`` makes a brand-new context, closed with the
    phone: for a test of the first visit (nothing stored yet, the snapshot made)."""

    def __init__(
        self, browser: Any, name: str, *, locale: str | None = None, fresh: bool = False
    ) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self._spare_key = (id(browser), locale)
        spare = [] if fresh else _SPARE.setdefault(self._spare_key, [])
        self.pooled = not fresh
        self.context = (
            spare.pop()
            if spare
            else browser.new_context(**PHONE, **({"locale": locale} if locale else {}))
        )
        self.page = self.context.new_page()
        self.name = name
        self.console: list[str] = []
        #: The origins the page went to (cleared when a pooled phone closes).
        self.origins: set[str] = set()
        #: How the playable cards and the answer buttons looked when tapped (their
        #: computed background colours).
        self.card_looks: set[str] = set()
        self.button_looks: set[str] = set()
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))
        self.page.on("framenavigated", self._went)

    def _went(self, frame: Any) -> None:
        parts = urlsplit(frame.url)
        if parts.scheme in ("http", "https"):
            self.origins.add(f"{parts.scheme}://{parts.netloc}")

    def open(self, url: str) -> None:
        self.page.goto(url)
        self.page.wait_for_function(
            "() => window.trucApp && (window.trucApp.ready || window.trucApp.failed)",
            timeout=BOOT_MS,
        )
        failed = self.page.evaluate("window.trucApp.failed")
        assert not failed, f"{failed}\n" + "\n".join(self.console[-20:])

    def snapshot(self) -> str | None:
        """What the page's boot did with the memory snapshot ("restored", "made", or
        "failed: ..."; boot.js), once a snapshot being made is stored."""
        for worker in self.page.workers:
            state: str | None = worker.evaluate(_SNAPSHOT_SAVED_JS)
            if state is not None:
                return state
        return None

    def shot(self, label: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / f"{self.name}-{label}.png"))

    def step(self) -> bool:
        """Tap what the table offers (a card first, else the first button); whether
        it tapped."""
        ready = self.page.evaluate(
            """() => { const u = window.truc; const t = u.state && u.state.table;
              return !!(t && t.turn != null && !u.final && !u.settling()); }"""
        )
        if not ready:
            return False
        if self.page.locator("#my-hand button.card:not([disabled])").count():
            card = self.page.locator("#my-hand button.card:not([disabled]) >> nth=0")
            self.card_looks.add(card.evaluate("(c) => getComputedStyle(c).backgroundColor"))
            card.tap()
        elif self.page.locator("#buttons button").count():
            button = self.page.locator("#buttons button >> nth=0")
            self.button_looks.add(button.evaluate("(b) => getComputedStyle(b).backgroundColor"))
            button.tap()
        else:
            return False
        return True

    def final(self) -> dict[str, Any] | None:
        final: dict[str, Any] | None = self.page.evaluate("window.truc.final")
        return final

    def close(self) -> None:
        """Close the page; a pooled phone's context goes back to the pool with its
        origins cleared (or is closed if that fails: the next phone makes a new one)."""
        if not self.pooled:
            self.context.close()
            return
        try:
            with contextlib.suppress(Exception):  # a page that never booted saves none
                self.snapshot()
            self.page.close()
            clear_origins(self.context, self.origins)
        except Exception:
            with contextlib.suppress(Exception):
                self.context.close()
            return
        _SPARE.setdefault(self._spare_key, []).append(self.context)


def clear_origins(context: Any, origins: set[str], storage: str = CLEARED_STORAGE) -> None:
    """Clear ``storage`` (CDP's names) of ``origins`` in ``context``, and its cookies;
    its network back on."""
    blank = context.new_page()
    try:
        cdp = context.new_cdp_session(blank)
        for origin in sorted(origins):
            cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": storage})
        cdp.detach()
    finally:
        blank.close()
    context.clear_cookies()
    context.set_offline(False)  # a test may have cut the network


def play_phones(phones: list[Phone], *, shots: bool = False) -> None:
    """Tap every phone's turns until each shows its end screen."""
    end = time.monotonic() + GAME_SECONDS
    taps = 0
    while time.monotonic() < end:
        if all(p.final() is not None for p in phones):
            for p in phones:  # the end screen comes after the last trick is shown
                p.page.wait_for_selector("#final:not([hidden])", timeout=20_000)
            return
        for p in phones:
            if p.final() is None and p.step():
                taps += 1
                if shots and taps in (1, 6):
                    p.page.wait_for_timeout(300)
                    p.shot(f"table-{taps}")
        phones[0].page.wait_for_timeout(100)
    said = " | ".join(p.console[-1] for p in phones if p.console)
    raise AssertionError(f"the game did not end: {said}")


def no_csp_violation(phone: Phone) -> None:
    assert not [line for line in phone.console if "Content Security Policy" in line]


VECTORS = ROOT / "protocol_spec" / "vectors"


def vector_files() -> dict[str, bytes]:
    """Every transcript the vectors hold, as the bytes of a ``.truc`` file."""
    files: dict[str, bytes] = {}
    for path in sorted(VECTORS.glob("*.json")):
        data = json.loads(path.read_text())
        found: list[tuple[str, Any]] = [(path.stem, data)]
        if "rejected" in data:
            found += [
                (f"{path.stem}-{r.get('case', i)}", r) for i, r in enumerate(data["rejected"])
            ]
            found.append((f"{path.stem}-game", data.get("game")))
        for name, item in found:
            if not isinstance(item, dict):
                continue
            if "file_hex" in item:
                files[name] = bytes.fromhex(item["file_hex"])
                continue
            envs = item.get("envelopes") or item.get("transcript")
            if isinstance(envs, list) and envs:
                raw = [bytes.fromhex(e["hex"] if isinstance(e, dict) else e) for e in envs]
                files[name] = encode_transcript(raw)
    return files


VECTOR_FILES = vector_files()


def tampered(data: bytes) -> dict[str, bytes]:
    middle = len(data) // 2
    flipped = bytearray(data)
    flipped[middle] ^= 0x01
    return {
        "flipped-byte": bytes(flipped),
        "torn": data[: middle + 3],
        "garbage-after": data + b"\x00\x00\x01\x00junk",
        "magic-only": data[:20],
        "empty": b"",
        "not-a-transcript": b"GIF89a not a game at all",
    }


def some_point() -> bytes:
    """A valid compressed secp256k1 point nobody knows the logarithm of."""
    p = 2**256 - 2**32 - 977
    for i in range(100):
        x = int.from_bytes(hashlib.sha256(b"page cheat %d" % i).digest(), "big") % p
        if pow(x**3 + 7, (p - 1) // 2, p) == 1:  # x**3 + 7 is a square: x is on the curve
            return b"\x02" + x.to_bytes(32, "big")
    raise AssertionError("no point found")
