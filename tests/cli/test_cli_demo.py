"""``truc-p2p demo`` over loopback TCP, and ``truc-p2p identity``."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from truc_p2p.bots import make_bot
from truc_p2p.cli import main
from truc_p2p.memory_pair import make_pair, run_pair
from truc_p2p.protocol import SessionOptions, encode_transcript, verify_transcript
from truc_p2p.rules import Player, Ruleset
from truc_p2p.transcript import read_transcript


def _demo_json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, object]]:
    assert main(["demo", "--json", *args]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_demo_over_tcp_plays_the_same_game_as_in_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seeded keys, secrets and bots: TCP must carry exactly the in-memory protocol."""
    tcp = _demo_json(capsys, "--seed", "7", "--games", "2", "--out", str(tmp_path / "t"))
    mem = _demo_json(
        capsys, "--seed", "7", "--games", "2", "--out", str(tmp_path / "m"), "--in-memory"
    )
    assert [g["transport"] for g in tcp] == ["tcp", "tcp"]
    keys = ("game", "valid", "game_id", "players", "winner", "winner_name", "score", "hands")
    assert [{k: g[k] for k in keys} for g in tcp] == [{k: g[k] for k in keys} for g in mem]
    for game in tcp:
        assert game["valid"] is True and game["reason"]
        paths = game["transcripts"]
        assert isinstance(paths, list) and game["transcript"] == paths[0]
        for path in paths:
            assert verify_transcript(read_transcript(path)).valid


def test_demo_narrates_a_complete_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "3", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("game ") and "alice vs bob" in out
    assert "-- hand 1" in out and "alice gets" in out and "bob gets" in out
    assert "player 0" not in out and "player 1" not in out  # a narrator names both players
    # every hand's score line is in seat order, alice first: "→ alice 2 – bob 0"
    assert "→ alice " in out and "→ bob " not in out
    assert "== result co-signed by both" in out and "transcripts:" in out
    assert main(["demo", "--seed", "3", "--ascii", "--quiet", "--out", str(tmp_path)]) == 0
    quiet = capsys.readouterr().out
    assert quiet.isascii() and quiet.startswith("game 1: ") and len(quiet.splitlines()) == 1


def test_identity_is_created_then_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["identity"]) == 0
    first = capsys.readouterr().out
    path = tmp_path / "truc-p2p" / "identity.key"
    assert f"identity:    {path} (created now)" in first
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert main(["identity", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["created"] is False and shown["path"] == str(path)
    assert f"fingerprint: {shown['fingerprint']}" in first
    path.chmod(0o644)
    assert main(["identity"]) == 0
    assert "readable by other users" in capsys.readouterr().err
    (tmp_path / "bad.key").write_text("nonsense")
    assert main(["identity", "--identity", str(tmp_path / "bad.key")]) == 2


@pytest.mark.parametrize("deck", ["v1", "v2"])
def test_verify_reports_the_deck_and_what_it_disclosed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], deck: str
) -> None:
    """New games are v2; a v1 transcript (made with the library) still verifies."""
    records: list[bytes] = []
    sessions = make_pair(
        SessionOptions(ruleset=Ruleset(target=2), deck=deck), records=(records.append, None)
    )
    run_pair(sessions, {p: make_bot("random", int(p)) for p in (Player.P0, Player.P1)})
    path = tmp_path / f"{deck}.truc"
    path.write_bytes(encode_transcript(records))
    assert main(["verify", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["deck"] == deck and report["valid"] is True
    if deck == "v2":
        assert report["hidden_cards_revealed"] == 0 and report["audit"] == "proofs"
    else:
        assert report["hidden_cards_revealed"] > 0 and report["audit"] == "passed"
    assert main(["verify", str(path)]) == 0
    text = capsys.readouterr().out
    assert f"deck:       {deck}" in text and "unplayed cards revealed" in text


def test_v1_is_verify_only_in_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["demo", "--deck", "v1"])
    assert "unrecognized arguments: --deck" in capsys.readouterr().err


def test_demo_plays_deck_v2_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = _demo_json(capsys, "--seed", "6", "--in-memory", "--out", str(tmp_path))
    assert games[0]["deck"] == "v2"
    report = verify_transcript(read_transcript(str(games[0]["transcript"])))
    assert report.valid and report.deck == "v2" and report.hidden_cards_revealed == 0
