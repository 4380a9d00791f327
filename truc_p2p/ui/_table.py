"""What one player sees of the game: the model that every screen renders.

Theory of operation
-------------------
:class:`TableModel` is fed the game's events (the session's, the rules
engine's and the network's, exactly as the game loop hands them to its
``on_event`` hook) through :meth:`TableModel.feed`, the one fold: one handler
per event type (:mod:`._fold`) follows the event and tells it once, as
:class:`~._fold.Line` values that the terminal, the web table's log, the
narration and the replay all print.  It is also told the start and end of each
of our turns.  It keeps a
mirror of the player's own view of the game (a rules engine with
``view=me``), so it knows the table while the opponent thinks, not only at
our turn; at our turn the session's own view replaces the mirror.

:meth:`TableModel.view` derives, once, everything a screen shows as a frozen
:class:`TableView`: scores from the viewer's side, whose turn and how much
time is left, the cards, the trick just finished, the hand's tricks, the
pending request with what each answer costs, and the result of the last
hand.  The terminal (:mod:`._tui`) prints it and the web table
(:mod:`._web`) sends it as JSON; neither derives anything of its own, as
lichess keeps one round model under its board and its screen-reader view.
Every text comes from :mod:`._texts`.

Nothing here does I/O; time comes from the ``now`` callable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from truc_p2p.i18n import _
from truc_p2p.protocol import GameStarted
from truc_p2p.rules import (
    Acted,
    Action,
    ActionKind,
    Card,
    Game,
    GameEnded,
    Phase,
    Player,
    RoundEnded,
    RulesError,
    TrickEnded,
)
from truc_p2p.ui._choices import Choice, choices, keymap, next_value
from truc_p2p.ui._fold import Line, Tally, handler_for
from truc_p2p.ui._texts import clock
from truc_p2p.ui._voice import Voice

__all__ = [
    "Choice",
    "HandResult",
    "Line",
    "Moment",
    "PendingView",
    "Seat",
    "TableModel",
    "TableView",
    "TrickView",
    "build_view",
    "choices",
    "keymap",
]

Seat = Literal["me", "opp"]


def seat(player: Player | None, me: Player) -> Seat | None:
    """``"me"``, ``"opp"`` or ``None``."""
    if player is None:
        return None
    return "me" if player is me else "opp"


@dataclass(frozen=True, kw_only=True)
class PendingView:
    """A request waiting for its answer."""

    kind: ActionKind
    by: Seat
    #: The hand's worth if a raise is accepted.
    to: int | None
    text: str


@dataclass(frozen=True, kw_only=True)
class TrickView:
    """A finished trick: the two cards in play order and who won it."""

    no: int
    cards: tuple[tuple[Seat, Card], ...]
    winner: Seat | None
    text: str


@dataclass(frozen=True, kw_only=True)
class HandResult:
    """How the last hand ended; ``seq`` tells one result from the next."""

    seq: int
    hand_no: int
    winner: Seat | None
    points: int
    text: str
    game_over: bool = False


@dataclass(frozen=True, kw_only=True)
class TableView:
    """Everything a screen shows, from the viewer's side."""

    me_name: str
    opp_name: str
    scores: dict[Seat, int]
    target: int
    score_line: str
    hand_no: int
    trick_no: int
    phase: str
    round_value: int
    #: "my rest" was accepted: this hand decides the game.
    rest_on: bool
    worth: str
    dealer: Seat | None
    leader: Seat | None
    to_act: Seat | None
    hand: tuple[Card, ...]
    #: The action each card of ``hand`` plays now, and its key (at our turn).
    hand_actions: tuple[tuple[Action | None, str | None], ...]
    opp_cards: int
    table: tuple[tuple[Seat, Card], ...]
    tricks: tuple[TrickView, ...]
    #: One word per trick of this hand from the viewer's side, "–" when not played.
    trick_marks: tuple[str, ...]
    tricks_line: str
    last_trick: TrickView | None
    pending: PendingView | None
    choices: tuple[Choice, ...]
    turn: int | None
    status: str
    #: ``status`` with ``{time}`` where the countdown goes (``None``: no clock runs).
    status_template: str | None
    seconds_left: float | None
    hand_result: HandResult | None = None


def _pending(game: Game, me: Player, voice: Voice) -> PendingView | None:
    kind = game.pending
    if kind is None or game.requester is None:
        return None
    by = seat(game.requester, me)
    assert by is not None
    to = next_value(game) if kind is ActionKind.RAISE else None
    opp = voice.name(me.other)
    if by == "opp":
        text = {
            ActionKind.RAISE: _("{name} asks “2 more?” (to {value})", name=opp, value=to),
            ActionKind.REST: _("{name} calls “my rest”", name=opp),
            ActionKind.ASK_REDEAL: _("{name} asks for a redeal", name=opp),
        }[kind]
    else:
        text = {
            ActionKind.RAISE: _(
                "you asked “2 more?” (to {value}); waiting for {name}", value=to, name=opp
            ),
            ActionKind.REST: _("you called “my rest”; waiting for {name}", name=opp),
            ActionKind.ASK_REDEAL: _("you asked for a redeal; waiting for {name}", name=opp),
        }[kind]
    return PendingView(kind=kind, by=by, to=to, text=voice.out(text))


def _trick_view(
    no: int, leader: Player, cards: tuple[Card, Card], winner: Player | None, voice: Voice
) -> TrickView:
    me = voice.me if voice.me is not None else Player.P0
    first, second = seat(leader, me), seat(leader.other, me)
    assert first is not None and second is not None
    return TrickView(
        no=no,
        cards=((first, cards[0]), (second, cards[1])),
        winner=seat(winner, me),
        text=voice.trick(no, winner),
    )


def _marks(tricks: tuple[TrickView, ...]) -> tuple[str, ...]:
    words = {"me": _("won"), "opp": _("lost"), None: _("spoiled")}
    done = [words[t.winner] for t in tricks]
    return (*done, *("–" for _i in range(3 - len(done))))


@dataclass(frozen=True, kw_only=True)
class Moment:
    """What the table shows beyond the game's own state: the time left to the player
    to act, the trick just finished, the last hand's result, and whether the game
    is over for this screen (it may end before the rules say so: a resignation)."""

    seconds_left: float | None = None
    last_trick: TrickView | None = None
    hand_result: HandResult | None = None
    over: bool = False


def build_view(
    game: Game,
    me: Player,
    voice: Voice,
    *,
    legal: tuple[Action, ...] = (),
    turn: int | None = None,
    moment: Moment = Moment(),
) -> TableView:
    """The table from ``me``'s view of ``game``; ``legal`` and ``turn`` at our turn;
    ``moment`` what the model knows beyond the game (the clock, the last trick and hand)."""
    seconds_left = moment.seconds_left
    my_turn = bool(legal)
    picks = choices(game, legal, voice) if my_turn else ()
    by_action = {c.action: c.key for c in picks}
    hand = tuple(game.hand(me) or ())
    hand_actions = tuple(
        (Action.play(c), by_action[Action.play(c)]) if Action.play(c) in by_action else (None, None)
        for c in hand
    )
    scores = game.scores
    tricks = tuple(
        _trick_view(i, t.leader, t.cards, t.winner, voice) for i, t in enumerate(game.tricks)
    )
    marks = _marks(tricks)
    opp = voice.name(me.other)
    to_act = seat(game.to_act, me)
    # the status with "{time}" left open, for a screen that ticks the clock itself
    template: str | None = None
    if moment.over or game.phase is Phase.OVER:
        status = _("game over")
    elif my_turn:
        status = _("your move")
        template = _("your move ({time} left)", time="{time}")
    elif to_act == "opp":
        status = _("waiting for {name}", name=opp)
        template = _("waiting for {name} ({time} left)", name=opp, time="{time}")
    else:
        status = _("dealing…")
    if seconds_left is None:
        template = None
    elif template is not None:
        status = template.replace("{time}", clock(seconds_left))
    rest_on = game.rest_answered
    worth = (
        _("MY REST: this hand decides the game")
        if rest_on
        else _("hand worth {value}", value=game.round_value)
    )
    return TableView(
        me_name=voice.names[me],
        opp_name=voice.names[me.other],
        scores={"me": scores[me], "opp": scores[me.other]},
        target=game.ruleset.target,
        score_line=voice.score(scores),
        hand_no=game.round_no + 1,
        trick_no=min(game.trick_no + 1, 3),
        phase=game.phase.value,
        round_value=game.round_value,
        rest_on=rest_on,
        worth=voice.out(worth),
        dealer=seat(game.dealer, me),
        leader=seat(game.leader, me),
        to_act=to_act,
        hand=hand,
        hand_actions=hand_actions,
        opp_cards=game.hand_size(me.other),
        table=tuple((s, c) for p, c in game.table if (s := seat(p, me)) is not None),
        tricks=tricks,
        trick_marks=marks,
        tricks_line=voice.out(_("tricks: {marks}", marks=" · ".join(marks))),
        last_trick=moment.last_trick,
        pending=_pending(game, me, voice),
        choices=picks,
        turn=turn if my_turn else None,
        status=voice.out(status),
        status_template=voice.out(template) if template is not None else None,
        seconds_left=seconds_left,
        hand_result=moment.hand_result,
    )


@dataclass
class _Clock:
    """When the player now to act started, for the countdown."""

    who: Player | None = None
    since: float | None = None


@dataclass
class TableModel:
    """One player's table, fed the game's events (see the module docstring)."""

    my_name: str
    move_seconds: float | None = None
    ascii: bool = False
    now: Callable[[], float] = field(default=lambda: 0.0)
    me: Player = Player.P0
    names: dict[Player, str] = field(default_factory=dict)
    game: Game | None = None
    legal: tuple[Action, ...] = ()
    turn: int = 0
    last_trick: TrickView | None = None
    hand_result: HandResult | None = None
    over: bool = False
    #: Told to nobody in particular (a replay of someone else's game, the demo): no
    #: "you", and both names are told beforehand.
    spectator: bool = False
    #: Told to the operator of a bot that plays ``me``: both players by name, the
    #: scores from ``me``'s side.
    narrator: bool = False
    #: The start also says the opponent's key, the game id and the deck.
    verbose: bool = False
    #: The hand as the lines tell it (worth, open request, tricks), kept without the mirror.
    tally: Tally = field(default_factory=Tally)
    #: The game's start as the session said it (``None`` before it).
    started: GameStarted | None = None
    #: The deck's audit: ``"not yet"``, ``"passed"`` (v1's seeds recomputed the decks)
    #: or ``"proofs"`` (v2: every deal message is proven on arrival).
    audit: str = "not yet"
    #: When the opponent's time to come back ends (``now`` time), while the link is down.
    away_until: float | None = None
    #: Every line told of this game, in order.
    log: list[Line] = field(default_factory=list)
    _clock: _Clock = field(default_factory=_Clock)
    #: After a resume: the seconds the opponent's clock leaves our move due and when
    #: it said so (wire.md 13.5: its clock counts); our next turn starts from it.
    _resumed_left: tuple[float, float] | None = None
    _results: int = 0

    def __post_init__(self) -> None:
        if not self.names:
            self.names = {Player.P0: self.my_name, Player.P1: _("opponent")}

    @property
    def voice(self) -> Voice:
        if self.spectator:
            return Voice(self.names, None, self.ascii)
        if self.narrator:
            return Voice(self.names, None, self.ascii, side=self.me)
        return Voice(self.names, self.me, self.ascii)

    @property
    def opp_name(self) -> str:
        return self.names[self.me.other]

    # -- the fold ----------------------------------------------------------------

    def feed(self, event: object) -> tuple[Line, ...]:
        """Take one event: the model follows it (:data:`~._fold.HANDLERS`, one handler
        per event type) and keeps the lines that tell it; returns those lines.  An
        event of a type the table does not know changes nothing."""
        handler = handler_for(type(event))
        if handler is None:
            return ()
        lines = tuple(handler(self, event))
        self.log.extend(lines)
        return lines

    # -- what the events change (the fold's handlers call these) ------------------

    def start(self, *, me: Player, peer_name: str, game: Game) -> None:
        """The game started: our seat, the opponent's name (told apart from ours)."""
        self.me = me
        if peer_name == self.my_name:
            peer_name = _("{name} (opponent)", name=peer_name)
        self.names = {me: self.my_name, me.other: peer_name}
        self.game = game

    def dealt(self, cards: tuple[Card, ...], *, redeal: bool) -> None:
        if not redeal:
            self.last_trick = None
        if self.game is not None:
            try:
                self.game.deal({self.me: cards})
            except RulesError:  # out of step: the next turn resyncs the mirror
                self.game = None
        self._tick()

    def acted(self, event: Acted) -> None:
        """Apply a move to the mirror."""
        game = self.game
        action = event.action
        if action.kind is ActionKind.PLAY:
            self.last_trick = None
            if game is not None and game.trick_no == 0 and not game.table:
                self.hand_result = None
        if game is not None:
            try:
                game.push(action, player=event.player)
            except RulesError:
                self.game = None
        self._tick()

    def trick_ended(self, event: TrickEnded) -> str:
        """The trick just finished; the line that tells it."""
        self.last_trick = _trick_view(
            event.trick_no, event.leader, event.cards, event.winner, self.voice
        )
        return self.last_trick.text

    def round_ended(
        self, event: RoundEnded, *, game_over: bool, tricks: list[Player | None]
    ) -> str:
        """The hand's result (``tricks``: who won each of its tricks); its text."""
        self._results += 1
        text = self.voice.hand_result(
            hand_no=event.round_no,
            winner=event.winner,
            points=event.points,
            reason=event.reason,
            game_over=game_over,
            tricks=tricks,
        )
        self.hand_result = HandResult(
            seq=self._results,
            hand_no=event.round_no + 1,
            winner=seat(event.winner, self.me),
            points=event.points,
            text=text,
            game_over=game_over,
        )
        return text

    def game_ended(self, event: GameEnded) -> str:
        """The game's end (the hand's result then tells it); its text."""
        self.over = True
        o = event.outcome
        text = self.voice.game_result(
            winner=o.winner, reason=o.reason, scores=o.scores, hand_no=self.tally.round_no
        )
        if self.hand_result is not None:
            self.hand_result = HandResult(
                seq=self.hand_result.seq,
                hand_no=self.hand_result.hand_no,
                winner=self.hand_result.winner,
                points=self.hand_result.points,
                text=text,
                game_over=True,
            )
        return text

    def link_lost(self, seconds_left: float) -> None:
        """The opponent's link dropped: it has ``seconds_left`` to come back."""
        self.away_until = self.now() + seconds_left

    def link_back(self) -> None:
        self.away_until = None

    # -- our turns ---------------------------------------------------------------

    def begin_turn(self, game: Game, legal: tuple[Action, ...]) -> None:
        """Our turn: the session's view replaces the mirror."""
        self.game = game.copy()
        self.turn += 1
        self.legal = tuple(legal)
        self._clock = _Clock(self.me, self.now())
        if self._resumed_left is not None:  # the move the opponent's clock was timing
            self._from_resume()

    def resumed(self, seconds_left: float | None) -> None:
        """The game resumed and the opponent's clock leaves our move ``seconds_left``
        (``None``: it does not time us, or an older peer did not say): the countdown
        of that move shows it, now if we are choosing, else from our next turn."""
        if seconds_left is None or self.move_seconds is None:
            return
        self._resumed_left = (seconds_left, self.now())
        if self.legal:
            self._from_resume()

    def _from_resume(self) -> None:
        assert self._resumed_left is not None and self.move_seconds is not None
        left, said = self._resumed_left
        self._resumed_left = None
        self._clock = _Clock(self.me, said + left - self.move_seconds)

    def end_turn(self) -> None:
        self.legal = ()

    def _tick(self) -> None:
        """Restart the countdown when the player to act changes."""
        who = self.game.to_act if self.game is not None else None
        if who is not self._clock.who:
            self._clock = _Clock(who, self.now() if who is not None else None)

    def waiting_for_opponent(self) -> bool:
        """Whether the opponent is now to act (the mirror says so)."""
        return self.game is not None and self.game.to_act is self.me.other and not self.legal

    def seconds_left(self) -> float | None:
        if self.move_seconds is None or self._clock.since is None:
            return None
        return max(0.0, self._clock.since + self.move_seconds - self.now())

    def view(self) -> TableView | None:
        """The table now, or ``None`` before the game (or while the mirror resyncs)."""
        if self.game is None:
            return None
        return build_view(
            self.game,
            self.me,
            self.voice,
            legal=self.legal,
            turn=self.turn if self.legal else None,
            moment=Moment(
                seconds_left=self.seconds_left(),
                last_trick=self.last_trick,
                hand_result=self.hand_result,
                over=self.over,
            ),
        )
