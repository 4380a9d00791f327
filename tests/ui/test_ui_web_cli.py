"""``--web`` on the commands, and the end screen, without a browser."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from truc_p2p.cli import build_parser
from truc_p2p.cli._web import final_message, show_invite
from truc_p2p.net import End, GameOutcome, Invite
from truc_p2p.rules import Player
from truc_p2p.ui._web import WebPlayer

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
    assert "must be from 0 to 65535" in capsys.readouterr().err


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
    assert final["headline"] == "You left the game: it stopped unfinished"
    assert final["score_line"] == "points when the game stopped: you 1 – bot 3"
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


@pytest.mark.parametrize(
    ("invite", "hint"),
    [
        (Invite("127.0.0.1", 4455, "0" * 64), "only works on this machine"),
        (Invite("192.168.1.20", 4455, "0" * 64), "works on your local network"),
        (Invite("192.168.1.20", 4455, "0" * 64, ("relay.example", 7000), "abc123"), "relay"),
        (Invite("93.184.216.34", 4455, "0" * 64), None),
    ],
)
def test_host_web_shows_the_invite_with_a_hint(invite: Invite, hint: str | None) -> None:
    player = WebPlayer("carol")
    show_invite(player, invite)
    shown = next(m for m in player.snapshot() if m["type"] == "invite")
    assert shown["text"] == str(invite)
    assert "qr" not in shown  # a truc:// address no phone camera opens
    if hint is None:
        assert shown["hint"] is None
    else:
        assert hint in shown["hint"]
        if invite.relay is None:
            assert "--relay" in shown["hint"]  # how to reach a friend behind NAT
            # issue 43: not the router settings a person in a browser cannot make
            assert "--advertise" not in shown["hint"]
    show_invite(object(), invite)  # not a web player: nothing to show


@pytest.mark.parametrize(
    ("end", "headline", "won", "score_line"),
    [
        ("resigned", "bob won: you resigned in hand 2", False, "points when you resigned"),
        ("opponent-resigned", "You won: bob resigned in hand 2", True, "points when bob resigned"),
    ],
)
def test_end_screen_of_a_resignation(end: str, headline: str, won: bool, score_line: str) -> None:
    """However the protocol names it, a resignation reads as one (never "not finished")."""
    outcome = SimpleNamespace(
        me=Player.P0,
        names=("alice", "bob"),
        scores=(3, 1),
        valid=False,
        complete=True,  # a resignation is a complete result, signed by the loser
        winner=Player.P0 if won else Player.P1,
        end=SimpleNamespace(value=end),
        message="the game ended by resignation",
        hands=2,
        transcript=None,
        resignation=None,
    )
    final = final_message(outcome)  # type: ignore[arg-type]
    assert final["headline"] == headline
    assert final["won"] is won
    assert final["outcome"] == end
    # the points are labelled as those when the game was given up: never a result
    assert final["score_line"] == f"{score_line}: you 3 – bob 1"


@pytest.mark.parametrize("end", [End.RESIGNED, End.OPPONENT_RESIGNED])
def test_end_screen_of_a_resigned_game_says_it_is_over(end: End) -> None:
    """A signed resignation is a complete result: the end screen does not say "no
    co-signed result", and names the players from the viewer's side."""
    from truc_p2p.i18n import speaking
    from truc_p2p.protocol import Resignation

    by = Player.P1 if end is End.RESIGNED else Player.P0
    resignation = Resignation(
        game_id=b"g" * 32,
        by=by,
        winner=by.other,
        scores=(4, 7),
        hand=3,
        detail="",
        envelope=b"",
    )
    outcome = GameOutcome(
        end=end,
        message="",
        me=Player.P1,
        names=("bob", "alice"),
        scores=(4, 7),
        hands=3,
        resignation=resignation,
    )
    final = final_message(outcome)
    assert final["cosigned"] is True
    assert final["cosigned_line"] == "✔ the resignation is signed: the game is over"
    # the one who resigned may lead on points: the headline says who won and why, the
    # points are labelled as those of the moment, never as a result
    if end is End.RESIGNED:
        assert final["headline"] == "bob won: you resigned in hand 3"
        assert final["score_line"] == "points when you resigned: you 7 – bob 4"
    else:
        assert final["headline"] == "You won: bob resigned in hand 3"
        assert final["score_line"] == "points when bob resigned: you 7 – bob 4"
    assert final["message"] == "3 hands played"
    with speaking("fr"):
        french = final_message(outcome)
    assert french["cosigned_line"] == "✔ abandon signé\u00a0: la partie est terminée"
    assert "main 3" in french["headline"]
