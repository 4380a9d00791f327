"""The state of a game of Le Truc and what can be read of it (:class:`GameState`);
:class:`~truc_p2p.rules.Game` adds the moves that change it."""

from __future__ import annotations

from truc_p2p.rules._actions import Action, ActionKind
from truc_p2p.rules._cards import ALL_CARDS, Card, Player
from truc_p2p.rules._errors import (
    RulesetError,
)
from truc_p2p.rules._events import (
    Outcome,
    Trick,
)
from truc_p2p.rules._round import (
    Phase,
)
from truc_p2p.rules._ruleset import DEFAULT_RULESET, Ruleset

__all__ = ["GameState"]


class GameState:
    """What a :class:`~truc_p2p.rules.Game` holds and shows; see that class."""

    def __init__(
        self,
        ruleset: Ruleset = DEFAULT_RULESET,
        *,
        first_dealer: Player,
        view: Player | None = None,
        spectator: bool = False,
    ) -> None:
        if not isinstance(ruleset, Ruleset):
            raise RulesetError(f"not a Ruleset: {ruleset!r}")
        if spectator and view is not None:
            raise RulesetError("a spectator's view is no player's view")
        self._ruleset = ruleset
        self._view = None if view is None else Player.coerce(view)
        self._spectator = bool(spectator)
        self._first_dealer = Player.coerce(first_dealer)
        self._phase = Phase.DEAL
        self._dealer = self._first_dealer
        self._scores = [0, 0]
        self._round_no = 0
        self._outcome: Outcome | None = None
        self._history: list[tuple[Player, Action]] = []
        self._deals: list[dict[Player, tuple[Card, ...]]] = []
        # Round state, (re)set by _new_round.
        self._redealt = False
        self._round_value = 1
        self._pending: ActionKind | None = None
        self._requester: Player | None = None
        self._rest_answered = False
        self._leader = self._dealer.other
        self._table: list[tuple[Player, Card]] = []
        self._tricks: list[Trick] = []
        self._requested = [False, False]
        self._round_actions = 0
        self._hands: list[list[Card]] = [[], []]
        self._sizes = [0, 0]
        self._discarded: set[Card] = set()
        self._played: set[Card] = set()

    def _new_round(self) -> None:
        self._phase = Phase.DEAL
        self._redealt = False
        self._round_value = 1
        self._pending = None
        self._requester = None
        self._rest_answered = False
        self._leader = self._dealer.other
        self._table = []
        self._tricks = []
        self._requested = [False, False]
        self._round_actions = 0
        self._hands = [[], []]
        self._sizes = [0, 0]
        self._discarded = set()
        self._played = set()

    # ------------------------------------------------------------------ state

    @property
    def ruleset(self) -> Ruleset:
        """The variant options."""
        return self._ruleset

    @property
    def view(self) -> Player | None:
        """Whose view this is; ``None`` for the omniscient view."""
        return self._view

    @property
    def first_dealer(self) -> Player:
        """The dealer of round 0."""
        return self._first_dealer

    @property
    def phase(self) -> Phase:
        """What the game is waiting for."""
        return self._phase

    @property
    def dealer(self) -> Player:
        """The dealer of the current round (alternates every round)."""
        return self._dealer

    @property
    def scores(self) -> tuple[int, int]:
        """``(P0's score, P1's score)``."""
        return (self._scores[0], self._scores[1])

    @property
    def round_no(self) -> int:
        """0 for the first round, +1 per new round (a redeal keeps it)."""
        return self._round_no

    @property
    def redealt(self) -> bool:
        """Whether this round's cards come from the redeal (deck positions 6–11)."""
        return self._redealt

    @property
    def to_act(self) -> Player | None:
        """The player to act, or ``None`` unless the phase is ``PLAY``."""
        if self._phase is not Phase.PLAY:
            return None
        if self._requester is not None:
            return self._requester.other
        return self._leader if not self._table else self._leader.other

    @property
    def round_value(self) -> int:
        """Points the current round is worth (1 until a raise is accepted)."""
        return self._round_value

    @property
    def pending(self) -> ActionKind | None:
        """The pending request (``RAISE``, ``REST`` or ``ASK_REDEAL``), if any."""
        return self._pending

    @property
    def requester(self) -> Player | None:
        """Who made the pending request, if any."""
        return self._requester

    @property
    def rest_answered(self) -> bool:
        """Whether "my rest" was answered this round (the round decides the game)."""
        return self._rest_answered

    @property
    def trick_no(self) -> int:
        """0-based number of the current trick (= number of finished tricks)."""
        return len(self._tricks)

    @property
    def leader(self) -> Player:
        """The player who leads (or led) the current trick."""
        return self._leader

    @property
    def table(self) -> tuple[tuple[Player, Card], ...]:
        """Cards played to the current trick so far, with who played them."""
        return tuple(self._table)

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The finished tricks of the current round."""
        return tuple(self._tricks)

    @property
    def history(self) -> list[tuple[Player, Action]]:
        """Every ``(player, action)`` pushed since the start (a copy)."""
        return list(self._history)

    @property
    def deals(self) -> list[dict[Player, tuple[Card, ...]]]:
        """The hands of every :meth:`deal` call, in order (a copy).

        Together with :attr:`history` this replays the game: deal whenever the
        phase is ``DEAL``, push otherwise.
        """
        return [dict(d) for d in self._deals]

    def requested(self, player: Player) -> bool:
        """Whether ``player`` already made its one request of the current trick."""
        return self._requested[Player.coerce(player)]

    @property
    def spectator(self) -> bool:
        """Whether this is a spectator's view (no hand known)."""
        return self._spectator

    def knows_hand(self, player: Player) -> bool:
        """Whether this view knows ``player``'s cards."""
        return not self._spectator and (self._view is None or self._view is Player.coerce(player))

    def hand(self, player: Player) -> tuple[Card, ...] | None:
        """``player``'s unplayed cards, or ``None`` when this view cannot see them."""
        player = Player.coerce(player)
        if not self.knows_hand(player):
            return None
        return tuple(self._hands[player])

    def hand_size(self, player: Player) -> int:
        """How many unplayed cards ``player`` holds."""
        return self._sizes[Player.coerce(player)]

    def discarded(self) -> frozenset[Card]:
        """Cards this view saw discarded by an accepted redeal this round."""
        return frozenset(self._discarded)

    def outcome(self) -> Outcome | None:
        """The result once the game is over, else ``None``."""
        return self._outcome

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self._phase is Phase.OVER

    def possible_cards(self, player: Player) -> tuple[Card, ...]:
        """Cards that may be in ``player``'s hand in this view, by index.

        The hand itself when known; otherwise every card that is not in the
        viewer's hand, not discarded in the viewer's sight and not played this
        round.
        """
        player = Player.coerce(player)
        if self.knows_hand(player):
            return tuple(sorted(self._hands[player], key=lambda c: c.index))
        if self._sizes[player] == 0:
            return ()
        excluded = self._played | self._discarded | set(self._hands[player.other])
        return tuple(c for c in ALL_CARDS if c not in excluded)

    def _could_hold(self, player: Player, card: Card) -> bool:
        if self.knows_hand(player):
            return card in self._hands[player]
        return (
            self._sizes[player] > 0
            and card not in self._played
            and card not in self._discarded
            and card not in self._hands[player.other]
        )
