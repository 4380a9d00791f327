"""Short findings of the third table trial (issue 43), each where a test can see it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from truc_p2p.rules import Card, Player, RoundEnded, RoundEndReason, TrickEnded
from truc_p2p.ui._narrate import Tally, describe
from truc_p2p.ui._voice import Voice

A, B = Player.P0, Player.P1


def _cards(*texts: str) -> tuple[Card, ...]:
    return tuple(Card.from_str(t) for t in texts)


def test_the_narration_says_which_earlier_trick_decided_the_hand() -> None:
    """The narrator of a bot's or an observer's game (not only the table model): trick 1
    won by Alice, trick 2 by Bob, trick 3 spoiled, so trick 1 decides."""
    voice = Voice({A: "Alice", B: "Bob"}, None)
    tally = Tally()
    describe(TrickEnded(trick_no=0, leader=A, cards=_cards("7S", "8C"), winner=A), voice, tally)
    describe(TrickEnded(trick_no=1, leader=A, cards=_cards("8H", "7C"), winner=B), voice, tally)
    describe(TrickEnded(trick_no=2, leader=B, cards=_cards("9H", "9C"), winner=None), voice, tally)
    line = describe(
        RoundEnded(round_no=0, winner=A, points=1, reason=RoundEndReason.TRICKS, scores=(1, 0)),
        voice,
        tally,
    )
    assert line is not None and "trick 1 decided it: trick 3 was spoiled" in line
    # the next hand starts with no tricks: two tricks won say "on tricks"
    for no in range(2):
        trick = TrickEnded(trick_no=no, leader=A, cards=_cards("7S", "8C"), winner=A)
        describe(trick, voice, tally)
    line = describe(
        RoundEnded(round_no=1, winner=A, points=1, reason=RoundEndReason.TRICKS, scores=(2, 0)),
        voice,
        tally,
    )
    assert line is not None and "on tricks" in line


def test_a_bot_made_to_think_is_named_by_its_level() -> None:
    """``play --think 4`` plays the strongest level thinking 4 s a move: its name is the
    level's ("strongest-bot"), not the bot's inner name ("cfr:4s+race-bot")."""
    from truc_p2p.bots import with_think
    from truc_p2p.ui import bot_player_name

    assert bot_player_name(with_think("strongest", 4)) == "strongest-bot"
    assert bot_player_name(with_think("hard", 0.5)) == "hard-bot"
    assert bot_player_name("hard") == "hard-bot"
    assert bot_player_name("search:fast") == "search:fast-bot"  # not a level: as given


def test_a_bot_level_is_taken_whatever_its_case() -> None:
    """``--bot Medium`` plays the medium level (a capital is no other bot); an unknown
    name is still one line naming the choices."""
    from truc_p2p.cli._common import bot_name

    assert bot_name("Medium") == "medium"
    assert bot_name("CFR:Fast") == "cfr:fast"
    with pytest.raises(argparse.ArgumentTypeError, match="unknown bot 'Nobody'"):
        bot_name("Nobody")


def test_games_lists_from_the_old_folder_only_the_games_you_played(tmp_path: Path) -> None:
    """``./games`` holds what other programs wrote there too (the demo's bots, a host's
    games): a game is listed only when its owner is this person's key, or it is a game
    of ``play`` against a bot."""
    from types import SimpleNamespace

    from truc_p2p.cli._games import _yours
    from truc_p2p.protocol._verify_report import PlayerInfo, VerifyReport

    players = (
        PlayerInfo(name="alice", fingerprint="a" * 64),
        PlayerInfo(name="bob", fingerprint="b" * 64),
    )
    report = VerifyReport(valid=True, messages=0, players=players)

    def game(owner: Player | None, bot: str | None = None) -> Any:
        return SimpleNamespace(owner=owner, report=report, bot=bot)

    assert _yours(game(Player.P1), "b" * 64)  # bob's own transcript
    assert not _yours(game(Player.P0), "b" * 64)  # alice's transcript of the game with bob
    assert not _yours(game(None), "b" * 64)  # the demo's bots: nobody is "you"
    assert not _yours(game(Player.P1), None)  # no key yet: no network game is yours
    assert _yours(game(Player.P0, bot="medium"), None)  # play against a bot


def test_the_demo_writes_apart_from_your_games(tmp_path: Path) -> None:
    from truc_p2p.cli import main

    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp_path)
        assert main(["demo", "--quiet", "--in-memory", "--seed", "3"]) == 0
    assert not (tmp_path / "games").exists()
    assert list((tmp_path / "demo-games").glob("*.truc"))


def test_the_replay_header_counts_the_hands_it_steps_through(tmp_path: Path) -> None:
    """A game resigned between two hands states one hand more than the replay can show
    (the next hand had started, wire.md 8.1): the header said "10 hands played" above
    "hand 1 of 9"."""
    import dataclasses

    from truc_p2p.cli import main
    from truc_p2p.history._record import read_game
    from truc_p2p.history._replay_steps import build_replay

    assert main(["demo", "--quiet", "--in-memory", "--seed", "2", "--out", str(tmp_path)]) == 0
    game = read_game(next(tmp_path.glob("*.truc")))
    started = dataclasses.replace(game.report, hands=game.report.hands + 1)
    replay = build_replay(dataclasses.replace(game, report=started))
    played = f"{replay.hands} hands played"
    assert replay.hands == game.report.hands and played in replay.header


def test_resume_waits_briefly_for_a_game_stopped_long_ago(tmp_path: Path) -> None:
    """Issue 43: ``resume`` waited the whole grace (2 minutes) for a game the host had
    ended long ago; a game stopped longer ago than the opponent waits gets a short try."""
    import os
    import time

    from truc_p2p.cli._resume import STALE_WAIT, _stale_wait

    path = tmp_path / "game.truc"
    path.write_bytes(b"")
    assert _stale_wait(path, 120.0) is None  # just stopped: the opponent still waits
    hour_ago = time.time() - 3600
    os.utime(path, (hour_ago, hour_ago))
    assert _stale_wait(path, 120.0) == STALE_WAIT < 120.0
    assert _stale_wait(path, 7200.0) is None  # a long grace: it may still wait
    assert _stale_wait(tmp_path / "gone.truc", 120.0) is None
