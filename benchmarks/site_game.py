"""Issue 41's figures in one run, in headless Chromium against the package's own site:
page weight (first load and cached), cached load to the first card of a bot game
started from the home screen, deck v2 CPU per hand in the page's worker beside this
Python, wall time per hand through a loopback relay (the page hosts, ``truc-p2p join
--bot`` joins), the worker's memory, the longest main-thread stall during boot and
during a game, and the round trips (flights) before the first card beside a native
game's.

    python benchmarks/site_game.py [--hands 3] [--taps 40] [--json]

The site is built into a temporary folder and served from disk on 127.0.0.1 (a tally
of what crossed the network); the relay is ``truc-p2p relay`` on loopback.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # helpers

from helpers.site import serve_folder
from helpers.web import CHROMIUM, CHROMIUM_FLAGS

from truc_p2p.site import SiteError, site_files, write_site

BOOT_MS = 90_000
GAME_SECONDS = 300.0

#: Before any script of the page: the longest main-thread task since the last reset.
LONGTASKS = """
window.__longest = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    window.__longest = Math.max(window.__longest, entry.duration);
  }
}).observe({ type: "longtask", buffered: true });
// when the worker's messages arrive, and when the first card of the hand is drawn
window.__messages = [];
const RealWorker = window.Worker;
window.Worker = class extends RealWorker {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", () => window.__messages.push(performance.now()));
  }
};
window.__cardAt = null;
new MutationObserver(() => {
  if (window.__cardAt === null && document.querySelector("#my-hand .card")) {
    window.__cardAt = performance.now();
  }
}).observe(document, { childList: true, subtree: true });
"""

#: The same deck v2 hand, run here and in the worker's Python: both sides' three
#: messages, every card shown, the hand's record verified.  Returns seconds per hand
#: (CPU time where the platform has it: process_time; Pyodide's is the wall clock
#: of its one thread, which nothing else shares while this runs).
DECK_HAND = """
import secrets, time
from truc_p2p.deck import DeckSideV2, HandVerifierV2, Role, positions, verify_hand_v2

def _hand(game_id, hand):
    ctx = secrets.token_bytes(32)
    a = DeckSideV2(Role.DEALER, secrets.token_bytes(32), game_id=game_id, hand=hand, context=ctx)
    b = DeckSideV2(Role.NONDEALER, secrets.token_bytes(32), game_id=game_id, hand=hand, context=ctx)
    d1 = b.d1()
    d2 = a.receive_d1(d1)
    d3 = b.receive_d2(d2)
    a.receive_d3(d3)
    for pa, pb in zip(positions(Role.DEALER), positions(Role.NONDEALER), strict=True):
        a.receive_show(pb, b.show(pb))
        b.receive_show(pa, a.show(pa))
    verify_hand_v2(a.record())

def deck_seconds_per_hand(hands):
    game_id = secrets.token_bytes(32)
    _hand(game_id, 0)  # warm-up: card points, generators
    started = time.process_time()
    for h in range(hands):
        _hand(game_id, h + 1)
    return (time.process_time() - started) / hands

deck_seconds_per_hand
"""

#: In the worker, before a game opens its relay socket: every WebSocket message's
#: direction and time, to count flights (a change of direction is a round trip).
WS_LOG = """() => {
  self.__ws = [];
  const Real = self.WebSocket;
  self.WebSocket = class extends Real {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", () => self.__ws.push(["in", performance.now()]));
    }
    send(data) { self.__ws.push(["out", performance.now()]); super.send(data); }
  };
  return true;
}"""


#: In the worker's Python: when the game started (the coin, ``GameStarted``) and when the
#: page's player got its first cards (``CardsDealt``), on the worker's clock (the one the
#: WebSocket log uses), and whether the page dealt.
EVENT_LOG = """
import json
import js
from truc_p2p.page._feed import PageFeed
from truc_p2p.protocol import CardsDealt, GameStarted

BENCH_EVENTS = []
_bench_call = PageFeed.__call__

def _bench_seen(self, event):
    if isinstance(event, GameStarted):
        BENCH_EVENTS.append(["started", js.performance.now(), None])
    elif isinstance(event, CardsDealt) and not event.redeal:
        BENCH_EVENTS.append(["cards", js.performance.now(), int(event.dealer)])
    return _bench_call(self, event)

PageFeed.__call__ = _bench_seen
"""


#: In the worker: boot.js's and worker.js's marks ("boot:<step>"), its fetches, its
#: calls into Python (start, length) and the warm-up's, on the worker's clock.
BOOT_MARKS = """() => ({
  origin: performance.timeOrigin,
  marks: performance.getEntriesByType("mark").filter((m) => m.name.startsWith("boot:"))
    .map((m) => [m.name.slice(5), m.startTime]),
  fetches: performance.getEntriesByType("resource")
    .map((r) => [r.name.split("/").pop(), r.startTime, r.responseEnd]),
  calls: (self.trucTimes && self.trucTimes.calls) || [],
  warm: (self.trucTimes && self.trucTimes.warm) || null,
})"""


def boot_split(page: Any, clicked: float, card: float) -> dict[str, float]:
    """The cached load to the first card, step by step (ms, in the order they happen):
    the page until its worker exists, the worker's scripts, ``site.json``, Pyodide's
    WebAssembly (fetch, compile, instantiate), Python's start, the archives, importing
    ``truc_p2p.page`` and the home screen, the page drawing it; then the tap: the
    worker's calls into Python (the deal), the warm-up's imports if the tap waited
    for them, and the rest (messages, drawing)."""
    inside = _worker(page).evaluate(BOOT_MARKS)
    page_origin: float = page.evaluate("performance.timeOrigin")
    ready_at: float = page.evaluate("window.trucApp.readyAt || performance.now()")
    offset = inside["origin"] - page_origin  # worker clock -> page clock
    marks = {name: at + offset for name, at in inside["marks"]}
    split: dict[str, float] = {"page until the worker": offset}
    last = offset
    steps = {
        "start": "worker scripts (worker.js, boot.js, pyodide.mjs)",
        "site.json": "site.json",
        "snapshot read": "memory snapshot read (origin private file system)",
        "snapshot checked": "memory snapshot's SHA-256",
        "snapshot unpacked": "memory snapshot's pages of zeros put back",
        "wasm": "until Pyodide's WebAssembly is instantiated (fetch, compile)",
        "python": "Python start (snapshot restored, or interpreter + pyodide's imports)",
        "archives": "the archives into Pyodide's file system, on sys.path",
        "glue": "import truc_p2p.page + the home screen",
    }
    for name, at in sorted(marks.items(), key=lambda item: item[1]):
        if name in steps:
            split[steps[name]] = at - last
            last = at
    split["the page draws the home screen"] = ready_at - last
    split["ready -> tap (benchmark)"] = clicked - ready_at
    mine = [(at + offset, ms) for at, ms in inside["calls"] if clicked <= at + offset <= card]
    calls = sum(ms for _, ms in mine)
    drawn = page.evaluate("window.__cardAt")
    arrived = [at for at in page.evaluate("window.__messages") if clicked <= at <= card]
    if mine and arrived and drawn is not None:
        split["tap -> card: the tap reaches the worker"] = mine[0][0] - clicked
        done = mine[-1][0] + mine[-1][1]
        split["tap -> card: the answer reaches the page"] = arrived[0] - done
        split["tap -> card: until the card is drawn"] = drawn - arrived[0]
    warm = inside["warm"]
    waited = 0.0
    if warm is not None:
        start, length = warm[0] + offset, warm[1]
        waited = max(0.0, min(start + length, card) - max(start, clicked))
        split["warm-up imports (all)"] = length
    split["tap -> card: the worker's calls (the deal)"] = calls
    split["tap -> card: waiting for the warm-up"] = waited
    split["tap -> card: the rest (messages, drawing)"] = card - clicked - calls - waited
    for name, started, ended in inside["fetches"]:
        if name.endswith((".wasm", ".zip", ".whl", ".mjs", ".snapshot")):
            split[f"  fetch {name}"] = ended - started
    return {key: round(value, 1) for key, value in split.items()}


def _game_flights(log: list[list[Any]], events: list[list[Any]], me: int) -> dict[str, Any]:
    """Flights of game frames from the coin to the page's first cards (the native
    count's span, wire.md 6a): runs of one direction among the WebSocket messages
    after ``GameStarted`` up to ``CardsDealt``, the relay's handshake left out."""
    started = next(at for kind, at, _ in events if kind == "started")
    cards, dealer = next((at, d) for kind, at, d in events if kind == "cards")
    runs, last = 0, None
    for direction, at in log:
        if started < at <= cards and direction != last:
            runs += 1
            last = direction
    role = "?" if me < 0 else "dealer" if dealer == me else "nondealer"
    return {"flights": runs, "role": role}


def _cli() -> list[str]:
    return [sys.executable, "-m", "truc_p2p.cli"]


def _wait_ready(page: Any) -> float:
    page.wait_for_function(
        "() => window.trucApp && (window.trucApp.ready || window.trucApp.failed)",
        timeout=BOOT_MS,
    )
    failed = page.evaluate("window.trucApp.failed")
    if failed:
        raise SystemExit(f"site_game: the page failed: {failed}")
    at: float = page.evaluate("performance.now()")  # navigation start -> ready
    return at


def _first_card(page: Any) -> float:
    # a card in the hand (a button when it may be played; not while a redeal is asked):
    # when it was drawn (LONGTASKS's observer), else when the benchmark saw it
    page.wait_for_selector("#my-hand .card", timeout=BOOT_MS)
    at: float = page.evaluate("window.__cardAt || performance.now()")
    return at


def _step(page: Any) -> bool:
    """Tap what the table offers (a card first, else the first button)."""
    ready = page.evaluate(
        """() => { const u = window.truc; const t = u && u.state && u.state.table;
          return !!(t && t.turn != null && !u.final && !u.settling()); }"""
    )
    if not ready:
        return False
    if page.locator("#my-hand button.card:not([disabled])").count():
        page.click("#my-hand button.card:not([disabled]) >> nth=0")
    elif page.locator("#buttons button").count():
        page.click("#buttons button >> nth=0")
    else:
        return False
    return True


def _hands_seen(page: Any) -> int:
    hands: int = page.evaluate(
        """() => { const t = window.truc && window.truc.state && window.truc.state.table;
          return t && t.hand_no != null ? t.hand_no : -1; }"""
    )
    return hands


def _worker(page: Any) -> Any:
    end = time.monotonic() + 30
    while not page.workers:
        if time.monotonic() > end:
            raise SystemExit("site_game: the page started no worker")
        page.wait_for_timeout(50)
    return page.workers[0]


def _memory(page: Any, cdp: Any) -> dict[str, Any]:
    worker = _worker(page)
    inside = worker.evaluate(
        """() => ({
          wasm: self.trucPython ? self.trucPython._module.HEAP8.length : null,
          heap: self.performance && performance.memory ? performance.memory.usedJSHeapSize : null,
          isolated: self.crossOriginIsolated === true,
        })"""
    )
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {
        "worker_wasm_bytes": inside["wasm"],
        "worker_js_heap_bytes": inside["heap"],
        "main_js_heap_used_bytes": int(metrics.get("JSHeapUsedSize", 0)),
        "cross_origin_isolated": inside["isolated"],
        "memory_method": (
            "performance.measureUserAgentSpecificMemory is unavailable (no cross-origin "
            "isolation): the worker's wasm memory is pyodide._module.HEAP8.length, its JS "
            "heap performance.memory.usedJSHeapSize (Chromium), the main thread's "
            "CDP Performance.getMetrics JSHeapUsedSize"
        ),
    }


def _flights(log: list[list[Any]], until: float) -> int:
    """Changes of direction among the WebSocket messages before ``until``, counting
    the first flight out: the round trips the page waited through."""
    flights, last = 0, None
    for direction, at in log:
        if at > until:
            break
        if direction != last:
            flights += 1
            last = direction
    return flights


def _native_flights() -> dict[str, int]:
    from truc_p2p.bench._game_flights import flights_until_cards

    until = flights_until_cards(1, 3, pipeline=True, early=True)
    return {str(role): flights[0] for role, flights in until.items()}


def measure(hands: int, taps: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    namespace: dict[str, Any] = {}
    exec(compile(DECK_HAND, "<deck_hand>", "exec"), namespace)
    deck_fn = namespace["deck_seconds_per_hand"]
    report: dict[str, Any] = {"cpus": os.cpu_count(), "load_average": {}}

    def load(label: str) -> None:
        report["load_average"][label] = round(os.getloadavg()[0], 2)

    site = site_files()
    with tempfile.TemporaryDirectory(prefix="fig-") as tmp, sync_playwright() as p:
        folder = Path(tmp) / "site"
        write_site(site, folder)
        report["site_bytes"] = site.size
        tally: dict[str, int] = {}
        with serve_folder(folder, tally) as url:
            context = p.chromium.launch_persistent_context(
                Path(tmp) / "profile", executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS
            )
            try:
                context.add_init_script(LONGTASKS)
                page = context.new_page()
                cdp = context.new_cdp_session(page)
                cdp.send("Performance.enable")
                # -- the first visit, then a cached reload straight into a bot game
                load("cold")
                page.goto(url)
                report["cold_ready_ms"] = round(_wait_ready(page))
                page.wait_for_function(
                    "() => navigator.serviceWorker.controller !== null", timeout=BOOT_MS
                )
                report["first_load_bytes"] = tally.get("bytes", 0)
                report["cold_worker"] = _worker(page).evaluate("self.trucTimes")
                report["boot_stall_cold_ms"] = page.evaluate("window.__longest")
                tally.clear()
                load("cached")
                page.reload()
                ready = _wait_ready(page)
                report["cached_load_bytes"] = tally.get("bytes", 0)
                report["cached_worker"] = _worker(page).evaluate("self.trucTimes")
                page.evaluate("window.__boot = window.__longest; window.__longest = 0")
                clicked = page.evaluate("performance.now()")
                page.click("#app-bot-go")
                card = _first_card(page)
                report["cached_ready_ms"] = round(ready)
                report["click_to_first_card_ms"] = round(card - clicked)
                report["cached_load_to_first_card_ms"] = round(ready + card - clicked)
                report["boot_stall_cached_ms"] = page.evaluate("window.__boot")
                report["cached_split_ms"] = boot_split(page, clicked, card)
                # -- a bot game: the main thread's stalls while it is played
                load("bot_game")
                tapped, end = 0, time.monotonic() + GAME_SECONDS
                while tapped < taps and time.monotonic() < end:
                    if page.evaluate("window.truc.final") is not None:
                        break
                    if _step(page):
                        tapped += 1
                    page.wait_for_timeout(50)
                report["bot_game_taps"] = tapped
                report["game_stall_ms"] = page.evaluate("window.__longest")
                # -- the worker: memory, then the deck's CPU beside this Python's
                report.update(_memory(page, cdp))
                load("deck")
                worker = _worker(page)
                worker.evaluate(
                    "(code) => { self.__deck = self.trucPython.runPython(code); }", DECK_HAND
                )
                page_s = worker.evaluate(f"() => self.__deck({hands})")
                native_s = deck_fn(hands)
                report["deck_hands"] = hands
                report["deck_native_ms_per_hand"] = round(native_s * 1000, 1)
                report["deck_page_ms_per_hand"] = round(page_s * 1000, 1)
                report["deck_ratio"] = round(page_s / native_s, 1)
            finally:
                context.close()
            report.update(_relay_game(p, url, Path(tmp), hands))
    report["native_flights_until_first_cards"] = _native_flights()
    report["load_average"]["end"] = round(os.getloadavg()[0], 2)
    return report


def measure_boot(runs: int) -> dict[str, Any]:
    """Only the cached load to the first card, ``runs`` times after one first visit:
    each run's split, its wall time and the browser's CPU time (all its processes)."""
    from playwright.sync_api import sync_playwright
    from site_load import _browser_cpu_seconds

    out: dict[str, Any] = {"cpus": os.cpu_count(), "runs": []}
    with tempfile.TemporaryDirectory(prefix="fig-") as tmp, sync_playwright() as p:
        folder = Path(tmp) / "site"
        write_site(site_files(), folder)
        with serve_folder(folder, {}) as url:
            context = p.chromium.launch_persistent_context(
                Path(tmp) / "profile", executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS
            )
            try:
                context.add_init_script(LONGTASKS)
                page = context.new_page()
                page.goto(url)
                out["cold_ready_ms"] = round(_wait_ready(page))
                page.wait_for_function(
                    "() => navigator.serviceWorker.controller !== null", timeout=BOOT_MS
                )
                _settle(page)
                for _ in range(runs):
                    load = round(os.getloadavg()[0], 2)
                    cpu = _browser_cpu_seconds()
                    page.reload()
                    ready = _wait_ready(page)
                    page.wait_for_selector("#app-bot-go", state="visible", timeout=BOOT_MS)
                    clicked = page.evaluate("performance.now()")
                    page.click("#app-bot-go")
                    card = _first_card(page)
                    cpu = _browser_cpu_seconds() - cpu
                    out["runs"].append(
                        {
                            "load_average": load,
                            "ready_ms": round(ready),
                            "first_card_ms": round(ready + card - clicked),
                            "cpu_ms": round(cpu * 1000),
                            "split": boot_split(page, clicked, card),
                        }
                    )
                    _settle(page)
            finally:
                context.close()
    return out


def _settle(page: Any) -> None:
    """Wait until the worker is idle after its boot (the warm-up done, and whatever
    the boot keeps for the next load written)."""
    page.wait_for_function("() => window.trucApp && window.trucApp.ready", timeout=BOOT_MS)
    _worker(page).evaluate(
        """() => new Promise((done) => {
          const check = () => (self.trucTimes && self.trucTimes.warm
            && !self.trucTimes.saving) ? done(true) : setTimeout(check, 50);
          check();
        })"""
    )


def _print_boot(r: dict[str, Any]) -> None:
    import statistics

    runs = r["runs"]
    print(f"cold (first visit) ready: {r['cold_ready_ms']} ms")
    for key in ("first_card_ms", "ready_ms", "cpu_ms"):
        values = [run[key] for run in runs]
        print(f"cached {key}: median {statistics.median(values):.0f} of {values}")
    print(f"load averages: {[run['load_average'] for run in runs]} ({r['cpus']} CPUs)")
    print("the cached load, step by step (median ms over the runs):")
    for key in runs[0]["split"]:
        values = [run["split"].get(key, 0.0) for run in runs]
        print(f"  {statistics.median(values):8.1f}  {key}")


def _relay_game(p: Any, url: str, tmp: Path, hands: int) -> dict[str, Any]:
    """The page hosts through a loopback relay; ``truc-p2p join --bot`` joins."""
    out: dict[str, Any] = {}
    relay = subprocess.Popen(
        [*_cli(), "relay", "--bind", "127.0.0.1", "--port", "0", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=tmp,
    )
    joiner: subprocess.Popen[str] | None = None
    browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
    try:
        assert relay.stdout is not None
        port = int(json.loads(relay.stdout.readline())["addresses"][0][1])
        page = browser.new_context().new_page()
        page.goto(url)
        _wait_ready(page)
        _worker(page).evaluate(WS_LOG)
        _worker(page).evaluate("(code) => { self.trucPython.runPython(code); }", EVENT_LOG)
        page.fill("#app-relay", f"127.0.0.1:{port}")
        page.click("#app-host-go")
        page.wait_for_selector("#invite:not([hidden])", timeout=60_000)
        link = page.text_content("#invite-text") or ""
        from urllib.parse import unquote

        invite = unquote(link.split("#join=", 1)[1])
        joiner_log = (tmp / "join.log").open("w")
        joiner = subprocess.Popen(
            [*_cli(), "join", invite, "--bot", "random", "--seed", "2", "--timeout", "120",
             "--identity", str(tmp / "j.key"), "--out", str(tmp / "j"), "--json"],
            stdout=joiner_log,
            stderr=subprocess.STDOUT,
            cwd=tmp,
        )  # fmt: skip
        joined = time.monotonic()
        try:
            card = _first_card(page)
        except Exception as exc:
            said = (tmp / "join.log").read_text(errors="replace")[-2000:]
            said += json.dumps(page.evaluate("window.truc && window.truc.state"))[:3000]
            failed = f"site_game: no card through the relay ({exc}); join said: {said}"
            raise SystemExit(failed) from None
        out["relay_join_to_first_card_ms"] = round((time.monotonic() - joined) * 1000)
        log = _worker(page).evaluate("self.__ws")
        out["relay_flights_until_first_card"] = _flights(log, card)
        for _ in range(100):  # the worker's cards come before the table draws them
            events = json.loads(
                _worker(page).evaluate(
                    "() => self.trucPython.runPython('json.dumps(BENCH_EVENTS)')"
                )
            )
            if any(kind == "cards" for kind, _, _ in events):
                break
            page.wait_for_timeout(50)
        me = _worker(page).evaluate(
            "() => self.trucGlue ? self.trucPython.runPython("
            "'int(__import__(\"js\").self.trucGlue.app.game.side.session.me)') : -1"
        )  # -1: a page from before the worker showed its glue (the role is not known)
        out["game_flights_until_first_card"] = _game_flights(log, events, int(me))
        out["relay_flights_note"] = (
            "WebSocket direction changes before the first card, relay handshake included"
        )
        out["relay_load_average"] = round(os.getloadavg()[0], 2)
        first_hand = _hands_seen(page)
        started = time.monotonic()
        end = started + GAME_SECONDS
        while time.monotonic() < end:
            if page.evaluate("window.truc.final") is not None:
                break
            if _hands_seen(page) - first_hand >= hands:
                break
            _step(page)
            page.wait_for_timeout(50)
        played = max(1, _hands_seen(page) - first_hand)
        out["relay_hands"] = played
        out["relay_ms_per_hand"] = round((time.monotonic() - started) * 1000 / played)
    finally:
        if joiner is not None and joiner.poll() is None:  # the page's game may outlive ours
            joiner.kill()
            joiner.wait()
        browser.close()
        relay.terminate()
        relay.wait(timeout=10)
    return out


def _mb(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 1e6:.1f} MB"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3, help="deck hands and relay hands")
    parser.add_argument("--taps", type=int, default=40, help="taps in the bot game")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument(
        "--boot-runs",
        type=int,
        default=0,
        help="only the cached load to the first card, step by step, this many times",
    )
    args = parser.parse_args()
    if not CHROMIUM.exists():
        print(f"site_game: no browser ({CHROMIUM} is missing)", file=sys.stderr)
        return 1
    if args.boot_runs > 0:
        try:
            boot = measure_boot(args.boot_runs)
        except SiteError as exc:
            print(f"site_game: {exc}", file=sys.stderr)
            return 1
        _print_boot(boot)
        if args.json:
            print(json.dumps(boot))
        return 0
    try:
        r = measure(max(1, args.hands), max(0, args.taps))
    except SiteError as exc:
        print(f"site_game: {exc}", file=sys.stderr)
        return 1
    mb = 1e6
    la = r["load_average"]
    lines = [
        f"page weight: site {r['site_bytes'] / mb:.1f} MB; first load"
        f" {r['first_load_bytes'] / mb:.1f} MB over the network,"
        f" cached {r['cached_load_bytes'] / 1e3:.1f} kB",
        f"load to Python ready: cold {r['cold_ready_ms']} ms (load {la['cold']}),"
        f" cached {r['cached_ready_ms']} ms (load {la['cached']})",
        f"in the worker: bootPython + import and start of the game's Python: cold"
        f" {r['cold_worker']['boot']:.0f} + {r['cold_worker']['glue']:.0f} ms,"
        f" cached {r['cached_worker']['boot']:.0f} + {r['cached_worker']['glue']:.0f} ms",
        f"cached load to the first card of a bot game: {r['cached_load_to_first_card_ms']} ms"
        f" (click to card {r['click_to_first_card_ms']} ms; goal <= 3000)",
        f"deck v2 CPU per hand: page {r['deck_page_ms_per_hand']} ms, native"
        f" {r['deck_native_ms_per_hand']} ms: {r['deck_ratio']}x (goal <= 10x; load {la['deck']})",
        f"through the relay (page hosts, truc-p2p join bot): {r['relay_ms_per_hand']} ms per"
        f" hand over {r['relay_hands']} hands (load {r['relay_load_average']})",
        f"worker memory: wasm {r['worker_wasm_bytes'] / mb:.1f} MB (pyodide HEAP8), JS heap"
        f" {_mb(r['worker_js_heap_bytes'])} (performance.memory; none in a worker), main"
        f" thread JS heap"
        f" {r['main_js_heap_used_bytes'] / mb:.1f} MB",
        f"longest main-thread stall: boot cold {r['boot_stall_cold_ms']:.0f} ms, cached"
        f" {r['boot_stall_cached_ms']:.0f} ms, bot game {r['game_stall_ms']:.0f} ms"
        f" ({r['bot_game_taps']} taps; goal <= 100)",
        f"flights before the first card: page through the relay"
        f" {r['relay_flights_until_first_card']} (WebSocket direction"
        f" changes, relay handshake included); native"
        f" {r['native_flights_until_first_cards']} (the pipelined deal, bench game)",
        f"game flights from the coin to the page's first cards (game frames only):"
        f" page {r['game_flights_until_first_card']['flights']}"
        f" ({r['game_flights_until_first_card']['role']}); native"
        f" {r['native_flights_until_first_cards']}",
        f"(machine: {r['cpus']} CPUs, load average {la})",
        f"the cached load to the first card, step by step (ms; memory snapshot"
        f" {r['cached_worker'].get('snapshot', '?')}):",
        *(f"  {ms:8.1f}  {step}" for step, ms in r["cached_split_ms"].items()),
    ]
    print("\n".join(lines))
    if args.json:
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
