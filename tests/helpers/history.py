"""Games for the history, replay and export tests: real sessions, real transcripts.

:func:`story_game` plays one deterministic game in memory with a redeal in
hand 1, a fold in hand 2 and "my rest" accepted in hand 3 (which decides the
game), writes both players' transcripts and secrets like the commands do,
and keeps the cards each player was really dealt and played.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from truc_p2p.crypto import SigningKey
from truc_p2p.memory_pair import make_pair, run_pair
from truc_p2p.protocol import AnyEvent, CardsDealt, SessionOptions, encode_transcript
from truc_p2p.rules import Acted, Action, ActionKind, Card, Game, Player

if TYPE_CHECKING:
    from truc_p2p.history._match import MatchRecord

P0, P1 = Player.P0, Player.P1


class StoryBot:
    """Redeal asked and accepted in hand 1, a fold in hand 2, "my rest" from hand 3
    on, every request accepted, otherwise the lowest card."""

    name = "story"

    def choose(self, game: Game) -> Action:
        legal = list(game.legal_actions())
        kinds = {a.kind: a for a in legal}
        hand = game.round_no
        if ActionKind.ACCEPT_REDEAL in kinds:
            return kinds[ActionKind.ACCEPT_REDEAL]
        if hand == 0 and ActionKind.ASK_REDEAL in kinds:
            return kinds[ActionKind.ASK_REDEAL]
        if hand == 1 and ActionKind.FOLD in kinds:
            return kinds[ActionKind.FOLD]
        if hand >= 2 and ActionKind.REST in kinds:
            return kinds[ActionKind.REST]
        if ActionKind.ACCEPT in kinds:
            return kinds[ActionKind.ACCEPT]
        plays = [a for a in legal if a.kind is ActionKind.PLAY]
        return min(plays, key=lambda a: a.card.index if a.card else 0) if plays else legal[0]


def _digest(tag: str) -> bytes:
    return hashlib.sha256(b"truc-p2p history tests/" + tag.encode()).digest()


def key(name: str) -> SigningKey:
    return SigningKey.from_bytes(_digest("key/" + name))


@dataclass
class StoryGame:
    paths: dict[Player, Path]
    records: dict[Player, list[bytes]]
    #: (0-based hand, player) -> the cards dealt to the player (a redeal's too)
    dealt: dict[tuple[int, Player], set[Card]] = field(default_factory=dict)
    #: (0-based hand, player) -> the cards the player played
    played: dict[tuple[int, Player], set[Card]] = field(default_factory=dict)


def story_game(
    folders: dict[Player, Path],
    *,
    deck: str = "v2",
    stamp: str = "20261201-100000",
    names: tuple[str, str] = ("alice", "bob"),
    tag: str = "story",
) -> StoryGame:
    """Play the story game; write ``game-<stamp>-<tag>-<name>.truc`` (and its
    ``.secret``) for each player into ``folders[player]``."""
    records: dict[Player, list[bytes]] = {P0: [], P1: []}
    secrets = (_digest(f"secret/{tag}/0"), _digest(f"secret/{tag}/1"))
    sessions = make_pair(
        SessionOptions(deck=deck),
        names=names,
        identities=(key(names[0]), key(names[1])),
        secrets=secrets,
        records=(records[P0].append, records[P1].append),
    )
    dealt: dict[tuple[int, Player], set[Card]] = {}
    played: dict[tuple[int, Player], set[Card]] = {}
    hand = {P0: 0, P1: 0}

    def hook(me: Player, event: AnyEvent) -> None:
        if isinstance(event, CardsDealt):
            hand[me] = event.round_no
            dealt.setdefault((event.round_no, me), set()).update(event.cards)
        elif isinstance(event, Acted) and event.action.card is not None and me is P0:
            played.setdefault((hand[me], event.player), set()).add(event.action.card)

    run_pair(sessions, {P0: StoryBot(), P1: StoryBot()}, on_event=hook)
    paths = {}
    for p in (P0, P1):
        folders[p].mkdir(parents=True, exist_ok=True)
        path = folders[p] / f"game-{stamp}-{tag}-{names[p]}.truc"
        path.write_bytes(encode_transcript(records[p]))
        path.with_name(path.name + ".secret").write_bytes(secrets[p])
        paths[p] = path
    return StoryGame(paths=paths, records=records, dealt=dealt, played=played)


def add_game(record: MatchRecord, path: Path, *, names: tuple[str, str] | None = None) -> None:
    """Add the finished game of ``path`` to the match ``record``, as its verifier reads it
    (``names``: the players' names, by default the ones in its hellos)."""
    from truc_p2p.protocol import verify_transcript
    from truc_p2p.transcript import read_transcript

    report = verify_transcript(read_transcript(path))
    assert report.valid and report.game_id and report.first_dealer is not None
    record.add(
        game_id=bytes.fromhex(report.game_id),
        first_dealer=Player(report.first_dealer),
        winner=Player(report.winner) if report.winner is not None else None,
        transcript=path,
        names=names or (report.players[0].name, report.players[1].name),
        fingerprints=(report.players[0].fingerprint, report.players[1].fingerprint),
    )


def match_games(folder: Path, *, names: tuple[str, str] = ("bob", "ann")) -> Path:
    """A best-of-three match between two fixed keys, played in memory: player 0's
    transcripts (with their secrets) and the match record in ``folder``; the record."""
    from truc_p2p.bots import make_bot
    from truc_p2p.history._match import MatchRecord
    from truc_p2p.protocol import Series, Session
    from truc_p2p.rules import Ruleset
    from truc_p2p.transcript import TranscriptWriter

    folder.mkdir(parents=True, exist_ok=True)
    keys = (key("match/" + names[0]), key("match/" + names[1]))
    record = MatchRecord(games=3, folder=folder)

    def play(series: Series, number: int) -> Path:
        path = folder / f"game-2026120{number}-120000-m{number}-{names[0]}.truc"
        secret = _digest(f"match/{number}/0")
        writer = TranscriptWriter(path, sync="never")
        sessions = {
            p: Session(
                identity=keys[p],
                role=p,
                secret=secret if p is P0 else _digest(f"match/{number}/1"),
                record=writer.append if p is P0 else None,
                options=SessionOptions(
                    ruleset=Ruleset(target=2), name=names[p], series=series or Series()
                ),
            )
            for p in (P0, P1)
        }
        run_pair(sessions, {p: make_bot("random", 7 * number + int(p)) for p in (P0, P1)})
        writer.close()
        path.with_name(path.name + ".secret").write_bytes(secret)
        return path

    while not record.over:
        add_game(record, play(record.series(), len(record.played) + 1), names=names)
    written = record.write()
    assert written is not None
    return written
