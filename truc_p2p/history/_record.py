"""One game file, read for ``games``, ``replay`` and ``export``.

Everything about the game comes from the verifier (:func:`verify_transcript`
and its :class:`VerifyReport`, including the moves its referee accepted) and
from the transcript reader; the few things a transcript cannot say come
from the files the commands write beside it: ``FILE.secret`` or
``FILE.meta.json`` tell whose transcript it is (the owner is "you"), and a
``.meta.json`` beside an unfinished game makes it resumable.

:func:`public_moves` turns the report's moves into what a spectator saw:
a rules engine that knows no hand replays them, so only cards that were
played can ever be shown, on any deck version.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from truc_p2p.protocol import (
    TranscriptFormatError,
    VerifyReport,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.protocol._values import nonce_is_from
from truc_p2p.rules import Action, Event, Game, Phase, Player, RulesError, Ruleset
from truc_p2p.transcript import verify_transcript_file

__all__ = [
    "Checked",
    "GameFile",
    "Move",
    "Status",
    "UnreadableGame",
    "public_moves",
    "read_game",
]

Status = Literal["finished", "unfinished", "resumable"]
#: What a game's "verified" column says (:attr:`GameFile.checked`).
Checked = Literal["yes", "so far", "no"]

_DATE = re.compile(r"game-(\d{8}-\d{6})-")
_DEAL_FIRST = frozenset({"deck1", "v2deck1"})
_DEAL_LAST = frozenset({"deck4", "v2deck2"})


class UnreadableGame(Exception):
    """The file cannot be read or is not a transcript; ``reason`` says why in a few words."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True, kw_only=True)
class GameFile:
    """A transcript file, verified, with what the files beside it add."""

    path: Path
    report: VerifyReport
    #: (type, sender, payload) of every whole message that decodes, in file order
    messages: tuple[tuple[str, int, dict[str, Any]], ...]
    #: "torn" or "corrupt" when the file does not end with a whole message
    damage: str | None
    #: the player whose transcript this is ("you"), when the files beside it say
    owner: Player | None
    #: a ``.meta.json`` is beside it (``truc-p2p resume`` can continue it)
    has_meta: bool
    #: when the game started: from the file name the commands give, else the file's time
    when: datetime
    #: the level of the bot the owner played (``truc-p2p play``; from ``.meta.json``)
    bot: str | None = None

    @property
    def finished(self) -> bool:
        """The game reached its end: the rules engine says who won, or both players
        signed a result (a tampered finished game is finished but does not verify)."""
        results = {sender for kind, sender, _p in self.messages if kind == "result"}
        return self.report.winner is not None or len(results) == 2

    @property
    def abandoned_by(self) -> Player | None:
        """Who left, when the game ends with the other player's ``abort`` ``abandoned``
        (wire.md 13.4): the one who stayed signed it.  Unconfirmed: a transcript
        cannot prove who left, only who said so."""
        if self.finished or not self.messages:
            return None
        kind, sender, payload = self.messages[-1]
        if kind != "abort" or payload.get("reason") != "abandoned" or sender not in (0, 1):
            return None
        return Player(sender).other

    @property
    def status(self) -> Status:
        if self.finished:
            return "finished"
        ended = any(kind == "abort" for kind, _s, _p in self.messages)
        return "resumable" if self.has_meta and not ended else "unfinished"

    @property
    def verifies(self) -> bool:
        return self.report.valid and self.damage is None

    @property
    def checked(self) -> Checked:
        """``"yes"`` for a game that verifies; ``"so far"`` for one that stopped
        before its end (a crash, a lost link, a timeout) whose every message up to
        there checks; ``"no"`` for a broken rule, signature or file."""
        if self.verifies:
            return "yes"
        if self.report.status == "unfinished" and self.damage != "corrupt":
            return "so far"
        return "no"

    @property
    def deck(self) -> str | None:
        return self.report.deck

    def name(self, player: Player) -> str:
        players = self.report.players
        return players[player].name if player < len(players) else "?"

    def names(self) -> dict[Player, str]:
        return {p: self.name(p) for p in Player}

    def ruleset(self) -> Ruleset | None:
        try:
            return Ruleset.from_dict(self.report.ruleset) if self.report.ruleset else None
        except (RulesError, ValueError, TypeError):
            return None

    def action_messages(self) -> list[int]:
        """The number of each message that carries a move, in order (a move rides
        alone or on a deal message: ``act`` or an ``action`` object)."""
        found = []
        for n, (_kind, _sender, payload) in enumerate(self.messages):
            if isinstance(payload.get("act"), str) or isinstance(payload.get("action"), dict):
                found.append(n)
        return found

    def deal_messages(self) -> dict[int, tuple[int, int]]:
        """Hand -> (first, last) message of its deal: ``deck1``..``deck4`` (v1), or
        ``v2deck1`` and ``v2deck2`` (v2, whose proofs those messages carry)."""
        firsts = [n for n, (kind, _s, _p) in enumerate(self.messages) if kind in _DEAL_FIRST]
        lasts = [n for n, (kind, _s, _p) in enumerate(self.messages) if kind in _DEAL_LAST]
        return dict(enumerate(zip(firsts, lasts, strict=False)))

    def reveal_messages(self) -> dict[int, int]:
        """Deck v1: hand -> the message that completed its seeds' reveal (both players')."""
        seen: dict[int, list[int]] = {}
        for n, (kind, _sender, payload) in enumerate(self.messages):
            if kind == "reveal":
                first, seeds = payload.get("first"), payload.get("seeds")
                if isinstance(first, int) and isinstance(seeds, list):
                    for hand in range(first, first + len(seeds)):
                        seen.setdefault(hand, []).append(n)
        return {hand: max(ns) for hand, ns in seen.items() if len(ns) >= 2}


def _secret(path: Path) -> bytes | None:
    try:
        secret = path.with_name(path.name + ".secret").read_bytes()[:33]
    except OSError:
        return None
    return secret if len(secret) == 32 else None


def _owner_by_secret(secret: bytes | None, hellos: list[dict[str, Any]]) -> Player | None:
    """The player whose hello carries the nonce ``secret`` derives (wire.md
    section 9: ``HMAC(secret, "truc-p2p/v1/local/nonce")``)."""
    if secret is None:
        return None
    for seat, hello in enumerate(hellos[:2]):
        nonce = hello.get("nonce")
        if isinstance(nonce, bytes) and nonce_is_from(nonce, secret):
            return Player(seat)
    return None


def _meta(path: Path) -> dict[str, Any] | None:
    try:
        meta = json.loads(path.with_name(path.name + ".meta.json").read_text())
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


#: A command's role in ``.meta.json`` -> its seat (the joiner initiates, as P0).
_ROLE_SEATS = {"join": Player.P0, "play": Player.P0, "host": Player.P1}


def _when(path: Path) -> datetime:
    found = _DATE.match(path.name)
    if found:
        try:
            return datetime.strptime(found.group(1), "%Y%m%d-%H%M%S")
        except ValueError:
            pass
    try:
        return (
            datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).astimezone().replace(tzinfo=None)
        )
    except OSError:
        return datetime.min


def read_game(path: str | os.PathLike[str]) -> GameFile:
    """Read and verify one transcript; :class:`UnreadableGame` when it cannot be read
    or is not a transcript (never anything else for a bad file)."""
    where = Path(path)
    try:
        scan, report = verify_transcript_file(where)
    except OSError as exc:
        raise UnreadableGame(where, exc.strerror or str(exc)) from None
    except (TranscriptFormatError, ValueError) as exc:
        raise UnreadableGame(where, str(exc)) from None
    messages = []
    for raw in scan.envelopes:
        try:
            env = decode_envelope(raw)
        except Exception:  # a damaged message: the report names it
            break
        messages.append((env.type, env.sender, env.payload))
    hellos = [p for kind, _s, p in messages[:2] if kind == "hello"]
    meta = _meta(where)
    secret = _secret(where)
    owner = _owner_by_secret(secret, hellos)
    if owner is not None and not report.valid and report.deck == "v1":
        # Deck v1 opens cards only with the seeds, revealed at the audit: the owner's
        # secret replays a game stopped before it from the owner's view, and the
        # moves (only what was played) come from there.
        assert secret is not None
        mine = verify_transcript(scan.envelopes, local_secret=secret)
        if mine.error_code != "bad-secret" and len(mine.moves) > len(report.moves):
            report = dataclasses.replace(report, moves=mine.moves, first_dealer=mine.first_dealer)
    if owner is None and meta is not None:
        owner = _ROLE_SEATS.get(str(meta.get("role")))
    return GameFile(
        path=where,
        report=report,
        messages=tuple(messages),
        damage=scan.damage,
        owner=owner,
        has_meta=meta is not None,
        when=_when(where),
        bot=_bot_level(meta),
    )


def _bot_level(meta: dict[str, Any] | None) -> str | None:
    """The bot level of a ``play`` game, as its ``.meta.json`` names it."""
    if meta is None or meta.get("role") != "play":
        return None
    level = meta.get("bot")
    return level if isinstance(level, str) and level else None


@dataclass(frozen=True, kw_only=True)
class Move:
    """One move as a spectator saw it."""

    #: 0-based number of the move in the game
    no: int
    #: 0-based hand (a redeal keeps the hand)
    hand: int
    player: Player
    action: Action
    #: the transcript message that carries it (None if it cannot be told)
    message: int | None
    #: the cards of this hand were dealt (again) just before this move
    dealt: bool
    redeal: bool
    #: the engine's events for the move (Acted first, then tricks, hand, game)
    events: tuple[Event, ...]
    #: the spectator's game just before / after the move (copies)
    before: Game
    after: Game


def public_moves(record: GameFile) -> Iterator[Move]:
    """The report's moves replayed by a spectator's engine (no hand known).

    Stops quietly where the spectator cannot follow (nothing in a verified
    transcript does that); a game with no ruleset or no coin has no moves.
    """
    ruleset = record.ruleset()
    first = record.report.first_dealer
    if ruleset is None or first is None:
        return
    game = Game(ruleset, first_dealer=Player(first), spectator=True)
    carriers = record.action_messages()
    if len(carriers) < len(record.report.moves):
        carriers = []
    for no, (seat, action) in enumerate(record.report.moves):
        player = Player(seat)
        dealt = redeal = False
        try:
            if game.phase is Phase.DEAL:
                game.deal({})
                dealt, redeal = True, game.redealt
            before = game.copy()
            events = game.push(action, player=player)
        except RulesError:
            return
        yield Move(
            no=no,
            hand=before.round_no,
            player=player,
            action=action,
            message=carriers[no] if carriers else None,
            dealt=dealt,
            redeal=redeal,
            events=tuple(events),
            before=before,
            after=game.copy(),
        )
