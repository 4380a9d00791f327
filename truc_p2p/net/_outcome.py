"""How a networked game ended, for people (``message``) and programs (``to_json``)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from truc_p2p.protocol import (
    GameResult,
    LocalProtocolError,
    RemoteProtocolError,
    Resignation,
    Session,
)
from truc_p2p.rules import Player

__all__ = [
    "KINDS",
    "REFUSALS_OF_EARLY",
    "WHERE",
    "End",
    "GameOutcome",
    "english_text",
    "host_refused_early",
]


def N_(message: str) -> str:
    """Marks an English text for the catalogs (the command line translates it)."""
    return message


def Np_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a singular and plural pair for the catalogs."""
    return singular, plural


class End(enum.Enum):
    """Why :func:`~truc_p2p.net.play_game` returned."""

    #: The game was played to the end, audited and the result co-signed.
    FINISHED = "finished"
    #: The opponent sent nothing for longer than the turn timeout; we sent a
    #: signed ``abort`` with reason ``timeout``.
    OPPONENT_TIMEOUT = "opponent-timeout"
    #: The opponent ended the game with a signed ``abort`` (see ``abort_reason``).
    OPPONENT_ABORTED = "opponent-aborted"
    #: EOF, reset or a stuck connection before the game was over.
    CONNECTION_LOST = "connection-lost"
    #: Could not connect at all (``join`` only).
    CONNECTION_FAILED = "connection-failed"
    #: The opponent broke the protocol (see ``error_code`` and ``error_message_no``).
    PROTOCOL_ERROR = "protocol-error"
    #: The two sides use different rulesets, options or protocol versions.
    INCOMPATIBLE = "incompatible"
    #: The host's key does not have the invite's fingerprint: nothing was played.
    FINGERPRINT_MISMATCH = "fingerprint-mismatch"
    #: We left the game (Ctrl-C, ``q`` or end of input) where resigning was not
    #: possible (an opponent of the older spec, before the coin, or after the game
    #: was decided); the opponent was told with a signed ``quit``.
    QUIT = "quit"
    #: We left the game and resigned: a signed ``resign`` gave it to the opponent;
    #: both transcripts hold a complete result (``resignation``).
    RESIGNED = "resigned"
    #: The opponent resigned: we win (``resignation``); a complete result.
    OPPONENT_RESIGNED = "opponent-resigned"
    #: Our own player (strategy) failed, e.g. chose an illegal action.
    LOCAL_ERROR = "local-error"
    #: The opponent stayed disconnected for the whole grace period; we sent
    #: (recorded) a signed ``abort`` with reason ``abandoned``.
    OPPONENT_ABANDONED = "opponent-abandoned"
    #: The host turned us away with a signed ``refuse`` (``abort_reason``:
    #: ``busy``, ``not-allowed`` or ``unknown-game``).
    REFUSED = "refused"
    #: The transcript could not be written (disk full, I/O error).
    DISK_ERROR = "disk-error"


#: The English sentence of every kind of ending (``GameOutcome.kind``), filled with
#: the outcome's ``facts``: the text of ``GameOutcome.message``, ``--json`` and the
#: library.  A pair is the singular and plural form, chosen by the fact ``n``.  The
#: command line renders the same facts in the player's language: this table is the
#: catalogs' only copy of these msgids (``N_`` and ``Np_`` mark them for extraction,
#: see ``babel.cfg``; the net layer itself never translates).  ``{where}`` is a
#: :data:`WHERE` phrase; ``{peer}`` is the opponent's name, or "the opponent";
#: ``{text}`` a nested kind.
KINDS: dict[str, str | tuple[str, str]] = {
    "key-mismatch": N_(
        "refused the host: {error}; nothing was played (wrong or stale invite, or "
        "someone is impersonating the host)"
    ),
    "fingerprint-mismatch": N_(
        "refused the host: its key has fingerprint {actual}, the invite expects "
        "{expected}; nothing was played (wrong or stale invite, or someone is "
        "impersonating the host)"
    ),
    "local-refused": N_("our player chose an action the session refused: {error}"),
    "quit": N_("you left the game; the opponent was told"),
    "resigned": N_(
        "you resigned in hand {hand}; {peer} wins (score {me} {my_score}, {peer} "
        "{peer_score}); both transcripts record the resignation"
    ),
    "opponent-resigned": N_(
        "{peer} resigned in hand {hand}; you win (score {me} {my_score}, {peer} "
        "{peer_score}); the signed resignation is in your transcript"
    ),
    "hello-timeout": N_(
        "opponent timed out: the peer sent no hello for {limit} s {where}; a signed "
        "abort 'timeout' ends the transcript"
    ),
    "turn-timeout": N_(
        "opponent timed out: the opponent did not play for {limit} s {where}; a signed "
        "abort 'timeout' ends the transcript"
    ),
    "disk-error-told": N_(
        "cannot write the transcript ({error}) {where}; a signed abort 'error' told the "
        "opponent; what was written stays readable by verify"
    ),
    "disk-error": N_(
        "cannot write the transcript ({error}) {where}; nothing more was sent: free "
        "some space and run 'truc-p2p resume' on the transcript while the opponent "
        "waits"
    ),
    "connection-lost": N_("connection lost {where}: {error}"),
    "abandoned": N_(
        "the opponent abandoned the game: disconnected for {grace} s {where}; a signed "
        "abort 'abandoned' ends your transcript"
    ),
    "refused-busy": N_("the host is busy with another game; try again later"),
    "refused-not-allowed": N_("the host does not admit your key (it hosts with --allow)"),
    "refused-unknown-game": N_("the host no longer has this game (it ended or was abandoned)"),
    "refused-played": N_(
        "the host has already played the game that follows this one: each game of a "
        "match, and each rematch, is played once"
    ),
    "refused": N_("the host refused ({reason})"),
    "incompatible": N_("incompatible settings, nothing was played: {error}"),
    "host-plays-match": N_("{host} plays a match of {n} games: join with --match {n}"),
    "host-plays-single": N_("{host} plays a single game: join without --match"),
    "joiner-asks-single": N_(
        "{joiner} asked for a single game, you host a match of {n} games: nothing was played"
    ),
    "joiner-asks-match": N_(
        "{joiner} asked for a match of {asked} games, you host a single game: nothing was played"
    ),
    "joiner-asks-other-match": N_(
        "{joiner} asked for a match of {asked} games, you host a match of {n} games: "
        "nothing was played"
    ),
    "protocol-error": N_("the opponent broke the protocol {where}: {code}: {error}"),
    "protocol-error-at": N_(
        "the opponent broke the protocol {where}: {code} at message {number}: {error}"
    ),
    "protocol-error-kept": N_(
        "the opponent broke the protocol {where}: {code}: {error} (its signed message "
        "is kept in the transcript)"
    ),
    "protocol-error-at-kept": N_(
        "the opponent broke the protocol {where}: {code} at message {number}: {error} "
        "(its signed message is kept in the transcript)"
    ),
    "peer-quit": N_("the opponent left the game {where}"),
    "peer-timeout": N_("the opponent ended the game because we took too long {where}"),
    "peer-cheat": N_("the opponent accuses us of cheating and ended the game {where}"),
    "peer-incompatible": N_("the opponent uses other settings and ended the game {where}"),
    "peer-aborted": N_("the opponent ended the game ({reason}) {where}"),
    "no-result": N_("the session closed without a result"),
    "won": Np_(
        "you win, you {my_score} – {peer} {peer_score}, after {n} hand ({reason}); "
        "result co-signed by both players",
        "you win, you {my_score} – {peer} {peer_score}, after {n} hands ({reason}); "
        "result co-signed by both players",
    ),
    "lost": Np_(
        "{peer} wins, you {my_score} – {peer} {peer_score}, after {n} hand ({reason}); "
        "result co-signed by both players",
        "{peer} wins, you {my_score} – {peer} {peer_score}, after {n} hands ({reason}); "
        "result co-signed by both players",
    ),
    "nobody-joined": N_("stopped before anyone joined"),
    "handshake-dropped": Np_(
        "the connection dropped during the handshake {n} time in {seconds} s (the host "
        "may be flooded or restarting)",
        "the connection dropped during the handshake {n} times in {seconds} s (the host "
        "may be flooded or restarting)",
    ),
    "cannot-connect": N_("cannot connect to {address}: {error}"),
    "not-connected": N_("stopped before connecting"),
    "transcript-unwritable": N_("cannot write the transcript: {error}"),
    "nothing-to-resume-ended": N_("nothing to resume: the game has already ended"),
    "nothing-to-resume-unstarted": N_("nothing to resume: the game never started"),
    "already-ended": N_(
        "the game had already ended {first}-{second} with a co-signed result; the "
        "opponent did not come back for our last message within {grace} s (it may "
        "already hold it); nothing more was signed"
    ),
    "stopped-resuming": N_("stopped before the opponent came back"),
    "host-unreachable": N_(
        "could not reach the host at {address} within {grace} s; a signed abort "
        "'abandoned' ends your transcript"
    ),
    "opponent-gone": N_(
        "the opponent did not come back within {grace} s; a signed abort 'abandoned' "
        "ends your transcript"
    ),
    "no-next-game": N_("the host did not start another game: {text}"),
}

#: Where in the game it ended (the fact ``where``; ``hand`` for ``"hand"``).
WHERE: dict[str, str] = {
    "before-game": N_("before the game started"),
    "before-deal": N_("before the first deal"),
    "hand": N_("during hand {hand}"),
}

#: Facts quoted as they are after the sentence (the peer's or the host's own words).
DETAIL = "{text}: {detail}"


def shown_detail(kind: str, detail: object) -> str | None:
    """The peer's detail as an ending shows it: a busy host's own "try again later"
    (every host before this one said so) is dropped, the sentence gives that advice."""
    if not isinstance(detail, str) or not detail:
        return None
    if kind == "refused-busy":
        detail = detail.removesuffix("try again later").rstrip("; ")
    return detail or None


def english_text(kind: str, facts: Mapping[str, Any]) -> str:
    """The English sentence of an ending (``GameOutcome.message``)."""
    values = dict(facts)
    if "where" in values:
        values["where"] = WHERE[values["where"]].format(hand=values.get("hand"))
    if "peer" in values and values["peer"] is None:
        values["peer"] = "opponent" if kind in ("won", "lost") else "the opponent"
    for key in ("limit", "grace"):
        if isinstance(values.get(key), float):
            values[key] = f"{values[key]:g}"
    if kind == "no-next-game":
        values["text"] = english_text(values["kind"], values["facts"])
    template = KINDS[kind]
    if isinstance(template, tuple):
        template = template[0] if values["n"] == 1 else template[1]
    text = template.format(**values)
    detail = shown_detail(kind, values.get("detail"))
    if detail:
        text = DETAIL.format(text=text, detail=detail)
    return text


_EXIT_CODES = {
    End.FINISHED: 0,
    End.OPPONENT_RESIGNED: 0,
    End.FINGERPRINT_MISMATCH: 3,
    End.CONNECTION_FAILED: 4,
}
#: Exit codes of a refusal, by its reason.
_REFUSED_CODES = {"busy": 5, "not-allowed": 6}


@dataclass(frozen=True, kw_only=True)
class GameOutcome:
    """One side's account of a networked game.

    ``to_json`` uses the same keys as ``truc-p2p demo --json`` (``valid``,
    ``game_id``, ``players``, ``winner``, ``winner_name``, ``score``,
    ``hands``, ``reason``, ``messages``, ``bytes``, ``transcript``) plus
    ``outcome``, ``message``, ``me``, ``peer_fingerprint``, ``abort``,
    ``error``, ``complete`` and ``resigned_by`` / ``resigned_by_name``.

    A resigned game (``end`` :attr:`End.RESIGNED` or :attr:`End.OPPONENT_RESIGNED`)
    is ``complete`` but not ``valid`` (nobody co-signed it): ``winner`` is the
    player who did not resign, ``reason`` is ``"resigned"``, ``resignation``
    holds the signed message.
    """

    end: End
    #: One human-readable sentence saying what happened, in English (:data:`KINDS`).
    message: str
    me: Player
    names: tuple[str | None, str | None] = (None, None)
    peer_fingerprint: str | None = None
    game_id: bytes | None = None
    #: The co-signed result (only when ``end`` is ``FINISHED``).
    result: GameResult | None = field(default=None, repr=False)
    #: The score when the game ended (final score, or the score so far).
    scores: tuple[int, int] | None = None
    hands: int = 0
    #: Reason and detail of the signed abort that ended the game (sent or received).
    abort_reason: str | None = None
    abort_detail: str | None = None
    #: ``code`` and message number of the peer's protocol error.
    error_code: str | None = None
    error_message_no: int | None = None
    #: Envelopes of the game in our transcript (sent and received, each once, across
    #: reconnections and restarts; not ``resume``/``bye``) and their framed bytes:
    #: what ``truc-p2p verify`` counts in that transcript.
    messages: int = 0
    nbytes: int = 0
    transcript: Path | None = None
    #: How the connection was made: ``direct``, ``punched``, ``turn`` or ``relayed``.
    path: str | None = None
    #: What became of each kind of path the joiner raced for its first connection
    #: (:meth:`~truc_p2p.net.PathTry.as_json` each; connect.md §4.1), or ``None``.
    path_tries: tuple[dict[str, Any], ...] | None = None
    #: The links of this game, the first and each one a redial (the joiner's) or a
    #: resume (the host's) brought after a cut, as ``{"path", "tries"}`` (``tries``
    #: like ``path_tries``, or empty; connect.md §4.1), or ``None``.
    links: tuple[dict[str, Any], ...] | None = None
    #: The signed resignation that ended the game (ours or the opponent's).
    resignation: Resignation | None = field(default=None, repr=False)
    #: The dealer of the first hand (``None`` before the coins), our own key's
    #: fingerprint, and the match length the hellos agreed (wire.md 4.1): what the
    #: next game of a rematch or a match is linked with.
    first_dealer: Player | None = None
    fingerprint: str | None = None
    match: int = 1
    #: What happened, without words: a key of :data:`KINDS` and the values its
    #: sentence is filled with (``message`` is the English one); a program or a
    #: translation builds its own text from them.  Empty for an outcome made by hand.
    kind: str = ""
    facts: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def told(cls, end: End, kind: str, facts: Mapping[str, Any], **fields: Any) -> GameOutcome:
        """An outcome of ``kind``, its English ``message`` made from ``facts``."""
        return cls(
            end=end, message=english_text(kind, facts), kind=kind, facts=dict(facts), **fields
        )

    @property
    def valid(self) -> bool:
        """True only for a finished game with a co-signed result (signed by both)."""
        return self.end is End.FINISHED and self.result is not None

    @property
    def complete(self) -> bool:
        """True when the game has a verifiable result: co-signed (:attr:`valid`), or a
        signed resignation, which the resigner alone signs; ``truc-p2p verify``
        accepts both transcripts."""
        if self.end in (End.RESIGNED, End.OPPONENT_RESIGNED):
            return self.resignation is not None
        return self.valid

    @property
    def resigned_by(self) -> Player | None:
        """The player who resigned, when a resignation ended the game."""
        return self.resignation.by if self.resignation is not None else None

    @property
    def winner(self) -> Player | None:
        if self.resignation is not None:
            return self.resignation.winner
        return self.result.winner if self.result is not None else None

    @property
    def exit_code(self) -> int:
        """0 finished or the opponent resigned (we won), 3 host refused (fingerprint),
        4 cannot connect, 5 host busy, 6 not admitted by the host's --allow list,
        1 otherwise -- also when we resigned or quit (the command did not finish the
        game; 128 + the signal instead when one made us leave)."""
        if self.end is End.REFUSED:
            return _REFUSED_CODES.get(self.abort_reason or "", 1)
        return _EXIT_CODES.get(self.end, 1)

    def summary(self) -> str:
        """One line for the end of a command's output."""
        where = f"; transcript: {self.transcript}" if self.transcript is not None else ""
        return f"{self.message}{where}"

    def to_json(self) -> dict[str, Any]:
        result = self.result
        winner = self.winner
        resigned_by = self.resigned_by
        reason = result.reason if result is not None else self.end.value
        if self.resignation is not None:
            reason = self.resignation.reason
        return {
            "valid": self.valid,
            "complete": self.complete,
            "outcome": self.end.value,
            "message": self.message,
            "game_id": self.game_id.hex() if self.game_id else None,
            "players": list(self.names),
            "me": int(self.me),
            "winner": int(winner) if winner is not None else None,
            "winner_name": self.names[winner] if winner is not None else None,
            "score": list(self.scores) if self.scores is not None else None,
            "hands": self.hands,
            "reason": reason,
            "resigned_by": int(resigned_by) if resigned_by is not None else None,
            "resigned_by_name": self.names[resigned_by] if resigned_by is not None else None,
            "peer_fingerprint": self.peer_fingerprint,
            "abort": (
                {"reason": self.abort_reason, "detail": self.abort_detail}
                if self.abort_reason is not None
                else None
            ),
            "error": (
                {"code": self.error_code, "message_no": self.error_message_no}
                if self.error_code is not None
                else None
            ),
            "messages": self.messages,
            "bytes": self.nbytes,
            "transcript": str(self.transcript) if self.transcript is not None else None,
            "path": self.path,
            **({"path_tries": list(self.path_tries)} if self.path_tries else {}),
            **({"links": list(self.links)} if self.links else {}),
        }


def abort_reason(exc: RemoteProtocolError) -> str:
    """The abort reason we sign for a peer's protocol error (it lives on its class)."""
    return exc.abort_reason


def match_differs(s: Session) -> tuple[str, dict[str, Any]] | None:
    """The kind and facts of hellos that differ in the match length (wire.md 4.1):
    one sentence saying what the other side plays, not the two option maps."""
    theirs, ours = s.peer_series, s.series
    if theirs is None or theirs.match == ours.match:
        return None
    if s.me is Player.P0:  # the joiner: what the host plays, and the option to use
        if theirs.match == 1:
            return "host-plays-single", {"host": s.peer_name}
        return "host-plays-match", {"host": s.peer_name, "n": theirs.match}
    if theirs.match == 1:
        return "joiner-asks-single", {"joiner": s.peer_name, "n": ours.match}
    if ours.match == 1:
        return "joiner-asks-match", {"joiner": s.peer_name, "asked": theirs.match}
    return "joiner-asks-other-match", {
        "joiner": s.peer_name,
        "asked": theirs.match,
        "n": ours.match,
    }


def resign_facts(s: Session, r: Resignation) -> dict[str, Any]:
    """The facts of a resignation, from our side."""
    return {
        "hand": r.hand,
        "peer": s.peer_name,
        "me": s.name,
        "my_score": r.scores[s.me],
        "peer_score": r.scores[s.me.other],
    }


def session_outcome(
    s: Session, end: End, kind: str, facts: dict[str, Any] | None = None, **fields: object
) -> GameOutcome:
    """The outcome ``end`` of the game ``s`` plays, as its session knows it so far."""
    names: list[str | None] = [None, None]
    names[s.me] = s.name
    names[s.me.other] = s.peer_name
    scores: tuple[int, int] | None = None
    hands = s.hands_dealt
    if s.resignation is not None:  # the score before the resignation: crossed moves are void
        scores, hands = s.resignation.scores, s.resignation.hand
    elif s.result is not None:
        scores = s.result.scores
    elif s.stage.value not in ("hello-initiator", "hello-responder", "coin"):
        try:
            scores = s.game.scores
        except LocalProtocolError:
            scores = None
    return GameOutcome.told(
        end,
        kind,
        facts or {},
        me=s.me,
        names=(names[0], names[1]),
        peer_fingerprint=s.peer_fingerprint,
        game_id=s.game_id or None,
        result=s.result if end is End.FINISHED else None,
        scores=scores,
        hands=hands,
        messages=s.transcript_messages,
        nbytes=s.transcript_bytes,
        first_dealer=s.game.first_dealer if s.started else None,
        fingerprint=s.fingerprint,
        match=s.series.match,
        **fields,
    )


def where_of(s: Session) -> dict[str, Any]:
    """When the game ``s`` plays ended, as facts (:data:`WHERE`)."""
    hands = s.hands_dealt
    if s.peer_fingerprint is None:
        return {"where": "before-game"}
    return {"where": "hand", "hand": hands} if hands else {"where": "before-deal"}


#: The abort reasons with which hosts of earlier specs refuse an unknown option:
#: ``malformed`` (the option map has another shape) or ``incompatible``.
REFUSALS_OF_EARLY = frozenset({"malformed", "incompatible"})


def host_refused_early(session: Session, outcome: GameOutcome) -> bool:
    """Whether ``outcome`` may be an older host turning down our early-cards proposal
    (wire.md 11.1), to be joined again once without proposing them (the desktop
    joiner and the page both do): our hello proposed them, the host signed nothing
    but perhaps a hello and the abort, and the host either aborted ``malformed`` or
    ``incompatible`` -- after a hello that lacks only ``early`` (anything else we
    would have found ourselves) or without a hello -- or closed the connection before
    its hello.  A new host that merely dropped us is then played without early
    cards: a small loss, where a wrong guess the other way loses the game."""
    if not session.early_proposed or session.peer_played:
        return False
    if session.peer_fingerprint is not None and session.early:
        return False  # its hello took early cards: the refusal is of something else
    if outcome.end is End.OPPONENT_ABORTED:
        return outcome.abort_reason in REFUSALS_OF_EARLY
    return outcome.end is End.CONNECTION_LOST and session.peer_fingerprint is None
