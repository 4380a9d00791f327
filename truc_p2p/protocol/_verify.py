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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from truc_p2p.deck import CheatError, DeckError, DeckSide, Role, positions
from truc_p2p.protocol._errors import (
    AuditFailedError,
    ChainError,
    CheatDetectedError,
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
from truc_p2p.protocol._messages import MAX_SEEDS_PER_REVEAL, MessageType, validate_payload
from truc_p2p.protocol._session import (
    coin_commitment,
    first_dealer_from_coins,
    game_id_of,
    result_payload,
)
from truc_p2p.protocol._state import STAGES, Cond, Stage, expected_sender, next_stage
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
    GameEnded,
    IllegalActionError,
    Phase,
    Player,
    RoundEnded,
    RulesError,
    Ruleset,
)

__all__ = ["PlayerInfo", "VerifyReport", "verify_transcript"]


@dataclass(frozen=True, kw_only=True)
class PlayerInfo:
    name: str
    fingerprint: str


@dataclass(frozen=True, kw_only=True)
class VerifyReport:
    """What :func:`verify_transcript` found.  ``valid`` only for a complete,
    audited game whose co-signed result matches the replay."""

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

    def to_json(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "game_id": self.game_id,
            "players": [{"name": p.name, "fingerprint": p.fingerprint} for p in self.players],
            "ruleset": self.ruleset,
            "audit_mode": self.audit_mode,
            "messages": self.messages,
            "hands": self.hands,
            "score": list(self.score) if self.score is not None else None,
            "winner": self.winner,
            "reason": self.reason,
            "audit": self.audit,
            "error": self.error,
            "error_code": self.error_code,
            "error_message": self.error_message_no,
            "ended_by": self.ended_by,
        }

    def summary(self) -> str:
        """A one-screen human summary."""
        lines = [f"transcript: {'VALID' if self.valid else 'INVALID'} ({self.messages} messages)"]
        if self.game_id:
            lines.append(f"game id:    {self.game_id}")
        for i, p in enumerate(self.players):
            lines.append(f"player {i}:   {p.name}  {p.fingerprint}")
        if self.ruleset:
            rules = ", ".join(f"{k}={v}" for k, v in self.ruleset.items())
            lines.append(f"ruleset:    {rules}; audit every {self.audit_mode}")
        lines.append(f"hands:      {self.hands}")
        if self.score is not None:
            lines.append(f"score:      {self.score[0]} - {self.score[1]}")
        if self.winner is not None:
            lines.append(f"winner:     player {self.winner} ({self.reason})")
        lines.append(f"audit:      {self.audit}")
        if self.ended_by:
            lines.append(f"ended by:   {self.ended_by}")
        if self.error:
            where = (
                f"message {self.error_message_no}: " if self.error_message_no is not None else ""
            )
            lines.append(f"violation:  {where}{self.error} [{self.error_code}]")
        return "\n".join(lines)


@dataclass
class _Scan:
    envelopes: list[Envelope] = field(default_factory=list)
    keys: list[Ed25519PublicKey] = field(default_factory=list)
    # (player, hand) -> (seed, message number of the reveal)
    seeds: dict[tuple[Player, int], tuple[bytes, int]] = field(default_factory=dict)
    error: RemoteProtocolError | None = None


def _scan(raws: Sequence[bytes]) -> _Scan:
    """Pass 1: envelopes, signatures, chain, sequence, game id, payload shapes."""
    scan = _Scan()
    prev, prev2, game_id = GENESIS, GENESIS, b""
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
            is_abort = env.type == MessageType.ABORT
            if env.seq != n and not (is_abort and env.seq == n - 1):
                raise SequenceError(f"sequence number {env.seq}", evidence=ev, message_no=n)
            if env.prev != prev and not (is_abort and env.prev == prev2):
                raise ChainError("previous-hash does not match", evidence=ev, message_no=n)
            validate_payload(env.type, env.payload, evidence=ev, message_no=n)
            if env.type == MessageType.REVEAL:
                sender = Player(env.sender)
                for k, seed in enumerate(env.payload["seeds"]):
                    scan.seeds.setdefault((sender, env.payload["first"] + k), (seed, n))
        except RemoteProtocolError as exc:
            exc.message_no = n
            scan.error = exc
            break
        scan.envelopes.append(env)
        prev2, prev = prev, env.hash
        if n == 1:
            game_id = game_id_of(hellos[0].raw, hellos[1].raw)
    return scan


class _Referee:
    """Pass 2: the game replayed with both players' deck state and an omniscient engine."""

    def __init__(self, scan: _Scan) -> None:
        self.scan = scan
        self.stage = Stage.HELLO_INITIATOR
        self.game: Game | None = None
        self.ruleset: Ruleset | None = None
        self.audit_mode: str | None = None
        self.game_id = b""
        self.players: list[PlayerInfo] = []
        self.coin_commit = b""
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
        self.prev = GENESIS

    # -- driving -------------------------------------------------------------------

    def run(self) -> RemoteProtocolError | None:
        for env in self.scan.envelopes:
            if self.blind_hand is not None:
                # The hand cannot be replayed without both seeds, but an abort
                # needs no game state: still say who ended the game.
                if env.type == MessageType.ABORT and self.ended_by is None:
                    self.step(env)
                continue
            try:
                self.step(env)
            except RemoteProtocolError as exc:
                exc.message_no = env.seq if env.seq is not None else exc.message_no
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

    def step(self, env: Envelope) -> None:
        ev, n = (env.raw,), env.seq
        if self.stage is Stage.DONE:
            raise UnexpectedMessageError("message after the co-signed result", evidence=ev)
        if env.type == MessageType.ABORT:
            self.ended_by = (
                f"player {env.sender} aborted at message {n}: {env.payload['reason']}"
                + (f" ({env.payload['detail']})" if env.payload["detail"] else "")
            )
            self.stage = Stage.ABORTED
            return
        if self.stage is Stage.ABORTED:
            raise UnexpectedMessageError("message after an abort", evidence=ev)
        sender = Player(env.sender)
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
        audit = p["options"].get("audit")
        if sender is Player.P0:
            if p["options"] != {"audit": audit} or audit not in ("game", "hand"):
                raise MalformedMessageError(f"bad options {p['options']}", evidence=(env.raw,))
            self.ruleset, self.audit_mode, self.coin_commit = ruleset, audit, p["coin"]
        else:
            if ruleset != self.ruleset or p["options"] != {"audit": self.audit_mode}:
                raise RulesetMismatchError(
                    "the players proposed different rulesets or options", evidence=(env.raw,)
                )
            self.responder_coin = p["coin"]
            self.game_id = game_id_of(self.scan.envelopes[0].raw, env.raw)
        self.players.append(PlayerInfo(name=p["name"], fingerprint=fingerprint(p["key"])))
        self.advance()

    def on_coin(self, env: Envelope, sender: Player) -> None:
        if coin_commitment(env.payload["coin"]) != self.coin_commit:
            raise CheatDetectedError(
                "coin does not open the commitment", step="coin", evidence=(env.raw,)
            )
        assert self.ruleset is not None
        first = first_dealer_from_coins(env.payload["coin"], self.responder_coin)
        self.game = Game(self.ruleset, first_dealer=first)
        self.advance()
        self.start_hand()

    # -- deck ----------------------------------------------------------------------

    def start_hand(self) -> None:
        assert self.game is not None
        self.hand += 1
        dealer = self.game.dealer
        dseed = self.scan.seeds.get((dealer, self.hand))
        nseed = self.scan.seeds.get((dealer.other, self.hand))
        if dseed is None or nseed is None:
            self.blind_hand = self.hand
            return
        self.sides = {
            Role.DEALER: DeckSide(Role.DEALER, dseed[0], game_id=self.game_id, hand=self.hand),
            Role.NONDEALER: DeckSide(
                Role.NONDEALER, nseed[0], game_id=self.game_id, hand=self.hand
            ),
        }
        self.seed_msgs = {Role.DEALER: dseed[1], Role.NONDEALER: nseed[1]}

    def _audit(self, env: Envelope, role: Role, what: str, got: Any, want: Any) -> None:
        if got != want:
            raise AuditFailedError(
                f"hand {self.hand}: the {role.name.lower()}'s {what} does not follow from "
                f"its revealed seed",
                step=env.type,
                evidence=(env.raw,),
            )

    def _check_commitment(self, env: Envelope, role: Role) -> None:
        if env.payload["commitment"] != self.sides[role].commitment:
            raise AuditFailedError(
                f"hand {self.hand}: the {role.name.lower()}'s revealed seed (message "
                f"{self.seed_msgs[role]}) does not open its commitment",
                step="commitment",
                evidence=(env.raw, self.scan.envelopes[self.seed_msgs[role]].raw),
            )

    def on_deck1(self, env: Envelope, sender: Player) -> None:
        d, nd = self.sides[Role.DEALER], self.sides[Role.NONDEALER]
        self._check_commitment(env, Role.DEALER)
        self._audit(env, Role.DEALER, "D1", tuple(env.payload["deck"]), tuple(d.d1()))
        self.expect["deck2"] = tuple(nd.receive_d1(env.payload["deck"], env.payload["commitment"]))
        self.advance()

    def on_deck2(self, env: Envelope, sender: Player) -> None:
        self._check_commitment(env, Role.NONDEALER)
        self._audit(env, Role.NONDEALER, "D2", tuple(env.payload["deck"]), self.expect["deck2"])
        d3, keys = self.sides[Role.DEALER].receive_d2(
            env.payload["deck"], env.payload["commitment"]
        )
        self.expect["deck3"] = (tuple(d3), [keys[i] for i in positions(Role.NONDEALER, False)])
        self.advance()

    def on_deck3(self, env: Envelope, sender: Player) -> None:
        got = (tuple(env.payload["deck"]), env.payload["keys"])
        self._audit(env, Role.DEALER, "D3", got, self.expect["deck3"])
        order = positions(Role.NONDEALER, False)
        d4, keys = self.sides[Role.NONDEALER].receive_d3(
            env.payload["deck"], dict(zip(order, env.payload["keys"], strict=True))
        )
        self.expect["deck4"] = (tuple(d4), [keys[i] for i in positions(Role.DEALER, False)])
        self.advance()

    def on_deck4(self, env: Envelope, sender: Player) -> None:
        got = (tuple(env.payload["deck"]), env.payload["keys"])
        self._audit(env, Role.NONDEALER, "D4", got, self.expect["deck4"])
        order = positions(Role.DEALER, False)
        self.sides[Role.DEALER].receive_d4(
            env.payload["deck"], dict(zip(order, env.payload["keys"], strict=True))
        )
        self.deal(redeal=False)
        self.play(env, sender, env.payload["action"])

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
        if "keys" in payload:
            own = self.sides[role].redeal_keys()
            want = [own[i] for i in positions(role.other, True)]
            self._audit(env, role, "redeal keys", payload["keys"], want)
            self.sides[role.other].receive_redeal_keys(
                dict(zip(positions(role.other, True), payload["keys"], strict=True))
            )
            if kind is not ActionKind.ACCEPT_REDEAL:
                self.redeal_keys_due = None
                self.deal(redeal=True)
        if kind is ActionKind.PLAY:
            index = self.sides[role.other].receive_show(payload["pos"], payload["key"])
            action = Action.play(Card.from_index(index))
        else:
            action = Action(kind)
        events = game.push(action, player=sender)
        if kind is ActionKind.ACCEPT_REDEAL:
            self.redeal_keys_due = Role.NONDEALER
        self.after_action(sender, events)

    def after_action(self, actor: Player, events: Sequence[Event]) -> None:
        round_over = any(isinstance(e, RoundEnded) for e in events)
        game_over = any(isinstance(e, GameEnded) for e in events)
        if round_over:
            self.hand_ender = actor
        audit_due = round_over and (
            game_over
            or self.audit_mode == "hand"
            or self.hand + 1 - self.audited >= MAX_SEEDS_PER_REVEAL
        )
        self.advance({Cond.AUDIT_DUE: audit_due, Cond.ROUND_OVER: round_over})
        if self.stage is Stage.DECK1:
            self.start_hand()

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


def verify_transcript(envelopes: Sequence[bytes]) -> VerifyReport:
    """Check a whole transcript (raw envelopes in order).  Never raises on bad data."""
    scan = _scan(envelopes)
    referee = _Referee(scan)
    error = referee.run()
    if error is None and scan.error is not None and referee.blind_hand is None:
        error = scan.error
    if error is None and referee.blind_hand is not None:
        error = scan.error or AuditFailedError(
            f"hand {referee.blind_hand} was never audited (a seed was not revealed)",
            step="reveal",
        )
    game = referee.game
    outcome = game.outcome() if game is not None else None
    complete = referee.stage is Stage.DONE
    if error is None and not complete:
        why = referee.ended_by or f"transcript ends in stage {referee.stage.value}"
        error = UnexpectedMessageError(f"the game did not finish: {why}")
    valid = error is None and complete
    audit = (
        "passed" if valid else "failed" if isinstance(error, CheatDetectedError) else "not reached"
    )
    return VerifyReport(
        valid=valid,
        messages=len(envelopes),
        game_id=referee.game_id.hex() if referee.game_id else None,
        players=tuple(referee.players),
        ruleset=dict(referee.ruleset.to_dict()) if referee.ruleset else None,
        audit_mode=referee.audit_mode,
        hands=referee.hand + 1,
        score=outcome.scores if outcome else (game.scores if game else None),
        winner=int(outcome.winner) if outcome else None,
        reason=outcome.reason.value if outcome else None,
        audit=audit,
        error=None if error is None else str(error.args[0]),
        error_code=None if error is None else error.code,
        error_message_no=None if error is None else error.message_no,
        ended_by=referee.ended_by,
    )
