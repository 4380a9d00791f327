"""A reproducible game served to a real browser: the peer runs in a thread under
trio, the test drives the page with playwright's (blocking) API in the main thread."""

from __future__ import annotations

import contextlib
import hashlib
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import trio
import trio.testing

from truc_p2p.bots import make_bot
from truc_p2p.cli._web import final_message
from truc_p2p.crypto import SigningKey
from truc_p2p.net import BotStrategy, GameOutcome, PlayOptions, Storage, play_game, prepare_game
from truc_p2p.protocol import SessionOptions
from truc_p2p.rules import Action, ActionKind, Game, Player, Ruleset
from truc_p2p.ui._web import WebPlayer, bind_table, serve_table

ROOT = Path(__file__).resolve().parents[2]
#: Screenshots land here (git-ignored), so CI and people can look at them.
ARTIFACTS = ROOT / "test-artifacts" / "web"
CHROMIUM = Path("/usr/bin/chromium")
#: Pages opened by ``new_page`` in the running test, closed when it ends (a page left
#: open keeps its table's clock ticking and its socket redialling a server that is
#: gone: dozens of them took most of both cores for the rest of the suite).
OPEN_PAGES: list[Any] = []
#: How this machine's Chromium must be started (no sandbox as root, no network chatter).
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


def derive(seed: int, role: Player, label: str) -> bytes:
    return hashlib.sha256(f"web-tests/{seed}/{int(role)}/{label}".encode()).digest()


class RaisingBot:
    """The heuristic bot, except that it asks "2 more?" at its first chance of the
    game, so the person always has a raise to answer."""

    def __init__(self, seed: int) -> None:
        self.bot = BotStrategy(make_bot("heuristic", seed))
        self.raised = False

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        if not self.raised and Action.RAISE in legal:
            self.raised = True
            await trio.lowlevel.checkpoint()
            return Action.RAISE
        action = await self.bot.choose(game, legal)
        if action.kind in (ActionKind.RAISE, ActionKind.REST) and not self.raised:
            self.raised = True
        return action


class RestBot:
    """The heuristic bot, except that it calls "my rest" at its first chance of the
    game, so the person has "my rest" to answer."""

    def __init__(self, seed: int) -> None:
        self.bot = BotStrategy(make_bot("heuristic", seed))
        self.called = False

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        if not self.called and Action.REST in legal:
            self.called = True
            await trio.lowlevel.checkpoint()
            return Action.REST
        return await self.bot.choose(game, legal)


@dataclass
class HostedGame:
    """A game between a :class:`WebPlayer` (the browser) and a bot
    (:class:`RaisingBot` unless told)."""

    out: Path
    seed: int = 1
    target: int = 6
    bot_name: str = "heuristic-bot"
    #: The opponent's strategy, made from the seed.
    bot: Callable[[int], Any] = RaisingBot
    url: str = ""
    outcome: GameOutcome | None = None
    final: dict[str, Any] | None = None
    secrets: list[bytes] = field(default_factory=list)
    error: BaseException | None = None
    player: WebPlayer | None = None
    _thread: threading.Thread | None = None
    _token: trio.lowlevel.TrioToken | None = None
    _scope: trio.CancelScope | None = None

    def start(self) -> str:
        ready: queue.Queue[str] = queue.Queue()
        self._thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self._thread.start()
        self.url = ready.get(timeout=30)
        if self.error is not None:
            raise self.error
        return self.url

    def _run(self, ready: queue.Queue[str]) -> None:
        try:
            trio.run(self._main, ready)
        except BaseException as exc:
            self.error = exc
            ready.put("")

    async def _main(self, ready: queue.Queue[str]) -> None:
        ruleset = Ruleset(target=self.target)
        games = {}
        for role, name in ((Player.P0, "alice"), (Player.P1, self.bot_name)):
            secret = derive(self.seed, role, "secret")
            self.secrets.append(secret)
            games[role] = prepare_game(
                identity=SigningKey.from_bytes(derive(self.seed, role, "key")),
                role=role,
                transcript=self.out / f"{name}.truc" if role is Player.P0 else None,
                secret=secret,
                storage=Storage(fsync=False),
                options=SessionOptions(ruleset=ruleset, name=name),
            )
        player = self.player = WebPlayer("alice", move_seconds=300)
        mine, theirs = trio.testing.memory_stream_pair()
        with trio.CancelScope() as scope:
            self._scope = scope
            self._token = trio.lowlevel.current_trio_token()
            async with serve_table(player, await bind_table(0)) as server:
                player.publisher = server
                ready.put(server.url)
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(
                        play_game, theirs, games[Player.P1].session, self.bot(self.seed)
                    )
                    try:
                        outcome = await play_game(
                            mine, games[Player.P0].session, player, PlayOptions(on_event=player)
                        )
                    finally:
                        games[Player.P0].close()
                outcome = replace(outcome, transcript=self.out / "alice.truc")
                self.final = await trio.to_thread.run_sync(final_message, outcome)
                player.finish(self.final)
                self.outcome = outcome
                await server.drain()

    def call(self, fn: Callable[..., object], *args: object) -> None:
        """Run ``fn(*args)`` in the game's trio thread (e.g. ``player.on_disconnect``)."""
        assert self._token is not None
        trio.from_thread.run_sync(fn, *args, trio_token=self._token)

    def stop(self) -> None:
        """End the game thread (cancels it if the test gave up early)."""
        thread = self._thread
        if thread is None:
            return
        if thread.is_alive() and self._token is not None and self._scope is not None:
            with contextlib.suppress(trio.RunFinishedError):
                trio.from_thread.run_sync(self._scope.cancel, trio_token=self._token)
        thread.join(timeout=30)


#: Seconds a command may take before the test kills it.
LIMIT = 120
#: A seed whose deals let every scripted step happen before the game ends.
SEED = 1


TURN_JS = """(last) => window.truc && (window.truc.final ||
    (window.truc.state && window.truc.state.table && window.truc.state.table.turn != null
     && window.truc.state.table.turn !== last && !window.truc.settling()))"""


def new_page(browser: Any, width: int = 800, height: int = 900, *, touch: bool = False) -> Any:
    # bypass_csp: the page forbids eval, which playwright's wait_for_function uses
    page = browser.new_page(
        viewport={"width": width, "height": height}, bypass_csp=True, has_touch=touch
    )
    OPEN_PAGES.append(page)
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    return page


def wait_turn(page: Any, last: int | None) -> dict[str, Any] | None:
    """The table at our next turn, or ``None`` once the end screen is there."""
    page.wait_for_function(TURN_JS, arg=last)
    if page.evaluate("!!window.truc.final"):
        return None
    table: dict[str, Any] = page.evaluate("window.truc.state.table")
    return table


def play_to_the_end(page: Any, shots: Path | None = None) -> dict[str, bool]:
    """Click through a whole game: answer the raise, ask for a redeal, fold one hand,
    decline the opponent's redeals with ``x``, otherwise play the first card that may
    be played."""
    did = {"answered a raise": False, "asked for a redeal": False, "folded a hand": False}
    last: int | None = None
    for _ in range(300):
        table = wait_turn(page, last)
        if table is None:
            return did
        last = table["turn"]
        buttons = {b["kind"]: b for b in table["buttons"]}
        pending = table["pending"]
        if pending and pending["by"] == "opp" and pending["kind"] == "raise":
            if shots is not None and not did["answered a raise"]:
                page.screenshot(path=shots / "2-raise-to-answer.png", full_page=True)
            assert page.locator("#pending").inner_text() == pending["text"]
            page.keyboard.press("a")  # the terminal's key works in the page too
            did["answered a raise"] = True
        elif pending and pending["by"] == "opp" and pending["kind"] == "redeal":
            page.keyboard.press("x")  # a raise's "refuse" key declines a redeal too
            did["declined a redeal"] = True
        elif pending and pending["by"] == "opp":
            page.click(f"button.act[data-action='{table['buttons'][0]['action']}']")
        elif "redeal" in buttons and not did["asked for a redeal"]:
            page.click("button.act[data-action='redeal']")
            did["asked for a redeal"] = True
        elif "fold" in buttons and did["answered a raise"] and not did["folded a hand"]:
            page.click("button.act[data-action='fold']")
            did["folded a hand"] = True
        else:
            card = next(c for c in table["hand"] if c["action"])
            page.click(f"#my-hand .card[data-card='{card['card']}']")
    raise AssertionError("the game did not end in 300 turns")


@contextmanager
def play_web(tmp_path: Path, *args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``truc-p2p play --web --no-browser ARGS`` running, with the URL it printed;
    killed on the way out if still running (and by a watchdog: never hang the suite)."""
    cmd = [sys.executable, "-m", "truc_p2p.cli", "play", "--web", "--no-browser", *args]
    cmd += ["--out", str(tmp_path / "games"), "--name", "bob"]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )
    watchdog = threading.Timer(LIMIT, proc.kill)
    watchdog.start()
    try:
        assert proc.stdout is not None
        url = ""
        for _ in range(10):
            line = proc.stdout.readline()
            found = re.search(r"web table: (http://127\.0\.0\.1:\d+/\?token=[\w-]+)", line)
            if found:
                url = found.group(1)
                break
        assert url, "no URL printed"
        yield proc, url
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


#: Every element whose text must fit: the elements it returns stick out of the window
#: or clip their text (``scrollWidth > clientWidth``).  Hidden ones are skipped.
OVERFLOWING_JS = """() => {
  const selectors = [
    "#score-line", "#scoreboard .sub > *", "#status", "#pending", ".banner", "#rest-banner",
    "#hand-toast", "#notice", "#buttons button", "#buttons button > *", ".tools > *",
    "#log li", "#opp-name", "#me-name", ".overlay:not([hidden]) .panel",
    ".overlay:not([hidden]) .panel h2", ".overlay:not([hidden]) .panel p",
    ".overlay:not([hidden]) .panel button", ".overlay:not([hidden]) .panel li",
    ".overlay:not([hidden]) .panel select", ".overlay:not([hidden]) .panel label",
  ];
  const width = document.documentElement.clientWidth;
  const bad = [];
  for (const node of document.querySelectorAll(selectors.join(","))) {
    if (!node.getClientRects().length || getComputedStyle(node).visibility === "hidden") continue;
    const box = node.getBoundingClientRect();
    if (box.width === 0) continue;
    const name = node.id ? `#${node.id}` : `${node.tagName.toLowerCase()}.${node.className}`;
    const text = (node.textContent || "").trim().slice(0, 40);
    if (box.left < -0.5 || box.right > width + 0.5) {
      bad.push(`${name} "${text}" is out of the window (${box.left}..${box.right} of ${width})`);
    } else if (node.clientWidth > 0 && node.scrollWidth > node.clientWidth + 1) {
      bad.push(`${name} "${text}" clips its text (${node.scrollWidth} > ${node.clientWidth})`);
    }
  }
  if (document.documentElement.scrollWidth > width) bad.push("the page scrolls sideways");
  return bad;
}"""
