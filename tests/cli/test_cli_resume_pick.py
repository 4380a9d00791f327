"""``truc-p2p resume`` with no FILE finds the stopped game, as a person expects after
a crash: the one unfinished game is resumed at once and named; of several, a
person at the terminal picks one by number (Enter: the newest) and anyone else
gets the list and the command that names one; a game going on in another window
is not one to resume; with none, one line says so."""

from __future__ import annotations

import fcntl
import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers.cli import command, env, finished_play, run

from truc_p2p.cli._resume_pick import pick_unfinished, unfinished_games
from truc_p2p.protocol import TRANSCRIPT_MAGIC, frame
from truc_p2p.transcript import being_written, scan_transcript_file


@pytest.fixture(scope="module")
def over(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished ``play`` game (the player left at once: a resignation)."""
    return finished_play(tmp_path_factory.mktemp("over"))


def _stopped(over: Path, folder: Path, name: str, when: float) -> Path:
    """A copy of ``over`` cut to its first messages (a game whose process died),
    with its settings beside it, last written at ``when``."""
    path = folder / name
    (folder / ".bot").mkdir(parents=True, exist_ok=True)
    for suffix in (".meta.json", ".secret"):
        shutil.copy(f"{over}{suffix}", f"{path}{suffix}")
    bot, copy = over.parent / ".bot" / over.name, folder / ".bot" / name  # the bot's side
    for suffix in (".key", ".opponent.key", ".opponent.secret"):
        shutil.copy(f"{bot}{suffix}", f"{copy}{suffix}")
    _cut(over, path)
    _cut(Path(f"{bot}.opponent"), Path(f"{copy}.opponent"))
    os.utime(path, (when, when))
    return path


def _cut(source: Path, to: Path, keep: int = 4) -> None:
    envelopes = scan_transcript_file(source).envelopes[:keep]
    to.write_bytes(TRANSCRIPT_MAGIC + b"".join(frame(e) for e in envelopes))


@pytest.fixture
def games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    monkeypatch.setenv("TRUC_P2P_GAMES", str(folder))
    monkeypatch.chdir(tmp_path)
    return folder


def test_only_the_stopped_games_newest_first(over: Path, games: Path) -> None:
    shutil.copy(over, games / over.name)  # finished: not one to resume
    shutil.copy(f"{over}.meta.json", games / f"{over.name}.meta.json")
    old = _stopped(over, games, "game-20261201-100000-aaaaaa-play-ana.truc", 1_000_000)
    new = _stopped(over, games, "game-20261202-100000-bbbbbb-play-ana.truc", 2_000_000)
    (games / "no-settings.truc").write_bytes(old.read_bytes())  # nothing to rebuild it
    found = unfinished_games([games])
    assert [g.path for g in found] == [new, old]
    assert {g.role for g in found} == {"play"}
    assert all(g.opponent for g in found), found
    assert "against" in found[0].line() and str(new) in found[0].line()


def test_one_stopped_game_is_resumed_and_named(
    over: Path, games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _stopped(over, games, "game-20261202-100000-bbbbbb-play-ana.truc", 2_000_000)
    assert pick_unfinished(ask=False) == path
    out = capsys.readouterr().out
    assert out.startswith("resuming your game against ") and str(path) in out


def test_none_is_one_line(games: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert pick_unfinished(ask=False) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"truc-p2p resume: no unfinished game in {games}; truc-p2p games lists your games"


def test_several_without_a_terminal_list_and_name_the_command(
    over: Path, games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _stopped(over, games, "game-20261201-100000-aaaaaa-play-ana.truc", 1_000_000)
    b = _stopped(over, games, "game-20261202-100000-bbbbbb-play-ana.truc", 2_000_000)
    assert pick_unfinished(ask=False) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "2 unfinished games:"
    assert err[1].startswith("  [1] ") and err[1].endswith(str(b))
    assert err[2].startswith("  [2] ") and err[2].endswith(str(a))
    assert err[3] == "truc-p2p resume: name the game to resume: truc-p2p resume FILE"


@pytest.mark.parametrize(
    ("typed", "chosen"),
    [("2\n", 1), ("\n", 0), ("9\nzero\n1\n", 0), ("", None)],
    ids=["a number", "Enter is the newest", "asked again", "end of input"],
)
def test_several_at_a_terminal_the_person_picks(
    over: Path,
    games: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    typed: str,
    chosen: int | None,
) -> None:
    paths = [
        _stopped(over, games, "game-20261202-100000-bbbbbb-play-ana.truc", 2_000_000),
        _stopped(over, games, "game-20261201-100000-aaaaaa-play-ana.truc", 1_000_000),
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    picked = pick_unfinished(ask=True)
    out = capsys.readouterr().out
    assert "resume which one? [1-2, Enter: 1]" in out
    if chosen is None:
        assert picked == 2
    else:
        assert picked == paths[chosen]
    if typed.startswith("9"):
        assert out.count("type a number from 1 to 2") == 2


def test_a_game_going_on_elsewhere_is_not_resumed(
    over: Path, games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _stopped(over, games, "game-20261202-100000-bbbbbb-play-ana.truc", 2_000_000)
    with open(path, "rb") as held:  # as a TranscriptWriter of another process holds it
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert being_written(path)
        assert pick_unfinished(ask=False) == 1
        err = capsys.readouterr().err
        assert "is going on in another window" in err and str(path) in err
    assert not being_written(path)
    assert pick_unfinished(ask=False) == path


def test_bare_resume_finishes_the_stopped_game(over: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    path = _stopped(over, folder, over.name, 2_000_000)
    keys = "\n".join(["1", "a", "n"] * 400) + "\n"
    done = run_in(tmp_path, folder, keys)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert f"resuming your game against random-bot: {path}" in done.stdout
    assert "result co-signed by both" in done.stdout


def run_in(tmp_path: Path, folder: Path, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command("resume"),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**env(tmp_path), "TRUC_P2P_GAMES": str(folder)},
        cwd=tmp_path,
    )


def _held(path: Path) -> int:
    """Hold ``path`` as a :class:`TranscriptWriter` of another process does."""
    fd = os.open(path, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


@pytest.mark.parametrize(
    "again",
    [["resume", "{path}"], ["play", "--bot", "random", "--name", "ana", "--out", "mine"]],
    ids=["resume FILE", "the same play again"],
)
def test_a_game_going_on_in_another_window_is_said_in_one_line(
    over: Path, tmp_path: Path, again: list[str]
) -> None:
    path = _stopped(over, tmp_path / "mine", over.name, 2_000_000)
    fd = _held(path)
    try:
        done = run(tmp_path, *[word.format(path=path) for word in again])
    finally:
        os.close(fd)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    shown = path if again[0] == "resume" else path.relative_to(tmp_path)  # as --out said
    assert lines == [
        f"truc-p2p {again[0]}: your game against random-bot is going on in another "
        f"window ({shown}); play it there"
    ], done.stderr
    assert "resuming" not in done.stdout
    assert scan_transcript_file(path).envelopes == scan_transcript_file(over).envelopes[:4]
