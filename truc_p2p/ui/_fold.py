"""One fold from the game's events to the table model: :data:`HANDLERS`.

Theory of operation
-------------------
Every event a screen is handed (the session's, the rules engine's it passes on,
and the transport's) goes through :meth:`~._table.TableModel.feed`, which looks
its type up in :data:`HANDLERS`, one handler per event type, as lichess's round
keeps one socket-handler table that updates its controller.  A handler updates
the model (the mirror of the game, the last trick, the hand's result, the audit,
the link) and says what happened as :class:`Line` values, each told once here
in the model's :class:`~._voice.Voice`: the same words in the terminal, the web
table's log, the narration of a bot's game and the replay.  The screens only
render the lines and the model's view; none of them looks at an event's type.

A type missing from the table is ignored (a screen never raises on an event);
the test ``tests/ui/test_ui_fold.py`` fails when the session, the rules or the
transport gains an event type without a handler here.  The transport's events
join the table when the first of them arrives (:func:`handlers`), so that the
history commands, which render the same model, load no transport.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from truc_p2p.i18n import N_, _, decimal, ngettext
from truc_p2p.protocol import (
    AuditPassed,
    CardsDealt,
    GameFinished,
    GameStarted,
    PeerAborted,
    PeerResigned,
    Refused,
    Resumed,
    YourTurn,
)
from truc_p2p.rules import (
    Acted,
    Action,
    ActionKind,
    Dealt,
    Game,
    GameEnded,
    Player,
    RoundEnded,
    Ruleset,
    RulesetError,
    TrickEnded,
)
from truc_p2p.ui._abort_text import abort_text
from truc_p2p.ui._texts import move_clock_words

if TYPE_CHECKING:
    from truc_p2p.net import PeerDisconnected, PeerReconnected, TurnClock
    from truc_p2p.ui._table import TableModel

__all__ = ["HANDLERS", "LINK_REASONS", "Line", "Tally", "handler_for", "handlers"]

#: Who a line is about, for the web log's colours: a move of ours, of the
#: opponent's, or the table's news.
Who = Literal["me", "opp", "info"]


@dataclass(frozen=True, kw_only=True)
class Line:
    """One thing that happened, told once for every screen.

    ``kind`` names what it tells (``start``, ``clock``, ``keys``, ``deal``,
    ``move``, ``trick``, ``hand``, ``game``, ``audit``, ``result``, ``abort``,
    ``link``); ``mark`` is the terminal's margin before it (``"-- "`` a deal,
    ``">> "`` the opponent's move, ``"!! "`` trouble, ``"== "`` news, ``".. "``
    a countdown).  ``ending``: the line tells the game's end, which a player's
    command tells once itself (headline, points, transcript)."""

    kind: str
    text: str
    who: Who = "info"
    mark: str = ""
    ending: bool = False


@dataclass
class Tally:
    """What the lines need to know of the hand: its worth, the open request and
    each trick's winner (kept beside the mirror, which a screen may not have)."""

    ruleset: Ruleset = field(default_factory=Ruleset)
    value: int = 1
    pending: ActionKind | None = None
    round_no: int = 0
    #: Each trick's winner in the hand so far (``None``: spoiled), for "trick 1 decided it".
    tricks: list[Player | None] = field(default_factory=list)

    def to(self) -> int | None:
        try:
            return self.ruleset.next_value(self.value)
        except RulesetError:
            return None

    def push(self, action: Action) -> tuple[int | None, bool]:
        """Follow ``action``; returns (what a raise asks for, whether it answered a rest)."""
        to = self.to()
        rest = self.pending is ActionKind.REST
        kind = action.kind
        if kind in (ActionKind.RAISE, ActionKind.REST, ActionKind.ASK_REDEAL):
            self.pending = kind
        elif kind is ActionKind.ACCEPT:
            if self.pending is ActionKind.RAISE and to is not None:
                self.value = to
            self.pending = None
        elif kind in (ActionKind.REFUSE, ActionKind.ACCEPT_REDEAL, ActionKind.DECLINE_REDEAL):
            self.pending = None
        return to, rest

    def new_round(self, round_no: int) -> None:
        self.value, self.pending, self.round_no = 1, None, round_no
        self.tricks = []


#: The network layer's usual reasons for a lost link (English there), for the catalogs.
LINK_REASONS: dict[str, str] = {
    # Translators: why the link to the opponent was lost (in parentheses after it)
    "the peer closed the connection": N_("the opponent's side closed the connection"),
}


def _player(model: TableModel) -> bool:
    """The model is one player's table (not a narrator's or a spectator's)."""
    return not model.spectator and not model.narrator


# -- the handlers -------------------------------------------------------------------


def _started(model: TableModel, event: GameStarted) -> list[Line]:
    if not model.spectator:  # a spectator is told both names beforehand
        model.start(
            me=event.me,
            peer_name=event.peer_name,
            game=Game(event.ruleset, first_dealer=event.first_dealer, view=event.me),
        )
    model.started = event
    model.audit = "proofs" if event.deck == "v2" else "not yet"  # v2: proven on arrival
    model.tally.ruleset = event.ruleset
    model.tally.new_round(0)
    voice = model.voice
    first = (
        _("you deal first")
        if voice.is_me(event.first_dealer)
        else _("{name} deals first", name=voice.name(event.first_dealer))
    )
    if _player(model):
        lines = [
            Line(
                kind="start",
                text=_(
                    "playing against {name}, first to {target} points; {first}",
                    name=model.opp_name,
                    target=event.ruleset.target,
                    first=first,
                ),
            )
        ]
        if model.move_seconds is not None:  # the clock of every move, said once
            lines.append(Line(kind="clock", text=move_clock_words(model.move_seconds)))
        if model.verbose:
            keys = _(
                "({name}'s key {key}…, game {game}, deck {deck})",
                name=model.opp_name,
                key=event.peer_fingerprint[:16],
                game=event.game_id.hex()[:16],
                deck=event.deck,
            )
            lines.append(Line(kind="keys", text=keys))
        return lines
    names = voice.names
    if model.spectator:  # demo: both players by name, and the game
        text = _(
            "game {game}: {a} vs {b}, first to {target} points; {deals} (deck {deck})",
            game=event.game_id.hex()[:16],
            a=names[Player.P0],
            b=names[Player.P1],
            target=event.ruleset.target,
            deals=first,
            deck=event.deck,
        )
        return [Line(kind="start", text=text)]
    text = _(
        "{a} vs {b}, first to {target} points; {deals}",
        a=voice.name(Player.P0),
        b=voice.name(Player.P1),
        target=event.ruleset.target,
        deals=first,
    )
    if model.verbose:
        rules = ", ".join(f"{k}={v}" for k, v in event.ruleset.to_dict().items())
        text += " " + _(
            "(game {game}, rules {rules}, deck {deck})",
            game=event.game_id.hex()[:16],
            rules=rules,
            deck=event.deck,
        )
    return [Line(kind="start", text=text)]


def _dealt(model: TableModel, event: CardsDealt) -> list[Line]:
    model.dealt(event.cards, redeal=event.redeal)
    model.tally.tricks = []
    voice = model.voice
    holder = voice.me if voice.me is not None else (voice.side or Player.P0)
    text = voice.dealt(
        hand_no=event.round_no,
        dealer=event.dealer,
        holder=holder,
        cards=event.cards,
        redeal=event.redeal,
    )
    return [Line(kind="deal", text=text, mark="-- " if event.cards else "")]


def _acted(model: TableModel, event: Acted) -> list[Line]:
    to, rest = model.tally.push(event.action)
    model.acted(event)
    voice = model.voice
    text = voice.acted(event.player, event.action, value=model.tally.value, to=to, rest=rest)
    mine = voice.is_me(event.player)
    opp = _player(model) and not mine
    who: Who = ("opp" if opp else "me") if _player(model) else "info"
    return [Line(kind="move", text=text, who=who, mark=">> " if opp else "   ")]


def _trick(model: TableModel, event: TrickEnded) -> list[Line]:
    model.tally.tricks.append(event.winner)
    return [Line(kind="trick", text=model.trick_ended(event), mark="   ")]


def _round(model: TableModel, event: RoundEnded) -> list[Line]:
    game_over = event.points == 0 and event.winner is not None  # a staked hand: the game's
    text = model.round_ended(event, game_over=game_over, tricks=model.tally.tricks)
    model.tally.new_round(event.round_no + 1)
    model.tally.round_no = event.round_no
    if not game_over:
        text = _("{result} → {score}", result=text, score=model.voice.score(event.scores))
    return [Line(kind="hand", text=text, mark="   ", ending=game_over)]


def _game_ended(model: TableModel, event: GameEnded) -> list[Line]:
    return [Line(kind="game", text=model.game_ended(event), mark="== ", ending=True)]


def _audit(model: TableModel, event: AuditPassed) -> list[Line]:
    model.audit = "passed"
    hands = event.hands
    span = f"{hands[0] + 1}" if len(hands) == 1 else f"{hands[0] + 1}-{hands[-1] + 1}"
    text = ngettext(
        "audit passed: the seeds of hand {hands} recompute its deck",
        "audit passed: the seeds of hands {hands} recompute every deck",
        len(hands),
        hands=span,
    )
    return [Line(kind="audit", text=model.voice.out(text), mark="   ")]


def _finished(model: TableModel, event: GameFinished) -> list[Line]:
    model.over = True
    if _player(model):  # a player's command tells the result once, at its end
        return []
    r = event.result
    text = model.voice.cosigned(winner=r.winner, scores=r.scores, hands=r.hands)
    return [Line(kind="result", text=text, mark="== ", ending=True)]


def _resigned(model: TableModel, event: PeerResigned) -> list[Line]:
    model.over = True
    if _player(model):
        return []
    res = event.resignation
    text = model.voice.resigned(by=res.by, hand=res.hand, scores=res.scores)
    return [Line(kind="result", text=text, mark="== ", ending=True)]


def _aborted(model: TableModel, event: PeerAborted) -> list[Line]:
    model.over = True
    voice = model.voice
    who = voice.names[voice.me.other] if voice.me is not None else _("the opponent")
    text = abort_text(who, event.reason, event.detail)
    return [Line(kind="abort", text=voice.out(text), who="opp", mark="!! ")]


def _peer(model: TableModel) -> str:
    voice = model.voice
    side = voice.me if voice.me is not None else voice.side
    return voice.names[side.other] if side is not None else _("the opponent")


def _lost(model: TableModel, event: PeerDisconnected) -> list[Line]:
    model.link_lost(event.seconds_left)
    peer, left = _peer(model), f"{event.seconds_left:.0f}"
    if event.seconds_left >= event.grace - 0.5:
        reason = _(LINK_REASONS[event.reason]) if event.reason in LINK_REASONS else event.reason
        text = _(
            "connection to {name} lost ({reason}); waiting up to {seconds} s for {name} "
            "to come back -- the game goes on where it stopped",
            name=peer,
            reason=reason,
            seconds=left,
        )
        return [Line(kind="link", text=model.voice.out(text), who="opp", mark="!! ")]
    text = _(
        "{name} is still away: {seconds} s left before the game counts as abandoned",
        name=peer,
        seconds=left,
    )
    return [Line(kind="link", text=model.voice.out(text), mark=".. ")]


def _back(model: TableModel, event: PeerReconnected) -> list[Line]:
    model.link_back(restarted=event.we_came_back)
    peer = _peer(model)
    if event.we_came_back:
        text = _("back at the table with {name}; the game goes on where it stopped", name=peer)
    elif event.resent:
        text = ngettext(
            "{name} is back after {seconds} s, {n} message sent again; play goes on",
            "{name} is back after {seconds} s, {n} messages sent again; play goes on",
            event.resent,
            name=peer,
            seconds=decimal(event.after),
        )
    else:
        text = _(
            "{name} is back after {seconds} s; play goes on",
            name=peer,
            seconds=decimal(event.after),
        )
    return [Line(kind="link", text=model.voice.out(text), mark="== ")]


def _turn_clock(model: TableModel, event: TurnClock) -> list[Line]:
    model.resumed(event.seconds_left)  # after a resume: the opponent's clock of our move
    return []


def _quiet(model: TableModel, event: object) -> list[Line]:
    """Nothing to show or keep: the turn reaches the model through the strategy
    (:meth:`~._table.TableModel.begin_turn`, with the session's view), a resume
    through :class:`PeerReconnected`, a refusal through the command's ending."""
    return []


Handler = Callable[["TableModel", Any], list[Line]]

#: The one fold: each event type the screens are handed, and what it does to the model
#: (the transport's three join it with the first of them: :func:`handlers`).
HANDLERS: dict[type, Handler] = {
    GameStarted: _started,
    CardsDealt: _dealt,
    YourTurn: _quiet,
    Acted: _acted,
    TrickEnded: _trick,
    RoundEnded: _round,
    GameEnded: _game_ended,
    Dealt: _quiet,
    AuditPassed: _audit,
    GameFinished: _finished,
    PeerAborted: _aborted,
    PeerResigned: _resigned,
    Resumed: _quiet,
    Refused: _quiet,
}


def handlers() -> dict[type, Handler]:
    """The whole table, the transport's events too.  They join it here, not at import:
    the history commands (``games``, ``replay``) render the same model and load no
    transport; a transport event arriving means :mod:`truc_p2p.net` is loaded anyway."""
    from truc_p2p.net import PeerDisconnected, PeerReconnected, TurnClock

    HANDLERS.setdefault(PeerDisconnected, _lost)
    HANDLERS.setdefault(PeerReconnected, _back)
    HANDLERS.setdefault(TurnClock, _turn_clock)
    return HANDLERS


def handler_for(kind: type) -> Handler | None:
    """The handler of events of type ``kind`` (``None``: the table ignores them)."""
    found = HANDLERS.get(kind)
    if found is None and kind.__module__.startswith("truc_p2p.net."):
        found = handlers().get(kind)
    return found
