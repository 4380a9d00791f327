"""Play again and matches against the bot (``truc-p2p play``, the terminal through a pipe),
and ``truc-p2p verify --match`` on the match records they write."""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from itertools import pairwise
from pathlib import Path

import pytest
from helpers.cli import LIMIT, command, env, run, spawn

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow

#: Keys that get through any game ("a" accepts a raise, "f" folds, e.g. on a redeal asked); none
#: of them answers "play again?": the answer lines are put between games.
GAME = "\n".join(["1", "a", "2", "f"] * 100) + "\n"


def _verified(tmp_path: Path, transcript: Path) -> dict[str, object]:
    done = run(tmp_path, "verify", "--json", transcript)
    assert done.returncode == 0, done.stdout + done.stderr
    report: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return report


def test_play_again_in_the_terminal(tmp_path: Path) -> None:
    """``y`` after a game starts another at once, the other player deals first, and
    ``n`` ends the command; both games verify."""
    done = run(
        tmp_path,
        "play",
        "--seed",
        "5",
        "--ascii",
        "--out",
        "games",
        stdin=GAME + "y\n" + GAME + "n\n",
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    out = done.stdout
    assert out.count("play again? Type y or press Enter to play again, n or q to stop.") == 2
    # each game's end: its headline, then its points with the co-signature (once each)
    ends = [line for line in out.splitlines() if line.endswith("result co-signed by both players")]
    assert len(ends) == 2 and all(line.startswith("points") for line in ends), ends
    assert len(re.findall(r"^(You|[\w-]+) won: ", out, re.MULTILINE)) == 2
    transcripts = sorted((tmp_path / "games").glob("*.truc"))
    assert len(transcripts) == 2
    reports = [_verified(tmp_path, t) for t in transcripts]
    assert {r["first_dealer"] for r in reports} == {0, 1}
    assert reports[0]["game_id"] != reports[1]["game_id"]
    firsts = [line for line in out.splitlines() if line.startswith("playing against")]
    assert len(firsts) == 2 and ("you deal first" in firsts[0]) != ("you deal first" in firsts[1])


def test_end_of_input_after_a_game_plays_no_other(tmp_path: Path) -> None:
    done = run(tmp_path, "play", "--seed", "5", "--ascii", "--out", "games", stdin=GAME)
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "games").glob("*.truc"))) == 1


def _match(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    done = run(
        tmp_path,
        "play",
        "--bot",
        "heuristic",  # quick to answer even on a loaded machine
        "--seed",
        "7",
        "--ascii",
        "--match",
        "3",
        "--target",
        "2",
        "--out",
        "games",
        stdin=GAME * 8,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert "resigned" not in done.stdout
    assert "match: you " in done.stdout and "match over: " in done.stdout
    assert "play again?" not in done.stdout  # the match goes on by itself
    record_path = next((tmp_path / "games").glob("match-*.json"))
    record: dict[str, object] = json.loads(record_path.read_text())
    return record_path, record


def test_a_match_against_the_bot_and_its_record(tmp_path: Path) -> None:
    path, record = _match(tmp_path)
    played = record["played"]
    assert isinstance(played, list) and 2 <= len(played) <= 3
    wins = record["wins"]
    assert isinstance(wins, list) and max(wins) == 2 and record["winner"] == wins.index(2)
    assert record["match_id"] == played[0]["game_id"]
    dealers = [_verified(tmp_path, path.parent / g["transcript"])["first_dealer"] for g in played]
    assert all(a != b for a, b in pairwise(dealers))
    checked = run(tmp_path, "verify", "--match", path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "match of 3 games won by" in checked.stdout


def test_forged_match_records_are_rejected(tmp_path: Path) -> None:
    path, record = _match(tmp_path)
    played = list(record["played"])  # type: ignore[call-overload]
    (tmp_path / "other").mkdir()
    other_path, other = _match(tmp_path / "other")
    stranger = dict(other["played"][0])  # type: ignore[index]
    (path.parent / stranger["transcript"]).write_bytes(
        (other_path.parent / stranger["transcript"]).read_bytes()
    )
    forgeries = {
        "a game of someone else": [stranger, *played[1:]],
        "a game twice": [played[0], played[0], *played[1:]],
        "games out of order": [played[1], played[0], *played[2:]],
        "a game left out": played[:1] + played[2:] if len(played) == 3 else played[1:],
    }
    for what, games in forgeries.items():
        forged = path.with_name("forged.json")
        forged.write_text(json.dumps({**record, "played": games}))
        checked = run(tmp_path, "verify", "--match", forged)
        assert checked.returncode == 1, (what, checked.stdout, checked.stderr)
        assert "match record rejected" in checked.stdout, what
    forged.write_text(json.dumps({**record, "winner": 1 - int(record["winner"])}))  # type: ignore[call-overload]
    assert run(tmp_path, "verify", "--match", forged).returncode == 1


def test_a_match_against_the_bot_resumed_after_kill_9(tmp_path: Path) -> None:
    """``play --match 3`` killed with SIGKILL in game 2: ``resume`` finishes game 2 with
    the same keys, the match goes on if nobody has 2 wins, and the record verifies."""
    proc = subprocess.Popen(
        command("play", "--match", "3", "--target", "6", "--ascii", "--out", "games"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
        env=env(tmp_path),
        cwd=tmp_path,
    )
    watchdog = threading.Timer(LIMIT * 2, proc.kill)
    watchdog.start()
    shown: list[str] = []
    try:
        assert proc.stdin is not None and proc.stdout is not None
        threading.Thread(target=lambda: shown.extend(proc.stdout or []), daemon=True).start()
        keys = ["1", "a", "2", "n"] * 1000  # no "play again?" inside a match
        seen = -1
        while "".join(shown).count("playing against") < 2:  # one key whenever it waits
            if len(shown) != seen:
                seen = len(shown)
                time.sleep(0.25)
                continue
            proc.stdin.write(keys.pop() + "\n")
            proc.stdin.flush()
            time.sleep(0.05)
        while seen != len(shown):  # it waits for a key in game 2
            seen = len(shown)
            time.sleep(1.0)
        assert "result co-signed" not in "".join(shown).split("playing against")[2]
        proc.kill()  # kill -9
        proc.wait()
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()
    second = max((tmp_path / "games").glob("*.truc"), key=lambda p: p.stat().st_mtime)
    resumed = run(tmp_path, "resume", second, "--ascii", stdin=GAME * 4)
    assert "goes on" in resumed.stdout and "match over: " in resumed.stdout, resumed.stdout
    record_path = next((tmp_path / "games").glob("match-*.json"))
    record = json.loads(record_path.read_text())
    assert len(record["played"]) in (2, 3) and record["winner"] is not None
    assert ("the match goes on" in resumed.stdout) == (len(record["played"]) == 3)
    checked = run(tmp_path, "verify", "--match", record_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_no_play_again_after_the_opponent_resigned_and_left(tmp_path: Path) -> None:
    """Issue 32: the host was asked "play again?" by a joiner that had resigned and gone."""
    proc = spawn(
        tmp_path, "host", "--port", "0", "--bind", "127.0.0.1", "--name", "hana", "--ascii",
        stdin=subprocess.PIPE,
    )  # fmt: skip
    timer = threading.Timer(LIMIT, proc.kill)
    timer.start()
    try:
        assert proc.stdout is not None and proc.stdin is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("truc://"):
                break
        invite = lines[-1].strip()
        # the host's keys play on (it may lead the first trick, so they are there before
        # the joiner comes); a "y" among them would answer a "play again?"
        proc.stdin.write(GAME + "y\n" + GAME)
        proc.stdin.flush()
        # the joiner resigns at its first turn ("q" through a pipe leaves at once)
        joined = run(
            tmp_path, "join", invite, "--name", "jo", "--identity", "jo.key", "--ascii", stdin="q\n"
        )
        assert "you resigned" in joined.stdout, joined.stdout[-1500:] + joined.stderr
        out, err = proc.communicate(timeout=LIMIT)
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
    shown = "".join(lines) + out
    assert "jo resigned in hand" in shown, shown[-1500:] + err
    assert "play again?" not in shown
    assert proc.returncode == 0, err
