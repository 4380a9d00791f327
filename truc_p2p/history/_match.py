"""Linked games: rematches and matches (*partie liée*, rules.md section 9).

Theory of operation.  Every game after the first of a series names the game
it follows in its hello (``prev``, wire.md section 4.1) and its first dealer
(``dealer``: the player who did not deal first in the previous game); a match
also names its length (``match``: N).  :class:`Series` tracks a running series
on one side: the wins, the games played and the match record file
``match-<id>.json`` (the match id is the first game's id) beside the
transcripts.  :func:`verify_match` checks such a record against the
transcripts it names, trusting nothing in the record it can check itself.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from truc_p2p.i18n import N_, _, ngettext
from truc_p2p.protocol import (
    RemoteProtocolError,
    Series,
    VerifyReport,
    decode_envelope,
    series_of,
    verify_transcript,
)
from truc_p2p.rules import Player
from truc_p2p.transcript import read_transcript, verify_transcript_file

__all__ = [
    "MATCH_FORMAT",
    "MatchError",
    "MatchRecord",
    "MatchReport",
    "to_win",
    "verify_match",
]

#: The ``format`` field of a match record (record.md section "Match records").
MATCH_FORMAT = "truc-p2p match 1"


def to_win(games: int) -> int:
    """Games a player must win to win a match of ``games``: ceil(games / 2)."""
    return (games + 1) // 2


class MatchError(ValueError):
    """A match record that does not hold: ``str()`` is the English sentence (``--json``),
    :meth:`said` the same one in the language in use."""

    def __init__(self, message: str, /, **values: Any) -> None:
        super().__init__(message.format(**values))
        self.message = message
        self.values = values

    def said(self) -> str:
        """The reason in the language in use."""
        return _(self.message, **self.values)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class MatchRecord:
    """One side's view of a series of linked games (a match when ``games`` > 1)."""

    games: int
    folder: Path
    wins: dict[Player, int] = field(default_factory=lambda: {Player.P0: 0, Player.P1: 0})
    played: list[dict[str, Any]] = field(default_factory=list)
    players: list[dict[str, str]] = field(default_factory=list)
    #: the series of the next game (``None`` before the first game: the coins draw)
    after: Series | None = None
    #: the player who left the match by resigning its last game (the match is over
    #: without a winner of ⌈N/2⌉ games; ``None``: nobody left)
    left: Player | None = None

    @property
    def is_match(self) -> bool:
        return self.games > 1

    @property
    def match_id(self) -> str | None:
        return self.played[0]["game_id"] if self.played else None

    @property
    def winner(self) -> Player | None:
        for p in Player:
            if self.is_match and self.wins[p] >= to_win(self.games):
                return p
        return None

    @property
    def over(self) -> bool:
        """A match ends when a player has won ceil(N/2) games, or left it."""
        return self.winner is not None or self.left is not None

    @property
    def path(self) -> Path | None:
        match_id = self.match_id
        if not self.is_match or match_id is None:
            return None
        return self.folder / f"match-{match_id[:16]}.json"

    def series(self) -> Series:
        """The hello options of the next game."""
        if self.after is None:
            return Series(match=self.games)
        return self.after

    def followed(self) -> frozenset[bytes]:
        """The games of the match already followed by another (all but the last): a
        hello naming one as ``prev`` would play a game of the match again."""
        return frozenset(bytes.fromhex(g["game_id"]) for g in self.played[:-1])

    def add(
        self,
        *,
        game_id: bytes,
        first_dealer: Player,
        winner: Player | None,
        transcript: Path | None,
        names: tuple[str, str],
        fingerprints: tuple[str, str],
    ) -> None:
        """Count a finished game and set up the next one's series."""
        if winner is not None:
            self.wins[winner] += 1
        if not self.players:
            self.players = [{"name": names[i], "fingerprint": fingerprints[i]} for i in range(2)]
        entry: dict[str, Any] = {
            "game_id": game_id.hex(),
            "first_dealer": int(first_dealer),
            "winner": int(winner) if winner is not None else None,
            **({"left": int(self.left)} if self.left is not None else {}),
        }
        if transcript is not None:
            entry["transcript"] = transcript.name
            entry["sha256"] = _sha256(transcript)
        self.played.append(entry)
        self.after = Series(match=self.games, prev=game_id, dealer=first_dealer.other)

    @classmethod
    def from_json(cls, data: dict[str, Any], folder: Path) -> MatchRecord:
        """The record as :meth:`to_json` wrote it (``ValueError`` when it is not one)."""
        try:
            games = int(data["games"])
            wins = data["wins"]
            record = cls(
                games=games,
                folder=folder,
                wins={Player.P0: int(wins[0]), Player.P1: int(wins[1])},
                played=[dict(g) for g in data["played"]],
                players=[dict(p) for p in data["players"]],
            )
            if data.get("left") is not None:
                record.left = Player(int(data["left"]))
            if record.played:
                last = record.played[-1]
                record.after = Series(
                    match=games,
                    prev=bytes.fromhex(last["game_id"]),
                    dealer=Player(int(last["first_dealer"])).other,
                )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ValueError(f"bad match state: {exc}") from None
        return record

    def to_json(self) -> dict[str, Any]:
        winner = self.winner
        return {
            "format": MATCH_FORMAT,
            "match_id": self.match_id,
            "games": self.games,
            "to_win": to_win(self.games),
            "players": self.players,
            "played": self.played,
            "wins": [self.wins[Player.P0], self.wins[Player.P1]],
            "winner": int(winner) if winner is not None else None,
            **({"left": int(self.left)} if self.left is not None else {}),
        }

    def write(self) -> Path | None:
        """Write (or rewrite) the match record file; its path, ``None`` outside a match."""
        path = self.path
        if path is None:
            return None
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")
        tmp.replace(path)
        return path


@dataclass(frozen=True)
class MatchReport:
    """What :func:`verify_match` established."""

    games: int
    played: int
    wins: tuple[int, int]
    winner: int | None
    names: tuple[str, str]
    fingerprints: tuple[str, str]
    #: the seat of the player who resigned its last game and left the match
    left: int | None = None

    @property
    def decided(self) -> int | None:
        """Who won the match: ⌈N/2⌉ games, or the opponent of the one who left it."""
        if self.winner is not None:
            return self.winner
        return None if self.left is None else 1 - self.left

    def said(self) -> str:
        """:meth:`headline` in the language in use (the JSON keeps the English)."""
        values = {
            "first": self.names[0],
            "first_wins": self.wins[0],
            "second": self.names[1],
            "second_wins": self.wins[1],
        }
        if self.decided is None:
            return ngettext(
                "match of {games} games not finished: {first} {first_wins} – {second} "
                "{second_wins} after {n} game",
                "match of {games} games not finished: {first} {first_wins} – {second} "
                "{second_wins} after {n} games",
                self.played,
                games=self.games,
                **values,
            )
        return _(
            "match of {games} games won by {winner}, {first} {first_wins} – {second} {second_wins}",
            games=self.games,
            winner=self.names[self.decided],
            **values,
        )

    def headline(self) -> str:
        if self.decided is None:
            return (
                f"match of {self.games} games not finished: {self.names[0]} {self.wins[0]} – "
                f"{self.names[1]} {self.wins[1]} after {self.played} games"
            )
        return (
            f"match of {self.games} games won by {self.names[self.decided]}, "
            f"{self.names[0]} {self.wins[0]} – {self.names[1]} {self.wins[1]}"
        )


def _hello_series(envelopes: list[bytes]) -> Series | None:
    env = decode_envelope(envelopes[0])
    options = env.payload.get("options")
    return series_of(options) if isinstance(options, dict) else None


def _same_int(value: object, expected: int | None) -> bool:
    """``value`` is the JSON integer ``expected`` (or null for ``None``): ``true`` is not
    1 and ``1.0`` is not 1 (a record is checked, not coerced)."""
    if expected is None:
        return value is None
    return type(value) is int and value == expected


def _no_replayed_game(
    folder: Path,
    places: list[tuple[int, bytes, str]],
    fingerprints: tuple[str, str],
    listed: set[str],
) -> None:
    """:class:`MatchError` if a transcript beside the record, between the same two keys
    in the same seats, started a game at a place of the match that the record fills
    with another game: that place was played twice (wire.md 4.1)."""
    wanted = {prev: (no, game_id) for no, prev, game_id in places}
    if not wanted:
        return
    for file in sorted(folder.glob("*.truc")):
        if file.name in listed:
            continue
        try:
            envelopes = read_transcript(file)
            linked = _hello_series(envelopes) if envelopes else None
        except (OSError, ValueError, RemoteProtocolError):
            continue
        if linked is None or linked.prev not in wanted:
            continue
        no, game_id = wanted[linked.prev]
        report = verify_transcript(envelopes)
        fps = tuple(p.fingerprint for p in report.players)
        if report.game_id in (None, game_id) or report.first_dealer is None:
            continue  # the same game, or one that never started
        if fps != fingerprints:
            continue
        raise MatchError(
            N_(
                "game {no} was played twice: {name} beside the record is another game "
                "after the same game (a replayed game of the match)"
            ),
            no=no,
            name=file.name,
        )


def _read_record(path: Path) -> tuple[dict[str, Any], int, list[Any]]:
    """The match record at ``path``, its match length and its list of games played."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise MatchError(N_("cannot read the match record: {reason}"), reason=exc) from None
    if not isinstance(record, dict) or record.get("format") != MATCH_FORMAT:
        raise MatchError(
            N_("not a match record (format {format} expected)"), format=repr(MATCH_FORMAT)
        )
    games = record.get("games")
    played = record.get("played")
    if type(games) is not int or not 2 <= games <= 99 or not isinstance(played, list):
        raise MatchError(N_("the record names no match length or no games"))
    if not played:
        raise MatchError(N_("the record names no games"))
    return record, games, played


def _checked_game(
    path: Path, no: int, entry: Any, seen: set[str]
) -> tuple[VerifyReport, list[bytes]]:
    """Game ``no`` of the record at ``path`` (its ``entry``): the transcript read, its
    hash the entry's, verified, not one of the games ``seen`` already (its id is
    added), and the entry's game id, first dealer and winner the transcript's."""
    if not isinstance(entry, dict) or not isinstance(entry.get("transcript"), str):
        raise MatchError(N_("game {no}: no transcript named"), no=no)
    name = Path(entry["transcript"]).name
    file = path.parent / name
    try:
        data = file.read_bytes()
        scan, report = verify_transcript_file(file, torn=False)
    except (OSError, ValueError) as exc:
        raise MatchError(
            N_("game {no}: cannot read {name}: {reason}"), no=no, name=name, reason=exc
        ) from None
    if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
        raise MatchError(
            N_("game {no}: {name} is not the transcript the record names (hash)"),
            no=no,
            name=name,
        )
    if not report.valid:
        raise MatchError(
            N_("game {no}: {name} does not verify: {reason}"),
            no=no,
            name=name,
            reason=report.error or report.status,
        )
    assert report.game_id is not None
    if report.game_id in seen:
        raise MatchError(
            N_("game {no}: the game {game}… is in the match twice"),
            no=no,
            game=report.game_id[:16],
        )
    seen.add(report.game_id)
    if entry.get("game_id") != report.game_id:
        raise MatchError(N_("game {no}: the record's game id is not the transcript's"), no=no)
    if not _same_int(entry.get("first_dealer"), report.first_dealer):
        raise MatchError(N_("game {no}: the record's first dealer is not the transcript's"), no=no)
    if not _same_int(entry.get("winner"), report.winner):
        raise MatchError(N_("game {no}: the record's winner is not the transcript's"), no=no)
    return report, scan.envelopes


def verify_match(path: Path) -> MatchReport:
    """Check a match record and every transcript it names; :class:`MatchError` if any
    check fails.  Checked from the transcripts, not the record: each game verifies
    and matches the record's hash, both players are the same keys in the same seats
    in every game, each game's hello names the match length and the previous game's
    id (the first names none), the first dealers alternate, each entry's game id,
    first dealer and winner and the record's match id, wins and winner are the
    games' (JSON integers: ``true`` and ``1.0`` are not 1), and no transcript beside
    the record started another game at one of its places (a replayed game)."""
    record, games, played = _read_record(path)
    prev: bytes | None = None
    prev_dealer: int | None = None
    wins = [0, 0]
    fingerprints: tuple[str, str] | None = None
    names: tuple[str, str] = ("player 0", "player 1")
    seen: set[str] = set()
    # (game number, the game it follows, its id): the places a replay would take again
    places: list[tuple[int, bytes, str]] = []
    for no, entry in enumerate(played, 1):
        report, envelopes = _checked_game(path, no, entry, seen)
        assert report.game_id is not None
        fps = (report.players[0].fingerprint, report.players[1].fingerprint)
        if fingerprints is None:
            fingerprints = fps
            names = (report.players[0].name, report.players[1].name)
        elif fps != fingerprints:
            raise MatchError(
                N_("game {no}: not played by the same two players in the same seats"), no=no
            )
        linked = _hello_series(envelopes)
        if linked is None or linked.match != games:
            raise MatchError(
                N_("game {no}: its hello does not name a match of {games} games"),
                no=no,
                games=games,
            )
        if linked.prev != prev:
            raise MatchError(
                N_(
                    "game {no}: its hello does not follow the previous game of the record "
                    "(a game out of order, or of another match)"
                ),
                no=no,
            )
        if prev_dealer is not None and report.first_dealer != 1 - prev_dealer:
            raise MatchError(N_("game {no}: the first dealer does not alternate"), no=no)
        if max(wins) >= to_win(games):
            raise MatchError(N_("game {no}: played after the match was won"), no=no)
        assert report.winner is not None and report.first_dealer is not None
        if prev is not None:
            places.append((no, prev, report.game_id))
        wins[report.winner] += 1
        prev = bytes.fromhex(report.game_id)
        prev_dealer = report.first_dealer
    assert fingerprints is not None
    left = record.get("left")
    if left is not None and (
        type(left) is not int or left not in (0, 1) or report.resigned_by != left
    ):
        raise MatchError(N_("the record says a player left the match, but its last game says not"))
    if record.get("match_id") != played[0].get("game_id"):
        raise MatchError(N_("the record's match id is not its first game's id"))
    winner = next((p for p in (0, 1) if wins[p] >= to_win(games)), None)
    claimed = record.get("wins")
    if (
        not _same_int(record.get("winner"), winner)
        or not isinstance(claimed, list)
        or len(claimed) != 2
        or not all(_same_int(c, w) for c, w in zip(claimed, wins, strict=True))
        or not _same_int(record.get("to_win"), to_win(games))
    ):
        raise MatchError(
            N_("the record's result is not the games': they give {wins}"), wins=str(wins)
        )
    listed = {Path(g["transcript"]).name for g in played}
    _no_replayed_game(path.parent, places, fingerprints, listed)
    expected = [{"name": names[i], "fingerprint": fingerprints[i]} for i in (0, 1)]
    if record.get("players") != expected:
        raise MatchError(N_("the record's players are not those of the games"))
    return MatchReport(
        games=games,
        played=len(played),
        wins=(wins[0], wins[1]),
        winner=winner,
        names=names,
        fingerprints=fingerprints,
        left=left,
    )
