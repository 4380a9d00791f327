"""``truc-p2p host`` and ``truc-p2p join`` as two real processes over loopback TCP."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers.cli import last_json, run, start_host

from truc_p2p.cli import main
from truc_p2p.net import Invite

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow


def test_two_processes_play_one_game_and_both_transcripts_verify(tmp_path: Path) -> None:
    host = start_host(
        tmp_path, "--bot", "heuristic", "--seed", "1", "--json",
        "--identity", "host.key", "--out", "h", "--timeout", "30", "--name", "hoster",
    )  # fmt: skip
    invite = Invite.parse(host.invite)
    assert str(invite) == host.invite and invite.host == "127.0.0.1"
    joined = run(
        tmp_path, "join", host.invite, "--bot", "random", "--seed", "2", "--json",
        "--identity", "join.key", "--out", "j", "--timeout", "30", "--name", "joiner",
    )  # fmt: skip
    status, out, err = host.finish()
    assert joined.returncode == 0, joined.stderr
    assert status == 0, err
    mine, theirs = last_json(joined.stdout), last_json(out)
    assert mine["valid"] and theirs["valid"]
    for key in ("game_id", "winner", "winner_name", "score", "hands", "reason", "players"):
        assert mine[key] == theirs[key], key
    assert mine["players"] == ["joiner", "hoster"]
    assert (mine["me"], theirs["me"]) == (0, 1)  # the host is the responder
    assert (
        theirs["peer_fingerprint"]
        == run(tmp_path, "identity", "--identity", "join.key", "--json").stdout.split(
            '"fingerprint": "'
        )[1][:64]
    )
    for result in (mine, theirs):
        transcript = tmp_path / result["transcript"]
        assert transcript.exists()
        verified = run(tmp_path, "verify", transcript)
        assert verified.returncode == 0, verified.stdout
        assert "VALID" in verified.stdout
    assert "secret" not in joined.stdout + joined.stderr + out + err


def test_join_refuses_a_host_whose_key_does_not_match(tmp_path: Path) -> None:
    host = start_host(tmp_path, "--bot", "random", "--identity", "host.key", "--out", "h")
    wrong = re.sub(r"fp=[0-9a-f]{64}", "fp=" + "0" * 64, host.invite)
    joined = run(tmp_path, "join", wrong, "--bot", "random", "--identity", "join.key", "--out", "j")
    assert joined.returncode == 3
    assert "refused the host" in joined.stderr and "nothing was played" in joined.stderr
    # A stale invite does not end the host: the right one still plays a whole game.
    again = run(
        tmp_path, "join", host.invite, "--bot", "random", "--identity", "join.key", "--out", "j"
    )
    status, _, _ = host.finish()
    assert again.returncode == 0, again.stderr
    assert "-- hand" not in joined.stdout
    assert status == 0


def test_join_with_a_bad_invite_or_its_own_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["join", "http://example.org/"]) == 2
    assert "bad invite" in capsys.readouterr().err
    assert main(["identity", "--identity", str(tmp_path / "me.key"), "--json"]) == 0
    fp = last_json(capsys.readouterr().out)["fingerprint"]
    own = f"truc://127.0.0.1:9/?fp={fp}"
    assert main(["join", own, "--identity", str(tmp_path / "me.key")]) == 2
    assert "your own key" in capsys.readouterr().err
    assert main(["host", "--advertise", "not a host!", "--identity", str(tmp_path / "h")]) == 2
    assert "not a host name" in capsys.readouterr().err
