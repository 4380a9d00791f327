"""``truc-p2p verify --secret``: replaying unrevealed hands from the recorder's side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from truc_p2p.cli import main
from truc_p2p.memory_pair import make_pair
from truc_p2p.protocol import NEED_DATA, SessionOptions, YourTurn
from truc_p2p.rules import Player
from truc_p2p.transcript import TranscriptWriter

SECRETS = (bytes([3]) * 32, bytes([4]) * 32)


def _quit_mid_hand(tmp_path: Path, deck: str = "v1") -> Path:
    """P0 records a game that P1 quits at its first turn (no seed ever revealed)."""
    path = tmp_path / "quit.truc"
    with TranscriptWriter(path, fsync=False) as writer:
        sessions = make_pair(
            SessionOptions(deck=deck), secrets=SECRETS, records=(writer.append, None)
        )
        p0, p1 = sessions[Player.P0], sessions[Player.P1]
        for _ in range(20):
            for me, peer in ((p0, p1), (p1, p0)):
                event = me.next_event()
                peer.receive_data(me.data_to_send())
                if isinstance(event, YourTurn):
                    if me is p1:
                        p0.receive_data(p1.abort("quit", "bye"))
                        while p0.next_event() is not NEED_DATA and not p0.finished:
                            pass
                        (tmp_path / "quit.truc.secret").write_bytes(SECRETS[0])
                        return path
                    peer.receive_data(me.send(next(iter(event.legal_actions))))
    raise AssertionError("P1 never got a turn")


def test_secret_replays_the_unrevealed_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _quit_mid_hand(tmp_path)
    assert main(["verify", str(path)]) == 3  # unfinished: a quit is no violation
    out = capsys.readouterr().out
    assert "[aborted]" in out and "--secret" in out  # the hint names the option
    assert out.startswith("Unfinished: bob ended the game in hand 1")
    assert main(["verify", str(path), "--secret", f"{path}.secret", "--json"]) == 3
    report = json.loads(capsys.readouterr().out)
    assert report["error_code"] == "aborted" and report["local_secret_of"] == 0
    assert report["hands"] == 1


def test_no_secret_hint_when_the_proofs_already_cover_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 43: a deck v2 game proves every card played, so its secret replays nothing
    more: the hint to use it is noise."""
    path = _quit_mid_hand(tmp_path, deck="v2")
    assert main(["verify", str(path)]) == 3
    out = capsys.readouterr().out
    assert "[aborted]" in out and "--secret" not in out


def test_a_secret_of_another_game_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _quit_mid_hand(tmp_path)
    other = tmp_path / "other.secret"
    other.write_bytes(bytes(32))
    assert main(["verify", str(path), "--secret", str(other), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["error_code"] == "bad-secret"
    other.write_bytes(b"short")
    assert main(["verify", str(path), "--secret", str(other)]) == 2


def test_a_foreign_secret_is_not_called_a_violation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _quit_mid_hand(tmp_path)
    other = tmp_path / "other.secret"
    other.write_bytes(bytes(32))
    assert main(["verify", str(path), "--secret", str(other)]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "Not checked: the local secret does not belong to this transcript."
