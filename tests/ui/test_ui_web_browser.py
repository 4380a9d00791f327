"""The web table in a real headless Chromium: a whole game played by clicking, the
token and Origin refusals, and the phone-width layout.  Screenshots are written to
``test-artifacts/web/`` (git-ignored)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from helpers.web import (
    ARTIFACTS,
    SEED,
    TURN_JS,
    HostedGame,
    new_page,
    play_to_the_end,
    play_web,
)

from truc_p2p.net import End

#: Seconds a command may take before the test kills it.
LIMIT = 120


def test_whole_game_by_clicking(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    game = HostedGame(tmp_path, seed=SEED, target=6)
    url = game.start()
    try:
        page = new_page(browser)
        page.goto(url)
        page.wait_for_function(TURN_JS, arg=None)
        page.screenshot(path=artifacts / "1-first-turn.png", full_page=True)
        # the table shows the opponent, the score and the hand as cards
        assert page.locator("#opp-name").inner_text() == "heuristic-bot"
        # the key is there for who wants it, not shown in a game against a bot
        assert re.fullmatch(r"[0-9a-f]{64}", page.locator("#opp-name").get_attribute("title"))
        assert page.locator("#score-line").inner_text() == "you 0 – heuristic-bot 0"
        assert page.locator("#my-hand .card").count() == 3
        assert "first to 6" in page.locator("#target").inner_text()
        # the clock of every move is said at the start, under the status line
        note = page.locator("#clock-note")
        assert note.is_visible()
        assert note.inner_text() == "you have 5 minutes for each move; the clock shows what is left"
        did = play_to_the_end(page, artifacts)
        assert did == dict.fromkeys(did, True), did
        final = page.locator("#final")
        final.wait_for(state="visible")
        page.screenshot(path=artifacts / "3-final.png", full_page=True)
        text = final.inner_text()
        assert "co-signed by both players" in text
        assert "verified" in text
        assert str(tmp_path / "alice.truc") in text
        log = page.locator("#log").inner_text()
        assert page.errors == []
    finally:
        game.stop()
    assert game.outcome is not None and game.outcome.end is End.FINISHED
    assert game.final is not None and game.final["verdict"]["valid"] is True
    won = game.outcome.winner == game.outcome.me
    # the headline says who won and why, from the viewer's side
    assert game.final["headline"].startswith("You won: " if won else "heuristic-bot won: ")
    assert game.final["score_line"].startswith(("points: you ", "points before the staked"))
    # the log tells the game to its end (the co-signed result is the final panel's)
    assert "wins the game" in log or "win the game" in log, log[-400:]


def test_requests_without_the_token_are_refused(browser: Any, tmp_path: Path) -> None:
    game = HostedGame(tmp_path, seed=SEED)
    url = game.start()
    base = url.split("?")[0]
    try:
        page = new_page(browser)
        for bad in (base, base + "?token=", base + "?token=guess", base + "table.js"):
            response = page.goto(bad)
            assert response is not None and response.status == 403, bad
            assert page.locator("#my-hand").count() == 0
        response = page.goto(url)
        assert response is not None and response.status == 200
        probe = """async (target) => await new Promise((done) => {
            const ws = new WebSocket(target);
            ws.onopen = () => { ws.close(); done("open"); };
            ws.onerror = () => done("refused");
        })"""
        host = base.removeprefix("http://").rstrip("/")
        token = url.split("token=")[1]
        assert page.evaluate(probe, f"ws://{host}/ws") == "refused"
        assert page.evaluate(probe, f"ws://{host}/ws?token=wrong") == "refused"
        assert page.evaluate(probe, f"ws://{host}/ws?token={token}") == "open"
        # another page that somehow learnt the token still cannot drive the game
        page.route(
            "http://evil.test/",
            lambda route: route.fulfill(body="<title>evil</title>", content_type="text/html"),
        )
        page.goto("http://evil.test/")
        assert page.evaluate(probe, f"ws://{host}/ws?token={token}") == "refused"
    finally:
        game.stop()


def test_phone_width(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    # the opponent chooses its name: it is shown as text, never run as markup
    evil = "<img src=x onerror=boom()>"
    game = HostedGame(tmp_path, seed=SEED, bot_name=evil)
    url = game.start()
    try:
        page = new_page(browser, width=390, height=844)
        page.goto(url)
        page.wait_for_function(TURN_JS, arg=None)
        assert page.locator("#opp-name").inner_text() == evil
        assert page.locator("img").count() == 0 and page.errors == []
        page.screenshot(path=artifacts / "4-phone-390px.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        cards = page.locator("#my-hand .card")
        assert cards.count() == 3
        for i in range(3):
            box = cards.nth(i).bounding_box()
            assert box is not None
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
            assert box["width"] >= 60  # still a card, not a sliver
            assert cards.nth(i).is_visible()
        for button in page.locator("#buttons button").all():
            box = button.bounding_box()
            assert box is not None and box["x"] + box["width"] <= 390
        # the reconnect countdown (the network layer will call these)
        assert game.player is not None
        banner = page.locator("#banner-disconnect")
        assert banner.is_hidden()
        game.call(game.player.on_disconnect, 90.0)
        banner.wait_for(state="visible")
        assert re.search(r"opponent disconnected — waiting 1:(29|30)", banner.inner_text())
        page.screenshot(path=artifacts / "5-phone-opponent-disconnected.png", full_page=True)
        game.call(game.player.on_reconnect)
        banner.wait_for(state="hidden")
    finally:
        game.stop()


def test_leave_with_q(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    game = HostedGame(tmp_path, seed=SEED)
    url = game.start()
    try:
        page = new_page(browser)
        page.goto(url)
        page.wait_for_function(TURN_JS, arg=None)
        page.keyboard.press("?")
        assert page.locator("#help").is_visible()
        page.screenshot(path=artifacts / "6-help.png")
        page.keyboard.press("Escape")
        dialogs: list[str] = []

        def confirm(dialog: Any) -> None:
            dialogs.append(dialog.message)
            dialog.accept()

        page.on("dialog", confirm)
        page.keyboard.press("q")
        final = page.locator("#final")
        final.wait_for(state="visible")
        assert dialogs and dialogs[0].startswith("Leave the game?")
        assert dialogs[0] == "Leave the game? You resign: heuristic-bot wins the game."
        assert (
            page.locator("#final-headline").inner_text()
            == "heuristic-bot won: you resigned in hand 1"
        )
        # leaving is resigning: the transcript verifies as a complete game, never a red ✘
        verdict = page.locator("#final-verdict-line")
        assert verdict.get_attribute("data-status") == "complete"
        assert "verified: the transcript replays as a fair, complete game" in final.inner_text()
        assert "resigned in hand 1" in final.inner_text()
        assert "✘" not in final.inner_text()
        assert page.title() == "Le Truc — truc-p2p"  # no longer "(your turn)"
        page.screenshot(path=artifacts / "7-left-the-game.png")
    finally:
        game.stop()
    assert game.outcome is not None and game.outcome.end is End.RESIGNED
    assert game.outcome.complete and game.outcome.resigned_by is not None


def test_truc_p2p_play_web(browser: Any, tmp_path: Path) -> None:
    """The real command: ``truc-p2p play --web --no-browser`` prints the URL, the
    page plays the game to the end, and the command exits 0."""
    with play_web(tmp_path, "--target", "2", "--seed", "3") as (proc, url):
        page = new_page(browser)
        page.goto(url)
        # no --bot: the page asks for the level first, the default one chosen
        page.locator("#start").wait_for(state="visible")
        assert page.locator("#start-levels input:checked").get_attribute("value") == "medium"
        page.keyboard.press("Enter")
        play_to_the_end(page)
        assert page.evaluate("window.truc.state.started.opp") == "medium-bot"
        page.locator("#final").wait_for(state="visible")
        assert "verified" in page.locator("#final").inner_text()
        page.locator("#final-again").wait_for(state="visible")  # the rematch is offered
        page.keyboard.press("q")  # no rematch: the command ends
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "result co-signed by both players" in " ".join(out.split())


def test_play_again_in_the_browser(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    """``play --web``: the end screen's "play again" starts a second game at once, the
    other player deals first, it is played by clicking to its end, and both games'
    transcripts verify."""
    with play_web(tmp_path, "--target", "2", "--seed", "3", "--bot", "medium") as (proc, url):
        page = new_page(browser)
        page.goto(url)
        play_to_the_end(page)  # --bot: no start panel
        first = page.evaluate("window.truc.final")
        page.locator("#final-again").wait_for(state="visible")
        page.screenshot(path=artifacts / "8-play-again.png", full_page=True)
        page.click("#final-again")
        page.wait_for_function(
            "() => !window.truc.final && window.truc.state && window.truc.state.started"
        )
        started = page.evaluate("window.truc.state.started")
        assert page.locator("#final").is_hidden()
        play_to_the_end(page)
        page.locator("#final").wait_for(state="visible")
        second = page.evaluate("window.truc.final")
        assert second["transcript"] != first["transcript"]
        assert "verified" in page.locator("#final").inner_text()
        page.click("#final-stop")  # no third game
        out, err = proc.communicate(timeout=60)
        assert page.errors == []
    assert proc.returncode == 0, err
    assert out.count("result co-signed by both players") == 2
    assert started["game_id"] not in first["transcript"]
    dealers = []
    for final in (first, second):
        done = subprocess.run(
            [sys.executable, "-m", "truc_p2p.cli", "verify", "--json", final["transcript"]],
            capture_output=True,
            text=True,
            timeout=LIMIT,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        dealers.append(json.loads(done.stdout.splitlines()[-1])["first_dealer"])
    assert sorted(dealers) == [0, 1]  # the first dealer alternates


HOST_ARGS = ["--identity", "host.key", "--target", "2", "--timeout", "30", "--name", "carol"]
JOIN_ARGS = ["--identity", "join.key", "--target", "2", "--quiet"]


def test_truc_p2p_host_web_against_a_joining_bot(browser: Any, tmp_path: Path) -> None:
    """``host --web``: the page waits for the opponent, then the game is played in it."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg"), "PYTHONUNBUFFERED": "1"}
    cli = [sys.executable, "-m", "truc_p2p.cli"]
    host = subprocess.Popen(
        [
            *cli,
            "host",
            "--web",
            "--no-browser",
            "--port",
            "0",
            "--bind",
            "127.0.0.1",
            "--identity",
            "host.key",
            "--target",
            "2",
            "--timeout",
            "30",
            "--name",
            "carol",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    joiner: subprocess.Popen[str] | None = None
    watchdog = threading.Timer(LIMIT, host.kill)
    watchdog.start()
    try:
        assert host.stdout is not None
        url = invite = ""
        for _ in range(20):
            line = host.stdout.readline()
            found = re.search(r"web table: (http://\S+)", line)
            url = found.group(1) if found else url
            if line.startswith("truc://"):
                invite = line.strip()
                break
        assert url and invite
        context = browser.new_context(
            viewport={"width": 800, "height": 900},
            permissions=["clipboard-read", "clipboard-write"],
        )
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(url)
        # the invite is on the page, with a copy button and the --relay hint
        page.locator("#invite").wait_for(state="visible")
        page.locator("#status").filter(has_text="waiting for your opponent to join").wait_for()
        assert page.locator("#invite-text").inner_text() == invite
        assert page.locator("#invite img").count() == 0  # no QR code of a truc:// address
        assert "--relay" in page.locator("#invite-hint").inner_text()
        page.screenshot(path=ARTIFACTS / "8-host-invite.png")
        page.click("#invite-copy")
        page.locator("#invite-copy").filter(has_text="copied").wait_for()
        assert page.evaluate("navigator.clipboard.readText()") == invite
        joiner = subprocess.Popen(
            [
                *cli,
                "join",
                invite,
                "--bot",
                "random",
                "--seed",
                "2",
                "--identity",
                "join.key",
                "--target",
                "2",
                "--quiet",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=env,
        )
        page.locator("#invite").wait_for(state="hidden")  # the game started
        play_to_the_end(page)
        assert "verified" in page.locator("#final").inner_text()
        context.close()
        out, err = host.communicate(timeout=60)
        joiner.communicate(timeout=60)
    finally:
        watchdog.cancel()
        for proc in (host, joiner):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert host.returncode == 0, err
    assert joiner.returncode == 0
    assert "result co-signed by both players" in " ".join(out.split())


def test_leave_while_the_opponent_thinks(browser: Any, tmp_path: Path) -> None:
    """``q`` works when it is not our turn too: the real command leaves at once with a
    signed quit (exit 1, as a quit at one's turn; not 130, no signal came)."""
    args = ("--bot", "search", "--think", "60", "--target", "2", "--timeout", "120")
    with play_web(tmp_path, *args) as (proc, url):
        page = new_page(browser)
        page.goto(url)
        # The game has started (keys and coin exchanged); when the bot leads, our cards
        # come only with its first move, so it may be thinking already.
        page.wait_for_function(
            "window.truc && window.truc.state && window.truc.state.started"
            " && window.truc.state.table"
        )
        table = page.evaluate("window.truc.state.table")
        if table["turn"] is not None:  # we move first: one card, then the bot thinks
            card = next(c for c in table["hand"] if c["action"])
            page.wait_for_function("() => !window.truc.settling()")  # the input guard
            page.click(f"#my-hand .card[data-card='{card['card']}']")
            page.wait_for_function("window.truc.state.table.turn == null")
        dialogs: list[str] = []

        def confirm(dialog: Any) -> None:
            dialogs.append(dialog.message)
            dialog.accept()

        page.on("dialog", confirm)
        page.keyboard.press("q")
        page.locator("#final").wait_for(state="visible")
        assert dialogs and dialogs[0].startswith("Leave the game?")
        assert " won: you resigned in hand 1" in page.locator("#final-headline").inner_text()
        out, err = proc.communicate(timeout=60)  # well before the bot's 60 s of thought
    assert proc.returncode == 1, (out, err)  # resigning from the page: exit 1, no signal
    assert "you resigned in hand 1" in out + err


def test_a_match_in_the_browser(browser: Any, tmp_path: Path) -> None:
    """``play --web --match 3``: the games follow each other, the scoreboard shows the
    match score, and the last end screen says who won the match; the record verifies."""
    with play_web(tmp_path, "--target", "2", "--seed", "3", "--match", "3") as (proc, url):
        page = new_page(browser)
        page.goto(url)
        page.click("#start-go")  # the level, once for the whole match
        lines: list[str] = []
        # game 1 already says it is a match
        page.wait_for_function("() => window.truc.state && window.truc.state.started")
        assert page.locator("#match-line").inner_text() == "game 1 of 3"
        assert page.locator("#log li.game").first.inner_text() == "game 1 of 3"
        for number in range(1, 4):
            if number > 1:  # the log's heading closes game 1's lines off, the table says which
                # (the log keeps its last lines only: a long game pushes game 1's heading out)
                page.wait_for_function(
                    "(n) => window.truc.log.some((l) => l.who === 'game'"
                    " && l.text === `game ${n} of 3`)",
                    arg=number,
                )
                assert page.locator("#log li.game").first.inner_text() == f"game {number} of 3"
                assert page.locator("#match-line").inner_text().startswith(f"game {number} of 3")
            play_to_the_end(page)
            page.wait_for_function("() => window.truc.final && window.truc.final.match_line")
            line = page.evaluate("window.truc.final.match_line")
            lines.append(line)
            # the scoreboard's match line says the score after this game too
            page.wait_for_function(
                "(l) => document.getElementById('match-line').textContent.endsWith(' — ' + l)",
                arg=line,
            )
            if line.startswith("match over"):
                break
            again = page.locator("#final-again")
            try:
                again.wait_for(state="visible", timeout=10_000)
            except Exception:
                raise AssertionError(str(page.evaluate("window.truc.final"))) from None
            assert again.inner_text() == "next game"  # each game's end stays on screen
            assert page.locator("#final-level-box").is_hidden()  # the same bot all match
            again.click()
            page.wait_for_function(
                "() => !window.truc.final && window.truc.state && window.truc.state.started"
            )
            assert page.locator("#match-line").inner_text().endswith(line)
            # waiting for the next game, nothing of the last one stays on the table
            assert page.locator("#rest-banner").is_hidden()
        page.locator("#final-match").wait_for(state="visible")
        assert page.locator("#final-match").inner_text() == lines[-1]
        assert page.locator("#final-again").is_hidden()  # the match is over: no rematch
        _out, err = proc.communicate(timeout=60)
        assert page.errors == []
    assert proc.returncode == 0, err
    assert lines[0].startswith("match: you ") and lines[-1].startswith("match over: ")
    record = next((tmp_path / "games").glob("match-*.json"))
    done = subprocess.run(
        [sys.executable, "-m", "truc_p2p.cli", "verify", "--match", str(record)],
        capture_output=True,
        text=True,
        timeout=LIMIT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
