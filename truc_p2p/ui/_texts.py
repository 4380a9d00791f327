"""Every sentence the game screens show, in one place, from the viewer's side.

The terminal, the web table, ``demo`` and the end screens ask here for whole
sentences; each one goes through :mod:`._i18n`, so a catalog translates it
with its placeholders wherever the language puts them.  Here: cards, widths,
keys, the help and the actions' labels; the sentences about the players
(:class:`~._voice.Voice`) are in :mod:`._voice`.
"""

from __future__ import annotations

import os
import re
import textwrap
from typing import TextIO

from truc_p2p.i18n import N_, _, ngettext
from truc_p2p.rules import (
    Action,
    ActionKind,
    Card,
    Rank,
    Suit,
)

__all__ = [
    "HELP",
    "KEY_NAMES",
    "NOT_NOW",
    "action_label",
    "bot_player_name",
    "card_name",
    "card_text",
    "clock",
    "fit",
    "fit_for",
    "help_fitted",
    "move_clock_words",
    "plain",
    "rank_text",
    "screen_width",
    "show_cards",
]

#: A card's rank and suit as a screen reader says them ("seven of hearts"): each
#: suit word is only used in a card's name (a language may decline it there).
_RANK_NAMES = {
    Rank.SEVEN: N_("seven"),
    Rank.EIGHT: N_("eight"),
    Rank.NINE: N_("nine"),
    Rank.TEN: N_("ten"),
    Rank.JACK: N_("jack"),
    Rank.QUEEN: N_("queen"),
    Rank.KING: N_("king"),
    Rank.ACE: N_("ace"),
}
_SUIT_NAMES = {
    Suit.CLUBS: N_("of clubs"),
    Suit.DIAMONDS: N_("of diamonds"),
    Suit.HEARTS: N_("of hearts"),
    Suit.SPADES: N_("of spades"),
}


def card_name(card: Card) -> str:
    """A card's spoken name ("seven of hearts"), in the language in use."""
    return _("{rank} {of_suit}", rank=_(_RANK_NAMES[card.rank]), of_suit=_(_SUIT_NAMES[card.suit]))


_PLAIN = str.maketrans(
    {
        "“": '"',
        "”": '"',
        "«": '"',  # French, Spanish, Catalan, Occitan quotes (the catalogs)
        "»": '"',
        "„": '"',  # Icelandic, Estonian, German-style opening quote
        "‘": "'",
        "’": "'",
        "\u202f": " ",  # narrow no-break space
        "\u00a0": " ",  # the no-break space of French typography (« 2 de plus ? »)
        "–": "-",
        "—": "-",
        "·": "|",
        "…": "...",
        "→": "->",
        "✔": "ok",
        "✘": "x",
    }
)


def plain(text: str) -> str:
    """Replace typographic punctuation with ASCII."""
    return text.translate(_PLAIN)


#: The width of what is not a terminal (a pipe, a file): the layout tests read.
WIDTH = 80
#: Narrower than this, a terminal is taken to be this wide (words still whole).
MIN_WIDTH = 30


def screen_width(stream: TextIO | None) -> int:
    """The columns of the terminal ``stream`` writes to (``$COLUMNS`` first, as the
    shell sets it, then the terminal's own size), else :data:`WIDTH`.  ``$COLUMNS``
    counts for a pipe too: ``COLUMNS=60 truc-p2p play | tee log`` is 60 wide."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(MIN_WIDTH, int(columns))
    try:
        if stream is None or not stream.isatty():
            return WIDTH
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return WIDTH
    try:
        size = os.get_terminal_size(fd).columns
    except OSError:
        return WIDTH
    return max(MIN_WIDTH, size) if size > 0 else WIDTH


def fit_for(text: str, stream: TextIO) -> str:
    """``text`` as a line printed on ``stream`` shows it: wrapped at a terminal's width
    or at ``$COLUMNS``, whole on a pipe without it (a log keeps its lines)."""
    columns = os.environ.get("COLUMNS", "")
    try:
        wraps = (columns.isdigit() and int(columns) > 0) or stream.isatty()
    except (AttributeError, OSError, ValueError):
        wraps = False
    return fit(text, screen_width(stream)) if wraps else text


#: Spaces that must not become a line break: just inside «…» (« 2 de plus ? »).
_KEEP_TOGETHER = re.compile(r"(?<=«) | (?=»)")


def fit(text: str, width: int) -> str:
    """``text`` with each line wrapped at word boundaries to ``width`` columns; the
    lines a long one is cut into are indented three more than it."""
    lines: list[str] = []
    # a quote mark stays with its words (« 2 de plus ? »)
    text = _KEEP_TOGETHER.sub("\u00a0", text)
    for line in text.split("\n"):
        if len(line) <= width:
            lines.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip()))
        lines += textwrap.wrap(
            line,
            width,
            subsequent_indent=indent + "   ",
            break_long_words=False,
            break_on_hyphens=False,
        ) or [line]
    return "\n".join(lines)


#: The face cards' letters as a table of that language prints them (French V D R).
RANK_LETTERS: dict[Rank, str] = {
    # Translators: the jack as the one letter printed on the card (French "V", valet)
    Rank.JACK: N_("J"),
    # Translators: the queen as the one letter printed on the card (French "D", dame)
    Rank.QUEEN: N_("Q"),
    # Translators: the king as the one letter printed on the card (French "R", roi)
    Rank.KING: N_("K"),
    # Translators: the ace as the one letter printed on the card (French "A", as)
    Rank.ACE: N_("A"),
}


def card_text(card: Card, *, ascii: bool = False) -> str:
    """``"D♥"`` in French for the queen of hearts: the rank as the language's cards
    print it (``--ascii`` keeps the protocol's letters, ``QH``, which the tools read)."""
    if ascii:
        return card.pretty(ascii=True)
    return f"{rank_text(card)}{card.suit.symbol}"


def rank_text(card: Card) -> str:
    """The rank as the language's cards print it: ``"D"`` in French for a queen."""
    letter = RANK_LETTERS.get(card.rank)
    return _(letter) if letter is not None else card.rank.symbol


def show_cards(cards: tuple[Card, ...] | list[Card], *, ascii: bool = False) -> str:
    return " ".join(card_text(c, ascii=ascii) for c in cards)


def move_clock_words(seconds: float) -> str:
    """How long the player has for each move, in whole minutes when it is."""
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return ngettext(
            "you have {n} minute for each move; the clock shows what is left",
            "you have {n} minutes for each move; the clock shows what is left",
            minutes,
        )
    whole = max(1, round(seconds))
    return ngettext(
        "you have {n} second for each move; the clock shows what is left",
        "you have {n} seconds for each move; the clock shows what is left",
        whole,
    )


def clock(seconds: float) -> str:
    """``m:ss`` for a countdown (never negative)."""
    s = max(0, int(seconds + 0.999))
    return f"{s // 60}:{s % 60:02d}"


#: The name a level's bot plays under in ``truc-p2p play`` (its hello carries it).
BOT_PLAYER_NAMES: dict[str, str] = {
    # Translators: the name of the opponent bot of level "easy" (as a player's name)
    "easy": N_("easy-bot"),
    # Translators: the name of the opponent bot of level "medium" (as a player's name)
    "medium": N_("medium-bot"),
    # Translators: the name of the opponent bot of level "hard" (as a player's name)
    "hard": N_("hard-bot"),
    # Translators: the name of the opponent bot of level "strongest" (as a player's name)
    "strongest": N_("strongest-bot"),
}


def bot_player_name(level: str) -> str:
    """The opponent's name for bot ``level`` in the language in use (``LEVEL-bot``
    for a bot that is not one of the levels, e.g. ``search:fast-bot``)."""
    known = BOT_PLAYER_NAMES.get(_level_of(level))
    return _(known) if known is not None else f"{level}-bot"


def _level_of(name: str) -> str:
    """The level a bot name plays at: a racing CFR or expert bot made to think a set
    time (``play --think 4``: ``cfr:4s+race``) is still the strongest or hard level."""
    if not name.endswith("+race"):
        return name
    kind, _colon, level = name.removesuffix("+race").partition(":")
    thinks = level.endswith("s") and level[:-1].replace(".", "", 1).isdigit()
    if kind == "cfr" and (not level or thinks):
        return "strongest"
    if kind == "expert" and (level == "fast" or thinks):
        return "hard"
    return name


#: What a key does, for the help and for "nothing to … now".
KEY_NAMES: dict[str, str] = {
    "r": N_("“2 more?”"),
    "m": N_("“my rest”"),
    # Translators: what key a does: accept the opponent's "2 more?" or "my rest"
    "a": N_("accept"),
    # Translators: what key x does: refuse the opponent's "2 more?" or "my rest"
    "x": N_("refuse"),
    # Translators: what key f does: give up the hand (the opponent scores it)
    "f": N_("fold"),
    # Translators: what key d does: ask for (or accept) new cards for both players
    "d": N_("redeal"),
    "n": N_("decline the redeal"),
}


#: Keys that exist but may not fit the moment: what to say then (the terminal and
#: the web table say the same).
NOT_NOW: dict[str, str] = {
    "a": N_("nothing to accept now"),
    "x": N_("nothing to refuse now"),
    "n": N_("no redeal to decline now"),
    "d": N_("no redeal to ask for or accept now"),
    "r": N_("you cannot ask “2 more?” now"),
    "m": N_("you cannot call “my rest” now"),
    "f": N_("you cannot fold now"),
}


#: The sure "my rest", taught by ``truc-p2p learn`` and the help (``?``).
SURE_REST = N_(
    "Won the first trick and still holding a 7? Then you cannot lose the hand: your 7 "
    "wins or spoils the trick it is played to, so the tricks left cannot both go against "
    "you. That is the sure time for “my rest”."
)


def help_text() -> str:
    """The rules in short and the keys (``?`` in the terminal); it points to the guided
    hand (``truc-p2p learn``), not to a file an installed package does not have."""
    head = _("Le Truc for two, in short (truc-p2p learn plays a guided hand)")
    text = _(
        "  * 32 cards; suits never matter. Strength, high to low: 7 8 A K Q J 10 9.\n"
        "  * Each hand: three cards each, up to three tricks. Win two tricks (or\n"
        "    the first trick won, when the others are spoiled) to win the hand.\n"
        "    Equal ranks spoil a trick: nobody wins it, the leader leads again.\n"
        "  * A hand is worth 1 point. Before playing a card you may ask\n"
        "    “2 more?” (key r): accepted, the hand is worth more (1, 2, 6, 8,\n"
        "    10...); refused, you score the value before the request.\n"
        "  * “My rest” (key m) stakes the whole game on this hand; refused, its\n"
        "    caller wins the game.\n"
        "  * Fold (key f) at any of your turns: the opponent scores the hand.\n"
        "  * The non-dealer's very first action may ask for a redeal (key d);\n"
        "    the dealer accepts (d) or declines (n).\n"
        "  * First to the target score (12 by default) wins.\n"
        "Keys: 1-3 play the card with that number, r “2 more?”, m “my rest”,\n"
        "a accept, x refuse, f fold, d redeal, n decline the redeal, ? this help,\n"
        "q leave (resign)."
    )
    # The sure "my rest" goes last among the rules, before the keys (the first line
    # that is no bullet's), wrapped as the bullets are.
    lines = text.split("\n")
    keys = next((i for i, line in enumerate(lines) if not line.startswith(" ")), len(lines))
    tip = textwrap.wrap(_(SURE_REST), 72, initial_indent="  * ", subsequent_indent="    ")
    return "\n".join([head, *lines[:keys], *tip, *lines[keys:]])


def help_fitted(width: int) -> str:
    """The help wrapped once at ``width`` columns: its lines, written for 80 columns,
    are joined again into their paragraphs ("  * " bullets, "Keys: …"), then each
    paragraph is wrapped, a bullet's lines under its first word."""
    head, _nl, body = help_text().partition("\n")
    paragraphs: list[tuple[str, str, list[str]]] = []  # (first indent, next indent, words)
    for line in body.split("\n"):
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        if stripped.startswith(("* ", "- ")):
            paragraphs.append((indent, indent + "  ", stripped.split(" ")))
        elif paragraphs and stripped and len(indent) == len(paragraphs[-1][1]):
            paragraphs[-1][2].extend(stripped.split(" "))  # the paragraph goes on
        else:
            paragraphs.append((indent, indent, stripped.split(" ")))
    lines = textwrap.wrap(head, width, break_long_words=False, subsequent_indent="   ")
    for first, rest, words in paragraphs:
        text = _KEEP_TOGETHER.sub("\u00a0", " ".join(w for w in words if w))
        lines += textwrap.wrap(
            text,
            width,
            initial_indent=first,
            subsequent_indent=rest,
            break_long_words=False,
            break_on_hyphens=False,
        ) or [first.rstrip()]
    return "\n".join(lines)


#: The help in English (import time); views call :func:`help_text` for the language in use.
HELP = help_text()


def action_label(action: Action, *, to: int | None = None, rest_pending: bool = False) -> str:
    """The short name of an action on a key or a button."""
    kind = action.kind
    if kind is ActionKind.PLAY and action.card is not None:
        return _("play {card}", card=card_text(action.card))
    if kind is ActionKind.RAISE:
        return _("“2 more?” (to {value})", value=to) if to is not None else _("“2 more?”")
    if kind is ActionKind.ACCEPT:
        return _("accept “my rest”") if rest_pending else _("accept")
    return {
        ActionKind.REST: _("“my rest”"),
        ActionKind.REFUSE: _("refuse"),
        ActionKind.FOLD: _("fold"),
        ActionKind.ASK_REDEAL: _("ask for a redeal"),
        ActionKind.ACCEPT_REDEAL: _("accept the redeal"),
        ActionKind.DECLINE_REDEAL: _("decline the redeal"),
    }.get(kind, str(action))
