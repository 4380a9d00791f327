"""Leaving a match (issue 43): the question names the match and what leaving costs, ``c``
concedes only the game in play (a resignation whose signed detail says the match goes
on) and the next game follows, while leaving the match ends it on both sides, with
both match records keeping it as finished."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import trio
from helpers.net import bot, run_game

from truc_p2p.cli._after import after_game, tell_match_cost
from truc_p2p.cli._game_args import GameOptions, Screen
from truc_p2p.history._games import MatchFile, match_heading
from truc_p2p.history._match import MatchRecord
from truc_p2p.net import CONCEDE_DETAIL, End, GameOutcome, QuitGame, conceded
from truc_p2p.protocol import Resignation
from truc_p2p.rules import Action, Game, Player
from truc_p2p.ui._tui import ScriptedLines, TerminalPlayer

P0, P1 = Player.P0, Player.P1


def _game_to_lead() -> Game:
    from truc_p2p.rules import Card

    game = Game(first_dealer=P1, view=P0)
    game.deal({P0: tuple(Card.from_str(t) for t in ("7S", "10H", "AD"))})
    return game


def _player(lines: list[str], record: MatchRecord) -> tuple[TerminalPlayer, io.StringIO]:
    out = io.StringIO()
    player = TerminalPlayer(ScriptedLines(lines), "alice", out=out, confirm_quit=True)
    player.model.names = {P0: "alice", P1: "bob"}
    tell_match_cost(player, record)
    return player, out


async def test_the_leave_question_names_the_match_and_c_concedes_only_this_game(
    tmp_path: Path,
) -> None:
    record = MatchRecord(games=3, folder=tmp_path)
    record.wins[P1] = 0
    player, out = _player(["q", "c"], record)
    game = _game_to_lead()
    with pytest.raises(QuitGame):
        await player.choose(game, tuple(game.legal_actions()))
    text = " ".join(out.getvalue().split())
    assert "leave the match? You resign it: bob wins the match, you 0 – bob 1." in text
    assert "c to concede only this game and play the next one" in text
    assert "(you concede this game: the match goes on with the next one)" in text
    assert player.concedes
    player.new_game()
    assert not player.concedes  # the next game starts with nobody conceding


async def test_y_leaves_the_match_and_a_single_game_keeps_its_question(tmp_path: Path) -> None:
    player, out = _player(["q", "y"], MatchRecord(games=3, folder=tmp_path))
    game = _game_to_lead()
    with pytest.raises(QuitGame):
        await player.choose(game, tuple(game.legal_actions()))
    assert not player.concedes
    single, out = _player(["q", "c", "q", "y"], MatchRecord(games=1, folder=tmp_path))
    with pytest.raises(QuitGame):
        await single.choose(game, tuple(game.legal_actions()))
    text = out.getvalue()
    assert "leave the game? You resign: bob wins the game" in text
    assert "(you stay in the game)" in text and not single.concedes  # no concede alone


async def test_a_conceding_player_signs_the_detail_that_the_match_goes_on(
    autojump_clock: trio.abc.Clock,
) -> None:
    class Conceder:
        concedes = False

        async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
            self.concedes = True
            raise QuitGame("conceded")

    run = await run_game({P0: Conceder(), P1: bot(2)})
    theirs = run.outcomes[P1]
    assert theirs.end is End.OPPONENT_RESIGNED and theirs.resignation is not None
    assert theirs.resignation.detail == CONCEDE_DETAIL and conceded(theirs.resignation.detail)
    assert run.outcomes[P0].resignation is not None
    assert conceded(run.outcomes[P0].resignation.detail)


def _resigned(me: Player, by: Player, detail: str) -> GameOutcome:
    resignation = Resignation(
        game_id=b"g" * 32,
        by=by,
        winner=by.other,
        scores=(5, 2),
        hand=3,
        detail=detail,
        envelope=b"",
    )
    return GameOutcome(
        end=End.RESIGNED if by is me else End.OPPONENT_RESIGNED,
        message="",
        me=me,
        names=("alice", "bob"),
        resignation=resignation,
        hands=3,
        game_id=b"g" * 32,
        first_dealer=P0,
        fingerprint="a" * 64,
        peer_fingerprint="b" * 64,
    )


@pytest.mark.parametrize("me", [P0, P1])
async def test_a_conceded_game_counts_and_the_match_goes_on(me: Player, tmp_path: Path) -> None:
    record = MatchRecord(games=3, folder=tmp_path)
    opts = GameOptions(command="host", out=str(tmp_path), screen=Screen(json=True))
    again = await after_game(
        object(), _resigned(me, P0, CONCEDE_DETAIL), record, opts, trio.Event()
    )
    assert again and record.wins == {P0: 0, P1: 1} and record.left is None
    assert record.path is not None and json.loads(record.path.read_text())["winner"] is None


@pytest.mark.parametrize("me", [P0, P1])
async def test_leaving_a_match_ends_it_on_both_sides_as_finished(
    me: Player, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The resigner's record keeps the game too (before, only the winner's did), and
    ``games`` calls the match finished, not "not finished"."""
    record = MatchRecord(games=3, folder=tmp_path)
    opts = GameOptions(command="host", out=str(tmp_path), screen=Screen(json=False))
    stop = trio.Event()
    if me is P0:
        stop.set()  # Ctrl-C: the match ends too, and says so
    detail = "the player resigned"
    again = await after_game(object(), _resigned(me, P0, detail), record, opts, stop)
    assert not again and record.left is P0 and record.wins == {P0: 0, P1: 1}
    assert record.path is not None
    data = json.loads(record.path.read_text())
    assert data["left"] == 0 and data["winner"] is None and data["wins"] == [0, 1]
    said = capsys.readouterr().out
    if me is P0:
        assert "match over: you resigned, so bob wins the match, you 0 – bob 1" in said
    else:
        assert "match over: alice resigned, so you win the match" in said
    match = MatchFile(record.path, "g" * 64, 3, (0, 1), None, (), left=0)
    assert match.decided == 1  # bob: the match is finished, not going on


@pytest.mark.parametrize(("owner", "state"), [(P0, "you lost 0–1"), (P1, "you won 1–0")])
def test_games_calls_a_match_left_by_a_resignation_finished(
    owner: Player, state: str, tmp_path: Path
) -> None:
    from types import SimpleNamespace

    from truc_p2p.protocol._verify_report import PlayerInfo, VerifyReport

    players = (
        PlayerInfo(name="alice", fingerprint="a" * 64),
        PlayerInfo(name="bob", fingerprint="b" * 64),
    )
    game = SimpleNamespace(
        owner=owner, report=VerifyReport(valid=True, messages=0, players=players), bot=None
    )
    match = MatchFile(tmp_path / "match-x.json", "g" * 64, 3, (0, 1), None, (), left=0)
    assert match_heading(match, game).endswith(state)  # type: ignore[arg-type]
    going_on = MatchFile(tmp_path / "match-x.json", "g" * 64, 3, (0, 1), None, ())
    assert "not finished" in match_heading(going_on, game)  # type: ignore[arg-type]


def test_the_spec_names_the_conceding_detail() -> None:
    """wire.md 4.1 states the exact detail another implementation must send."""
    spec = Path(__file__).resolve().parents[2] / "protocol_spec" / "wire.md"
    assert CONCEDE_DETAIL in " ".join(spec.read_text(encoding="utf-8").split())


def test_the_web_table_takes_a_concede_of_one_game_of_a_match() -> None:
    """The page's button can come later; the web player already takes the message: a
    concede between turns ends this game only (its own stop), never a single game."""
    from truc_p2p.ui._web import WebPlayer

    player = WebPlayer("alice", match_games=3)
    player.conceding = trio.Event()
    player.leave = trio.Event()
    player.receive({"type": "quit", "concede": True})
    assert player.concedes and player.conceding.is_set() and not player.leave.is_set()
    player.new_game()
    assert not player.concedes
    single = WebPlayer("alice")
    single.conceding, single.leave = trio.Event(), trio.Event()
    single.receive({"type": "quit", "concede": True})
    assert not single.concedes and not single.conceding.is_set() and single.leave.is_set()


def test_games_web_groups_a_match_under_its_heading(tmp_path: Path) -> None:
    """``games --web`` listed a match's games flat; the page now gets the heading the
    terminal list prints above them, and which rows belong to it."""
    from truc_p2p.cli import main
    from truc_p2p.history._games_web import HistoryTable
    from truc_p2p.history._record import read_game

    args = ["demo", "--quiet", "--in-memory", "--seed", "4", "--games", "2", "--out"]
    assert main([*args, str(tmp_path)]) == 0
    games = [read_game(p) for p in sorted(tmp_path.glob("*-alice.truc"))]
    heading = "match of 3 games against bob: you won 2–0"
    table = HistoryTable(tmp_path, [*games, *games[:1]], matches=[(0, 2, lambda: heading)])
    (listing,) = table.snapshot()
    rows = listing["games"]
    assert [r["match"] for r in rows] == [heading, None, None]
    assert [r["in_match"] for r in rows] == [True, True, False]
    script = Path(__file__).resolve().parents[2] / "truc_p2p/ui/_web/static/games.js"
    assert "g.match" in script.read_text(encoding="utf-8")  # the page places the heading
