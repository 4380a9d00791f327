"""The browser adapter: the site's page in headless Chromium as a peer of ``truc-p2p interop``.

Run as the runner's ``--peer`` command::

    python -m truc_p2p.interop.browser_peer --relay HOST:PORT [--cdp URL] [--chromium PATH]

``--relay`` is a ``truc-p2p relay --site DIR`` (the site and its WebSocket on one
port).  The adapter opens the site in Chromium (its own, or the running one that
``--cdp`` names, so that one browser serves every case), installs a bot on the
page's player (:mod:`truc_p2p.page._autoplay`: the reference peer's moves and the
case's scripted decision) and writes each game's transcript to ``TRUC_OUT``.  The
game itself is the page's: its Python core in the Web Worker, its relay handshake
over its WebSockets, its frame gate, heartbeats and resuming.

A page cannot listen nor dial TCP (``protocol_spec/connect.md`` §9), so the adapter
bridges the runner's TCP to the relay, byte for byte:

* role ``join``: the adapter registers at the relay and gives the page the runner's
  invite with that relay and code; each meeting the page's dial makes is attached
  and spliced to a new TCP connection to the runner;
* role ``host``: the page hosts at the relay; the adapter prints the page's invite
  with ``127.0.0.1:TRUC_PORT`` and, for every connection the runner makes there,
  joins the page's code at the relay and splices the two.

Exit 0 when the page played the case, 127 for an unknown case, 2 for a bad
argument or variable, 1 when the page could not play.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import dataclasses
import json
import os
import secrets
import socket
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from truc_p2p.crypto import SigningKey
from truc_p2p.interop._cases import CASES, Case
from truc_p2p.interop.peer import UNSUPPORTED, PeerEnv
from truc_p2p.net import Invite, InviteError, parse_host_port, relay_claim
from truc_p2p.page import Attach, Control, Join, RelayRefused

__all__ = ["main"]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Booting Python in the page on a loaded machine takes seconds.
BOOT_SECONDS = 120.0
#: How long the adapter waits for one step of the booted page (its worker to be
#: reported, its relay code): a second each when idle, far longer when the machine
#: is loaded by browsers booting beside it.
STEP_SECONDS = 90.0
#: How long a runner's connection waits for the page to be registered at the relay.
JOIN_WAIT = 30.0
#: Seconds the adapter waits, once the page is done, for its last bytes to be carried.
LINGER = 15.0
#: Seconds between PINGs on the adapter's control connection (connect.md §2).
PING_EVERY = 20.0


def _say(text: str) -> None:
    print(f"browser peer: {text}", file=sys.stderr, flush=True)


# -- byte bridges between the runner's TCP and the relay ---------------------------------


def _handshake(sock: socket.socket, first: bytes, machine: Join | Attach) -> bytes:
    """Run a relay handshake on ``sock``; the game's first bytes after it."""
    sock.sendall(first)
    while True:
        data = sock.recv(65536)
        if not data:
            raise ConnectionError("the relay closed the connection")
        step = machine.feed(data)
        if step.send:
            sock.sendall(step.send)
        if step.game is not None:
            return step.game


class _Splices:
    """The byte copies going on: the adapter exits only once the last bytes the page
    sent (its last envelope, its ``bye``) have reached the runner."""

    def __init__(self) -> None:
        self.open = 0
        self._lock = threading.Lock()

    def add(self, n: int) -> None:
        with self._lock:
            self.open += n

    def drain(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while self.open > 0 and time.monotonic() < end:
            time.sleep(0.05)


SPLICES = _Splices()


def _copy(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):  # one side gone: the link is gone (both close, as a relay does)
        with contextlib.suppress(OSError):
            s.shutdown(socket.SHUT_RDWR)
    SPLICES.add(-1)


def _splice(a: socket.socket, b: socket.socket) -> None:
    SPLICES.add(2)
    threading.Thread(target=_copy, args=(a, b), daemon=True).start()
    threading.Thread(target=_copy, args=(b, a), daemon=True).start()


def _connect(addr: tuple[str, int]) -> socket.socket:
    sock = socket.create_connection(addr, timeout=10)
    sock.settimeout(None)
    return sock


class JoinBridge:
    """Role ``join``: registered at the relay; each meeting is spliced to the runner."""

    def __init__(self, relay: tuple[str, int], runner: tuple[str, int]) -> None:
        self.relay, self.runner = relay, runner
        self._control = Control(relay_claim(SigningKey.generate(), secrets.token_bytes(16)))
        self._sock = _connect(relay)
        self._sock.sendall(self._control.first)
        while self._control.code is None:
            data = self._sock.recv(65536)
            if not data:
                raise ConnectionError("the relay closed the control connection")
            self._meets(self._control.feed(data))
        self.code: str = self._control.code
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._ping, daemon=True).start()

    def _read(self) -> None:
        with contextlib.suppress(OSError, RelayRefused, ValueError):
            while data := self._sock.recv(65536):
                self._meets(self._control.feed(data))

    def _ping(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                time.sleep(PING_EVERY)
                self._sock.sendall(Control.ping())

    def _meets(self, sessions: list[bytes]) -> None:
        for session in sessions:
            threading.Thread(target=self._attach, args=(session,), daemon=True).start()

    def _attach(self, session: bytes) -> None:
        try:
            relay = _connect(self.relay)
            attach = Attach(session)
            rest = _handshake(relay, attach.first, attach)
            runner = _connect(self.runner)
        except (OSError, RelayRefused, ValueError) as exc:
            _say(f"a meeting was not spliced: {exc}")
            return
        if rest:
            runner.sendall(rest)
        _splice(relay, runner)


class HostBridge:
    """Role ``host``: listen on ``port``; each connection joins the page's code."""

    def __init__(self, port: int, relay: tuple[str, int], code: str) -> None:
        self.relay, self.code = relay, code
        self._listener = socket.create_server(("127.0.0.1", port))
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _addr = self._listener.accept()
                threading.Thread(target=self._join, args=(conn,), daemon=True).start()

    def _join(self, conn: socket.socket) -> None:
        until = time.monotonic() + JOIN_WAIT
        while True:  # the page registers again after a lost link or between games
            try:
                relay = _connect(self.relay)
                join = Join(self.code)
                rest = _handshake(relay, join.first, join)
                break
            except (OSError, RelayRefused, ValueError) as exc:
                with contextlib.suppress(OSError):
                    relay.close()
                if time.monotonic() > until:
                    _say(f"the page's code could not be joined: {exc}")
                    conn.close()
                    return
                time.sleep(0.2)
        if rest:
            conn.sendall(rest)
        _splice(conn, relay)


# -- the page ----------------------------------------------------------------------------


def _spec(case: Case, env: PeerEnv) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "seed": secrets.randbits(32),
        "bot": "heuristic",
        "wants": case.peer_wants.value if case.peer_wants is not None else None,
        "resign_at": case.peer_resigns,
        "games": case.games,
        "pipeline": case.pipeline,
        "early": case.early,
        "turn_timeout": 120.0,
    }
    if env.heartbeat is not None:  # the runner shortened the slow case
        spec["heartbeat"] = env.heartbeat
        spec["dead_after"] = 4 * env.heartbeat
    return spec


_CLEAR_DB = """() => new Promise((done) => {
  const request = indexedDB.deleteDatabase("truc-p2p");
  request.onsuccess = request.onerror = request.onblocked = () => done(true);
})"""
_INSTALL = """(spec) => self.trucPython.pyimport("truc_p2p.page._autoplay")
  .install(self.trucGlue, spec)"""
_REPORT = """() => self.trucPython.pyimport("truc_p2p.page._autoplay").report(self.trucGlue)"""


class _Written:
    """The transcripts written to ``TRUC_OUT`` so far."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.count = 0

    def write(self, ended: list[dict[str, Any]]) -> None:
        for index in range(self.count, len(ended)):
            game = ended[index]
            data = base64.b64decode(game["b64"])
            if data:
                name = os.path.basename(str(game["name"])) or f"game-{index}.truc"
                (self.out / f"{index + 1:02d}-{name}").write_bytes(data)
            _say(f"game {index + 1}: {game['end']}")
        self.count = len(ended)


def _boot(page: Any, site: str) -> str | None:
    """Open the site in ``page``, with no kept game; why not, if it failed."""
    page.goto(site + "site.webmanifest")
    page.evaluate(_CLEAR_DB)  # no game of an earlier case is resumed
    page.goto(site)
    page.wait_for_function(
        "() => window.trucApp && (window.trucApp.ready || window.trucApp.failed)",
        timeout=BOOT_SECONDS * 1000,
    )
    failed: str | None = page.evaluate("window.trucApp.failed")
    return failed


def _worker(page: Any, seconds: float) -> Any:
    """The page's worker (a page attached to anew reports it after a moment), or None."""
    end = time.monotonic() + seconds
    while not page.workers and time.monotonic() < end:
        page.wait_for_timeout(50)
    return page.workers[0] if page.workers else None


def _play(page: Any, env: PeerEnv, case: Case, relay: tuple[str, int], site: str) -> int:
    worker = _worker(page, STEP_SECONDS)
    if worker is None:
        _say("the page has no worker")
        return 1
    page.wait_for_selector("#app-home:not([hidden])")
    worker.evaluate(_INSTALL, json.dumps(_spec(case, env)))
    page.fill("#app-name", env.name)
    page.dispatch_event("#app-name", "change")
    relay_text = f"{relay[0]}:{relay[1]}"
    if env.role == "join":
        assert env.invite is not None
        runner = Invite.parse(env.invite)
        bridge = JoinBridge(relay, (runner.host, runner.port))
        invite = dataclasses.replace(runner, relay=relay, code=bridge.code)
        page.fill("#app-invite", str(invite))
        page.click("#app-join-go")
    else:
        assert env.port is not None
        page.select_option("#app-match", "3" if case.games == "match3" else "1")
        page.fill("#app-relay", relay_text)
        page.click("#app-host-go")
        link = None
        deadline = time.monotonic() + STEP_SECONDS
        while link is None:
            state = json.loads(worker.evaluate(_REPORT))
            link = state.get("link")
            if state.get("error"):
                _say(f"the page could not host: {state['error']}")
                return 1
            if time.monotonic() > deadline:
                _say("the page got no relay code")
                return 1
            time.sleep(0.1)
        hosted = Invite.parse(unquote(str(link).split("#join=", 1)[1]))
        assert hosted.code is not None
        HostBridge(env.port, relay, hosted.code)
        mine = dataclasses.replace(hosted, host="127.0.0.1", port=env.port, relay=None, code=None)
        print(str(mine), flush=True)
    written = _Written(env.out)
    said = 0
    while True:
        state = json.loads(worker.evaluate(_REPORT))
        for line in state.get("notices", [])[said:]:
            _say(f"the page says: {line}")
        said = len(state.get("notices", []))
        written.write(state["ended"])
        if state["finished"]:
            SPLICES.drain(LINGER)  # the page's last bytes on their way to the runner
            return 0
        time.sleep(0.2)


def run(argv: Sequence[str], environ: dict[str, str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m truc_p2p.interop.browser_peer")
    parser.add_argument("--relay", required=True, help="a truc-p2p relay --site: HOST:PORT")
    parser.add_argument("--cdp", help="a running Chromium's DevTools URL (one browser, many cases)")
    parser.add_argument("--chromium", default=CHROMIUM, help="the Chromium to start otherwise")
    args = parser.parse_args(argv)
    try:
        env = PeerEnv.read(environ)
        relay = parse_host_port(args.relay, what="relay")
    except (ValueError, InviteError) as exc:
        _say(str(exc))
        return 2
    case = CASES.get(env.case)
    if case is None:
        _say(f"case {env.case!r} is not supported")
        return UNSUPPORTED
    env.out.mkdir(parents=True, exist_ok=True)
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        _say(f"no browser driver: {exc} (pip install playwright)")
        return 1
    site = f"http://{args.relay}/"
    with sync_playwright() as p:
        try:
            if args.cdp:
                browser = p.chromium.connect_over_cdp(args.cdp)
                context = browser.contexts[0] if browser.contexts else browser.new_context()
                for stale in list(context.pages):  # an earlier case's page, killed mid-game
                    stale.close()
            else:
                browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_FLAGS)
                context = browser.new_context()
            page = context.new_page()
            failed = _boot(page, site)
            if failed:
                _say(f"the page did not start: {failed}")
                return 1
            page.on("pageerror", lambda error: _say(f"page error: {error}"))
            try:
                return _play(page, env, case, relay, site)
            finally:
                with contextlib.suppress(PlaywrightError):
                    page.close()
                with contextlib.suppress(PlaywrightError):
                    browser.close()
        except (PlaywrightError, OSError, InviteError) as exc:
            _say(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            return 1


def main(argv: Sequence[str] | None = None) -> int:
    return run(sys.argv[1:] if argv is None else argv, dict(os.environ))


if __name__ == "__main__":
    sys.exit(main())
