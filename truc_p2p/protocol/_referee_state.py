"""The verifier's second pass, its state and driving: the game replayed message by
message through the one referee (:class:`~._referee_core.RefereeCore`, which the live
session runs too: who was due to send what, the stage, how the game ended), with
what the verifier reports (who ended or refused what, the resignation, judged on the
referee's marks).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from truc_p2p.deck import (
    CheatError,
    DeckError,
    HandVerifierV2,
    Role,
)
from truc_p2p.protocol._errors import (
    CheatDetectedError,
    IllegalMoveError,
    MalformedMessageError,
    RemoteProtocolError,
)
from truc_p2p.protocol._hello import feature_agreed
from truc_p2p.protocol._messages import MessageType
from truc_p2p.protocol._state import (
    Cond,
    Stage,
)
from truc_p2p.protocol._values import (
    FEATURE_RESIGN,
    FEATURE_REST_FINAL,
)
from truc_p2p.protocol._wire import (
    GENESIS,
    Envelope,
)
from truc_p2p.rules import (
    Event,
    Game,
    IllegalActionError,
    Player,
    RulesError,
    Ruleset,
)

if TYPE_CHECKING:
    from truc_p2p.deck import DeckSide


from truc_p2p.protocol._judge import Mark, check_resignation
from truc_p2p.protocol._referee_core import RefereeCore
from truc_p2p.protocol._verify_report import PlayerInfo
from truc_p2p.protocol._verify_scan import Scan

__all__ = ["RefereeState"]


class RefereeState:
    """Pass 2: the game replayed with the players' deck state and a rules engine.

    With both players' seeds the engine is omniscient and both deck sides are
    rebuilt.  When only one player ``X`` revealed every hand (the other
    refused or the game stopped at the audit), the replay runs from ``X``'s
    view: each deck message is a function of its sender's seed and what it
    received, so ``X``'s messages are still audited byte for byte and the
    other player's pass every check ``X`` ran as receiver.
    """

    def __init__(self, scan: Scan) -> None:
        self.scan = scan
        #: the one referee: the stage, the turns, the endings (:mod:`._referee_core`)
        self.referee = RefereeCore(self)
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
        # Resignation (wire.md section 8): the features each hello announces and the
        # one that ended the game (the referee notes the marks before each position).
        self.features: list[int] = []
        self.resigned: tuple[Player, Mark] | None = None
        # Early cards (wire.md 6a): proposed by the initiator, on when the responder
        # agreed too.
        self.early = False

    def run(self) -> RemoteProtocolError | None:
        for n, env in enumerate(self.scan.envelopes):
            # A hand without both seeds cannot be replayed, but an abort needs no
            # game state: still say who ended the game, and that it ends once.
            if self.blind and not (env.type == MessageType.ABORT or self.stage is Stage.ABORTED):
                self.referee.pass_over(env)
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

    @property
    def stage(self) -> Stage:
        """The referee's stage (read only: only the referee moves it)."""
        return self.referee.stage

    @property
    def blind(self) -> bool:
        """Whether the hand being played cannot be replayed (a player's seeds missing)."""
        return self.blind_hand is not None

    @property
    def pipelined(self) -> bool:
        """Whether the players chose the pipelined deal (the referee's :class:`Judge`)."""
        return self.pipeline

    @property
    def rest_final(self) -> bool:
        """Whether both hellos agreed the rest-final rule (wire.md 6b)."""
        return self.agreed(FEATURE_REST_FINAL)

    def agreed(self, feature: int) -> bool:
        """Whether both hello nonces announce ``feature`` (wire.md section 8.1) and the
        game plays the deck it needs, as the session judges it."""
        return feature_agreed(feature, self.features, self.deck)

    def resign_at(self, env: Envelope, n: int) -> None:
        """A signed resignation at position ``n`` (its ``seq`` names the point of the
        chain its sender had seen): the other player wins (wire.md section 8)."""
        mark = self.referee.marks[env.seq]
        check_resignation(self.agreed(FEATURE_RESIGN), mark, evidence=(env.raw,))
        self.resigned = (Player(env.sender), mark)
        self.ended_by = f"player {env.sender} resigned at message {n}" + (
            f" ({env.payload['detail']})" if env.payload["detail"] else ""
        )

    def step(self, env: Envelope) -> None:
        """One message, judged by the referee the session runs too: one ending per game,
        the turn, then its handler here (``on_`` + the rulebook's name)."""
        self.referee.step(env, Player(env.sender))

    def on_abort(self, env: Envelope, sender: Player) -> None:
        """An abort ends the game (the referee ends it once it is judged): a resignation
        (:meth:`resign_at`), or a plain abort, which refuses the audit while a reveal is
        due (:func:`~._judge.audit_refusal`)."""
        if env.payload["reason"] == "resign":
            self.resign_at(env, len(self.referee.marks) - 1)
            return
        n = env.seq
        self.ended_by = f"player {env.sender} aborted at message {n}: {env.payload['reason']}" + (
            f" ({env.payload['detail']})" if env.payload["detail"] else ""
        )
        refused = self.referee.refusal(env)
        if refused is not None:
            self.refused_by, self.refusal = refused

    def advance(self, holds: dict[Cond, bool] | None = None) -> None:
        self.referee.advance(holds)

    def role_of(self, player: Player) -> Role:
        assert self.game is not None
        return Role.DEALER if player == self.game.dealer else Role.NONDEALER

    def after_action(
        self,
        actor: Player,
        events: Sequence[Event],
        env: Envelope,
        opened: list[bytes] | None = None,
    ) -> None:
        """What follows an action (the referee's own layer: the hand's end, the audit)."""
        raise NotImplementedError
