"""Play again and matches between two people: a ``host`` and a ``join`` process, both
played from the terminal (through pipes)."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path

import pytest
from helpers.cli import LIMIT, command, env, run, spawn

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow

GAME = "\n".join(["1", "a", "2", "f"] * 100) + "\n"
ARGS = ["--target", "2", "--ascii", "--timeout", "30"]
#: Games long enough that game 2 cannot end on the keys already typed.
MATCH_ARGS = ["--target", "6", "--ascii", "--timeout", "30"]


def _host(tmp_path: Path, stdin: str, *args: str) -> tuple[subprocess.Popen[str], str]:
    """A human ``host`` reading ``stdin``; the invite it printed."""
    proc = spawn(
        tmp_path, "host", "--port", "0", "--bind", "127.0.0.1", "--identity", "host.key",
        "--name", "ann", "--out", "hosted", *ARGS, *args, stdin=subprocess.PIPE,
    )  # fmt: skip
    threading.Timer(LIMIT * 2, proc.kill).start()
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    proc.stdin = None  # communicate() must not flush it
    for line in proc.stdout:
        if line.startswith("truc://"):
            return proc, line.strip()
    raise AssertionError(f"no invite: {proc.communicate()}")


def _join(tmp_path: Path, invite: str, stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(
            "join",
            invite,
            "--identity",
            "join.key",
            "--name",
            "bob",
            "--out",
            "joined",
            *ARGS,
            *args,
        ),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=LIMIT * 2,
        env=env(tmp_path),
        cwd=tmp_path,
        encoding="utf-8",
    )


def _report(tmp_path: Path, transcript: Path) -> dict[str, object]:
    done = run(tmp_path, "verify", "--json", transcript)
    assert done.returncode == 0, done.stdout + done.stderr
    report: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return report


def test_two_people_play_again(tmp_path: Path) -> None:
    """Both say y: the joiner redials the same invite, the hellos name the first
    game, the other player deals first; both transcripts of both games verify."""
    host, invite = _host(tmp_path, GAME + "y\n" + GAME + "n\n")
    joined = _join(tmp_path, invite, GAME + "y\n" + GAME + "n\n")
    out, err = host.communicate(timeout=LIMIT)
    assert joined.returncode == 0, joined.stdout[-3000:] + joined.stderr
    assert host.returncode == 0, out[-3000:] + err
    for text in (out, joined.stdout):
        assert text.count("play again? Type y") == 2
    hosted = sorted((tmp_path / "hosted").glob("*.truc"))
    joined_files = sorted((tmp_path / "joined").glob("*.truc"))
    assert len(hosted) == len(joined_files) == 2
    theirs = [_report(tmp_path, t) for t in hosted]
    mine = [_report(tmp_path, t) for t in joined_files]
    assert {r["game_id"] for r in theirs} == {r["game_id"] for r in mine}
    assert theirs[0]["game_id"] != theirs[1]["game_id"]
    assert {r["first_dealer"] for r in mine} == {0, 1}  # the first dealer alternates


def test_one_says_no_and_the_other_gives_up(tmp_path: Path) -> None:
    """The host says n: it stops listening, and the joiner who said y is told the host
    did not start another game (it does not wait forever)."""
    host, invite = _host(tmp_path, GAME + "n\n")
    joined = _join(tmp_path, invite, GAME + "y\n", "--again-wait", "2")
    host.communicate(timeout=LIMIT)
    assert host.returncode == 0
    assert "the host did not start another game" in joined.stderr + joined.stdout
    assert len(list((tmp_path / "joined").glob("*.truc"))) == 1


def test_a_bot_joiner_plays_the_rematches_it_was_given(tmp_path: Path) -> None:
    """A person hosts and says y, ``join --bot --rematches 1`` plays on as a person
    saying y would: it redials, the second game names the first and the other player
    deals first; the bot stops after its one rematch (the host's second "play again?"
    gets no joiner, so the person answers n)."""
    host, invite = _host(tmp_path, GAME + "y\n" + GAME + "n\n")
    joined = _join(tmp_path, invite, "", "--bot", "random", "--seed", "5", "--rematches", "1")
    if joined.returncode != 0:
        host.kill()
    out, err = host.communicate(timeout=LIMIT)
    assert joined.returncode == 0, joined.stdout[-3000:] + joined.stderr
    assert host.returncode == 0, out[-3000:] + err
    joined_files = sorted((tmp_path / "joined").glob("*.truc"))
    assert len(joined_files) == 2
    mine = [_report(tmp_path, t) for t in joined_files]
    assert all(r["status"] == "complete" for r in mine)
    assert {r["first_dealer"] for r in mine} == {0, 1}  # the first dealer alternates
    hosted = sorted((tmp_path / "hosted").glob("*.truc"))
    assert {_report(tmp_path, t)["game_id"] for t in hosted} == {r["game_id"] for r in mine}


def test_a_match_with_a_kill_and_a_resume_inside(tmp_path: Path) -> None:
    """A 3-game match: a person hosts (keys through a pipe, paced), a bot joins.  Once
    game 2 has started the joiner is killed with SIGKILL; ``truc-p2p resume`` finishes
    game 2 and the match goes on to its end.  Both match records verify."""
    host = subprocess.Popen(
        command(
            "host",
            "--port",
            "0",
            "--bind",
            "127.0.0.1",
            "--identity",
            "host.key",
            "--name",
            "ann",
            "--out",
            "hosted",
            "--match",
            "3",
            "--grace",
            "60",
            *MATCH_ARGS,
        ),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
        env=env(tmp_path),
        cwd=tmp_path,
        bufsize=1,
    )
    watchdog = threading.Timer(LIMIT * 3, host.kill)
    watchdog.start()
    joiner: subprocess.Popen[str] | None = None
    try:
        assert host.stdin is not None and host.stdout is not None
        invite = next(line.strip() for line in host.stdout if line.startswith("truc://"))
        host_out: list[str] = []
        threading.Thread(target=lambda: host_out.extend(host.stdout or []), daemon=True).start()
        joiner = subprocess.Popen(
            command(
                "join",
                invite,
                "--identity",
                "join.key",
                "--name",
                "bob",
                "--bot",
                "random",
                "--seed",
                "4",
                "--out",
                "joined",
                "--match",
                "3",
                *MATCH_ARGS,
            ),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env(tmp_path),
            cwd=tmp_path,
        )
        keys = ["1", "a", "2", "n"] * 1000  # no "play again?" in a match: "n" is safe
        joined = tmp_path / "joined"

        def feed_until(done: object) -> None:
            """One key each time the host's output has stood still (it waits for one)."""
            seen = -1
            while keys and not done():  # type: ignore[operator]
                if len(host_out) != seen:
                    seen = len(host_out)
                    time.sleep(0.25)
                    continue
                host.stdin.write(keys.pop() + "\n")  # type: ignore[union-attr]
                host.stdin.flush()  # type: ignore[union-attr]
                time.sleep(0.05)

        def in_game_2() -> bool:
            return "".join(host_out).count("playing against bob") >= 2

        # keys for game 1 only: one typed while game 2 is being set up would be read by
        # its first prompt and could end it before the kill (a refused rest ends a game)
        feed_until(lambda: "result co-signed" in "".join(host_out))
        for _i in range(int(LIMIT / 0.25)):
            if in_game_2() or host.poll() is not None:
                break
            time.sleep(0.25)
        assert in_game_2(), "the match stopped after one game"
        seen = -1
        while seen != len(host_out):  # the host waits for a key in game 2: nothing moves
            seen = len(host_out)
            time.sleep(1.0)
        game_2 = "".join(host_out).split("playing against bob")[2]
        assert "result co-signed" not in game_2 and "your move (" in game_2
        joiner.kill()  # kill -9
        joiner.wait()
        second = max(joined.glob("*.truc"), key=lambda p: p.stat().st_mtime)
        resumed = subprocess.Popen(
            command("resume", second, "--bot", "random", "--seed", "5"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env(tmp_path),
            cwd=tmp_path,
        )
        feed_until(lambda: host.poll() is not None)
        host.stdin.close()
        out, err = resumed.communicate(timeout=LIMIT)
        try:
            host.wait(timeout=LIMIT)
        except subprocess.TimeoutExpired:
            raise AssertionError("".join(host_out)[-3000:] + "\n----\n" + out + err) from None
    finally:
        watchdog.cancel()
        for proc in (host, joiner):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
        for pipe in (host.stdin, host.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()
    assert resumed.returncode in (0, 1), out + err
    assert "match over" in out, out + err + "\n----host\n" + "".join(host_out)[-4000:]
    assert host.returncode in (0, 1), "".join(host_out)
    assert "match over" in "".join(host_out)
    for folder in ("hosted", "joined"):
        record_file = next((tmp_path / folder).glob("match-*.json"))
        checked = run(tmp_path, "verify", "--match", record_file)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        record = json.loads(record_file.read_text())
        assert len(record["played"]) >= 2 and record["winner"] is not None
    hosted = json.loads(next((tmp_path / "hosted").glob("match-*.json")).read_text())
    mine = json.loads(next((tmp_path / "joined").glob("match-*.json")).read_text())
    assert [g["game_id"] for g in hosted["played"]] == [g["game_id"] for g in mine["played"]]
    # game 2 was resumed; a third game (1-1 after two) is played by the resumed command
    assert ("the match goes on" in out) == (len(mine["played"]) == 3), out + err
