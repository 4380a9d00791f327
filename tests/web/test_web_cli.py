"""``--web`` on the commands, and the end screen, without a browser."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from truc_p2p.cli import build_parser
from truc_p2p.cli._web import final_message
from truc_p2p.net import End, GameOutcome
from truc_p2p.rules import Player

COMMAND = [sys.executable, "-m", "truc_p2p.cli", "play", "--web", "--no-browser"]


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--web"],
        ["host", "--web", "--web-port", "8765", "--no-browser"],
        ["join", "truc://127.0.0.1:4455/?fp=" + "0" * 64, "--web", "--no-browser"],
    ],
)
def test_web_options_on_each_command(argv: list[str]) -> None:
    args = build_parser().parse_args(argv)
    assert args.web is True
    assert args.web_port == (8765 if "8765" in argv else 0)
    assert args.no_browser is ("--no-browser" in argv)


def test_web_port_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["play", "--web", "--web-port", "70000"])
    assert stop.value.code == 2
    assert "must be in 0..65535" in capsys.readouterr().err


def test_busy_web_port_is_a_usage_error(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [*COMMAND, "--web-port", str(port), "--out", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    assert done.returncode == 2
    assert f"cannot serve the web table on 127.0.0.1 port {port}" in done.stderr


def test_end_screen_of_an_unfinished_game(tmp_path: Path) -> None:
    outcome = GameOutcome(
        end=End.QUIT,
        message="you left the game; the opponent was told",
        me=Player.P1,
        names=("bot", "alice"),
        scores=(3, 1),
        hands=2,
    )
    final = final_message(outcome)
    assert final["headline"] == "Game not finished"
    assert final["score"] == {"me": 1, "opp": 3}
    assert final["cosigned"] is False and final["won"] is False
    assert final["verdict"] is None and final["transcript"] is None
    broken = tmp_path / "broken.truc"
    broken.write_bytes(b"not a transcript")
    final = final_message(GameOutcome(end=End.QUIT, message="", me=Player.P0, transcript=broken))
    assert final["verdict"]["valid"] is False
    # not a cheat: a transcript that cannot be read is told apart from a violation
    assert final["verdict"]["status"] == "unreadable"
    assert final["verdict"]["summary"].startswith("cannot read the transcript")
    assert final["cosigned_line"].startswith("no co-signed result")
    assert final["transcript"] == str(broken)
