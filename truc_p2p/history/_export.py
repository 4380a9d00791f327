"""A game as a short plain-text record, like PGN for chess (``truc-p2p export``).

The format is ``protocol_spec/record.md``: tag pairs (``[Key "value"]``),
then one line per hand (its dealer, every move in order with the end of
each trick, and the hand's result), then the final result.  Its words are
fixed English tokens of the format, never translated.  Only played cards
appear.  The record is for reading and sharing; the signed transcript
stays the proof (its game id is in the record).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from truc_p2p.history._record import GameFile, public_moves
from truc_p2p.rules import ActionKind, GameEnded, Player, RoundEnded, TrickEnded

__all__ = ["FORMAT", "ParsedRecord", "export_record", "parse_record"]

FORMAT = "truc-p2p-record 1"


def _quote(value: object) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def _seat(player: Player | None) -> str:
    return "-" if player is None else str(int(player))


def export_record(record: GameFile) -> str:
    """The record of ``record``'s game (``protocol_spec/record.md``)."""
    report = record.report
    tags: list[tuple[str, object]] = [("Format", FORMAT), ("GameId", report.game_id or "?")]
    tags.append(("Date", record.when.strftime("%Y-%m-%d %H:%M")))
    for p, info in enumerate(report.players):
        tags += [(f"Player{p}", info.name), (f"Fingerprint{p}", info.fingerprint)]
    if report.ruleset:
        tags.append(("Rules", " ".join(f"{k}={v}" for k, v in report.ruleset.items())))
    tags.append(("Deck", report.deck or "?"))
    if report.first_dealer is not None:
        tags.append(("FirstDealer", report.first_dealer))
    tags.append(("Hands", report.hands))
    finished = record.finished and report.winner is not None
    score = report.score or (0, 0)
    tags.append(("Result", f"{report.winner} {report.reason}" if finished else "*"))
    tags.append(("Score", f"{score[0]}-{score[1]}"))
    tags.append(("Verified", "yes" if record.verifies else f"no {report.error_code or '?'}"))
    lines = [f"[{key} {_quote(value)}]" for key, value in tags]
    lines.append("")
    hand: list[str] | None = None
    for move in public_moves(record):
        if move.dealt and not move.redeal:
            if hand is not None:
                lines.append(" ".join(hand))
            hand = [f"{move.hand + 1}.", f"d{int(move.before.dealer)}"]
        assert hand is not None
        action = move.action
        token = str(action.card) if action.kind is ActionKind.PLAY else str(action)
        hand.append(f"{int(move.player)}:{token}")
        for event in move.events:
            if isinstance(event, TrickEnded):
                hand.append(f"/{_seat(event.winner)}")
            elif isinstance(event, RoundEnded):
                hand.append(
                    f"=> {_seat(event.winner)} +{event.points} {event.reason.value} "
                    f"{event.scores[0]}-{event.scores[1]}"
                )
            elif isinstance(event, GameEnded):
                pass
    if hand is not None:
        lines.append(" ".join(hand))
    if finished:
        lines.append(f"result {report.winner} {report.reason} {score[0]}-{score[1]}")
    else:
        # a tampered finished game: only what the verifier accepted is recorded
        why = "unverified" if record.finished else "unfinished"
        lines.append(f"result * {why} {score[0]}-{score[1]}")
    return "\n".join(lines) + "\n"


@dataclass
class ParsedRecord:
    """A record read back (what the tests and other programs need)."""

    tags: dict[str, str] = field(default_factory=dict)
    #: per hand: (dealer, [(seat, token)...], result tokens)
    hands: list[tuple[int, list[tuple[int, str]], list[str]]] = field(default_factory=list)
    result: list[str] = field(default_factory=list)


_TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$')


def parse_record(text: str) -> ParsedRecord:
    """Read a record (``ValueError`` on a line that is none of the format's)."""
    parsed = ParsedRecord()
    for line in text.splitlines():
        if not line.strip():
            continue
        tag = _TAG.match(line)
        if tag:
            parsed.tags[tag.group(1)] = re.sub(r"\\(.)", r"\1", tag.group(2))
            continue
        words = line.split()
        if words[0] == "result":
            parsed.result = words[1:]
            continue
        if not re.fullmatch(r"\d+\.", words[0]) or not re.fullmatch(r"d[01]", words[1]):
            raise ValueError(f"not a record line: {line!r}")
        moves: list[tuple[int, str]] = []
        result: list[str] = []
        rest = words[2:]
        while rest:
            word = rest.pop(0)
            if word == "=>":
                result, rest = rest, []
            elif word.startswith("/"):
                continue
            elif re.fullmatch(r"[01]:\S+", word):
                moves.append((int(word[0]), word[2:]))
            else:
                raise ValueError(f"not a record token: {word!r}")
        parsed.hands.append((int(words[1][1]), moves, result))
    return parsed
