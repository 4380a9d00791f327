"""The narration: one line per event for someone who watches rather than plays.

The lines are the table model's (:meth:`~._table.TableModel.feed`, one handler
per event type in :mod:`._fold`): the same words the terminal and the web table
say, told here with both players by name.
"""

from __future__ import annotations

import sys
from typing import TextIO

from truc_p2p.i18n import _
from truc_p2p.net import NetEvent
from truc_p2p.protocol import AnyEvent, SessionEvent
from truc_p2p.rules import Action, ActionKind, Event, Player
from truc_p2p.ui._fold import Line, Tally
from truc_p2p.ui._table import TableModel
from truc_p2p.ui._texts import card_text, fit, plain, screen_width, show_cards
from truc_p2p.ui._voice import Voice

__all__ = ["Narrator", "Tally", "describe", "describe_action", "plain", "show_cards"]


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


def _said(lines: tuple[Line, ...]) -> str | None:
    """The model's lines as the narration prints them (one line per event)."""
    text = "\n".join(line.mark + line.text for line in lines)
    return text or None


def describe(
    event: AnyEvent | NetEvent,
    voice: Voice,
    tally: Tally,
    *,
    verbose: bool = False,
) -> str | None:
    """One line for ``event`` in ``voice`` (with both names: a narrator's), or ``None``
    if not worth printing.  ``tally`` follows the hand (the caller feeds every event
    through here): a table model without a mirror, fed this one event."""
    side = voice.side if voice.me is None else voice.me
    model = TableModel(
        voice.names[side] if side is not None else "",
        me=side if side is not None else Player.P0,
        names=dict(voice.names),
        ascii=voice.ascii,
        spectator=side is None,
        narrator=voice.me is None and side is not None,
        verbose=verbose,
        tally=tally,
    )
    return _said(model.feed(event))


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
        self.out = out
        self.ascii = ascii
        self.model = TableModel(my_name, ascii=ascii, narrator=True, verbose=verbose)

    @property
    def voice(self) -> Voice:
        return self.model.voice

    def write(self, line: str) -> None:
        out = self.out or sys.stdout
        line = fit(line, screen_width(out))
        print(plain(line) if self.ascii else line, file=out, flush=True)

    def __call__(self, event: Event | SessionEvent | NetEvent) -> None:
        line = _said(self.model.feed(event))
        if line:
            self.write(line)
