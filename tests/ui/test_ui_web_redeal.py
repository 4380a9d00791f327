"""The web table after a redeal (issue 30 point 4): the dealer's page shows its redealt
cards while the opponent thinks over its next move, instead of "dealing…" with no
cards until that move (early redeal cards, wire.md section 6a).  No browser: the
page is a recorder of the state messages it is sent, with the time of each."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import trio
import trio.testing
from helpers.web import derive

from truc_p2p.crypto import SigningKey
from truc_p2p.net import End, PlayOptions, play_game, prepare_game
from truc_p2p.protocol import SessionOptions
from truc_p2p.rules import Action, Game, Player, Ruleset
from truc_p2p.ui._web import WebPlayer

THINK_S = 5.0
SEED = 9


class Redealer:
    """The opponent: asks for every redeal it may, otherwise plays its lowest card
    (no raise, no rest: every hand is worth one point), and thinks :data:`THINK_S`
    over its first move after a redeal was accepted (noting when it starts and ends)."""

    def __init__(self) -> None:
        self.thinking: list[tuple[float, float]] = []

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        if Action.ASK_REDEAL in legal:
            await trio.lowlevel.checkpoint()
            return Action.ASK_REDEAL
        if game.redealt and game.trick_no == 0 and not game.table and game.dealer != game.view:
            start = trio.current_time()
            await trio.sleep(THINK_S)
            self.thinking.append((start, trio.current_time()))
        else:
            await trio.lowlevel.checkpoint()
        plays = [x for x in legal if x.card is not None]
        return min(plays, key=lambda x: x.card.index if x.card else 0) if plays else legal[0]


async def _play(tmp_path: Path, *, early_redeal: bool) -> tuple[list[Any], Redealer]:
    """alice (the page) accepts every redeal and plays her first card or button; returns
    the (time, table) of every state message she was sent and the opponent."""
    player = WebPlayer("alice", move_seconds=300)
    states: list[Any] = []

    class Page:
        def publish(self, message: dict[str, Any]) -> None:
            table = message.get("table") if message["type"] == "state" else None
            if not table:
                return
            states.append((trio.current_time(), table))
            if table["turn"] is None:
                return
            buttons = [b["action"] for b in table["buttons"]]
            first = next((c["action"] for c in table["hand"] if c["action"]), None)
            action = "accept-redeal" if "accept-redeal" in buttons else first or buttons[0]
            player.receive({"type": "act", "turn": table["turn"], "action": action})

    player.publisher = Page()
    mine = prepare_game(
        identity=SigningKey.from_bytes(derive(SEED, Player.P0, "key")),
        role=Player.P0,
        transcript=None,
        secret=derive(SEED, Player.P0, "secret"),
        options=SessionOptions(ruleset=Ruleset(target=4), name="alice"),
    )
    theirs = prepare_game(
        identity=SigningKey.from_bytes(derive(SEED, Player.P1, "key")),
        role=Player.P1,
        transcript=None,
        secret=derive(SEED, Player.P1, "secret"),
        options=SessionOptions(ruleset=Ruleset(target=4), name="bot"),
    )
    theirs.session.early_redeal_feature = early_redeal  # its hello is not made yet
    opponent = Redealer()
    a, b = trio.testing.memory_stream_pair()
    with trio.fail_after(600):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_game, b, theirs.session, opponent)
            outcome = await play_game(a, mine.session, player, PlayOptions(on_event=player))
    assert outcome.end is End.FINISHED
    assert mine.session.early_redeal is early_redeal
    return states, opponent


def _while_thinking(states: list[Any], start: float, end: float) -> list[Any]:
    """The last table the page showed before the opponent's thought ended."""
    shown = [t for when, t in states if when <= end - 0.001]
    assert shown and states[0][0] <= start
    return shown[-1]


async def test_the_dealers_page_shows_the_redealt_cards_while_the_opponent_thinks(
    autojump_clock: trio.abc.Clock, tmp_path: Path
) -> None:
    states, opponent = await _play(tmp_path, early_redeal=True)
    assert opponent.thinking, "the opponent never thought after a redeal"
    for start, end in opponent.thinking:
        table = _while_thinking(states, start, end)
        assert table["dealer"] == "me" and table["to_act"] == "opp"
        assert len(table["hand"]) == 3, table
        assert table["status"] != "dealing…" and "bot" in table["status"]


async def test_without_early_redeal_cards_the_page_says_dealing_meanwhile(
    autojump_clock: trio.abc.Clock, tmp_path: Path
) -> None:
    """The opponent lacks the feature (today's protocol): the check above fails."""
    states, opponent = await _play(tmp_path, early_redeal=False)
    assert opponent.thinking
    for start, end in opponent.thinking:
        table = _while_thinking(states, start, end)
        assert table["hand"] == [] and table["status"] == "dealing…", table


# -- the same in a real headless Chromium ------------------------------------------------

BROWSER_THINK_S = 4.0


class SlowRedealer:
    """The opponent of the browser test: asks for every redeal it may, thinks
    :data:`BROWSER_THINK_S` (real time) over its first move after a redeal was
    accepted, otherwise plays its lowest card at once.  ``moved`` notes, per round,
    when that thought ended (``time.monotonic()``, read from the test's thread)."""

    def __init__(self) -> None:
        self.moved: dict[int, float] = {}

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        if Action.ASK_REDEAL in legal:
            await trio.lowlevel.checkpoint()
            return Action.ASK_REDEAL
        if game.redealt and game.round_no not in self.moved and game.dealer != game.view:
            await trio.sleep(BROWSER_THINK_S)
            self.moved[game.round_no] = time.monotonic()
        else:
            await trio.lowlevel.checkpoint()
        plays = [x for x in legal if x.card is not None]
        return min(plays, key=lambda x: x.card.index if x.card else 0) if plays else legal[0]


SHOWN_JS = """() => document.querySelectorAll('#my-hand .card').length === 3
    && window.truc.state.table.to_act === 'opp'"""


def test_the_dealers_page_in_chromium_shows_the_redealt_cards_at_once(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    """alice accepts the bot's redeal by clicking; her three new cards are on the page
    well before the bot, thinking 4 s, moves (without the feature: after it)."""
    from helpers.web import HostedGame, new_page, wait_turn

    opponent = SlowRedealer()
    game = HostedGame(tmp_path, seed=SEED, target=3, bot=lambda _seed: opponent)
    url = game.start()
    shown: list[float] = []
    try:
        page = new_page(browser)
        page.goto(url)
        last: int | None = None
        for _ in range(200):
            table = wait_turn(page, last)
            if table is None:
                break
            last = table["turn"]
            actions = [b["action"] for b in table["buttons"]]
            if "accept-redeal" in actions:
                round_no = table["hand_no"] - 1
                page.click("button.act[data-action='accept-redeal']")
                clicked = time.monotonic()
                page.wait_for_function(SHOWN_JS, timeout=BROWSER_THINK_S * 1000 / 2)
                shown.append(time.monotonic() - clicked)
                assert round_no not in opponent.moved, "the bot moved before the cards showed"
                status = page.locator("#status").inner_text()
                assert "dealing" not in status and "bot" in status, status
                if len(shown) == 1:
                    page.screenshot(path=artifacts / "redeal-cards-while-the-opponent-thinks.png")
                continue
            card = next((c["card"] for c in table["hand"] if c["action"]), None)
            if card is not None:
                page.click(f"#my-hand .card[data-card='{card}']")
            else:
                page.click(f"button.act[data-action='{actions[0]}']")
        assert page.errors == []
    finally:
        game.stop()
    assert game.outcome is not None and game.outcome.end is End.FINISHED
    assert shown and max(shown) < BROWSER_THINK_S / 2, shown
