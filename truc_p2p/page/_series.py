"""Linked games in the page (wire.md 4.1): a rematch, or the games of a match,
against a peer through the relay.

The desktop counts a series in its match record (``truc_p2p.history``, above the
page's layer: it writes files); the page keeps the same count in memory, decides
with the same rules whether another game follows, and names it in the next hello
(``match``, ``prev``, ``dealer``).  Like the desktop's, every game is a complete,
separately verifiable transcript; a match's record file is the desktop's affair.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from truc_p2p.i18n import _
from truc_p2p.net import End, GameOutcome
from truc_p2p.net._play_endings import conceded
from truc_p2p.protocol import Series
from truc_p2p.rules import Player
from truc_p2p.ui import Voice

__all__ = ["Linked"]


def to_win(games: int) -> int:
    """Games a player must win to win a match of ``games``: ceil(games / 2)."""
    return (games + 1) // 2


@dataclass
class Linked:
    """One side's series: ``games`` > 1 a match, 1 a single game and its rematches."""

    games: int = 1
    wins: dict[Player, int] = field(default_factory=lambda: {Player.P0: 0, Player.P1: 0})
    #: the hello options of the next game (``None`` before the first: the coins draw)
    after: Series | None = None
    #: the player who left the match by resigning (it is over without a winner)
    left: Player | None = None
    #: the game ids played, in order (a host refuses a second game naming one, 4.1)
    played: list[bytes] = field(default_factory=list)

    @property
    def is_match(self) -> bool:
        return self.games > 1

    @property
    def winner(self) -> Player | None:
        for p in Player:
            if self.is_match and self.wins[p] >= to_win(self.games):
                return p
        return None

    def series(self) -> Series:
        """The hello options of the next game."""
        return self.after if self.after is not None else Series(match=self.games)

    def count(self, outcome: GameOutcome) -> tuple[str | None, Callable[[], str] | None]:
        """Count a finished game: what follows (``next``: the next game of the match,
        ``again``: a rematch may be asked for, ``None``: nothing) and, in a match,
        the end screen's match line (a function: said again after a change of
        language)."""
        if not outcome.complete or outcome.game_id is None or outcome.first_dealer is None:
            return None, None
        me = outcome.me
        resignation = outcome.resignation
        # conceding one game of a match plays the next; any other resignation leaves it
        goes_on = resignation is not None and conceded(resignation.detail)
        opponent = outcome.names[int(me.other)] or ""
        winner = outcome.winner
        if winner is not None:
            self.wins[winner] += 1
        self.played.append(outcome.game_id)
        self.after = Series(
            match=self.games, prev=outcome.game_id, dealer=outcome.first_dealer.other
        )
        if self.is_match and resignation is not None and not goes_on and self.winner is None:
            self.left = resignation.by
        if not self.is_match:
            if outcome.end in (End.QUIT, End.RESIGNED, End.OPPONENT_RESIGNED):
                return None, None  # a resignation leaves the table
            return "again", None
        wins = dict(self.wins)
        left, match_winner, games = self.left, self.winner, self.games

        def line() -> str:
            voice = Voice({me: _("you"), me.other: opponent or _("opponent")}, me)
            if left is not None:
                return voice.match_resigned(left, wins)
            if match_winner is not None:
                return voice.match_won(match_winner, wins)
            return voice.match_score(wins, games=games)

        return (None if left is not None or match_winner is not None else "next"), line
