"""``--json`` counters count the game, and ``--no-pipeline`` plays the classic deck v2 deal.

``messages`` and ``bytes`` of ``demo``, ``host``, ``join`` and ``play --json``
are the envelopes of the game in the side's transcript and their framed
bytes, whatever the connections did: ``verify --json`` on that transcript says
the same.  ``--no-pipeline`` makes a classic deck v2 game (wire.md section 6a:
no ``pipeline`` option, no ``hand`` field) whose transcripts verify.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import LIMIT, command, env, last_json, run, start_host

from truc_p2p.cli import main
from truc_p2p.protocol import decode_envelope
from truc_p2p.transcript import read_transcript

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow

#: Enough answers for any game: play the first card, accept, decline a redeal.
KEYS = ["1", "a", "n"] * 400


def _verify_json(tmp_path: Path, transcript: str | Path) -> dict[str, Any]:
    done = run(tmp_path, "verify", "--json", transcript)
    assert done.returncode == 0, done.stdout
    return last_json(done.stdout)


def _check_deal(transcript: str | Path, *, pipeline: bool) -> None:
    envs = [decode_envelope(raw) for raw in read_transcript(transcript)]
    options = dict(envs[0].payload["options"])
    options.pop("early", None)  # early cards (wire.md 6a) go with either deal
    assert options == ({"audit": "game", "deck": "v2", "pipeline": True} if pipeline else {
        "audit": "game", "deck": "v2"})  # fmt: skip
    deal = [e for e in envs if e.type.startswith("v2deck") or e.type == "v2open"]
    assert deal and all(("hand" in e.payload) == pipeline for e in deal)
    if not pipeline:
        assert all(e.type != "v2open" and "open" not in e.payload for e in envs)


@pytest.mark.parametrize("pipeline", [True, False], ids=["pipelined", "classic"])
@pytest.mark.parametrize("transport", ["tcp", "in-memory"])
def test_demo_counters_are_what_verify_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], transport: str, pipeline: bool
) -> None:
    args = ["demo", "--json", "--seed", "11", "--games", "2", "--out", str(tmp_path / "g")]
    args += ["--in-memory"] * (transport == "in-memory") + ["--no-pipeline"] * (not pipeline)
    assert main(args) == 0
    games = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(games) == 2
    for game in games:
        assert game["valid"] is True and game["pipeline"] is pipeline
        assert main(["verify", "--json", game["transcript"]]) == 0
        verified = json.loads(capsys.readouterr().out)
        assert verified["valid"] is True
        assert (game["messages"], game["bytes"]) == (verified["messages"], verified["bytes"])
        assert verified["messages"] == len(read_transcript(game["transcript"]))
        _check_deal(game["transcript"], pipeline=pipeline)


def test_host_and_join_play_a_classic_game_with_no_pipeline(tmp_path: Path) -> None:
    host = start_host(
        tmp_path, "--bot", "heuristic", "--seed", "3", "--json", "--no-pipeline",
        "--identity", "host.key", "--out", "h", "--timeout", "30", "--target", "4",
    )  # fmt: skip
    joined = run(
        tmp_path, "join", host.invite, "--bot", "random", "--seed", "4", "--json",
        "--no-pipeline", "--identity", "join.key", "--out", "j", "--timeout", "30",
        "--target", "4",
    )  # fmt: skip
    status, out, err = host.finish()
    assert joined.returncode == 0, joined.stderr
    assert status == 0, err
    for result in (last_json(joined.stdout), last_json(out)):
        assert result["valid"], result
        transcript = tmp_path / result["transcript"]
        verified = _verify_json(tmp_path, transcript)
        assert (result["messages"], result["bytes"]) == (verified["messages"], verified["bytes"])
        assert result["hands"] == verified["hands"]
        _check_deal(transcript, pipeline=False)


def test_a_pipelined_host_and_a_classic_joiner_are_incompatible(tmp_path: Path) -> None:
    host = start_host(
        tmp_path, "--bot", "heuristic", "--json", "--identity", "host.key", "--out", "h",
        "--timeout", "30",
    )  # fmt: skip
    # the invite says the host pipelines: the joiner is told before it connects
    told = run(
        tmp_path, "join", host.invite, "--bot", "random", "--json", "--no-pipeline",
        "--identity", "join.key", "--out", "j", "--timeout", "30",
    )  # fmt: skip
    assert told.returncode == 2 and "leave out --no-pipeline" in told.stderr, told.stderr
    # an invite without the host's settings (an older host's): the hellos disagree
    bare = host.invite.split("&target=")[0]
    joined = run(
        tmp_path, "join", bare, "--bot", "random", "--json", "--no-pipeline",
        "--identity", "join.key", "--out", "j", "--timeout", "30",
    )  # fmt: skip
    host.proc.kill()  # a host keeps listening after a mismatched hello
    host.finish()
    assert joined.returncode != 0
    assert last_json(joined.stdout)["outcome"] == "incompatible", joined.stdout


def test_play_with_no_pipeline_counts_its_game(tmp_path: Path) -> None:
    done = run(
        tmp_path, "play", "--seed", "5", "--out", "games", "--json", "--no-pipeline",
        "--target", "4", stdin="\n".join(KEYS) + "\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    result = last_json(done.stdout)
    assert result["valid"]
    verified = _verify_json(tmp_path, tmp_path / result["transcript"])
    assert (result["messages"], result["bytes"]) == (verified["messages"], verified["bytes"])
    _check_deal(tmp_path / result["transcript"], pipeline=False)


def test_counters_after_a_kill_and_resume_of_a_classic_game(tmp_path: Path) -> None:
    """The joiner of a --no-pipeline game is killed mid-game and resumed: both sides'
    counters are still their whole transcript's, and the classic deal resumes."""
    host = start_host(
        tmp_path, "--bot", "random", "--seed", "8", "--json", "--quiet", "--no-pipeline",
        "--identity", "host.key", "--out", "h", "--timeout", "30", "--grace", "40",
    )  # fmt: skip
    args = [
        "join", host.invite, "--bot", "random", "--seed", "9", "--json", "--quiet",
        "--no-pipeline", "--identity", "join.key", "--out", "j", "--timeout", "30",
        "--grace", "40",
    ]  # fmt: skip
    join = subprocess.Popen(
        command(*args),
        cwd=tmp_path,
        env=env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        files = list((tmp_path / "j").glob("*.truc"))
        if files and files[0].stat().st_size >= 9_000:
            break
        assert join.poll() is None, "the game ended before the cut"
        time.sleep(0.002)
    join.send_signal(signal.SIGKILL)
    join.communicate()
    (transcript,) = list((tmp_path / "j").glob("*.truc"))
    resumed = run(tmp_path, "resume", transcript, "--bot", "random", "--json", "--quiet")
    status, out, err = host.finish()
    assert resumed.returncode == 0, resumed.stderr
    assert status == 0, err
    for result in (last_json(resumed.stdout), last_json(out)):
        assert result["valid"], result
        path = tmp_path / result["transcript"]
        verified = _verify_json(tmp_path, path)
        assert (result["messages"], result["bytes"]) == (verified["messages"], verified["bytes"])
        _check_deal(path, pipeline=False)
