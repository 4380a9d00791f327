"""A match travels in the invite (connect.md 1.1, wire.md 4.1): a plain ``join`` of a
``host --match 3`` invite plays the whole match, another ``--match`` is one sentence
before any connection, and hellos that still differ (an invite without ``match``)
are one sentence on both sides and leave no transcript that reads as a violation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.cli import Host, run, start_host

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow

BOT = ["--target", "2", "--timeout", "30", "--quiet"]


def _host(tmp_path: Path, *args: str) -> Host:
    return start_host(
        tmp_path, "--bot", "random", "--seed", "3", "--match", "3", "--identity", "host.key",
        "--name", "ann", "--out", "hosted", "--no-announce", *BOT, *args,
    )  # fmt: skip


def test_a_plain_join_of_a_match_invite_plays_the_match(tmp_path: Path) -> None:
    host = _host(tmp_path)
    assert host.invite.endswith("&match=3"), host.invite
    joined = run(
        tmp_path, "join", host.invite, "--bot", "random", "--seed", "4",
        "--identity", "join.key", "--name", "bob", "--out", "joined", *BOT,
    )  # fmt: skip
    status, out, err = host.finish()
    assert joined.returncode in (0, 1), joined.stdout[-2000:] + joined.stderr
    assert "match over" in joined.stdout, joined.stdout[-2000:] + joined.stderr
    assert "a match of 3 games" in joined.stdout or "match of 3 games" in joined.stdout
    assert status in (0, 1) and "match over" in out, out[-2000:] + err
    for folder in ("hosted", "joined"):
        record_file = next((tmp_path / folder).glob("match-*.json"))
        record = json.loads(record_file.read_text())
        assert record["games"] == 3 and record["winner"] is not None
        assert 2 <= len(record["played"]) <= 3
        checked = run(tmp_path, "verify", "--match", record_file)
        assert checked.returncode == 0, checked.stdout + checked.stderr


def test_another_match_length_is_one_sentence_before_connecting(tmp_path: Path) -> None:
    host = _host(tmp_path)
    for option in (["--match", "2"], ["--match", "1"]):
        told = run(
            tmp_path, "join", host.invite, "--bot", "random", "--identity", "join.key",
            "--out", "joined", *BOT, *option,
        )  # fmt: skip
        assert told.returncode == 2, told.stdout + told.stderr
        lines = told.stderr.strip().splitlines()
        assert lines[-1] == (
            "truc-p2p join: the host plays a match of 3 games: join with --match 3"
        ), told.stderr
        assert "{" not in told.stderr
    host.proc.kill()
    _, out, _err = host.finish()
    assert "connection from" not in out  # the joiner never connected
    assert not (tmp_path / "joined").exists() or not list((tmp_path / "joined").iterdir())


def test_hellos_that_differ_in_the_match_are_a_sentence_and_leave_no_transcript(
    tmp_path: Path,
) -> None:
    host = _host(tmp_path)
    bare = host.invite.removesuffix("&match=3")
    joined = run(
        tmp_path, "join", bare, "--bot", "random", "--identity", "join.key", "--name", "bob",
        "--out", "joined", "--json", *BOT,
    )  # fmt: skip
    host.proc.kill()  # a host keeps listening after it
    _, _out, err = host.finish()
    result = json.loads(joined.stdout.strip().splitlines()[-1])
    assert result["outcome"] == "incompatible" and result["transcript"] is None, result
    assert result["message"] == "ann plays a match of 3 games: join with --match 3"
    assert "bob asked for a single game, you host a match of 3 games: nothing was played" in err
    assert "options {" not in err + joined.stderr  # (--json keeps the signed abort detail)
    for folder in ("hosted", "joined"):
        left = list((tmp_path / folder).glob("*")) if (tmp_path / folder).exists() else []
        assert left == [], left  # no transcript, no secret, no settings file
