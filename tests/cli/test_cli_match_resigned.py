"""A resignation in a match: the one who resigns leaves the match, so both end screens
say the match is over (before, only the winner's did)."""

from __future__ import annotations

from pathlib import Path

from truc_p2p.cli._after import _resigned_match
from truc_p2p.history._match import MatchRecord
from truc_p2p.net import End, GameOutcome
from truc_p2p.protocol import Resignation
from truc_p2p.rules import Player
from truc_p2p.ui._web import WebPlayer


def _resigned(me: Player, by: Player) -> GameOutcome:
    resignation = Resignation(
        game_id=b"g" * 32, by=by, winner=by.other, scores=(5, 2), hand=3, detail="", envelope=b""
    )
    end = End.RESIGNED if by is me else End.OPPONENT_RESIGNED
    return GameOutcome(
        end=end, message="", me=me, names=("alice", "bob"), resignation=resignation, hands=3
    )


def test_the_resigner_is_told_the_match_is_over(tmp_path: Path) -> None:
    player = WebPlayer("alice", match_games=3)
    player.finish({"headline": "bob won: you resigned in hand 3"})
    record = MatchRecord(games=3, folder=tmp_path)
    record.wins[Player.P1] = 1  # bob won game 1; alice resigns game 2
    _resigned_match(player, _resigned(Player.P0, Player.P0), record)
    line = "match over: you resigned, so bob wins the match, you 0 – bob 2"
    assert player.match_line == line
    assert player.snapshot()[-1]["match_line"] == line  # on the end screen
    assert record.wins == {Player.P0: 0, Player.P1: 1}  # the record itself is not touched
    player.switch_language("fr")
    assert player.match_line is not None and player.match_line.startswith("fin du match")
    player.switch_language("en")


def test_a_single_game_has_no_match_line(tmp_path: Path) -> None:
    player = WebPlayer("alice")
    player.finish({"headline": "bob won: you resigned in hand 3"})
    _resigned_match(player, _resigned(Player.P0, Player.P0), MatchRecord(games=1, folder=tmp_path))
    assert player.match_line is None
