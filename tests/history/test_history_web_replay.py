"""``truc-p2p replay --web`` in a real headless Chromium: step, jump to a hand, go
back; only played cards are ever on the page.  Screenshots go to
``test-artifacts/web/replay-*.png``."""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from helpers.history import P0, P1, key, story_game
from helpers.web import new_page

from truc_p2p.history._record import read_game
from truc_p2p.protocol import encode_transcript
from truc_p2p.rules import Card

LIMIT = 60


def _serve(*args: str) -> tuple[subprocess.Popen[str], str, threading.Timer]:
    """Start ``truc-p2p ARGS --web --no-browser``; the process and its page's URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "truc_p2p.cli", *args, "--web", "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    timer = threading.Timer(LIMIT, proc.kill)
    timer.start()
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "?token=" in line, line
    return proc, line.rsplit(": ", 1)[1].strip(), timer


def _stop(proc: subprocess.Popen[str], timer: threading.Timer) -> int:
    proc.send_signal(signal.SIGINT)
    try:
        _out, err = proc.communicate(timeout=10)
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "Traceback" not in err, err
    return proc.returncode


def test_history_page_opens_each_game_s_replay(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    games = tmp_path / "games"
    first = story_game({P0: games, P1: tmp_path / "b"}, stamp="20261201-100000", tag="one")
    second = story_game({P0: games, P1: tmp_path / "b"}, stamp="20261202-100000", tag="two")
    stopped = games / "game-20261203-100000-stopped-alice.truc"  # a game that stopped
    stopped.write_bytes(encode_transcript(first.records[P0][:12]))
    proc, url, timer = _serve("games", str(games))
    try:
        assert "/games.html?token=" in url
        page = new_page(browser)
        page.goto(url)
        page.wait_for_function("document.body.dataset.ready === '1'")
        rows = page.locator("#rows tr")
        assert rows.count() == 3
        # the stopped game checks so far (amber), the others verify: none is "NO" (red)
        assert [rows.nth(i).get_attribute("class") for i in range(3)] == ["so-far", "ok", "ok"]
        assert rows.nth(0).locator("td").nth(5).inner_text() == "so far"
        rows = page.locator("#rows tr.ok")
        assert rows.nth(0).inner_text().startswith("2026-12-02 10:00")  # newest first
        assert "bob (" in rows.nth(0).inner_text()
        assert "against bob (" in page.locator("#records").inner_text()
        page.screenshot(path=artifacts / "history-1-list.png", full_page=True)
        rows.nth(1).locator("a.replay").click()  # the older game
        page.wait_for_function("document.body.dataset.step === '0'")
        assert "/replay.html" in page.url
        header = page.locator("#header").inner_text()
        assert read_game(first.paths[P0]).report.game_id in header
        assert read_game(second.paths[P0]).report.game_id not in header
        page.click("#hands button[data-hand='3']")
        assert page.locator("#hand-of").inner_text().startswith("hand 3 of 3")
        page.screenshot(path=artifacts / "history-2-replay-hand-3.png", full_page=True)
        page.click("#back")
        page.wait_for_function("document.body.dataset.ready === '1'")
        assert page.errors == []
    finally:
        status = _stop(proc, timer)
    assert status == 0


def test_replay_page(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    story = story_game({P0: tmp_path / "alice", P1: tmp_path / "bob"}, deck="v2")
    command = [sys.executable, "-m", "truc_p2p.cli", "replay", "--web", "--no-browser"]
    proc = subprocess.Popen(
        [*command, str(story.paths[P0])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    timer = threading.Timer(LIMIT, proc.kill)
    timer.start()
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "/replay.html?token=" in line, line
        url = line.split(": ", 1)[1].strip()
        page = new_page(browser)
        page.goto(url)
        page.wait_for_function("document.body.dataset.step === '0'")
        assert page.locator("#me-name").inner_text() == "alice"
        assert page.locator("#opp-name").inner_text() == "bob"
        assert "shuffle proven" in page.locator("#proof").inner_text()
        assert page.locator("#hands button").count() == 3
        assert page.locator("#opp-hand .card.back").count() == 3
        assert page.locator("#score-line").inner_text() == "you 0 – bob 0"  # as on the table
        faced: set[Card] = set()  # alice's own cards shown face up in her hand
        page.screenshot(path=artifacts / "replay-1-deal.png", full_page=True)
        seen: set[Card] = set()
        steps = 0
        while not page.locator("#next").is_disabled():
            page.click("#next")
            steps += 1
            page.wait_for_function(f"document.body.dataset.step === '{steps}'")
            for card in page.locator("#table .card").all():
                seen.add(Card.from_str(str(card.get_attribute("data-card"))))
            for card in page.locator("#me-hand .card:not(.back)").all():
                faced.add(Card.from_str(str(card.get_attribute("data-card"))))
            assert page.locator("#opp-hand .card:not(.back)").count() == 0  # never bob's
            if steps == 5:
                page.screenshot(path=artifacts / "replay-2-trick.png", full_page=True)
        text = page.locator("#lines").inner_text()
        assert "result co-signed by both players" in text
        assert seen == set().union(*story.played.values())  # only played cards, all of them
        # alice's own replay showed her own cards face up (those she played), no other
        mine = set().union(*(c for (_h, p), c in story.played.items() if p is P0))
        assert faced and faced <= mine
        page.click("#hands button[data-hand='2']")
        page.wait_for_function(f"document.body.dataset.step !== '{steps}'")
        assert "hand 2: " in page.locator("#lines").inner_text()
        page.screenshot(path=artifacts / "replay-3-hand-2.png", full_page=True)
        page.click("#prev-hand")
        assert page.locator("#hand-of").inner_text().startswith("hand 1 of 3")
        page.keyboard.press("ArrowRight")
        assert "redeal" in page.locator("#lines").inner_text()
        assert page.errors == []
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _out, err = proc.communicate(timeout=10)
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 0, err


def test_a_replay_shows_its_owner_the_cards_it_played_and_nobody_else_any(
    tmp_path: Path,
) -> None:
    """Each step of the owner's replay holds, face up, the owner's cards it plays later
    in that deal (so they are in its hand); a spectator's replay holds none."""
    from truc_p2p.cli._replay import render_step
    from truc_p2p.history._replay_steps import build_replay

    story = story_game({P0: tmp_path / "alice", P1: tmp_path / "bob"}, deck="v2")
    record = read_game(story.paths[P0])
    replay = build_replay(record)
    assert replay.voice.me is P0
    faced = 0
    for i, step in enumerate(replay.steps):
        assert set(step.mine) <= story.played.get((step.hand, P0), set()), step
        assert len(step.mine) <= step.held["me"]
        faced += len(step.mine)
        if step.mine:
            text = "\n".join(render_step(replay, i))
            assert "your hand: " + replay.voice.card(step.mine[0]) in text
    assert faced > 0
    spectator = build_replay(dataclasses.replace(record, owner=None))
    assert all(step.mine == () for step in spectator.steps)


def test_your_own_replay_page_shows_the_cards_you_folded(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    """Issue 32: with alice's key and meta beside her transcript (and her secret), the
    page shows her whole hand from the deal on: in hand 2, which bob's fold ended
    before she played, her three cards face up; bob's hand only ever as backs."""
    story = story_game({P0: tmp_path / "alice", P1: tmp_path / "bob"}, deck="v2")
    path = story.paths[P0]
    key_file = tmp_path / "alice.key"
    key_file.write_bytes(key("alice").to_bytes())
    meta = {"format": 1, "role": "join", "name": "alice", "identity": str(key_file)}
    path.with_name(path.name + ".meta.json").write_text(json.dumps(meta))
    assert story.played.get((1, P0), set()) == set()  # hand 2: alice never played
    proc, url, timer = _serve("replay", str(path))
    try:
        page = new_page(browser)
        page.goto(url)
        page.wait_for_function("document.body.dataset.step === '0'")
        first = {
            Card.from_str(str(c.get_attribute("data-card")))
            for c in page.locator("#me-hand .card:not(.back)").all()
        }
        assert len(first) == 3 and first <= story.dealt[(0, P0)]  # the deal, face up
        assert page.locator("#opp-hand .card.back").count() == 3
        page.click("#hands button[data-hand='2']")
        page.wait_for_function("document.body.dataset.step !== '0'")
        # the deal as live play tells it, her cards known: "hand 2, you deal: you get …"
        assert "hand 2, " in page.locator("#lines").inner_text()
        faced = {
            Card.from_str(str(c.get_attribute("data-card")))
            for c in page.locator("#me-hand .card:not(.back)").all()
        }
        assert faced == story.dealt[(1, P0)]  # the folded hand, face up
        assert page.locator("#me-hand .card.back").count() == 0
        assert page.locator("#opp-hand .card:not(.back)").count() == 0
        assert page.locator("#opp-hand .card.back").count() == 3
        page.screenshot(path=artifacts / "replay-4-own-folded-hand.png", full_page=True)
        assert page.errors == []
    finally:
        status = _stop(proc, timer)
    assert status == 0
