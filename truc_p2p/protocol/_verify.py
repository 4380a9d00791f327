"""The offline verifier: replays a transcript as a neutral referee.

Theory of operation
-------------------
Pass 1 checks what needs no game state: framing, the strict envelope shape,
every Ed25519 signature (keys from the two hellos), the sequence numbers,
the hash chain, the game id and each payload's shape; it also collects the
seeds revealed at the audits.

Pass 2 replays the game up to the first pass-1 fault.  With both seeds of a
hand it rebuilds both players' deck state (:class:`~truc_p2p.deck.DeckSide`
for the dealer and for the non-dealer) and feeds every deck message to the
*receiving* side, so every check a live receiver runs is run again; it also
compares each message with what the sender's revealed seed produces, byte
for byte, which is the audit.  Actions go through an omniscient rules
engine.  The result messages must both state the outcome the referee
computed.  The first violation, whichever pass found it, is reported with
its message number.

A deck v2 game (``"deck": "v2"`` in the hellos' options) has no seeds to
reveal: each hand is replayed with :class:`~truc_p2p.deck.HandVerifierV2`,
which checks every key, shuffle and share proof of every deal message,
redeal and shown card from the signed payloads alone, and a spectator's
rules engine (no hand known, only the cards shown) checks every action.

A game may also end with a signed resignation (``abort`` reason ``resign``,
wire.md section 8.1), valid when both hellos announce it and the chain before
it (its ``seq``: moves that crossed it are void) has a game under way.  Pass 2
notes before every position what a resignation there would record (a
:class:`_Mark`), so a crossed resignation reads its score and hand from the
point its sender had seen.  Every report has a status -- complete, unfinished
or violation -- and a one-sentence :meth:`VerifyReport.headline`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from truc_p2p.deck import (
    N_CARDS,
    CheatError,
    DeckError,
    HandVerifierV2,
    Role,
    canonical_key,
    positions,
)
from truc_p2p.protocol._errors import (
    AuditFailedError,
    AuditRefusedError,
    ChainError,
    CheatDetectedError,
    EquivocationError,
    IllegalMoveError,
    MalformedMessageError,
    OutOfTurnError,
    RemoteProtocolError,
    ResultMismatchError,
    RulesetMismatchError,
    SequenceError,
    UnexpectedMessageError,
    WrongGameError,
)
from truc_p2p.protocol._judge import answer_agrees, check_not_ended, check_options
from truc_p2p.protocol._messages import MessageType, validate_payload
from truc_p2p.protocol._state import (
    INTERJECTIONS,
    STAGES,
    Cond,
    Stage,
    conditions_after_action,
    due_stage,
    expected_sender,
    next_stage,
    predeal_conditions,
)
from truc_p2p.protocol._values import (
    FEATURE_EARLY_REDEAL,
    FEATURE_RESIGN,
    FEATURE_REST_FINAL,
    coin_commitment,
    first_dealer_from_coins,
    game_id_of,
    local_seed,
    nonce_features,
    nonce_is_from,
    resignable,
    result_payload,
    series_of,
)
from truc_p2p.protocol._wire import (
    GENESIS,
    Envelope,
    decode_envelope,
    fingerprint,
    verify_signature,
)
from truc_p2p.rules import (
    Action,
    ActionKind,
    Card,
    Event,
    Game,
    IllegalActionError,
    Phase,
    Player,
    RoundEnded,
    RulesError,
    Ruleset,
)

if TYPE_CHECKING:
    from truc_p2p.deck import DeckSide

__all__ = ["PlayerInfo", "VerifyReport", "verify_transcript"]


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
    error names it).  :meth:`headline` says it in one sentence with the names."""

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
    #: "complete", "unfinished" or "violation"
    status: str = "violation"
    #: the player whose signed resignation ended the game
    resigned_by: int | None = None
    #: the player a violation is proven against (None when it cannot be told)
    culprit: int | None = None
    #: the player whose ``abort`` ends the transcript, and its reason
    aborted_by: int | None = None
    abort_reason: str | None = None

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
        word = {"complete": "VALID", "unfinished": "UNFINISHED"}.get(self.status, "INVALID")
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
            label = "violation:" if self.status == "violation" else "unfinished:"
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


@dataclass(frozen=True)
class _Mark:
    """Before a chain position: may a player resign there, and what would it record."""

    allowed: bool
    scores: tuple[int, int] | None
    hands: int


@dataclass
class _Scan:
    envelopes: list[Envelope] = field(default_factory=list)
    keys: list[Ed25519PublicKey] = field(default_factory=list)
    # (player, hand) -> (seed, message number of the reveal)
    seeds: dict[tuple[Player, int], tuple[bytes, int]] = field(default_factory=dict)
    # (sender, message number) of every reveal, in order
    reveals: list[tuple[Player, int]] = field(default_factory=list)
    error: RemoteProtocolError | None = None


def _scan(raws: Sequence[bytes]) -> _Scan:
    """Pass 1: envelopes, signatures, chain, sequence, game id, payload shapes."""
    scan = _Scan()
    prev, game_id = GENESIS, b""
    chain: list[tuple[int, bytes]] = []  # (sender, hash) of every envelope so far
    hellos: list[Envelope] = []
    for n, raw in enumerate(raws):
        try:
            env = decode_envelope(raw, message_no=n)
            ev = (raw,)
            if n < 2:
                if env.type != MessageType.HELLO or env.sender != n:
                    raise UnexpectedMessageError(
                        f"message {n} must be player {n}'s hello", evidence=ev, message_no=n
                    )
                validate_payload(env.type, env.payload, evidence=ev, message_no=n)
                try:
                    key = Ed25519PublicKey.from_public_bytes(env.payload["key"])
                except ValueError:
                    raise MalformedMessageError("bad public key", evidence=ev) from None
                scan.keys.append(key)
                if n == 1 and env.payload["key"] == hellos[0].payload["key"]:
                    raise MalformedMessageError("both players use one key", evidence=ev)
                hellos.append(env)
            verify_signature(env, scan.keys[env.sender])
            if env.game_id != game_id:
                raise WrongGameError("envelope names another game", evidence=ev, message_no=n)
            if env.type == MessageType.ABORT:
                # An abort may chain to an earlier point when the other player's
                # messages crossed it in flight (wire.md section 8).
                k = env.seq
                if k > n or any(s == env.sender for s, _ in chain[k:]):
                    raise SequenceError(f"abort with sequence number {k}", evidence=ev)
                if env.prev != (chain[k - 1][1] if k else GENESIS):
                    raise ChainError("abort does not chain to its message", evidence=ev)
            else:
                k = env.seq
                if (
                    k < n
                    and scan.envelopes[k].sender == env.sender
                    and scan.envelopes[k].raw != raw
                ):
                    raise EquivocationError(
                        f"player {env.sender} signed two different messages at position {k}",
                        step="chain",
                        evidence=(scan.envelopes[k].raw, raw),
                        message_no=n,
                    )
                if k != n:
                    raise SequenceError(f"sequence number {env.seq}", evidence=ev, message_no=n)
                if env.prev != prev:
                    raise ChainError("previous-hash does not match", evidence=ev, message_no=n)
            validate_payload(env.type, env.payload, evidence=ev, message_no=n)
            if env.type == MessageType.REVEAL:
                sender = Player(env.sender)
                scan.reveals.append((sender, n))
                for k, seed in enumerate(env.payload["seeds"]):
                    scan.seeds.setdefault((sender, env.payload["first"] + k), (seed, n))
        except RemoteProtocolError as exc:
            exc.message_no = n
            scan.error = exc
            break
        scan.envelopes.append(env)
        prev = env.hash
        chain.append((env.sender, prev))
        if n == 1:
            game_id = game_id_of(hellos[0].raw, hellos[1].raw)
    return scan


def _canonical(keys: Sequence[bytes]) -> list[bytes]:
    """Keys compared as the audit compares them: ``k`` and ``n - k`` are one key."""
    return [canonical_key(k) for k in keys]


class _Referee:
    """Pass 2: the game replayed with the players' deck state and a rules engine.

    With both players' seeds the engine is omniscient and both deck sides are
    rebuilt.  When only one player ``X`` revealed every hand (the other
    refused or the game stopped at the audit), the replay runs from ``X``'s
    view: each deck message is a function of its sender's seed and what it
    received, so ``X``'s messages are still audited byte for byte and the
    other player's pass every check ``X`` ran as receiver.
    """

    def __init__(self, scan: _Scan) -> None:
        self.scan = scan
        self.stage = Stage.HELLO_INITIATOR
        self.game: Game | None = None
        self.ruleset: Ruleset | None = None
        self.audit_mode: str | None = None
        self.game_id = b""
        self.players: list[PlayerInfo] = []
        self.coin_commit = b""
        self.initiator_options: dict[str, Any] = {}
        self.responder_coin = b""
        self.hand = -1
        self.sides: dict[Role, DeckSide] = {}
        self.expect: dict[str, Any] = {}
        self.redeal_keys_due: Role | None = None
        self.hand_ender: Player | None = None
        self.audited = 0
        self.results: list[dict[str, Any]] = []
        self.expected_result: dict[str, Any] | None = None
        self.blind_hand: int | None = None
        self.ended_by: str | None = None
        self.refused_by: Player | None = None
        self.refusal = "did not reveal its seeds when the audit was due"
        self.prev = GENESIS
        self.view: Player | None = None
        self.seed_msgs: dict[Role, int] = {}
        self.deck: str | None = None
        self.v2: HandVerifierV2 | None = None
        self.v2_hidden = 0
        self.shares_due: Role | None = None
        # Pipelined deal (wire.md 6b): the pre-dealt next hand and how many of its
        # two pre-deal messages are on the chain (None while no pre-deal may run).
        self.pipeline = False
        self.v2_next: HandVerifierV2 | None = None
        self.predeal: int | None = None
        # Resignation (wire.md section 8): the features each hello announces, what a
        # resignation would record before each position, and the one that ended the game.
        self.features: list[int] = []
        self.marks: list[_Mark] = []
        self.v1_deals = 0  # deck1 messages before the current position
        self.resigned: tuple[Player, _Mark] | None = None
        # Early cards (wire.md 6a): proposed by the initiator, on when the responder
        # agreed too.
        self.early = False

    # -- driving -------------------------------------------------------------------

    def run(self) -> RemoteProtocolError | None:
        for n, env in enumerate(self.scan.envelopes):
            self.marks.append(self.mark())
            self.v1_deals += env.type == MessageType.DECK1
            # A hand without both seeds cannot be replayed, but an abort needs no
            # game state: still say who ended the game, and that it ends once.
            if self.blind_hand is not None and not (
                env.type == MessageType.ABORT or self.stage is Stage.ABORTED
            ):
                continue
            try:
                self.step(env)
            except RemoteProtocolError as exc:
                if exc.message_no is None:
                    exc.message_no = n if env.type == MessageType.ABORT else env.seq
                return exc
            except CheatError as exc:
                return CheatDetectedError(
                    f"player {env.sender}'s {env.type} fails the deck check at {exc.step}: {exc}",
                    step=exc.step,
                    position=exc.position,
                    evidence=(env.raw,),
                    message_no=env.seq,
                )
            except DeckError as exc:
                return CheatDetectedError(
                    f"player {env.sender}'s {env.type} is rejected by the deck layer: {exc}",
                    evidence=(env.raw,),
                    message_no=env.seq,
                )
            except IllegalActionError as exc:
                return IllegalMoveError(
                    f"player {env.sender}: {exc}", evidence=(env.raw,), message_no=env.seq
                )
            except RulesError as exc:
                return MalformedMessageError(
                    f"player {env.sender}: {exc}", evidence=(env.raw,), message_no=env.seq
                )
            self.prev = env.hash
        return None

    def mark(self) -> _Mark:
        """What a resignation at the next position would record: the chain before it as
        replayed (with a hand that cannot be replayed, only that the game had started)."""
        game = self.game
        hands = self.hand + 1
        if self.deck == "v1":  # the hands whose deck1 is on the chain, as the session counts
            hands = max(1, self.v1_deals)
        if self.blind_hand is not None:
            return _Mark(allowed=game is not None, scores=None, hands=hands)
        return _Mark(
            allowed=resignable(self.stage, game),
            scores=game.scores if game is not None else None,
            hands=hands,
        )

    def on_resign(self, env: Envelope, n: int) -> None:
        """A signed resignation at position ``n`` (its ``seq`` names the point of the
        chain its sender had seen): the other player wins (wire.md section 8)."""
        ev = (env.raw,)
        if len(self.features) != 2 or not all(f & FEATURE_RESIGN for f in self.features):
            raise MalformedMessageError(
                "abort reason 'resign' was not announced in both hellos", evidence=ev
            )
        mark = self.marks[env.seq]
        if not mark.allowed:
            raise UnexpectedMessageError(
                "a resignation before the game started or after it was decided", evidence=ev
            )
        self.resigned = (Player(env.sender), mark)
        self.ended_by = f"player {env.sender} resigned at message {n}" + (
            f" ({env.payload['detail']})" if env.payload["detail"] else ""
        )
        self.stage = Stage.ABORTED

    def step(self, env: Envelope) -> None:
        ev, n = (env.raw,), env.seq
        # One ending per game: nothing after it, and no abort or resignation ends it again.
        check_not_ended(self.stage, "a resignation" if self.resigned else "an abort", env)
        if env.type == MessageType.ABORT and env.payload["reason"] == "resign":
            self.on_resign(env, len(self.marks) - 1)
            return
        if env.type == MessageType.ABORT:
            self.ended_by = (
                f"player {env.sender} aborted at message {n}: {env.payload['reason']}"
                + (f" ({env.payload['detail']})" if env.payload["detail"] else "")
            )
            if self.stage in (Stage.REVEAL_FIRST, Stage.REVEAL_SECOND):
                # The player whose reveal was due refused it, if it aborted or the
                # other timed it out; a player that quits while waiting for the
                # other's reveal broke the audit off itself.
                due = expected_sender(self.stage, self.game, self.hand_ender)
                aborter = Player(env.sender)
                if aborter != due and env.payload["reason"] != "timeout":
                    self.refused_by = aborter
                    self.refusal = "aborted while waiting for the other player's reveal"
                else:
                    self.refused_by = due
            self.stage = Stage.ABORTED
            return
        sender = Player(env.sender)
        if self.stage in INTERJECTIONS:
            rest_final = len(self.features) == 2 and all(
                f & FEATURE_REST_FINAL for f in self.features
            )
            self.stage = due_stage(
                self.stage, self.game, self.hand_ender, self.predeal, rest_final=rest_final
            )
        due = expected_sender(self.stage, self.game, self.hand_ender)
        mtype = STAGES[self.stage][1]
        if sender != due:
            raise OutOfTurnError(
                f"player {sender} sent {env.type!r}; player {due} was due to send {mtype!r}",
                evidence=ev,
            )
        if env.type != mtype:
            raise UnexpectedMessageError(f"{env.type!r} where {mtype!r} is due", evidence=ev)
        getattr(self, "on_" + env.type)(env, sender)

    def advance(self, holds: dict[Cond, bool] | None = None) -> None:
        self.stage = next_stage(self.stage, holds or {})

    # -- handshake -----------------------------------------------------------------

    def on_hello(self, env: Envelope, sender: Player) -> None:
        p = env.payload
        try:
            ruleset = Ruleset.from_dict(p["ruleset"])
        except ValueError as exc:
            raise MalformedMessageError(f"bad ruleset: {exc}", evidence=(env.raw,)) from None
        try:  # malformed before any comparison, as the session judges it (one function)
            audit, deck, pipeline, early = check_options(p["options"])
        except MalformedMessageError as exc:
            exc.evidence = (env.raw,)
            raise
        if sender is Player.P0:
            self.ruleset, self.audit_mode, self.coin_commit = ruleset, audit, p["coin"]
            self.deck, self.pipeline, self.early = deck, pipeline, early
            self.initiator_options = p["options"]
        else:
            # Early cards are negotiated down: the responder may leave them out, never add them.
            if ruleset != self.ruleset or not answer_agrees(self.initiator_options, p["options"]):
                raise RulesetMismatchError(
                    "the players proposed different rulesets or options", evidence=(env.raw,)
                )
            self.early = early
            self.responder_coin = p["coin"]
            self.game_id = game_id_of(self.scan.envelopes[0].raw, env.raw)
        self.players.append(PlayerInfo(name=p["name"], fingerprint=fingerprint(p["key"])))
        self.features.append(nonce_features(p["nonce"]))
        self.advance()

    def on_coin(self, env: Envelope, sender: Player) -> None:
        if coin_commitment(env.payload["coin"]) != self.coin_commit:
            raise CheatDetectedError(
                "coin does not open the commitment", step="coin", evidence=(env.raw,)
            )
        assert self.ruleset is not None
        linked = series_of(self.initiator_options)
        if linked is not None and linked.dealer is not None:  # wire.md 4.1: dealers alternate
            first = linked.dealer
        else:
            first = first_dealer_from_coins(env.payload["coin"], self.responder_coin)
        if self.deck == "v2":
            self.game = Game(self.ruleset, first_dealer=first, spectator=True)
            self.advance({Cond.DECK_V2: True})
            self.start_hand_v2(env.hash)
            return
        hands = sum(1 for e in self.scan.envelopes if e.type == MessageType.DECK1)
        complete = {
            p: all((p, h) in self.scan.seeds for h in range(hands)) for p in (Player.P0, Player.P1)
        }
        if not all(complete.values()) and any(complete.values()):
            self.view = Player.P0 if complete[Player.P0] else Player.P1
        self.game = Game(self.ruleset, first_dealer=first, view=self.view)
        self.advance()
        self.start_hand()

    # -- deck ----------------------------------------------------------------------

    def start_hand(self) -> None:
        assert self.game is not None
        self.hand += 1
        self.sides, self.seed_msgs, self.expect = {}, {}, {}
        for role in (Role.DEALER, Role.NONDEALER):
            player = self.game.dealer if role is Role.DEALER else self.game.dealer.other
            if self.view is not None and player != self.view:
                continue
            known = self.scan.seeds.get((player, self.hand))
            if known is None:
                self.blind_hand = self.hand
                return
            from truc_p2p.deck import DeckSide  # v1 only: loaded on first use

            self.sides[role] = DeckSide(role, known[0], game_id=self.game_id, hand=self.hand)
            self.seed_msgs[role] = known[1]

    # -- deck v2 -------------------------------------------------------------------

    def start_hand_v2(self, context: bytes) -> None:
        """A v2 hand, bound to ``context``: the hash of the envelope before its v2deck1."""
        self.hand += 1
        self.v2 = HandVerifierV2(game_id=self.game_id, hand=self.hand, context=context)
        self.shares_due = None
        self.v2_next, self.predeal = None, None  # a dangling pre-deal is never opened

    @property
    def hand_v2(self) -> HandVerifierV2:
        assert self.v2 is not None
        return self.v2

    def hand_payload(self, env: Envelope, index: int) -> dict[str, Any]:
        """The payload without ``hand``, which names ``index`` exactly when pipelined."""
        payload = dict(env.payload)
        got = payload.pop("hand", None)
        if got != (index if self.pipeline else None):
            raise MalformedMessageError(
                f"{env.type} names hand {got}, expected {index if self.pipeline else 'none'}",
                evidence=(env.raw,),
            )
        return payload

    def on_v2deck1(self, env: Envelope, sender: Player) -> None:
        if self.stage is Stage.V2_PREDEAL1:
            payload = self.hand_payload(env, self.hand + 1)
            # The pre-dealt hand's proofs are bound to the envelope before its v2deck1.
            self.v2_next = HandVerifierV2(
                game_id=self.game_id, hand=self.hand + 1, context=env.prev
            )
            self.v2_next.d1(payload)
            self.predeal = 1
        else:
            self.hand_v2.d1(self.hand_payload(env, self.hand))
        self.advance()

    def on_v2deck2(self, env: Envelope, sender: Player) -> None:
        if self.stage is Stage.V2_PREDEAL2:
            payload = self.hand_payload(env, self.hand + 1)
            if "shares" in payload:
                raise MalformedMessageError(
                    "a pre-dealt v2deck2 carries no shares", evidence=(env.raw,)
                )
            assert self.v2_next is not None
            self.v2_next.d2_deck(payload)
            self.predeal = 2
        else:
            payload = self.hand_payload(env, self.hand)
            if "shares" not in payload:
                raise MalformedMessageError("v2deck2 without its shares", evidence=(env.raw,))
            self.hand_v2.d2(payload)
        self.advance()

    def on_v2open(self, env: Envelope, sender: Player) -> None:
        if env.payload["hand"] != self.hand:
            raise MalformedMessageError(
                f"v2open names hand {env.payload['hand']}, expected {self.hand}",
                evidence=(env.raw,),
            )
        self.hand_v2.d2_shares(env.payload["shares"])
        self.advance()

    def on_v2deck3(self, env: Envelope, sender: Player) -> None:
        payload = self.hand_payload(env, self.hand)
        early = "action" not in payload
        if early and not self.early:
            raise MalformedMessageError(
                "v2deck3 without the non-dealer's first action (early cards are off)",
                evidence=(env.raw,),
            )
        self.hand_v2.d3({"shares": payload["shares"]})
        assert self.game is not None
        self.game.deal({})
        if self.pipeline:
            self.predeal = 0  # this hand is dealt: the next may be pre-dealt
        if early:  # the first action follows as a v2action (stage v2first)
            self.advance({Cond.EARLY: True})
            return
        self.play_v2(env, sender, payload["action"])

    def on_v2action(self, env: Envelope, sender: Player) -> None:
        self.play_v2(env, sender, env.payload)

    def agreed(self, feature: int) -> bool:
        """Whether both hello nonces announce ``feature`` (wire.md section 8.1)."""
        return len(self.features) == 2 and all(f & feature for f in self.features)

    def on_v2redeal(self, env: Envelope, sender: Player) -> None:
        """Early redeal cards (wire.md 6a): the non-dealer's shares for the dealer's
        redeal positions, right after the accept-redeal (stage ``v2redeal``)."""
        assert self.game is not None and self.shares_due is Role.NONDEALER
        self.hand_v2.redeal(Role.NONDEALER, env.payload["shares"])
        self.shares_due = None
        self.game.deal({})
        self.advance()

    def play_v2(self, env: Envelope, sender: Player, payload: dict[str, Any]) -> None:
        """One v2 action, in the order a receiving session checks it."""
        game, hand = self.game, self.hand_v2
        assert game is not None
        role = self.role_of(sender)
        kind = ActionKind(payload["act"])
        due = kind is ActionKind.ACCEPT_REDEAL or self.shares_due is role
        if due != ("shares" in payload):
            raise MalformedMessageError(
                "redeal shares missing" if due else "unexpected redeal shares",
                evidence=(env.raw,),
            )
        if "shares" in payload and kind is not ActionKind.ACCEPT_REDEAL:
            hand.redeal(role, payload["shares"])  # the non-dealer's, for the dealer's cards
            self.shares_due = None
            game.deal({})
        if kind is ActionKind.PLAY:
            card = hand.show(role, payload["pos"], payload["share"])
            action = Action.play(Card.from_index(card))
        else:
            action = Action(kind)
        events = game.push(action, player=sender)
        # Pipelined: the next dealer's shares ride on its action that ends the hand.
        open_due = (
            self.predeal == 2
            and any(isinstance(e, RoundEnded) for e in events)
            and game.phase is Phase.DEAL
            and sender == game.dealer
        )
        if open_due != ("open" in payload):
            raise MalformedMessageError(
                "the next dealer's shares must ride on its action that ends the hand, "
                "and only there",
                evidence=(env.raw,),
            )
        if kind is ActionKind.ACCEPT_REDEAL:
            hand.redeal(role, payload["shares"])
            self.shares_due = Role.NONDEALER
        self.after_action(sender, events, env, payload.get("open"))

    def _audit(self, env: Envelope, role: Role, what: str, got: Any, want: Any) -> None:
        if got != want:
            raise AuditFailedError(
                f"hand {self.hand}: the {role.name.lower()}'s {what} does not follow from "
                f"its revealed seed",
                step=env.type,
                evidence=(env.raw,),
            )

    def _check_commitment(self, env: Envelope, role: Role) -> None:
        if role in self.sides and env.payload["commitment"] != self.sides[role].commitment:
            if self.seed_msgs[role] < 0:  # a seed from the local secret, not revealed
                raise AuditFailedError(
                    f"hand {self.hand}: the local player's seed does not open its own "
                    "commitment: the secret or the transcript was altered",
                    step="commitment",
                    evidence=(env.raw,),
                )
            # The fault is in the reveal, not in the message that committed.
            reveal = self.scan.envelopes[self.seed_msgs[role]]
            raise AuditFailedError(
                f"hand {self.hand}: the {role.name.lower()}'s revealed seed does not open "
                f"its commitment (message {env.seq})",
                step="commitment",
                evidence=(reveal.raw, env.raw),
                message_no=reveal.seq,
            )

    def _compare(self, env: Envelope, role: Role, what: str, got: Any) -> None:
        """Audit a message of ``role`` against what its seed produced (if known)."""
        if role in self.sides:
            self._audit(env, role, what, got, self.expect[env.type])

    def on_deck1(self, env: Envelope, sender: Player) -> None:
        p = env.payload
        self._check_commitment(env, Role.DEALER)
        if Role.DEALER in self.sides:
            self.expect["deck1"] = tuple(self.sides[Role.DEALER].d1())
        self._compare(env, Role.DEALER, "D1", tuple(p["deck"]))
        if Role.NONDEALER in self.sides:
            d2 = self.sides[Role.NONDEALER].receive_d1(p["deck"], p["commitment"])
            self.expect["deck2"] = tuple(d2)
        self.advance()

    def on_deck2(self, env: Envelope, sender: Player) -> None:
        p = env.payload
        self._check_commitment(env, Role.NONDEALER)
        self._compare(env, Role.NONDEALER, "D2", tuple(p["deck"]))
        if Role.DEALER in self.sides:
            d3, keys = self.sides[Role.DEALER].receive_d2(p["deck"], p["commitment"])
            want = [keys[i] for i in positions(Role.NONDEALER, False)]
            self.expect["deck3"] = (tuple(d3), _canonical(want))
        self.advance()

    def on_deck3(self, env: Envelope, sender: Player) -> None:
        p = env.payload
        self._compare(env, Role.DEALER, "D3", (tuple(p["deck"]), _canonical(p["keys"])))
        if Role.NONDEALER in self.sides:
            order = positions(Role.NONDEALER, False)
            d4, keys = self.sides[Role.NONDEALER].receive_d3(
                p["deck"], dict(zip(order, p["keys"], strict=True))
            )
            want = [keys[i] for i in positions(Role.DEALER, False)]
            self.expect["deck4"] = (tuple(d4), _canonical(want))
        self.advance()

    def on_deck4(self, env: Envelope, sender: Player) -> None:
        p = env.payload
        self._compare(env, Role.NONDEALER, "D4", (tuple(p["deck"]), _canonical(p["keys"])))
        if Role.DEALER in self.sides:
            order = positions(Role.DEALER, False)
            self.sides[Role.DEALER].receive_d4(p["deck"], dict(zip(order, p["keys"], strict=True)))
        self.deal(redeal=False)
        self.play(env, sender, p["action"])

    def deal(self, *, redeal: bool) -> None:
        game = self.game
        assert game is not None
        hands = {}
        for role, side in self.sides.items():
            player = game.dealer if role is Role.DEALER else game.dealer.other
            cards = side.my_cards(redeal=redeal)
            hands[player] = tuple(Card.from_index(c) for _, c in sorted(cards.items()))
        game.deal(hands)

    def role_of(self, player: Player) -> Role:
        assert self.game is not None
        return Role.DEALER if player == self.game.dealer else Role.NONDEALER

    # -- actions -------------------------------------------------------------------

    def on_action(self, env: Envelope, sender: Player) -> None:
        self.play(env, sender, env.payload)

    def play(self, env: Envelope, sender: Player, payload: dict[str, Any]) -> None:
        game = self.game
        assert game is not None
        role = self.role_of(sender)
        kind = ActionKind(payload["act"])
        keys_due = kind is ActionKind.ACCEPT_REDEAL or self.redeal_keys_due is role
        if keys_due != ("keys" in payload):
            raise MalformedMessageError(
                "redeal keys missing" if keys_due else "unexpected redeal keys",
                evidence=(env.raw,),
            )
        deal_after = False
        if "keys" in payload:
            if role in self.sides:
                own = self.sides[role].redeal_keys()
                want = [own[i] for i in positions(role.other, True)]
                got = _canonical(payload["keys"])
                self._audit(env, role, "redeal keys", got, _canonical(want))
            if role.other in self.sides:
                self.sides[role.other].receive_redeal_keys(
                    dict(zip(positions(role.other, True), payload["keys"], strict=True))
                )
            if kind is not ActionKind.ACCEPT_REDEAL:
                self.redeal_keys_due = None
            # Deal once every known side has its redeal cards: the omniscient game
            # and the dealer's view when the non-dealer's keys arrive, the
            # non-dealer's view when the dealer's accept-redeal does.
            if self.view is None or role.other in self.sides:
                if kind is not ActionKind.ACCEPT_REDEAL:
                    self.deal(redeal=True)
                elif self.view is not None:
                    deal_after = True
        if kind is ActionKind.PLAY:
            if role.other in self.sides:
                index = self.sides[role.other].receive_show(payload["pos"], payload["key"])
            else:
                held = self.sides[role].my_cards(redeal=game.redealt)
                if payload["pos"] not in held:
                    raise CheatDetectedError(
                        f"player {int(sender)} plays position {payload['pos']}, not in its hand",
                        step="show",
                        position=payload["pos"],
                        evidence=(env.raw,),
                    )
                index = held[payload["pos"]]
            action = Action.play(Card.from_index(index))
        else:
            action = Action(kind)
        events = game.push(action, player=sender)
        if kind is ActionKind.PLAY and role in self.sides:
            # The shower's own key, as the audit checks it (also when only the
            # shower revealed and no receiver side opened the card).
            shown = canonical_key(payload["key"])
            expected = canonical_key(self.sides[role].show(payload["pos"]))
            self._audit(env, role, "shown key", shown, expected)
        if kind is ActionKind.ACCEPT_REDEAL:
            self.redeal_keys_due = Role.NONDEALER
            if deal_after:
                self.deal(redeal=True)
        self.after_action(sender, events, env)

    def after_action(
        self,
        actor: Player,
        events: Sequence[Event],
        env: Envelope,
        opened: list[bytes] | None = None,
    ) -> None:
        holds = conditions_after_action(
            events,
            audit_mode=self.audit_mode or "game",
            hands=self.hand + 1,
            audited=self.audited,
            early_redeal=self.deck == "v2" and self.agreed(FEATURE_EARLY_REDEAL),
        )
        holds.update(predeal_conditions(holds[Cond.ROUND_OVER], self.predeal or 0))
        holds[Cond.OPENED] = opened is not None
        if holds[Cond.ROUND_OVER]:
            self.hand_ender = actor
            if self.v2 is not None:
                self.v2_hidden += self.v2.report().hidden_cards_revealed
        self.advance(holds)
        if self.stage is Stage.DECK1:
            self.start_hand()
        elif self.stage is Stage.V2_DECK1:
            self.start_hand_v2(env.hash)
        elif self.stage in (Stage.V2_DECK2, Stage.V2_OPEN, Stage.V2_DECK3):
            # the pre-dealt hand starts (V2_DECK3: its dealer's shares rode on the action)
            self.hand += 1
            self.v2, self.v2_next, self.predeal, self.shares_due = self.v2_next, None, None, None
            if opened is not None:
                self.hand_v2.d2_shares(opened)
        elif self.stage is Stage.RESULT_FIRST:  # deck v2: the result follows the last action
            assert self.game is not None
            outcome = self.game.outcome()
            assert outcome is not None
            self.expected_result = result_payload(outcome, hands=self.hand + 1, chain=env.hash)

    # -- audit and result ----------------------------------------------------------

    def on_reveal(self, env: Envelope, sender: Player) -> None:
        first, seeds = env.payload["first"], env.payload["seeds"]
        if first != self.audited or first + len(seeds) != self.hand + 1:
            raise AuditFailedError(
                f"reveal covers hands {first}..{first + len(seeds) - 1}, expected "
                f"{self.audited}..{self.hand}",
                step="reveal",
                evidence=(env.raw,),
            )
        for k, seed in enumerate(seeds):
            if self.scan.seeds.get((sender, first + k), (b"", -1))[0] != seed:
                raise AuditFailedError(
                    f"hand {first + k}: seed differs from the one revealed before",
                    step="reveal",
                    evidence=(env.raw,),
                )
        second = self.stage is Stage.REVEAL_SECOND
        assert self.game is not None
        self.advance({Cond.GAME_OVER: self.game.phase is Phase.OVER})
        if second:
            self.audited = self.hand + 1
            if self.stage is Stage.DECK1:
                self.start_hand()
            elif self.stage is Stage.RESULT_FIRST:
                outcome = self.game.outcome()
                assert outcome is not None
                self.expected_result = result_payload(outcome, hands=self.hand + 1, chain=env.hash)

    def on_result(self, env: Envelope, sender: Player) -> None:
        if env.payload != self.expected_result:
            raise ResultMismatchError(
                f"player {sender}'s result {env.payload} disagrees with the replay "
                f"{self.expected_result}",
                evidence=(env.raw,),
            )
        self.results.append(env.payload)
        self.advance()


def _check_lone_reveal(scan: _Scan) -> RemoteProtocolError | None:
    """A reveal that is not answered must still cover exactly the unaudited hands."""
    revealer, at = scan.reveals[-1]
    reveal = scan.envelopes[at].payload
    hands = sum(1 for e in scan.envelopes[:at] if e.type == MessageType.DECK1)
    start = 0
    if len(scan.reveals) > 1:
        last = scan.envelopes[scan.reveals[-2][1]].payload
        start = last["first"] + len(last["seeds"])
    first, count = reveal["first"], len(reveal["seeds"])
    if first == start and first + count == hands:
        return None
    return AuditFailedError(
        f"player {int(revealer)}'s reveal covers hands {first}..{first + count - 1}, "
        f"expected {start}..{hands - 1}",
        step="reveal",
        evidence=(scan.envelopes[at].raw,),
        message_no=at,
    )


class _GameAborted(RemoteProtocolError):
    """A player ended the game with an ``abort``: no result, nothing to audit."""

    code = "aborted"


class _GameIncomplete(RemoteProtocolError):
    """The transcript stops before the co-signed result."""

    code = "incomplete"


def _add_local_seeds(scan: _Scan, secret: bytes) -> Player | None:
    """Add the seeds a session secret derives for its owner's unrevealed hands.

    The owner is the player whose hello carries the nonce the secret derives
    (wire.md section 9); ``None`` if the secret fits neither player.
    """
    owner = None
    for env in scan.envelopes[:2]:
        if nonce_is_from(env.payload["nonce"], secret):
            owner = Player(env.sender)
    if owner is None:
        return None
    hands = sum(1 for e in scan.envelopes if e.type == MessageType.DECK1)
    for hand in range(hands):
        scan.seeds.setdefault((owner, hand), (local_seed(secret, hand), -1))
    return owner


def verify_transcript(
    envelopes: Sequence[bytes], *, local_secret: bytes | None = None
) -> VerifyReport:
    """Check a whole transcript (raw envelopes in order).  Never raises on bad data.

    ``local_secret`` is the session secret of the player who recorded the
    transcript (stored beside it).  With it, hands whose seeds were never
    revealed (a game stopped before its audit) are replayed from that
    player's view, so a fault in them is pinpointed too; such findings rest
    on a seed only that player knows, and the report says so.
    """
    scan = _scan(envelopes)
    secret_owner = _add_local_seeds(scan, local_secret) if local_secret is not None else None
    if local_secret is not None and secret_owner is None:
        return VerifyReport(
            valid=False,
            messages=len(envelopes),
            error="the local secret does not belong to this transcript",
            error_code="bad-secret",
        )
    referee = _Referee(scan)
    error = referee.run()
    if error is None:
        error = scan.error
    complete = referee.stage is Stage.DONE or referee.resigned is not None
    if error is None and referee.blind_hand is not None and len(scan.reveals) % 2 == 1:
        error = _check_lone_reveal(scan)
    refuser = referee.refused_by
    if refuser is None and referee.stage in (Stage.REVEAL_FIRST, Stage.REVEAL_SECOND):
        refuser = expected_sender(referee.stage, referee.game, referee.hand_ender)
    if error is None and not complete and refuser is not None:
        last = scan.envelopes[-1] if scan.envelopes else None
        error = AuditRefusedError(
            f"player {int(refuser)} {referee.refusal}: the audit was refused"
            + (f"; {referee.ended_by}" if referee.ended_by else ""),
            step="reveal",
            # an abort sits at its position in the transcript (its seq may be earlier)
            message_no=len(scan.envelopes) - 1
            if last is not None and last.type == MessageType.ABORT
            else None,
        )
    aborter: int | None = None
    abort_reason: str | None = None
    last = scan.envelopes[-1] if scan.envelopes else None
    if last is not None and last.type == MessageType.ABORT:
        aborter, abort_reason = last.sender, last.payload["reason"]
    if error is None and not complete:
        if referee.ended_by is not None:
            error = _GameAborted(f"the game did not finish: {referee.ended_by}")
        elif referee.blind_hand is not None:
            error = _GameIncomplete(
                f"the transcript ends before hand {referee.blind_hand} was audited "
                "(a seed was never revealed)"
            )
        else:
            error = _GameIncomplete(
                f"the transcript ends in stage {referee.stage.value}, before the co-signed result"
            )
    game = referee.game
    outcome = game.outcome() if game is not None else None
    valid = error is None and complete
    score = outcome.scores if outcome else (game.scores if game else None)
    winner = int(outcome.winner) if outcome else None
    reason = outcome.reason.value if outcome else None
    hands = referee.hand + 1
    resigned_by: int | None = None
    if referee.resigned is not None and error is None:
        resigner, mark = referee.resigned
        resigned_by, winner, reason = int(resigner), int(resigner.other), "resigned"
        score, hands = mark.scores, mark.hands
    audited = valid and resigned_by is None  # a resignation needs (and gets) no audit
    audit = (
        "passed"
        if audited
        else "failed"
        if isinstance(error, CheatDetectedError)
        else "not reached"
    )
    hidden: int | None = None
    if referee.deck == "v2":
        # Every message present was proven on replay; nothing is left to audit.
        audit = "failed" if isinstance(error, CheatDetectedError) else "proofs"
        hidden = referee.v2_hidden
    elif referee.deck == "v1":
        hidden = _v1_hidden_cards(scan)
    return VerifyReport(
        valid=valid,
        messages=len(envelopes),
        game_id=referee.game_id.hex() if referee.game_id else None,
        players=tuple(referee.players),
        ruleset=dict(referee.ruleset.to_dict()) if referee.ruleset else None,
        audit_mode=referee.audit_mode,
        hands=hands,
        score=score,
        winner=winner,
        reason=reason,
        audit=audit,
        error=None if error is None else str(error.args[0]),
        error_code=None if error is None else error.code,
        error_message_no=None if error is None else error.message_no,
        ended_by=referee.ended_by,
        local_secret_of=int(secret_owner) if secret_owner is not None else None,
        deck=referee.deck,
        hidden_cards_revealed=hidden,
        first_dealer=int(game.first_dealer) if game is not None else None,
        moves=tuple((int(p), a) for p, a in game.history) if game is not None else (),
        status=_status(valid, error),
        resigned_by=resigned_by,
        culprit=_culprit(scan, referee, error),
        aborted_by=aborter,
        abort_reason=abort_reason,
    )


def _status(valid: bool, error: RemoteProtocolError | None) -> str:
    """complete, unfinished (stops or was left without a violation) or violation."""
    if valid:
        return "complete"
    if isinstance(error, _GameAborted | _GameIncomplete):
        return "unfinished"
    return "violation"


def _culprit(scan: _Scan, referee: _Referee, error: RemoteProtocolError | None) -> int | None:
    """The player a violation is proven against: the signer of the failing message
    once its signature checked (pass 2), or the player who refused the audit."""
    if error is None or isinstance(error, _GameAborted | _GameIncomplete):
        return None
    if isinstance(error, AuditRefusedError):
        refuser = referee.refused_by
        if refuser is None and referee.stage in (Stage.REVEAL_FIRST, Stage.REVEAL_SECOND):
            refuser = expected_sender(referee.stage, referee.game, referee.hand_ender)
        return int(refuser) if refuser is not None else None
    n = error.message_no
    if error is scan.error or n is None or n >= len(scan.envelopes):
        return None  # found before the signature could be trusted: nobody is proven
    return scan.envelopes[n].sender


def _v1_hidden_cards(scan: _Scan) -> int:
    """Cards never played that v1's audit disclosed: with both seeds of a hand
    revealed, anyone can open all 32 positions of its deck."""
    plays: list[int] = []
    for env in scan.envelopes:
        if env.type == MessageType.DECK1:
            plays.append(0)
        action = env.payload.get("action") if env.type == MessageType.DECK4 else env.payload
        if plays and env.type in (MessageType.DECK4, MessageType.ACTION):
            plays[-1] += isinstance(action, dict) and action.get("act") == "play"
    revealed = [
        hand
        for hand in range(len(plays))
        if all(scan.seeds.get((p, hand), (b"", -1))[1] >= 0 for p in Player)
    ]
    return sum(N_CARDS - plays[hand] for hand in revealed)
