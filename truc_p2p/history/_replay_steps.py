"""A finished game as a list of replay steps, from the transcript owner's side.

Theory of operation
-------------------
:func:`~._record.public_moves` replays the moves the verifier accepted on a
spectator's rules engine, so a step can only ever show a card that was
played: never a hand before it is played, never the cards of a folded hand,
never what deck v1's audit discloses.  Each deal and each move is one
:class:`ReplayStep`: the sentences that tell it (from :class:`truc_p2p.ui._texts.Voice`,
"you" being the owner of the transcript), what the verifier established at
that message (shuffle proven, card opened with a proof...), and the table as
:class:`truc_p2p.ui._table.TableModel` derives it from the owner's seat: the same model
that renders live play and a resumed game, fed each deal and the engine's
events of each move through ``TableModel.feed``, the fold of live play, so a
step's lines are the words the live screens said.  Both players' transcripts
of one game give the same steps, told from the other side.

In the replay of one's own transcript the owner's hand is shown face up.
With its own cards of every deal (:func:`._replay_own.own_hands`: its session
rebuilt from the secret and key beside the transcript), the model is fed them as
in live play: it mirrors the owner's view of the game (``view=me``, dealt those
cards, pushed every move), so each step holds the owner's whole hand from the
deal on, the cards it never played too.  Without them (no secret or key beside
it, or they do not match), a step holds the owner's cards it plays later in the
deal, which the transcript shows; the opponent's unplayed cards never appear.

The terminal (``truc-p2p replay``) and the web page (:mod:`._replay_web`) are
two views of these steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from truc_p2p.history._record import GameFile, Move, public_moves
from truc_p2p.i18n import _, ngettext
from truc_p2p.protocol import CardsDealt, GameStarted
from truc_p2p.rules import (
    ActionKind,
    Card,
    Game,
    Player,
)
from truc_p2p.ui import TableModel, TableView, Voice, rules_words

__all__ = ["Replay", "ReplayStep", "build_replay"]


@dataclass(frozen=True, kw_only=True)
class ReplayStep:
    """One step: a deal, a move, or the end."""

    #: 0-based hand
    hand: int
    kind: str  # "deal", "move" or "end"
    lines: tuple[str, ...]
    #: what the verifier established at this step, or ``None``
    proof: str | None
    #: the transcript message of this step, if any
    message: int | None
    view: TableView
    #: how many unplayed cards each side holds (never which)
    held: dict[str, int]
    #: the transcript owner's own unplayed cards that its replay shows face up: its
    #: whole hand when its own cards are known (:func:`._replay_own.own_hands`), else
    #: those it plays later in this deal (a card it never played stays face down).
    #: The opponent's never are.  Empty for a spectator.
    mine: tuple[Card, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Replay:
    """Every step of a game and the lines that introduce it."""

    header: tuple[str, ...]
    steps: tuple[ReplayStep, ...]
    hands: int
    voice: Voice
    #: the transcript verifies as a complete, fair game
    valid: bool

    def hand_starts(self) -> dict[int, int]:
        """0-based hand -> index of its first step."""
        starts: dict[int, int] = {}
        for i, step in enumerate(self.steps):
            starts.setdefault(step.hand, i)
        return starts


def _at(text: str, message: int | None) -> str:
    """``text`` with the transcript message it rests on."""
    if message is None:
        return text
    return _("{what} (message {n})", what=text, n=message)


def _started(record: GameFile, voice: Voice, me: Player) -> GameStarted | None:
    """The game's start as ``me``'s session told it (``None`` before the coin); the
    opponent named as ``voice`` names it (told apart when both names are the same)."""
    report, ruleset = record.report, record.ruleset()
    if ruleset is None or report.first_dealer is None or len(report.players) < 2:
        return None
    try:
        game_id = bytes.fromhex(report.game_id or "")
    except ValueError:  # the lines never show it: only the start's record keeps it
        game_id = b""
    return GameStarted(
        game_id=game_id,
        me=me,
        peer_name=voice.names[me.other],
        peer_fingerprint=report.players[me.other].fingerprint,
        ruleset=ruleset,
        audit=report.audit_mode or "",
        first_dealer=Player(report.first_dealer),
        deck=report.deck or "v1",
    )


class _OutOfStep(Exception):
    """The owner's own cards do not fit the transcript's moves."""


class _Builder:
    def __init__(
        self,
        record: GameFile,
        voice: Voice,
        me: Player,
        own: Sequence[CardsDealt] | None = None,
    ) -> None:
        self.record = record
        self.voice = voice
        self.me = me
        #: the owner's cards of each deal still to come (None: not known)
        self.own = list(own) if own is not None else None
        self.audits = record.reveal_messages() if record.deck == "v1" else {}
        self.deals = record.deal_messages()
        self.steps: list[ReplayStep] = []
        #: step index -> the card the owner played at that step
        self.own_plays: dict[int, Card] = {}
        # the same table model as live play and resume: it keeps the trick just
        # finished, the last hand's result and the end, and derives the view
        self.model = TableModel(
            voice.names[me],
            ascii=voice.ascii,
            me=me,
            names=dict(voice.names),
            spectator=voice.me is None,
        )
        started = _started(record, voice, me)
        if started is not None:  # the game's start, as the session said it live
            self.model.feed(started)  # (the owner's view: its cards dealt, moves pushed)

    def held(self, game: Game) -> dict[str, int]:
        return {"me": game.hand_size(self.me), "opp": game.hand_size(self.me.other)}

    def view(self, game: Game) -> TableView:
        """The table after a step: the owner's view the model mirrors, or else the
        spectator's ``game``."""
        if self.own is None:
            self.model.game = game
        view = self.model.view()
        if view is None:  # the mirror refused a deal or a move
            raise _OutOfStep
        return view

    def own_cards(self, move: Move) -> tuple[Card, ...]:
        """The owner's cards of this deal, when they are known (else none)."""
        if self.own is None:
            self.model.game = None  # the spectator's game comes with the step's view
            return ()
        if not self.own:
            raise _OutOfStep
        cards = self.own.pop(0)
        if cards.round_no != move.hand or cards.redeal != move.redeal:
            raise _OutOfStep
        return cards.cards

    def deal_proof(self, hand: int, redeal: bool) -> str:
        deck = self.record.deck
        span = self.deals.get(hand)
        if deck == "v2" and redeal:
            return _("new cards opened with proofs from the same proven shuffle")
        if deck == "v2" and span is not None:
            return _(
                "shuffle proven: both shuffles and every key checked with their proofs "
                "(messages {first}–{last})",
                first=span[0],
                last=span[1],
            )
        if deck == "v2":
            return _("shuffle proven: both shuffles and every key checked with their proofs")
        if deck == "v1":
            audit = self.audits.get(hand)
            if audit is None:
                return _("shuffle not audited: the seeds of this hand were never revealed")
            return _("shuffle checked by the seed audit at message {n}", n=audit)
        return _("shuffle: deck version unknown, not checked")

    def move_proof(self, move: Move) -> str:
        deck = self.record.deck
        if move.action.kind is ActionKind.PLAY:
            if deck == "v2":
                text = _("card opened with a proof")
            elif deck == "v1" and move.hand in self.audits:
                text = _("card opened with its key, checked by the seed audit")
            else:
                text = _("card opened with its key")
        else:
            text = (
                _("signed by you")
                if self.voice.is_me(move.player)
                else _("signed by {name}", name=self.voice.name(move.player))
            )
        return self.voice.out(_at(text, move.message))

    def deal(self, move: Move) -> None:
        game = move.before
        if not move.redeal:  # a new hand: the last one's result leaves the table
            self.model.hand_result = None
        assert game.dealer is not None
        dealt = CardsDealt(
            round_no=move.hand, dealer=game.dealer, cards=self.own_cards(move), redeal=move.redeal
        )
        lines = self.model.feed(dealt)  # the same fold as live play
        self.model.last_trick = None
        view = self.view(game)
        self.steps.append(
            ReplayStep(
                hand=move.hand,
                kind="deal",
                lines=tuple(line.text for line in lines),
                proof=self.voice.out(self.deal_proof(move.hand, move.redeal)),
                message=None,
                view=view,
                held=self.held(game),
                mine=self.mine(view),
            )
        )

    def mine(self, view: TableView) -> tuple[Card, ...]:
        """The owner's hand as the mirror holds it (none without its cards)."""
        return view.hand if self.own is not None and self.voice.me is not None else ()

    def move(self, move: Move) -> None:
        model = self.model
        if self.own is None:
            model.game = None  # the lines come from the tally; the view from ``move.after``
        # the engine's events of the move (Acted first), fed as in live play: the
        # owner's view plays it too, and the lines are the live screens' own
        lines = [line.text for event in move.events for line in model.feed(event)]
        if move.player is self.me and move.action.card is not None:
            self.own_plays[len(self.steps)] = move.action.card
        view = self.view(move.after)
        self.steps.append(
            ReplayStep(
                hand=move.hand,
                kind="move",
                lines=tuple(lines),
                proof=self.move_proof(move),
                message=move.message,
                view=view,
                held=self.held(move.after),
                mine=self.mine(view),
            )
        )

    def end(self, game: Game | None, hand: int) -> None:
        report, voice = self.record.report, self.voice
        lines: list[str] = []
        if report.valid and report.winner is not None and report.score is not None:
            lines.append(
                voice.cosigned(
                    winner=Player(report.winner), scores=report.score, hands=report.hands
                )
            )
            proof = _("the whole transcript verifies: every signature, the chain and the result")
        elif self.record.finished:
            lines.append(_("the transcript does not verify"))
            proof = _at(_("violation: {error}", error=report.error or "?"), report.error_message_no)
        else:
            lines.append(_("the transcript ends here: the game is unfinished"))
            proof = _("the verifier says: {error}", error=report.error or "?")
        if game is None:
            return
        view = self.view(game)
        self.steps.append(
            ReplayStep(
                hand=hand,
                kind="end",
                lines=tuple(voice.out(x) for x in lines),
                proof=voice.out(proof),
                message=report.error_message_no if not report.valid else None,
                view=view,
                held=self.held(game),
                mine=self.mine(view),
            )
        )


def _header(record: GameFile, voice: Voice, hands: int) -> tuple[str, ...]:
    """The lines above the replay; ``hands``: the hands it steps through (the count
    the transcript states may include a hand the end of the game left unplayed)."""
    report = record.report
    lines = []
    for p in Player:
        if p < len(report.players):
            info = report.players[p]
            lines.append(
                voice.out(
                    _("you: {name} ({fp})", name=info.name, fp=info.fingerprint[:16])
                    if voice.is_me(p)
                    else _("player: {name} ({fp})", name=info.name, fp=info.fingerprint[:16])
                )
            )
    ruleset = record.ruleset()
    if ruleset is not None:
        # in a player's words, as a joiner reads them (the deck is the verifier's business)
        words = rules_words(
            target=ruleset.target, rest=ruleset.rest_refused.value, ladder=ruleset.ladder.value
        )
        lines.append(_("rules: {rules}", rules=words))
    if report.game_id:
        lines.append(_("game id: {id}", id=report.game_id))
    hands = hands or report.hands  # "10 hands played" above "hand 1 of 9" read as a gap
    lines.append(ngettext("{n} hand played", "{n} hands played", hands))
    lines.append(
        _("the transcript verifies") if record.verifies else _("the transcript does NOT verify")
    )
    return tuple(voice.out(x) for x in lines)


def _steps(record: GameFile, voice: Voice, own: Sequence[CardsDealt] | None) -> _Builder:
    """Every step of the game, from the owner's seat (``own``: its cards, if known)."""
    builder = _Builder(record, voice, voice.me if voice.me is not None else Player.P0, own)
    last: Move | None = None
    for move in public_moves(record):
        if move.dealt:
            builder.deal(move)
        builder.move(move)
        last = move
    if last is not None:
        builder.end(last.after, last.hand)
    if voice.me is None:
        ruleset, first = record.ruleset(), record.report.first_dealer
        if ruleset is not None and first is not None:
            builder.end(Game(ruleset, first_dealer=Player(first), spectator=True), 0)
    elif own is None:
        builder.steps = _with_own_cards(builder.steps, builder.own_plays)
    return builder


def _with_own_cards(steps: list[ReplayStep], plays: dict[int, Card]) -> list[ReplayStep]:
    """Each step with the owner's own cards still in hand that it plays later in the
    same deal (a deal or a redeal starts a new hand of cards): its own hand, face up
    in its own replay, in the order it played them."""
    out: list[ReplayStep] = []
    later: list[Card] = []  # the owner's plays after this step, in this deal
    for i in range(len(steps) - 1, -1, -1):
        step = steps[i]
        out.append(replace(step, mine=tuple(later)))
        if i in plays:
            later.insert(0, plays[i])
        if step.kind == "deal":
            later = []
    return out[::-1]


def build_replay(
    record: GameFile, *, ascii: bool = False, own: Sequence[CardsDealt] | None = None
) -> Replay:
    """The steps of ``record``'s game, told to its owner (or neutrally).  ``own``: the
    owner's cards of every deal (:func:`._replay_own.own_hands`), shown face up from
    the deal on; when they do not fit the moves the replay is told without them."""
    me = record.owner
    names = record.names()
    if names[Player.P0] == names[Player.P1]:  # told apart, as on the game screens
        other = me.other if me is not None else Player.P1
        names[other] = _("{name} (opponent)", name=names[other])
    voice = Voice(names, me, ascii)
    try:
        builder = _steps(record, voice, own if me is not None else None)
    except _OutOfStep:
        builder = _steps(record, voice, None)
    hands = max((s.hand for s in builder.steps), default=-1) + 1
    return Replay(
        header=_header(record, voice, hands),
        steps=tuple(builder.steps),
        hands=hands,
        voice=voice,
        valid=record.verifies,
    )
