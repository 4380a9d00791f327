"""The terminal follows ``$COLUMNS`` when its output is piped (issue 43: 43 lines ran
past 60 columns), and the ``?`` help is wrapped once, not cut again at the screen's
edge after being cut at 80."""

from __future__ import annotations

import itertools
import os
import subprocess
from pathlib import Path

import pytest
from helpers.cli import LIMIT, command, env

WIDTH = 60
#: Enough answers for any game: play the first card, accept, decline a redeal.
KEYS = ["1", "a", "n"] * 400


def _play(tmp_path: Path, keys: list[str]) -> list[str]:
    done = subprocess.run(
        command("play", "--seed", "5", "--name", "Alice", "--out", "games"),
        input="\n".join(keys) + "\n",
        capture_output=True,
        text=True,
        timeout=LIMIT,
        env={**env(tmp_path), "COLUMNS": str(WIDTH)},
        cwd=tmp_path,
        encoding="utf-8",
    )
    assert done.returncode in (0, 1), done.stderr
    return (done.stdout + done.stderr).splitlines()


@pytest.mark.slow
def test_a_piped_game_follows_columns_and_the_help_wraps_once(tmp_path: Path) -> None:
    lines = _play(tmp_path, ["?", *KEYS])
    assert any("transcript" in line for line in lines)  # the whole game, to its end
    # no line runs past 60 columns but a path to copy (kept whole on its line)
    paths = ("transcript: ", "verify it with: ")
    long = [x for x in lines if len(x) > WIDTH and not x.startswith(paths)]
    assert not long, long
    # the help: each bullet's lines are full (the next word would not have fitted)
    start = next(i for i, line in enumerate(lines) if "Le Truc for two" in line)
    end = next(i for i in range(start, len(lines)) if "q leave (resign)." in lines[i])
    block = lines[start + 1 : end + 1]
    for line, following in itertools.pairwise(block):
        if following.startswith("    ") or not following.startswith(("  *", "Keys")):
            first_word = following.split()[0]
            assert len(line) + 1 + len(first_word) > WIDTH, (line, following)
    assert any(line.startswith("    tricks (or the first trick won") for line in block), block


def test_columns_counts_for_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    from truc_p2p.ui import fit_for, screen_width

    read, write = os.pipe()
    with os.fdopen(write, "w") as stream:
        os.close(read)
        assert screen_width(stream) == 80
        assert fit_for("word " * 30, stream) == "word " * 30  # a log keeps its lines
        monkeypatch.setenv("COLUMNS", "60")
        assert screen_width(stream) == 60
        assert max(map(len, fit_for("word " * 30, stream).split("\n"))) <= 60


@pytest.mark.slow
def test_the_host_s_lines_follow_columns_and_the_invite_stays_whole(tmp_path: Path) -> None:
    import signal

    proc = subprocess.Popen(
        command("host", "--name", "Alice", "--bind", "127.0.0.1", "--port", "0", "--out", "g"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**env(tmp_path), "COLUMNS": str(WIDTH)},
        cwd=tmp_path,
        encoding="utf-8",
    )
    assert proc.stdout is not None
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("waiting for an opponent"):
                break
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=LIMIT)
    invite = [line for line in lines if line.startswith("truc://")]
    assert len(invite) == 1  # whole, to be copied
    long = [x for x in lines if len(x) > WIDTH and len(x.split()) > 1]
    assert not long, long
