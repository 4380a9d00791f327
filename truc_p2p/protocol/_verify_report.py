"""What the offline verifier reports: :class:`VerifyReport` and its texts."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from truc_p2p.rules import (
    Action,
)

if TYPE_CHECKING:
    pass


__all__ = ["PlayerInfo", "VerifyReport"]


@dataclass(frozen=True, kw_only=True)
class PlayerInfo:
    name: str
    fingerprint: str


@dataclass(frozen=True, kw_only=True)
class VerifyReport:
    """What :func:`verify_transcript` found.  ``valid`` only for a complete game: a
    co-signed result that matches the replay (audited, for deck v1), or a valid signed
    resignation (wire.md section 8).

    ``status`` sorts every transcript three ways: ``"complete"`` (``valid``),
    ``"unfinished"`` (it stops, or a player left without resigning, and every message
    up to there checks) and ``"violation"`` (a message breaks the protocol: the
    error names it); and ``"unknown-feature"`` when the hellos agree on a feature
    this verifier does not know, so it judges nothing but the envelopes (wire.md
    section 11.2).  :meth:`headline` says it in one sentence with the names."""

    valid: bool
    messages: int
    game_id: str | None = None
    players: tuple[PlayerInfo, ...] = ()
    ruleset: dict[str, Any] | None = None
    audit_mode: str | None = None
    hands: int = 0
    score: tuple[int, int] | None = None
    winner: int | None = None
    reason: str | None = None
    audit: str = "not reached"
    error: str | None = None
    error_code: str | None = None
    error_message_no: int | None = None
    ended_by: str | None = None
    #: the player whose session secret was used to replay unrevealed hands
    local_secret_of: int | None = None
    #: the deck version of the game, "v1" or "v2" (None before the hellos)
    deck: str | None = None
    #: cards never played that the transcript discloses: v1's audit reveals the
    #: whole deck of every hand whose two seeds are revealed; v2 never any
    hidden_cards_revealed: int | None = None
    #: the dealer of the first hand (None before the coin was opened)
    first_dealer: int | None = None
    #: every move the replay accepted, in order, as (player, action): a played
    #: card is the card shown, so a spectator engine replays the game from these
    #: alone (``truc-p2p replay``, ``export``); not part of :meth:`to_json`
    moves: tuple[tuple[int, Action], ...] = ()
    #: "complete", "unfinished", "violation" or "unknown-feature"
    status: str = "violation"
    #: the player whose signed resignation ended the game
    resigned_by: int | None = None
    #: the player a violation is proven against (None when it cannot be told)
    culprit: int | None = None
    #: the player whose ``abort`` ends the transcript, and its reason
    aborted_by: int | None = None
    abort_reason: str | None = None
    #: what the hellos use that this verifier does not know (wire.md section 11.2):
    #: a nonce feature bit's number or an option key; status "unknown-feature"
    unknown_features: tuple[int | str, ...] = ()

    def unknown_text(self) -> str:
        """The unknown features in English: "feature 9, option 'zzz'"."""
        return ", ".join(
            f"feature {u}" if isinstance(u, int) else f"option {u!r}" for u in self.unknown_features
        )

    def name(self, player: int | None) -> str:
        """A player's name from the hellos ("player N" before they are known)."""
        if player is None:
            return "nobody"
        if player < len(self.players):
            return self.players[player].name
        return f"player {player}"

    def _score_text(self) -> str:
        if self.score is None:
            return ""
        return f"{self.name(0)} {self.score[0]}, {self.name(1)} {self.score[1]}"

    def _hands_text(self) -> str:
        return f"{self.hands} hand{'' if self.hands == 1 else 's'}"

    def headline(self) -> str:
        """The verdict in one sentence a player understands, with the players' names."""
        both = f"{self.name(0)} and {self.name(1)}"
        if self.status == "complete" and self.resigned_by is not None:
            winner = self.name(1 - self.resigned_by)
            score = f" (score {self._score_text()})" if self.score is not None else ""
            checked = (
                "every move up to the resignation checks"
                if self.score is not None
                else "the hands since the last audit were never audited (a resignation "
                "needs no audit)"
            )
            return (
                f"{self.name(self.resigned_by)} resigned in hand {self.hands}; "
                f"{winner} wins{score}; {checked}."
            )
        if self.status == "complete":
            proven = (
                "every card was proven" if self.deck == "v2" else "the audit checked every card"
            )
            assert self.winner is not None and self.score is not None
            won = f"{self.score[self.winner]}-{self.score[1 - self.winner]}"
            how = _END_WORDS.get(self.reason or "", f" ({self.reason})")
            return (
                f"Fair and complete: {both} each shuffled and {proven}; "
                f"{self.name(self.winner)} won {won}{how} after {self._hands_text()}."
            )
        if self.status == "unfinished":
            where = f" in hand {self.hands}" if self.hands else " before the first deal"
            score = f" at {self._score_text()}" if self.score is not None else ""
            if self.aborted_by is not None:
                why = _ABORT_WORDS.get(self.abort_reason or "", f"({self.abort_reason})")
                stop = f"{self.name(self.aborted_by)} ended the game{where}{score}: {why}"
            elif self.error_code in ("torn", "corrupt"):
                stop = f"the file is cut{where}{score} (a crash or a full disk?)"
            else:
                stop = f"the transcript stops{where}{score} (a lost connection?)"
            checks = (
                "every move up to there checks"
                if self.deck != "v1" or self.local_secret_of is not None
                else "every message up to there is signed and in order, and the hands "
                "since the last audit can only be checked with their seeds (--secret)"
            )
            return f"Unfinished: {stop}; {checks}."
        if self.error_code == "bad-secret":
            return f"Not checked: {self.error}."
        if self.status == "unknown-feature":
            return (
                f"Cannot judge: this game uses {self.unknown_text()}, unknown to this "
                "verifier; every message is signed and in order, and nobody is blamed "
                "(verify it with a build that knows it)."
            )
        where = f"message {self.error_message_no}" if self.error_message_no is not None else ""
        who = f", sent by {self.name(self.culprit)}" if self.culprit is not None else ""
        where = f" at {where}{who}" if where else (f" by {self.name(self.culprit)}" if who else "")
        before = (
            f"the {self.error_message_no} messages before it check, nothing from it on is proven"
            if self.error_message_no is not None
            else "nothing is proven"
        )
        return f"Violation{where}: {self.error} [{self.error_code}]; {before}."

    def to_json(self) -> dict[str, Any]:
        names = [p.name for p in self.players]
        return {
            "valid": self.valid,
            "status": self.status,
            "headline": self.headline(),
            "game_id": self.game_id,
            "players": [{"name": p.name, "fingerprint": p.fingerprint} for p in self.players],
            "names": names,
            "ruleset": self.ruleset,
            "audit_mode": self.audit_mode,
            "messages": self.messages,
            "hands": self.hands,
            "score": list(self.score) if self.score is not None else None,
            "winner": self.winner,
            "winner_name": self.name(self.winner) if self.winner is not None else None,
            "reason": self.reason,
            "resigned_by": self.resigned_by,
            "resigned_by_name": (
                self.name(self.resigned_by) if self.resigned_by is not None else None
            ),
            "audit": self.audit,
            "error": self.error,
            "error_code": self.error_code,
            "error_message": self.error_message_no,
            "culprit": self.culprit,
            "ended_by": self.ended_by,
            "aborted_by": self.aborted_by,
            "abort_reason": self.abort_reason,
            "local_secret_of": self.local_secret_of,
            "deck": self.deck,
            "first_dealer": self.first_dealer,
            "hidden_cards_revealed": self.hidden_cards_revealed,
            "unknown_features": list(self.unknown_features),
        }

    def _deck_line(self) -> str | None:
        """What the deck checks established, never past a violation."""
        if self.deck is None:
            return None
        failed = self.status == "violation"
        upto = (
            f"up to message {self.error_message_no - 1}; message {self.error_message_no} "
            "is where it failed"
            if failed and self.error_message_no
            else "nowhere (see the violation)"
            if failed
            else None
        )
        if self.deck == "v2":
            if upto is not None:
                return f"deck:       v2: shuffles, keys and cards proven {upto}"
            scope = "at its message" if self.status == "complete" else "up to the last message"
            return (
                f"deck:       v2: every shuffle, key and card proven {scope}; "
                f"{self.hidden_cards_revealed} unplayed cards revealed"
            )
        if upto is not None:
            return f"deck:       v1: audit {self.audit}; checked {upto}"
        if self.audit != "passed":
            return f"deck:       v1: audit {self.audit}"
        return (
            "deck:       v1: checked by the seed audit; "
            f"{self.hidden_cards_revealed} unplayed cards revealed by it"
        )

    def summary(self) -> str:
        """A one-screen human summary: the headline, then the details."""
        word = {
            "complete": "VALID",
            "unfinished": "UNFINISHED",
            "unknown-feature": "NOT JUDGED",
        }.get(self.status, "INVALID")
        lines = [self.headline(), f"transcript: {word} ({self.messages} messages)"]
        if self.game_id:
            lines.append(f"game id:    {self.game_id}")
        for i, p in enumerate(self.players):
            lines.append(f"player {i}:   {p.name}  {p.fingerprint}")
        if self.ruleset:
            rules = ", ".join(f"{k}={v}" for k, v in self.ruleset.items())
            checked = (
                "deck v2: no audit needed"
                if self.deck == "v2"
                else f"deck v1, audit every {self.audit_mode}"
            )
            lines.append(f"ruleset:    {rules}; {checked}")
        lines.append(f"hands:      {self.hands}")
        if self.score is not None:
            lines.append(f"score:      {self.score[0]} - {self.score[1]}")
        if self.winner is not None and self.status == "complete":
            lines.append(f"winner:     {self.name(self.winner)} ({self.reason})")
        lines.append(f"audit:      {self.audit}")
        deck = self._deck_line()
        if deck is not None:
            lines.append(deck)
        if self.ended_by:
            who = re.sub(r"^player ([01])", lambda m: self.name(int(m[1])), self.ended_by)
            lines.append(f"ended by:   {who}")
        if self.local_secret_of is not None:
            lines.append(
                f"local key:  {self.name(self.local_secret_of)}'s session secret replayed "
                "its unrevealed hands (only that player can show these findings)"
            )
        if self.error:
            where = (
                f"message {self.error_message_no}: " if self.error_message_no is not None else ""
            )
            label = {"violation": "violation:", "unknown-feature": "not judged:"}.get(
                self.status, "unfinished:"
            )
            lines.append(f"{label:<12}{where}{self.error} [{self.error_code}]")
        return "\n".join(lines)


#: How the headline words the reason a complete game ended (GameEndReason values).
_END_WORDS = {
    "target": "",
    "rest-won": " (a won 'my rest')",
    "rest-refused": " ('my rest' refused)",
}


#: How the headline words the reason of an ``abort`` that ends an unfinished game.
_ABORT_WORDS = {
    "quit": "left without resigning",
    "timeout": "the other player did not move in time",
    "abandoned": "the other player's connection was lost for good",
    "error": "a failure on that side",
    "incompatible": "the settings did not match",
    "cheat": "it reports a cheat that this transcript alone does not show "
    "(its recorder can try --secret)",
}
