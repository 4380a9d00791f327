"""The web table as a card player sees it, in a real headless Chromium: the score
from the viewer's side, whose turn with a ticking clock, the tab's title and icon,
what each answer costs, the trick that stays and is swept to its winner, the hand's
result as a toast, "my rest" shown while it holds, and the layout at a phone, a
laptop and a wide screen.  Screenshots go to ``test-artifacts/web/``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from helpers.web import TURN_JS, HostedGame, RestBot, new_page, wait_turn

SEED = 1
#: A seed whose first hand is played to its end (no early "my rest" or fold ends the game).
TRICK_SEED = 11
SIZES = {"phone": (390, 844), "laptop": (1280, 800), "wide": (1440, 900)}
CLOCK = re.compile(r"your move \((\d+:\d\d) left\)")

BOXES_JS = """(selector) => [...document.querySelectorAll(selector)]
    .filter((e) => e.offsetParent !== null)
    .map((e) => { const r = e.getBoundingClientRect(); return [r.left, r.right]; })"""


def card_width(page: Any) -> float:
    box = page.locator("#my-hand .card").first.bounding_box()
    assert box is not None
    return float(box["width"])


def assert_fits_width(page: Any, width: int) -> None:
    """Nothing sticks out sideways: the page, the buttons, the banners, the cards."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for selector in ("#buttons button", "#pending", "#status", "#my-hand .card", "#score-line"):
        for left, right in page.evaluate(BOXES_JS, selector):
            assert left >= 0 and right <= width, (selector, left, right)


def assert_no_vertical_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollHeight <= innerHeight"), page.evaluate(
        "[document.documentElement.scrollHeight, innerHeight]"
    )


def first_card(page: Any, table: dict[str, Any]) -> None:
    card = next(c for c in table["hand"] if c["action"])
    page.click(f"#my-hand .card[data-card='{card['card']}']")


def test_layout_title_clock_and_what_a_raise_costs(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    game = HostedGame(tmp_path, seed=SEED, target=6)
    url = game.start()
    try:
        pages = {name: new_page(browser, w, h) for name, (w, h) in SIZES.items()}
        for page in pages.values():
            page.goto(url)
        for page in pages.values():
            page.wait_for_function(TURN_JS, arg=None)
        main = pages["laptop"]
        table = main.evaluate("window.truc.state.table")
        # whose turn: the tab says so, its icon too, and the clock ticks on the page
        assert main.title() == "(your turn) truc-p2p"
        icon = main.get_attribute("#favicon", "href")
        assert icon is not None and icon.startswith("data:image/svg+xml") and "ffca28" in icon
        first = CLOCK.fullmatch(main.locator("#status").inner_text())
        assert first, main.locator("#status").inner_text()
        main.wait_for_timeout(2200)
        later = CLOCK.fullmatch(main.locator("#status").inner_text())
        assert later and later.group(1) < first.group(1), (first.group(1), later)
        # a key that exists but does nothing now says why
        main.keyboard.press("a")
        assert main.locator("#notice").inner_text() == "nothing to accept now"
        assert main.evaluate("window.truc.state.table.turn") == table["turn"]
        # the score from the viewer's side
        assert main.locator("#score-line").inner_text() == "you 0 – heuristic-bot 0"
        assert main.locator("#worth").inner_text() == "hand worth 1"
        widths = {}
        for name, page in pages.items():
            width, _height = SIZES[name]
            page.screenshot(path=artifacts / f"layout-{name}-first-turn.png")
            widths[name] = card_width(page)
            assert_fits_width(page, width)
        for name in ("laptop", "wide"):
            assert_no_vertical_scroll(pages[name])
        # cards grow with the screen, and are never slivers on a phone
        assert widths["wide"] > widths["laptop"] > 80, widths
        assert widths["phone"] >= 60, widths
        # the opponent's name is whole at 390 px: not cut by an ellipsis
        phone = pages["phone"]
        name = phone.locator("#opp-name")
        assert name.inner_text() == "heuristic-bot"
        assert name.evaluate("(e) => e.scrollWidth <= e.clientWidth")
        assert phone.locator("#score-line").inner_text() == "you 0 – heuristic-bot 0"
        # the bot answers our first card with "2 more?": what each answer costs
        first_card(main, table)
        table = wait_turn(main, table["turn"])
        assert table is not None and table["pending"]["kind"] == "raise"
        costs = {b["kind"]: b["cost"] for b in table["buttons"]}
        assert costs["accept"] == "the hand is worth 2"
        assert costs["refuse"] == "heuristic-bot scores 1 point now"
        refuse = main.locator("button.act[data-action='refuse']")
        assert refuse.locator(".label").inner_text().startswith("refuse")
        assert refuse.locator(".cost").inner_text() == "heuristic-bot scores 1 point now"
        assert main.locator("#pending").inner_text() == "heuristic-bot asks “2 more?” (to 2)"
        for name, page in pages.items():
            page.locator("#pending").wait_for(state="visible")
            page.locator("#buttons button").first.wait_for()
            page.wait_for_timeout(500)
            page.screenshot(path=artifacts / f"layout-{name}-raise.png")
            assert_fits_width(page, SIZES[name][0])
        for name in ("laptop", "wide"):
            assert_no_vertical_scroll(pages[name])
        for page in pages.values():
            assert page.errors == []
    finally:
        game.stop()


def test_touch_screen_hides_key_hints_and_motion_can_be_reduced(
    browser: Any, tmp_path: Path
) -> None:
    game = HostedGame(tmp_path, seed=SEED, target=6)
    url = game.start()
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        has_touch=True,
        is_mobile=True,
        reduced_motion="reduce",
    )
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(url)
        page.wait_for_function(TURN_JS, arg=None)
        assert page.evaluate("matchMedia('(hover: none)').matches")
        assert page.locator("#my-hand .card .key").first.is_hidden()
        assert page.locator("#buttons kbd").first.is_hidden()
        # nor in the buttons' texts: "leave", not "leave (q)"
        assert page.inner_text("#quit-btn").strip() == "leave"
        assert page.inner_text("#help-btn").strip() == "? rules"
        # prefers-reduced-motion: cards do not fly in (nor are swept) visibly
        durations = page.evaluate(
            """() => { const c = getComputedStyle(document.querySelector('#my-hand .card'));
                       return [c.animationDuration, c.transitionDuration]; }"""
        )
        assert all(d.split(",")[0] in ("0.001s", "1e-03s", "0s") for d in durations), durations
    finally:
        context.close()
        game.stop()


def test_trick_stays_then_is_swept_and_the_hand_toast(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    game = HostedGame(tmp_path, seed=TRICK_SEED, target=6)
    url = game.start()
    try:
        page = new_page(browser, 1280, 800)
        page.goto(url)
        last: int | None = None
        checked_trick = checked_toast = checked_click = False
        for _ in range(80):
            table = wait_turn(page, last)
            assert table is not None, "the game ended before a hand did"
            last = table["turn"]
            held = page.evaluate("window.truc.held && !window.truc.held.sweeping")
            if held and not checked_trick:
                # the trick just finished stays on the felt: both cards, who won it
                trick = page.evaluate("window.truc.held")
                assert page.locator("#table .card").count() == 2
                assert page.locator("#trick-caption").inner_text() == trick["text"]
                if trick["winner"] is not None:
                    assert page.locator("#table .card.won").count() == 1
                page.screenshot(path=artifacts / "trick-1-stays.png")
                # ...then, with no click, it is swept to its winner after about 1.5 s
                page.wait_for_function("window.truc.held && window.truc.held.sweeping")
                page.screenshot(path=artifacts / "trick-2-swept.png")
                page.wait_for_function("window.truc.held == null")
                record = page.evaluate("window.truc.tricks[0]")
                assert record["sweptAt"] - record["shownAt"] >= 1400, record
                assert page.locator("#table .card").count() == len(table["table"])
                checked_trick = True
            elif held and not checked_click and table["table"] and not table["pending"]:
                # a click (answering the next lead at once) ends the wait
                key = page.evaluate("window.truc.held.key")
                first_card(page, table)
                page.wait_for_function(
                    "(key) => window.truc.tricks.find((r) => r.key === key).sweptAt != null",
                    arg=key,
                )
                record = page.evaluate(
                    "(key) => window.truc.tricks.find((r) => r.key === key)", key
                )
                assert record["sweptAt"] - record["shownAt"] < 1400, record
                checked_click = True
                continue
            page.wait_for_function("window.truc.held == null")  # a player who watches
            toasts = page.evaluate("window.truc.toasts")
            if toasts and not checked_toast:
                # the result stays even when the state already moved on to the next hand
                result = toasts[0]
                toast = page.locator("#hand-toast")
                assert toast.is_visible() and toast.inner_text() == result["text"]
                assert result["text"].startswith(("you win hand 1", "heuristic-bot wins hand 1"))
                # the log's line of it adds the score ("… → you 2 – bot 0")
                said = [line["text"] for line in page.evaluate("window.truc.log")]
                assert any(line.startswith(result["text"]) for line in said)
                page.screenshot(path=artifacts / "hand-toast.png")
                # a new hand starts on a clean felt (once the last trick is swept)...
                assert table["hand_no"] == 2
                now = page.evaluate("window.truc.state.table")
                assert page.locator("#table .card").count() == len(now["table"])
                assert page.locator("#tricks .trick.me, #tricks .trick.opp").count() == 0
                assert page.locator("#tricks").inner_text().split() == ["–", "–", "–"]
                # ...while the result stays a few seconds, then goes
                page.wait_for_function("window.truc.toasts[0].hiddenAt != null", timeout=15_000)
                shown = page.evaluate("window.truc.toasts[0]")
                assert shown["hiddenAt"] - shown["shownAt"] >= 4000, shown
                assert toast.is_hidden()
                checked_toast = True
                break
            pending = table["pending"]
            if pending and pending["by"] == "opp":
                page.keyboard.press("a")
            else:
                first_card(page, table)
        assert checked_trick and checked_toast and checked_click
        # the score line stays the viewer's: "you" first
        assert page.locator("#score-line").inner_text().startswith("you ")
        assert page.errors == []
    finally:
        game.stop()


def test_my_rest_says_what_each_answer_costs(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    game = HostedGame(tmp_path, seed=SEED, target=6, bot=RestBot)
    url = game.start()
    try:
        page = new_page(browser, 390, 844)
        page.goto(url)
        laptop = new_page(browser, 1280, 800)  # the same table on a laptop screen
        laptop.goto(url)
        last: int | None = None
        for _ in range(30):
            table = wait_turn(page, last)
            assert table is not None
            last = table["turn"]
            pending = table["pending"]
            if pending and pending["kind"] == "rest":
                break
            first_card(page, table)
        else:
            raise AssertionError("the bot never called “my rest”")
        assert page.locator("#pending").inner_text() == "heuristic-bot calls “my rest”"
        costs = {b["kind"]: b["cost"] for b in table["buttons"]}
        assert costs["accept"] == "this hand decides the game"
        assert costs["refuse"] == "heuristic-bot wins the game now"
        assert costs["fold"] == "heuristic-bot wins the game now"
        accept = page.locator("button.act[data-action='accept']")
        assert accept.locator(".cost").inner_text() == "this hand decides the game"
        assert_fits_width(page, 390)
        page.screenshot(path=artifacts / "rest-to-answer-390px.png", full_page=True)
        laptop.locator("button.act[data-action='accept']").wait_for()
        assert_no_vertical_scroll(laptop)
        page.keyboard.press("a")
        banner = page.locator("#rest-banner")
        banner.wait_for(state="visible")
        assert banner.inner_text() == "MY REST: this hand decides the game"
        assert page.locator("#worth").inner_text() == "MY REST: this hand decides the game"
        assert_fits_width(page, 390)
        page.screenshot(path=artifacts / "rest-holds-390px.png", full_page=True)
        laptop.locator("#rest-banner").wait_for(state="visible")
        laptop.wait_for_function("window.truc.held == null")
        laptop.screenshot(path=artifacts / "rest-holds-1280.png")
        assert_no_vertical_scroll(laptop)
        assert page.errors == []
    finally:
        game.stop()


def test_sound_can_be_muted_and_stays_muted(browser: Any, tmp_path: Path) -> None:
    game = HostedGame(tmp_path, seed=SEED, target=6)
    url = game.start()
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(url)
        page.wait_for_function(TURN_JS, arg=None)
        # a toggle: its name stays, aria-pressed says whether the sound is on
        button = page.locator("#sound-btn")
        assert button.inner_text() == "sound" and button.get_attribute("aria-pressed") == "true"
        assert "turn" in page.evaluate("window.truc.sounds")  # your turn rings
        button.click()
        assert button.inner_text() == "sound" and button.get_attribute("aria-pressed") == "false"
        assert page.evaluate("localStorage.getItem('truc-p2p.muted')") == "1"
        page.reload()
        page.wait_for_function(TURN_JS, arg=None)
        assert page.locator("#sound-btn").get_attribute("aria-pressed") == "false"
        assert page.evaluate("window.truc.muted") is True
        assert page.evaluate("window.truc.sounds") == []
    finally:
        context.close()
        game.stop()


def test_resignation_end_screen(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    """The end screen shows a resignation as the program words it (``final`` from
    ``final_message``): a won game, verified complete, never a red ✘."""
    game = HostedGame(tmp_path, seed=SEED, target=6)
    url = game.start()
    try:
        page = new_page(browser, 1280, 800)
        page.goto(url)
        page.wait_for_function(TURN_JS, arg=None)
        final = {
            "headline": "You win!",
            "message": "heuristic-bot resigned in hand 1; you win the game",
            "outcome": "resigned",
            "won": True,
            "score": {"me": 0, "opp": 0},
            "score_line": "you 0 – heuristic-bot 0",
            "hands": 1,
            "cosigned": True,
            "cosigned_line": "✔ result co-signed by both players",
            "verdict": {
                "valid": True,
                "status": "complete",
                "line": "✔ verified: the transcript replays as a fair, complete game",
                "summary": "transcript: VALID",
            },
            "transcript": str(tmp_path / "alice.truc"),
        }
        assert game.player is not None
        game.call(game.player.finish, final)
        panel = page.locator("#final")
        panel.wait_for(state="visible")
        assert page.locator("#final-headline").inner_text() == "You win!"
        assert page.locator("#final-score").inner_text() == "you 0 – heuristic-bot 0"
        assert "heuristic-bot resigned in hand 1" in panel.inner_text()
        line = page.locator("#final-verdict-line")
        assert line.get_attribute("data-status") == "complete"
        assert line.get_attribute("class") == "ok"
        assert "✘" not in panel.inner_text()
        page.screenshot(path=artifacts / "resigned-end-screen.png")
        # an older verifier without "status": a game that stopped early is not a cheat
        game.call(
            game.player.finish,
            {
                **final,
                "headline": "Game not finished",
                "won": False,
                "cosigned": False,
                "outcome": "quit",
                "verdict": {"valid": False, "summary": "transcript: INVALID"},
            },
        )
        page.wait_for_function(
            "document.querySelector('#final-verdict-line').dataset.status === 'unfinished'"
        )
        assert page.locator("#final-verdict-line").get_attribute("class") == "neutral"
    finally:
        game.stop()
