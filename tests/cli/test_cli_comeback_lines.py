"""Coming back to a game, the last gaps: each line of ``resume`` that cannot go on
names the command to run instead (one line, no traceback); an unfinished game in the
old ``./games`` folder is found when ``--out`` was not given; the host's question
before it resumes an older game."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers.cli import command, env, finished_play, run

from truc_p2p.cli._comeback import ask_resume, find_unfinished, games_folders
from truc_p2p.cli._game_args import GameOptions
from truc_p2p.protocol import TRANSCRIPT_MAGIC, frame
from truc_p2p.transcript import scan_transcript_file


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


@pytest.fixture(scope="module")
def over(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ``play`` game that is over (the player left at once: a resignation), kept in
    the old ``./games`` folder of its folder."""
    return finished_play(tmp_path_factory.mktemp("over"))


def _cut(path: Path, keep: int = 4) -> None:
    """Leave only the first ``keep`` messages of the transcript: a game that stopped."""
    envelopes = scan_transcript_file(path).envelopes[:keep]
    path.write_bytes(TRANSCRIPT_MAGIC + b"".join(frame(e) for e in envelopes))


def test_no_transcript_names_the_games_command(tmp_path: Path) -> None:
    done = run(tmp_path, "resume", "nosuch.truc")
    assert done.returncode == 2
    line = _one_line(done.stderr)
    assert line == "truc-p2p resume: no transcript at nosuch.truc; truc-p2p games lists your games"


def test_a_game_that_is_over_names_verify_and_games(over: Path) -> None:
    tmp = over.parent.parent
    relative = over.relative_to(tmp)
    done = run(tmp, "resume", str(relative))
    assert done.returncode == 1
    line = _one_line(done.stderr)
    assert f"nothing to resume: the game of {relative} is over" in line
    assert f"verify it with truc-p2p verify {relative}" in line
    assert "truc-p2p games" in line


def test_a_bare_name_is_found_in_the_old_games_folder(over: Path) -> None:
    tmp = over.parent.parent
    done = run(tmp, "resume", over.name)
    assert done.returncode == 1  # found (and over), not "no transcript"
    assert f"the game of games/{over.name} is over" in _one_line(done.stderr)


def _stopped_copy(over: Path, tmp_path: Path, **meta: object) -> Path:
    """A copy of ``over`` cut short (unfinished), its meta changed by ``meta``."""
    folder = tmp_path / "g"
    folder.mkdir()
    for source in over.parent.glob(over.name + "*"):
        (folder / source.name).write_bytes(source.read_bytes())
    for source in (over.parent / ".bot").glob(over.name + "*"):
        (folder / ".bot").mkdir(exist_ok=True)
        (folder / ".bot" / source.name).write_bytes(source.read_bytes())
    path = folder / over.name
    _cut(path)
    meta_file = path.with_name(path.name + ".meta.json")
    stored = json.loads(meta_file.read_text())
    meta_file.write_text(json.dumps({**stored, **meta}))
    return path


def test_a_one_off_key_says_how_to_start_a_new_game(over: Path, tmp_path: Path) -> None:
    path = _stopped_copy(over, tmp_path, role="join", identity=None)
    done = run(tmp_path, "resume", str(path.relative_to(tmp_path)))
    assert done.returncode == 2
    line = _one_line(done.stderr)
    assert "this game used a one-off key; it cannot be resumed" in line
    assert "(truc-p2p join)" in line and "--identity FILE" in line


def test_another_key_names_the_identity_option(over: Path, tmp_path: Path) -> None:
    path = _stopped_copy(over, tmp_path)
    other = tmp_path / "other.key"
    subprocess.run(command("identity", "--identity", other), check=True, capture_output=True,
                   env=env(tmp_path), cwd=tmp_path)  # fmt: skip
    relative = path.relative_to(tmp_path)
    done = run(tmp_path, "resume", str(relative), "--identity", str(other))
    assert done.returncode == 2
    line = _one_line(done.stderr)
    assert "its key or its secret file does not match the transcript" in line
    assert line.endswith(f"truc-p2p resume {relative} --identity FILE")


def test_the_old_games_folder_is_searched_only_without_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    new = tmp_path / "data" / "games"
    opts = GameOptions(command="play", out=str(new), argv=("play",))
    assert games_folders(opts) == [new]  # no ./games here
    (tmp_path / "games").mkdir()
    assert games_folders(opts) == [new, Path("games")]
    given = GameOptions(command="play", out=str(new), argv=("play", "--out", str(new)))
    assert games_folders(given) == [new]
    given = GameOptions(command="play", out="games", argv=("play", "--out=games"))
    assert games_folders(given) == [Path("games")]


def test_an_unfinished_game_is_found_in_either_folder(over: Path, tmp_path: Path) -> None:
    path = _stopped_copy(over, tmp_path)
    newer = tmp_path / "new"
    newer.mkdir()
    assert find_unfinished([newer], role="play", bot="random", name="ana") is None
    found = find_unfinished([newer, path.parent], role="play", bot="random", name="ana")
    assert found == path
    assert find_unfinished([newer, path.parent], role="play", bot="random", name="bo") is None


@pytest.mark.parametrize(
    ("typed", "resumes"),
    [("\n", True), ("y\n", True), ("Yes\n", True), ("n\n", False), ("", False),
     ("what?\nn\n", False), ("what?\n\n", True)],
)  # fmt: skip
def test_the_question_before_resuming(
    over: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    typed: str,
    resumes: bool,
) -> None:
    path = _stopped_copy(over, tmp_path, role="host")
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    assert ask_resume(path) is resumes
    shown = capsys.readouterr().out
    # the host is player 1: its opponent is player 0, the one who played as ana
    assert f"your game {path} against ana did not finish: resume it? [Y/n] " in shown
    later = f"starting a new game; to resume that one later: truc-p2p resume {path}"
    assert (later in shown) is not resumes
    assert shown.count("resume it?") == 1 + typed.count("what?")


def test_not_at_a_terminal_host_does_not_ask(over: Path, tmp_path: Path) -> None:
    path = _stopped_copy(over, tmp_path, role="host")
    os.utime(path, (1_000_000_000, 1_000_000_000))  # long ago: out of any grace
    key = tmp_path / "host.key"
    subprocess.run(command("identity", "--identity", key), check=True, capture_output=True,
                   env=env(tmp_path), cwd=tmp_path)  # fmt: skip
    meta_file = path.with_name(path.name + ".meta.json")
    stored = json.loads(meta_file.read_text())
    meta_file.write_text(json.dumps({**stored, "identity": str(key.resolve())}))
    proc = subprocess.Popen(
        command("host", "--identity", key, "--out", "g", "--port", "0", "--bind", "127.0.0.1",
                "--name", "hb", "--no-announce", "--no-portmap"),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env(tmp_path), cwd=tmp_path,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        for _i in range(20):
            if proc.stdout.readline().startswith("truc://"):
                break
    finally:
        proc.terminate()
        _out, err = proc.communicate(timeout=30)
    relative = path.relative_to(tmp_path)
    assert f"your game {relative} did not finish; to resume it while the opponent waits: " \
        f"truc-p2p resume {relative}" in err  # fmt: skip
    assert "[Y/n]" not in err
