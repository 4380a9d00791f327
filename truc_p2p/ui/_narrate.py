"""Turn session, rules and network events into one-line, human-readable text.

The sentences themselves live in :mod:`._texts`; this module follows the game
just enough to tell them (what a raise asks for, whether an accept answered
"my rest", which hand ended the game).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TextIO

from truc_p2p.i18n import N_, _, decimal, ngettext
from truc_p2p.net import NetEvent, PeerDisconnected, PeerReconnected
from truc_p2p.protocol import (
    AnyEvent,
    AuditPassed,
    CardsDealt,
    GameFinished,
    GameStarted,
    PeerAborted,
    PeerResigned,
    SessionEvent,
)
from truc_p2p.rules import (
    Acted,
    Action,
    ActionKind,
    Event,
    GameEnded,
    Player,
    RoundEnded,
    Ruleset,
    RulesetError,
    TrickEnded,
)
from truc_p2p.ui._texts import card_text, fit, plain, screen_width, show_cards
from truc_p2p.ui._voice import Voice

__all__ = ["Narrator", "Tally", "describe", "describe_action", "plain", "show_cards"]


#: The network layer's usual reasons for a lost link (English there), for the catalogs.
LINK_REASONS: dict[str, str] = {
    # Translators: why the link to the opponent was lost (in parentheses after it)
    "the peer closed the connection": N_("the opponent's side closed the connection"),
}


def describe_action(action: Action, *, ascii: bool = False) -> str:
    """An action in the third person without its subject ("plays 7♠"), for lists."""
    if action.kind is ActionKind.PLAY and action.card is not None:
        return _("plays {card}", card=card_text(action.card, ascii=ascii))
    text = {
        ActionKind.RAISE: _("asks “2 more?”"),
        ActionKind.REST: _("calls “my rest”"),
        ActionKind.ACCEPT: _("accepts"),
        ActionKind.REFUSE: _("refuses"),
        ActionKind.FOLD: _("folds"),
        ActionKind.ASK_REDEAL: _("asks for a redeal"),
        ActionKind.ACCEPT_REDEAL: _("accepts the redeal"),
        ActionKind.DECLINE_REDEAL: _("declines the redeal"),
    }.get(action.kind, str(action))
    return plain(text) if ascii else text


@dataclass
class Tally:
    """What the narration needs to know of the hand: its worth and the open request."""

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


def describe(
    event: AnyEvent | NetEvent,
    voice: Voice,
    tally: Tally,
    *,
    verbose: bool = False,
) -> str | None:
    """One line for ``event`` in ``voice``, or ``None`` if not worth printing.
    ``tally`` follows the hand (the caller feeds every event through here)."""
    line = _describe(event, voice, tally, verbose=verbose)
    return voice.out(line) if line is not None else None


def _describe(
    event: AnyEvent | NetEvent, voice: Voice, tally: Tally, *, verbose: bool
) -> str | None:
    names = voice.names
    if isinstance(event, GameStarted):
        return _started(event, voice, tally, verbose=verbose)
    if isinstance(event, CardsDealt):
        holder = voice.me if voice.me is not None else (voice.side or Player.P0)
        return voice.dealt(
            hand_no=event.round_no,
            dealer=event.dealer,
            holder=holder,
            cards=event.cards,
            redeal=event.redeal,
        )
    if isinstance(event, Acted):
        to, rest = tally.push(event.action)
        return "   " + voice.acted(event.player, event.action, value=tally.value, to=to, rest=rest)
    if isinstance(event, TrickEnded):
        tally.tricks.append(event.winner)
        return "   " + voice.trick(event.trick_no, event.winner)
    if isinstance(event, RoundEnded):
        game_over = event.points == 0 and event.winner is not None
        text = voice.hand_result(
            hand_no=event.round_no,
            winner=event.winner,
            points=event.points,
            reason=event.reason,
            game_over=game_over,
            tricks=tally.tricks,
        )
        tally.new_round(event.round_no + 1)
        tally.round_no = event.round_no
        if game_over:
            return "   " + text
        return "   " + _("{result} → {score}", result=text, score=voice.score(event.scores))
    if isinstance(event, GameEnded):
        o = event.outcome
        return "== " + voice.game_result(
            winner=o.winner, reason=o.reason, scores=o.scores, hand_no=tally.round_no
        )
    if isinstance(event, AuditPassed):
        hands = event.hands
        span = f"{hands[0] + 1}" if len(hands) == 1 else f"{hands[0] + 1}-{hands[-1] + 1}"
        return "   " + ngettext(
            "audit passed: the seeds of hand {hands} recompute its deck",
            "audit passed: the seeds of hands {hands} recompute every deck",
            len(hands),
            hands=span,
        )
    # A player's command prints the result once, at the end (print_outcome): the
    # narration tells it only to a spectator (demo)
    spectator = voice.me is None  # (a bot's operator reads it too, as before)
    if isinstance(event, GameFinished):
        r = event.result
        if not spectator:
            return None
        return "== " + voice.cosigned(winner=r.winner, scores=r.scores, hands=r.hands)
    if isinstance(event, PeerResigned):
        res = event.resignation
        if not spectator:
            return None
        return "== " + voice.resigned(by=res.by, hand=res.hand, scores=res.scores)
    if isinstance(event, PeerAborted):
        who = names[voice.me.other] if voice.me is not None else _("the opponent")
        return (
            "!! "
            + _(
                "{name} ended the game: {reason} {detail}",
                name=who,
                reason=event.reason,
                detail=event.detail,
            ).rstrip()
        )
    if isinstance(event, PeerDisconnected | PeerReconnected):
        return _link(event, voice)
    return None


def _started(event: GameStarted, voice: Voice, tally: Tally, *, verbose: bool) -> str:
    """The game's first line: who plays whom, to how many points, who deals first."""
    names = voice.names
    tally.ruleset = event.ruleset
    tally.new_round(0)
    first = voice.name(event.first_dealer)
    deals = (
        _("you deal first")
        if voice.is_me(event.first_dealer)
        else _("{name} deals first", name=first)
    )
    if voice.me is None and voice.side is None:  # a spectator: demo
        return _(
            "game {game}: {a} vs {b}, first to {target} points; {deals} (deck {deck})",
            game=event.game_id.hex()[:16],
            a=names[Player.P0],
            b=names[Player.P1],
            target=event.ruleset.target,
            deals=deals,
            deck=event.deck,
        )
    line = _(
        "{a} vs {b}, first to {target} points; {deals}",
        a=voice.name(Player.P0),
        b=voice.name(Player.P1),
        target=event.ruleset.target,
        deals=deals,
    )
    if verbose:
        rules = ", ".join(f"{k}={v}" for k, v in event.ruleset.to_dict().items())
        line += " " + _(
            "(game {game}, rules {rules}, deck {deck})",
            game=event.game_id.hex()[:16],
            rules=rules,
            deck=event.deck,
        )
    return line


def _link(event: PeerDisconnected | PeerReconnected, voice: Voice) -> str:
    """The line of a lost or restored link to the opponent."""
    if isinstance(event, PeerDisconnected):
        peer = _peer(voice)
        left = f"{event.seconds_left:.0f}"
        if event.seconds_left >= event.grace - 0.5:
            return "!! " + _(
                "connection to {name} lost ({reason}); waiting up to {seconds} s for {name} "
                "to come back -- the game goes on where it stopped",
                name=peer,
                reason=_(LINK_REASONS[event.reason])
                if event.reason in LINK_REASONS
                else event.reason,
                seconds=left,
            )
        return ".. " + _(
            "{name} is still away: {seconds} s left before the game counts as abandoned",
            name=peer,
            seconds=left,
        )
    if event.we_came_back:
        return "== " + _(
            "back at the table with {name}; the game goes on where it stopped",
            name=_peer(voice),
        )
    if event.resent:
        return "== " + ngettext(
            "{name} is back after {seconds} s, {n} message sent again; play goes on",
            "{name} is back after {seconds} s, {n} messages sent again; play goes on",
            event.resent,
            name=_peer(voice),
            seconds=decimal(event.after),
        )
    return "== " + _(
        "{name} is back after {seconds} s; play goes on",
        name=_peer(voice),
        seconds=decimal(event.after),
    )


def _peer(voice: Voice) -> str:
    side = voice.me if voice.me is not None else voice.side
    return voice.names[side.other] if side is not None else _("the opponent")


class Narrator:
    """Prints one line per event for a player who does not play itself (a bot plays
    for it): both players by name, scores from its own side (an ``on_event`` hook)."""

    def __init__(
        self,
        my_name: str,
        *,
        ascii: bool = False,
        out: TextIO | None = None,
        verbose: bool = False,
    ) -> None:
        self.my_name = my_name
        self.ascii = ascii
        self.out = out
        self.verbose = verbose
        self.me = Player.P0
        self.names = {Player.P0: my_name, Player.P1: _("opponent")}
        self.tally = Tally()

    @property
    def voice(self) -> Voice:
        return Voice(self.names, None, self.ascii, side=self.me)

    def start(self, event: GameStarted) -> None:
        """Learn our seat and the opponent's name (told apart if both names are equal)."""
        self.me = event.me
        peer = event.peer_name
        if peer == self.my_name:
            peer = _("{name} (opponent)", name=peer)
        self.names = {event.me: self.my_name, event.me.other: peer}

    def write(self, line: str) -> None:
        out = self.out or sys.stdout
        line = fit(line, screen_width(out))
        print(plain(line) if self.ascii else line, file=out, flush=True)

    def __call__(self, event: Event | SessionEvent | NetEvent) -> None:
        if isinstance(event, GameStarted):
            self.start(event)
        line = describe(event, self.voice, self.tally, verbose=self.verbose)
        if line:
            self.write(line)
