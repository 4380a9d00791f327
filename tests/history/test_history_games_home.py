"""``games``: one history per person (issue 32).  Transcripts go to the person's data
folder wherever the commands run, the program's own match record sits beside its
games without breaking the listing (it groups them), a resignation says so, the
games against one level of ``play`` make one record, and a connection that never
reached the deal is not a game."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers.cli import LIMIT, command, run
from helpers.history import P0, P1, match_games, story_game

from truc_p2p.protocol import encode_transcript, verify_transcript


@pytest.fixture
def own_history(monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-person default, as a player has it (the suite otherwise pins ``games/``)."""
    monkeypatch.delenv("TRUC_P2P_GAMES")


def _in(where: Path, home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``truc-p2p ARGS`` run from folder ``where`` by the person whose data folder is ``home``."""
    where.mkdir(exist_ok=True)
    return subprocess.run(
        command(*args),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=LIMIT,
        env={**os.environ, "XDG_DATA_HOME": str(home)},
        cwd=where,
        encoding="utf-8",
    )


def _resign(where: Path, home: Path, *args: str) -> None:
    """Play one game against a level and resign at once (``q``, then ``y``)."""
    done = _in(where, home, "play", "--seed", "1", *args, stdin="q\ny\n")
    assert done.returncode == 1, done.stderr  # a lost game
    assert "resigned" in done.stdout


def test_games_from_two_folders_land_in_one_history(tmp_path: Path, own_history: None) -> None:
    xdg = tmp_path / "xdg"
    _resign(tmp_path / "here", xdg)
    _resign(tmp_path / "there", xdg)
    _resign(tmp_path / "there", xdg, "--bot", "easy")
    home = xdg / "truc-p2p" / "games"
    assert not (tmp_path / "here" / "games").exists()
    assert not (tmp_path / "there" / "games").exists()
    listed = _in(tmp_path / "elsewhere", xdg, "games", "--json")
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert data["folder"] == str(home) and len(data["games"]) == 3
    assert {g["resigned_by"] for g in data["games"]} == {0}
    # one record per level, not one per game (the bot's key is new each game)
    records = {r["opponent"]["level"]: (r["won"], r["lost"]) for r in data["records"]}
    assert records == {"medium": (0, 2), "easy": (0, 1)}
    text = _in(tmp_path / "here", xdg, "games")
    assert text.returncode == 0, text.stderr
    assert "you resigned at 0–0" in text.stdout and "you lost 0–0" not in text.stdout
    assert "  against medium-bot: won 0 games, lost 2 games" in text.stdout
    assert text.stdout.count("against medium-bot") == 1


def test_the_old_games_folder_here_is_listed_with_a_notice(
    tmp_path: Path, own_history: None
) -> None:
    xdg = tmp_path / "xdg"
    # an old game of this person's there, and one between two others (issue 43: the
    # demo's bots wrote there too): only the person's own is listed
    _resign(tmp_path, xdg, "--out", "games")
    story_game({P0: tmp_path / "games", P1: tmp_path / "bob"}, tag="old")
    done = _in(tmp_path, xdg, "games", "--json")
    assert done.returncode == 0, done.stderr
    (game,) = json.loads(done.stdout)["games"]
    assert Path(game["file"]).parent.name == "games" and "-play-" in game["file"]
    assert "where earlier versions wrote" in done.stderr
    # once the new folder has games, the old one is listed with them
    _resign(tmp_path, xdg)
    done = _in(tmp_path, xdg, "games", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert len(data["games"]) == 2 and data["also"] == ["games"]
    assert "also listing games in this folder" in done.stderr
    # an explicit DIR lists that folder whole, without a notice
    only = _in(tmp_path, xdg, "games", "--json", "games")
    assert len(json.loads(only.stdout)["games"]) == 2 and only.stderr == ""


def test_games_beside_a_match_record_groups_the_match(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    record = match_games(folder)
    story_game({P0: folder, P1: tmp_path / "other"}, stamp="20261130-100000", tag="alone")
    done = run(tmp_path, "games", "--json")
    assert done.returncode == 0, done.stderr  # the record is not a transcript that fails
    assert done.stderr == ""
    data = json.loads(done.stdout)
    saved = json.loads(record.read_text())
    (match,) = data["matches"]
    assert match["match_id"] == saved["match_id"] and match["wins"] == saved["wins"]
    names = [Path(t).name for t in match["transcripts"]]
    assert names == [g["transcript"] for g in saved["played"]]
    assert [g["match"] for g in data["games"]] == [saved["match_id"]] * len(names) + [None]
    text = run(tmp_path, "games")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    (head,) = [n for n, line in enumerate(lines) if line.startswith("match of 3 games against ann")]
    mine = saved["wins"][0]
    word = "won" if saved["winner"] == 0 else "lost"
    assert lines[head].endswith(f": you {word} {mine}–{saved['wins'][1]}")
    # its games follow it, indented, in the order played
    grouped = lines[head + 1 : head + 1 + len(names)]
    assert all(line.startswith("  2026-12-0") for line in grouped), grouped
    assert [line[2:12] for line in grouped] == [f"2026-12-0{n}" for n in range(1, len(names) + 1)]


def test_a_broken_match_record_is_named_and_the_games_still_listed(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    record = match_games(folder)
    record.write_text("{not json")
    done = run(tmp_path, "games", "--json")
    assert done.returncode == 1
    assert len(json.loads(done.stdout)["games"]) >= 2
    assert record.name in done.stderr and "not a match record" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_connection_that_never_reached_the_deal_is_not_a_game(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    story = story_game({P0: folder, P1: tmp_path / "bob"}, tag="real")
    failed = folder / "game-20261202-100000-failed-alice.truc"
    failed.write_bytes(encode_transcript(story.records[P0][:1]))  # a hello, then nothing
    assert verify_transcript(story.records[P0][:1]).score is None
    done = run(tmp_path, "games", "--json")
    data = json.loads(done.stdout)
    assert [Path(g["file"]).name for g in data["games"]] == [story.paths[P0].name]
    assert data["not_started"] == [str(Path("games") / failed.name)]
    text = run(tmp_path, "games")
    assert "failed" not in text.stdout.split("\n\n")[0]
    assert "1 connection that never reached the deal is not listed" in text.stdout
    assert text.returncode == 0, text.stderr


def test_play_names_the_bot_in_the_player_s_language(tmp_path: Path) -> None:
    done = run(tmp_path, "play", "--seed", "1", "--lang", "fr", stdin="q\no\n")
    assert "medium-bot" not in done.stdout, done.stdout[-400:]
    assert os.environ.get("TRUC_P2P_GAMES") == "games"
    (meta,) = (tmp_path / "games").glob("*.meta.json")
    assert json.loads(meta.read_text())["bot_name"] == "bot-moyen"
