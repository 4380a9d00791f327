"""``truc-p2p review`` on the web replay page (issue 42): under the replay of one of
your games, each of your decisions against the solved round and its expected cost,
the three biggest first, in your language; the same figures as ``review --json``
(one review, made by the command's :func:`truc_p2p.cli._review.review_json`, never
recomputed by the page).  Screenshots: ``test-artifacts/web/review-*.png``."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers.history import P0, P1, key, story_game
from helpers.web import OVERFLOWING_JS, new_page

from truc_p2p.identity import write_private_file

LIMIT = 60


def _own_game(tmp_path: Path) -> Path:
    """The story game as its owner keeps it: transcript, secret, key and meta beside."""
    story = story_game({P0: tmp_path / "games", P1: tmp_path / "bob"})
    path = story.paths[P0]
    write_private_file(tmp_path / "alice.key", key("alice").to_bytes())
    Path(f"{path}.meta.json").write_text(json.dumps({"identity": str(tmp_path / "alice.key")}))
    return path


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "truc_p2p.cli", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=LIMIT,
    )


def _review(path: Path, lang: str = "en") -> dict[str, Any]:
    done = _cli("--lang", lang, "review", "--json", str(path))
    assert done.returncode == 0, done.stderr
    review: dict[str, Any] = json.loads(done.stdout)
    return review


def _serve(*args: str) -> tuple[subprocess.Popen[str], str, threading.Timer]:
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


def _stop(proc: subprocess.Popen[str], timer: threading.Timer) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        _out, err = proc.communicate(timeout=10)
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "Traceback" not in err, err


@pytest.mark.slow
def test_the_terminal_and_json_say_the_same_review(tmp_path: Path) -> None:
    path = _own_game(tmp_path)
    review = _review(path)
    assert review["judged"] == len(review["decisions"]) >= 3
    costs = [d["cost"] for d in review["top"]]
    assert len(costs) == 3 and costs == sorted(costs, reverse=True)
    assert costs[0] == max(d["cost"] for d in review["decisions"]) > 0
    assert review["lost"] == pytest.approx(sum(d["cost"] for d in review["decisions"]), abs=0.03)
    shown = _cli("review", "--all", str(path))
    assert shown.returncode == 0
    lines = shown.stdout.splitlines()
    assert lines[0] == review["summary"]
    assert lines[2:5] == [f"  {n}. {d['line']}" for n, d in enumerate(review["top"], 1)]
    assert lines[6:] == [f"  {d['line']}" for d in review["decisions"]]
    # not one of yours (no key beside it): one line, status 2, for --json too
    Path(f"{path}.meta.json").unlink()
    (tmp_path / "alice.key").unlink()
    refused = _cli("review", "--json", str(path))
    assert refused.returncode == 2 and refused.stdout == ""
    assert len(refused.stderr.strip().splitlines()) == 1


def _page_review(page: Any) -> dict[str, Any]:
    page.locator("#review").wait_for(state="visible")
    top = page.locator("#review-top li")
    return {
        "summary": page.locator("#review-summary").inner_text(),
        "title": page.locator("#review-title").inner_text(),
        "top": [top.nth(i).inner_text() for i in range(top.count())],
        "costs": [float(top.nth(i).get_attribute("data-cost")) for i in range(top.count())],
        "all": page.locator("#review-all li").count(),
    }


@pytest.mark.slow
@pytest.mark.parametrize(("width", "lang"), [(390, "fr"), (1000, "en")])
def test_the_replay_page_shows_the_review(
    browser: Any, tmp_path: Path, artifacts: Path, width: int, lang: str
) -> None:
    path = _own_game(tmp_path)
    review = _review(path, lang)
    proc, url, timer = _serve("replay", str(path))
    try:
        page = new_page(browser, width=width, height=844)
        page.set_extra_http_headers({"Accept-Language": lang})
        page.goto(url)
        page.wait_for_function("document.body.dataset.step === '0'")
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        shown = _page_review(page)
        assert shown["summary"] == review["summary"]
        assert shown["title"] == review["title"]
        assert shown["top"] == [d["line"] for d in review["top"]]
        assert shown["costs"] == [d["cost"] for d in review["top"]]
        assert shown["all"] == len(review["decisions"])
        page.locator("#review").screenshot(path=artifacts / f"review-{lang}-{width}px.png")
        assert page.evaluate(OVERFLOWING_JS) == []
        # the biggest cost goes to its move in the replay
        biggest = review["top"][0]
        page.locator("#review-top li button").first.click()
        page.wait_for_function("document.body.dataset.step !== '0'")
        hand_of = page.locator("#hand-of").inner_text()
        assert str(biggest["hand"]) in hand_of
        assert page.errors == []
    finally:
        _stop(proc, timer)


@pytest.mark.slow
def test_the_history_page_s_replay_shows_the_review(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    path = _own_game(tmp_path)
    review = _review(path)
    proc, url, timer = _serve("games", str(path.parent))
    try:
        page = new_page(browser)
        page.goto(url)
        page.wait_for_function("document.body.dataset.ready === '1'")
        page.locator("#rows a.replay").first.click()
        page.wait_for_function("document.body.dataset.step === '0'")
        shown = _page_review(page)
        assert shown["top"] == [d["line"] for d in review["top"]]
        assert shown["costs"] == [d["cost"] for d in review["top"]]
        page.screenshot(path=artifacts / "review-history-replay.png", full_page=True)
        assert page.errors == []
    finally:
        _stop(proc, timer)
