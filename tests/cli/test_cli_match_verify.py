"""``truc-p2p verify --match`` checks every field of a match record against the
transcripts (wire.md 4.1, record.md): each game's winner, first dealer and the
match id, strict JSON integers, and no game of the match played twice.  The games
are played in memory (two sessions, real signatures), so the test takes a second."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.history import add_game

from truc_p2p.bots import make_bot
from truc_p2p.crypto import SigningKey
from truc_p2p.history._match import MatchError, MatchRecord, verify_match
from truc_p2p.memory_pair import run_pair
from truc_p2p.protocol import Series, Session, SessionOptions
from truc_p2p.rules import Player, Ruleset
from truc_p2p.transcript import TranscriptWriter

#: Chosen so that the match goes to three games (2 – 1): every forgery below changes it.
SALT = 0
KEYS = tuple(
    SigningKey.from_bytes(hashlib.sha256(f"match-verify/{p}".encode()).digest()) for p in (0, 1)
)


def _play(folder: Path, series: Series, tag: str) -> Path:
    """One game between the two fixed keys; its joiner-side transcript."""
    path = folder / f"game-{tag}.truc"
    writer = TranscriptWriter(path, sync="never")
    sessions = {
        p: Session(
            identity=KEYS[p],
            role=p,
            secret=hashlib.sha256(f"{tag}/{int(p)}".encode()).digest(),
            record=writer.append if p is Player.P0 else None,
            # the games (hence the hellos) this test was written for
            options=SessionOptions(
                ruleset=Ruleset(target=2),
                name=("bob", "ann")[p],
                series=series or Series(),
                early_redeal=False,
            ),
        )
        for p in Player
    }
    seed = int.from_bytes(hashlib.sha256(f"{SALT}/{tag}".encode()).digest()[:4], "big")
    run_pair(sessions, {p: make_bot("random", seed + int(p)) for p in Player})
    writer.close()
    return path


def _match(folder: Path) -> tuple[Path, dict[str, Any]]:
    record = MatchRecord(games=3, folder=folder)
    while not record.over:
        add_game(record, _play(folder, record.series(), f"g{len(record.played) + 1}"))
    path = record.write()
    assert path is not None
    return path, json.loads(path.read_text())


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One honest match, played once for the module."""
    folder = tmp_path_factory.mktemp("match")
    _match(folder)
    return folder


def _copy(played: Path, to: Path) -> tuple[Path, dict[str, Any]]:
    for file in played.iterdir():
        (to / file.name).write_bytes(file.read_bytes())
    path = next(to.glob("match-*.json"))
    return path, json.loads(path.read_text())


def _forged(path: Path, record: dict[str, Any]) -> Path:
    forged = path.with_name("forged.json")
    forged.write_text(json.dumps(record))
    return forged


def test_an_honest_record_verifies(tmp_path: Path, played: Path) -> None:
    path, record = _copy(played, tmp_path)
    report = verify_match(path)
    assert list(report.wins) == record["wins"] and report.winner == record["winner"]


def _flip(value: int) -> int:
    return 1 - value


@pytest.mark.parametrize(
    ("what", "forge", "why"),
    [
        ("wins as true", lambda r: {**r, "wins": [w if w != 1 else True for w in r["wins"]]},
         "result"),
        ("wins as floats", lambda r: {**r, "wins": [float(w) for w in r["wins"]]}, "result"),
        ("winner as a bool", lambda r: {**r, "winner": bool(r["winner"])}, "result"),
        ("winner as a float", lambda r: {**r, "winner": float(r["winner"])}, "result"),
        ("to_win as a float", lambda r: {**r, "to_win": 2.0}, "result"),
        ("a game's winner", lambda r: {**r, "played": [
            {**r["played"][0], "winner": _flip(r["played"][0]["winner"])}, *r["played"][1:]]},
         "game 1: the record's winner"),
        ("a game's winner as a float", lambda r: {**r, "played": [
            {**r["played"][0], "winner": float(r["played"][0]["winner"])}, *r["played"][1:]]},
         "game 1: the record's winner"),
        ("a game's first dealer", lambda r: {**r, "played": [
            {**r["played"][0], "first_dealer": _flip(r["played"][0]["first_dealer"])},
            *r["played"][1:]]}, "game 1: the record's first dealer"),
        ("a game's first dealer as a bool", lambda r: {**r, "played": [
            *r["played"][:1], {**r["played"][1],
                               "first_dealer": bool(r["played"][1]["first_dealer"])},
            *r["played"][2:]]}, "game 2: the record's first dealer"),
        ("a foreign match id", lambda r: {**r, "match_id": "ab" * 32}, "match id"),
        ("the match id of its second game", lambda r: {**r, "match_id": r["played"][1]["game_id"]},
         "match id"),
    ],
)  # fmt: skip
def test_a_record_that_says_other_than_its_transcripts_is_rejected(
    tmp_path: Path, played: Path, what: str, forge: Any, why: str
) -> None:
    path, record = _copy(played, tmp_path)
    assert sorted(record["wins"]) == [1, 2] and len(record["played"]) == 3
    with pytest.raises(MatchError, match=why):
        verify_match(_forged(path, forge(record)))


def test_a_replayed_game_is_rejected_whichever_the_record_lists(
    tmp_path: Path, played: Path
) -> None:
    """Game 2 played again after the same game 1 (the loser tried again): a record
    listing either game 2 is rejected, since the other one lies beside it."""
    path, record = _copy(played, tmp_path)
    first = record["played"][0]
    again = Series(
        match=3, prev=bytes.fromhex(first["game_id"]), dealer=Player(first["first_dealer"]).other
    )
    replay = _play(tmp_path, again, "g2-again")
    with pytest.raises(MatchError, match=r"game 2 was played twice: game-g2-again\.truc"):
        verify_match(path)
    # the record of the replay (a new game 2, then the games after it) is rejected too
    other = MatchRecord(games=3, folder=tmp_path / "other")
    (tmp_path / "other").mkdir()
    for entry in record["played"][:1]:
        (tmp_path / "other" / entry["transcript"]).write_bytes(
            (tmp_path / entry["transcript"]).read_bytes()
        )
        add_game(other, tmp_path / "other" / entry["transcript"])
    (tmp_path / "other" / replay.name).write_bytes(replay.read_bytes())
    add_game(other, tmp_path / "other" / replay.name)
    (tmp_path / "other" / "game-g2.truc").write_bytes((tmp_path / "game-g2.truc").read_bytes())
    while not other.over:
        add_game(other, _play(tmp_path / "other", other.series(), f"o{len(other.played) + 1}"))
    replayed_record = other.write()
    assert replayed_record is not None
    with pytest.raises(MatchError, match=r"game 2 was played twice: game-g2\.truc"):
        verify_match(replayed_record)
    # without the other game 2 beside it, each record verifies on its own
    (tmp_path / "other" / "game-g2.truc").unlink()
    assert verify_match(replayed_record).played == len(other.played)
