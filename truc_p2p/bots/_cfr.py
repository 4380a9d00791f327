"""The CFR bot: an equilibrium of the round's opening, then the expert's search.

Theory of operation
-------------------
The stakes of a round are settled in its *opening* — everything before the
dealer plays its first card: the leader's redeal request and the dealer's
answer, the leader's "2 more?" / "my rest" / fold / lead, the dealer's
answer, then the dealer's own request or fold before following (seeing the
card led), and the leader's answer.  In games between strong bots the game
is decided there ("my rest" within about two rounds), and it is exactly
where determinised search goes wrong: it values a rest or an answer as if it
would then know the other hand (strategy fusion), so it can be bullied by an
opponent that stakes early.

:mod:`truc_p2p.bots._cfr_game` models the opening as a two-player game of
incomplete information — each player knows its own three cards (120 hands as
strengths), the deal's chances count card removal, and a round that gets
past the opening is won with the chances of a showdown from the card led at
the stake reached — whose payoffs are the chances of winning the *game* from
the score (``W``, :mod:`truc_p2p.bots._gamevalue`; a rest decides the
game).  `tools/cfr_train.py` solves it by CFR+ for every score of
the default rules, for each seat of the bot, with and without a redeal still
possible, and ``tools/train_cfr.py`` stores the average strategies in
``cfr_opening.bin`` (one byte per hand and action; deterministic, so the
table is reproducible).  The training lets each player tremble (every action
keeps a small share), so the answers to actions the equilibrium never takes
are best responses to a sensible range, and information sets the
equilibrium never reaches play the best response to it: an opponent leaving
the equilibrium path is still answered well (a rest that must not be
refused is accepted).

The payoffs carry the bot's skill ``edge`` in the rounds to come (as the
expert bot's ``W`` does): the game stays constant-sum — the opponent gets
``1 - W`` — so the opponent is modelled as the underdog it would be, and the
bot is patient with a lead rather than staking the game on any fair round.

At a decision of the opening the bot looks up its information set (the
public actions of the round so far and its own hand) at the current score
and *samples* its action from the mixed strategy with its own seeded random
generator: its raises, rests, folds and leads cannot be read off its hand,
and no fixed threshold can be exploited.  The dealer's card ("check"), and
every decision after the opening (the later tricks' cards, requests and
answers), come from the expert search bot
(:class:`~truc_p2p.bots._search.SearchBot` with the game model), which draws
the opponent's cards from the range the equilibrium implies for the
opponent's opening actions (each hand weighted by the chance the table's
strategy takes them, never below :data:`_TREMBLE`).  A declined redeal
request is taken to say nothing about the leader's cards
(:data:`DECLINED_IS_FRESH`): the equilibrium asks for a redeal with weak
hands only, and an opponent asking with any hand would be misread (against
``redeal-spam`` this is worth about ten points of win rate).  Under rules
the table was not built for (another target, ladder or refused-rest rule)
the bot is the expert bot.

An equilibrium does not exploit weak play: it gives up weak hands expecting
the other side to stake the game, and a passive opponent rarely would.  So
the bot keeps a model of its opponent from the game's public record (what the
opponent did in this game's earlier rounds and this one): at the opponent's
turns where it could declare "my rest", how often it declared it *or folded*
— both are playing for the game's stakes, as the equilibrium and the search
bots do (they give up a quarter to half of their hands), while a bot that
does neither lets rounds be played out for a point or two.  The posterior
mean of that rate under a Beta prior (:data:`PASSIVE_PRIOR`: 0.15, worth two
chances) below :data:`PASSIVE_BELOW` marks the opponent *passive*: from one
chance not taken on, until it stakes or folds again.  Against a passive
opponent the bot takes its own turns (nothing pending) as the patient search
bot (``search``: it assumes it outplays its opponent, so it stakes the game
only on a near-certain round and grinds out points), with a margin on "my
rest" (:data:`PATIENT_REST_MARGIN`, as the expert's: the determinised search
is over-optimistic about the round it would stake); its answers to requests
stay the table's and the expert's (the plain search would fold to a redeal
request or refuse an even raise).  Against the heuristic bot the opponent reads as
passive in most decisions; against ``search``, ``expert`` and the stakers
(``stake:T``, ``always-rest``) seldom or never, and the table stands.

A weak opponent's requests (a raise, a redeal, a rest) are answered by the
expert search with a game model that counts on outplaying it
(:data:`WEAK_EDGE`, :data:`WEAK_ENDS`): a refusal then costs a point or two,
not a coin flip for the game, where the table's answers assume an even
opponent — once a passive opponent has let :data:`WEAK_EVIDENCE` chances to
stake the game pass, and while its raises are *selective* (its raise rate at its chances
to raise, posterior mean under :data:`SELECTIVE_PRIOR`, below
:data:`SELECTIVE_BELOW`): a bot raising at every chance says nothing about
its cards by raising, and is answered by the table and the expert.  Weak
is passive, or *careless*: the record shows the opponent
following a trick with a card that a card it kept later in the same deal
dominated — it lost the trick with a higher card than one it kept, or won it
with a higher card than a cheaper winner it kept (the Beta posterior mean of
that rate, prior :data:`CARELESS_PRIOR`, above :data:`CARELESS_ABOVE`).
The heuristic, search and CFR bots and the stakers never or almost never do
that (0 to 1 in 67 judged follows); a beginner does it about a quarter of
the time, a random player half.

The record is the game's and the earlier games' this bot object played (a
match, or "play again": ``play`` keeps one bot per level), so a rematch
starts from what the bot learnt: against the heuristic bot the patient play
from the first move (the first game's first decisions are the table's, as
nothing is known yet).
"""

from __future__ import annotations

import random
from typing import Final

from truc_p2p.bots._cfr_game import (
    ACCEPT,
    CHECK,
    DEALER,
    FOLD,
    HANDS,
    LEADER,
    RAISE,
    REDEAL,
    REFUSE,
    REST,
)
from truc_p2p.bots._cfr_table import (
    _BLOCK as _BLOCK,
)
from truc_p2p.bots._cfr_table import (
    _OFFSETS as _OFFSETS,
)
from truc_p2p.bots._cfr_table import (
    _PATHS,
    _TREES,
    DECLINED_IS_FRESH,
    TABLE_FILE,
    _locate,
    _opening_prefix,
    _table,
    decode_table,
    encode_table,
    opening_letter,
    opening_path,
    opening_position,
    opening_strategy,
)
from truc_p2p.bots._cfr_table import (
    _Outside as _Outside,
)
from truc_p2p.bots._search import SearchBot, SearchOptions, rest_open
from truc_p2p.rules import DEFAULT_RULESET, Action, ActionKind, Game, Player

__all__ = [
    "DECLINED_IS_FRESH",
    "TABLE_FILE",
    "CfrBot",
    "decode_table",
    "encode_table",
    "opening_letter",
    "opening_path",
    "opening_position",
    "opening_strategy",
]


#: The least chance the opponent's range gives any of its opening actions.
_TREMBLE: Final = 0.2
#: The opponent model's prior (Beta): ``(stakes or folds, chances)`` — a
#: rate of 0.15, an equilibrium's order, worth two chances.
PASSIVE_PRIOR: Final = (0.3, 2.0)
#: Below this estimated rate of rests or folds the opponent is passive.
PASSIVE_BELOW: Final = 0.12
#: How much better than the next best action the patient search's "my rest"
#: must look against a passive opponent (its determinised search is
#: over-optimistic about the round, and the opponent accepts every rest).
PATIENT_REST_MARGIN: Final = 0.08
#: The opponent model's prior on dominated follows: ``(dominated, judged)``.
CARELESS_PRIOR: Final = (0.05, 1.0)
#: Above this estimated rate of dominated follows the opponent is careless.
CARELESS_ABOVE: Final = 0.2
#: The prior on the opponent's raises at its chances to raise: ``(raises, chances)``.
SELECTIVE_PRIOR: Final = (0.3, 2.0)
#: Below this estimated raise rate the opponent's raises are selective (they
#: say something about its cards).
SELECTIVE_BELOW: Final = 0.5
#: The game model of the bot's answers to a weak (passive or careless)
#: opponent: its skill edge in ordinary rounds and the chance that a round
#: ends the game by "my rest".
WEAK_EDGE: Final = 0.3
WEAK_ENDS: Final = 0.03
#: How many chances to stake the game a passive opponent must have let pass
#: before its requests are answered as a weak player's.
WEAK_EVIDENCE: Final = 2


class CfrBot:
    """Plays the opening from the CFR table, the rest as the expert bot; see the module doc."""

    name = "cfr"

    def __init__(self, seed: int | None, search: SearchBot) -> None:
        self._rng = random.Random(seed)
        self._search = search
        self._patient_seed = None if seed is None else seed + 1
        #: The patient search bot, against a passive opponent (made when needed).
        self._patient: SearchBot | None = None
        #: The expert search that answers a weak opponent (made when needed).
        self._answerer: SearchBot | None = None
        #: The game (a view) of the last decision, and the opponent's record in
        #: the earlier games this bot played (a match, a rematch): the sums of
        #: :meth:`_counts`.
        self._game: Game | None = None
        self._carried: tuple[int, ...] = (0,) * 6

    def choose(self, game: Game) -> Action:
        """The bot's action for the player to act in ``game`` (its view)."""
        me = game.to_act
        legal = game.legal_actions()
        if me is None or not legal:
            raise ValueError("no legal action: it is not this bot's turn")
        self._carry(game)
        if len(legal) == 1:
            return next(iter(legal))
        hand = game.hand(me)
        if game.pending is None and self.passive(game):
            if self._patient is None:
                self._patient = SearchBot(
                    self._patient_seed,
                    iterations=self._search.iterations,
                    think=self._search.think,
                    options=SearchOptions(
                        rest_margin=PATIENT_REST_MARGIN, rest_from=self._search.rest_from
                    ),
                )
            return self._patient.choose(game)
        if (
            game.pending is not None
            and ((self.passive(game) and self._seen_enough(game)) or self.careless(game))
            and self.selective(game)
        ):
            return self._weak_answer(game)
        self._range(game, me)
        try:
            if game.ruleset == DEFAULT_RULESET and hand is not None and len(hand) == 3:
                action = self._opening(game, tuple(c.strength for c in hand))
                if action is not None and action in legal:
                    return action
            return self._search.choose(game)
        finally:
            self._search.range_hint = None

    def _counts(self, game: Game, opponent: Player) -> tuple[int, ...]:
        """The opponent's record in ``game`` (a view): its chances to stake the
        game and stakes or folds, judged and dominated follows, chances to
        raise and raises."""
        public = self._search.public_record(game, opponent)
        return (
            public.rest_chances,
            public.rests_or_folds,
            public.follows_judged,
            public.follows_dominated,
            public.raise_chances,
            public.raises,
        )

    def _carry(self, game: Game) -> None:
        """On the first decision of a new game, add the opponent's record in the
        game before to what the bot remembers of it."""
        last = self._game
        if last is game:
            return
        self._game = game
        if last is None or last.view is None:
            return
        earlier = self._counts(last, last.view.other)
        self._carried = tuple(x + y for x, y in zip(self._carried, earlier, strict=True))

    def record(self, game: Game) -> tuple[int, ...]:
        """The opponent's record (see :meth:`_counts`) in ``game`` (the bot's
        view) and in the games this bot played before."""
        me = game.view if game.view is not None else game.to_act
        if me is None:
            raise ValueError("nobody is to act in this game")
        now = self._counts(game, me.other)
        return tuple(x + y for x, y in zip(now, self._carried, strict=True))

    def passive(self, game: Game) -> bool:
        """Whether the record of the opponent (this game's and the earlier
        games') shows a passive opponent: the posterior mean of its rate of
        rests or folds, at its turns where it could declare "my rest", is below
        :data:`PASSIVE_BELOW`."""
        chances, taken = self.record(game)[0:2]
        a, n = PASSIVE_PRIOR
        return (a + taken) / (n + chances) < PASSIVE_BELOW

    def _seen_enough(self, game: Game) -> bool:
        """Whether the opponent has had :data:`WEAK_EVIDENCE` chances to stake
        the game: a first request of the first game is answered by the table."""
        return self.record(game)[0] >= WEAK_EVIDENCE

    def careless(self, game: Game) -> bool:
        """Whether the opponent's record shows a careless opponent: the
        posterior mean of its rate of dominated follows (a card thrown away
        or spent where a cheaper one it kept would have done) is above
        :data:`CARELESS_ABOVE`."""
        judged, dominated = self.record(game)[2:4]
        a, n = CARELESS_PRIOR
        return (a + dominated) / (n + judged) > CARELESS_ABOVE

    def selective(self, game: Game) -> bool:
        """Whether the opponent's raises say something about its cards: the
        posterior mean of its raise rate, at its turns where it could raise,
        is below :data:`SELECTIVE_BELOW` (a bot raising at every chance is not
        answered as a weak player's raise, which would be a strong hand)."""
        chances, raised = self.record(game)[4:6]
        a, n = SELECTIVE_PRIOR
        return (a + raised) / (n + chances) < SELECTIVE_BELOW

    def _weak_answer(self, game: Game) -> Action:
        """Answer a weak opponent's request as the expert search would if it
        knew it outplays that opponent (:data:`WEAK_EDGE`) and that the game
        will seldom be staked (:data:`WEAK_ENDS`): refusing costs less against
        a weak player than a coin flip for the game."""
        if self._answerer is None:
            search = self._search
            self._answerer = SearchBot(
                self._patient_seed,
                iterations=search.iterations,
                think=search.think,
                options=SearchOptions(
                    game_model=True,
                    model_edge=WEAK_EDGE,
                    model_ends=WEAK_ENDS,
                    mix=search.mix,
                    rest_margin=search.rest_margin,
                    rest_from=search.rest_from,
                ),
            )
        return self._answerer.choose(game)

    def _range(self, game: Game, me: Player) -> None:
        """Give the search the opponent's range implied by the equilibrium.

        The opponent's hand is weighted by the chance that the table's
        strategy for it takes each of its actions in the opening (never below
        :data:`_TREMBLE`, as it may not play the equilibrium).
        """
        self._search.range_hint = None
        if game.ruleset != DEFAULT_RULESET or _table() is None:
            return
        deal_actions = self._search.deal_actions(game)
        history = game.history
        before = len(history) - len(deal_actions) - 1
        redealt = before >= 0 and history[before][1].kind is ActionKind.ACCEPT_REDEAL
        leader = game.dealer.other
        covered = _opening_prefix(deal_actions, leader)
        tree, path = _locate(covered, redealt)
        role = LEADER if me is leader else DEALER
        a, b = game.scores
        scores = (a, b) if leader is Player.P0 else (b, a)
        steps = []
        for n in range(len(path)):
            i = _PATHS[tree].get(path[:n])
            if i is None or _TREES[tree][i].player == role:
                continue
            steps.append((path[:n], path[n]))
        if not steps:
            return
        weights: dict[tuple[int, ...], float] = {}

        def raw(hand: tuple[int, ...]) -> float:
            w = 1.0
            for prefix, letter in steps:
                strategy = opening_strategy(scores, role, tree == 1, prefix, hand)
                if strategy is None:
                    return 1.0
                w *= max(_TREMBLE, strategy.get(letter, 0.0))
            return w

        top = max(raw(h) for h in HANDS)

        def weight(hand: tuple[int, ...]) -> float:
            w = weights.get(hand)
            if w is None:
                w = weights[hand] = raw(hand) / top if len(hand) == 3 else 1.0
            return w

        self._search.range_hint = (weight, len(covered))

    def _opening(self, game: Game, hand: tuple[int, ...]) -> Action | None:
        """The table's action if the position is in the opening model, else ``None``."""
        position = opening_position(game, self._search.deal_actions(game))
        if position is None:
            return None
        scores, role, tree, path = position
        strategy = opening_strategy(scores, role, tree == 1, path, hand)
        if strategy is None:
            return None
        return self._sample(game, strategy)

    def _sample(self, game: Game, strategy: dict[str, float]) -> Action | None:
        if REST in strategy and not rest_open(game, self._search.rest_from):
            # Racing: the table's rests are not made yet; its other actions keep
            # their odds (a hand that only rests leaves the choice to the search).
            strategy = {x: w for x, w in strategy.items() if x != REST}
        letters = list(strategy)
        weights = [strategy[x] for x in letters]
        if sum(weights) <= 0:
            return None
        letter = self._rng.choices(letters, weights=weights)[0]
        pending = game.pending
        if letter.isdigit():
            me = game.to_act
            held = (game.hand(me) if me is not None else None) or ()
            cards = [c for c in held if c.strength == int(letter)]
            return Action.play(min(cards, key=lambda c: c.index)) if cards else None
        if letter == CHECK:
            return self._search.choose_card(game)
        if letter == ACCEPT:
            return Action.ACCEPT_REDEAL if pending is ActionKind.ASK_REDEAL else Action.ACCEPT
        if letter == REFUSE:
            return Action.DECLINE_REDEAL if pending is ActionKind.ASK_REDEAL else Action.REFUSE
        return _PLAIN_ACTIONS[letter]


_PLAIN_ACTIONS: Final[dict[str, Action]] = {
    RAISE: Action.RAISE,
    REST: Action.REST,
    FOLD: Action.FOLD,
    REDEAL: Action.ASK_REDEAL,
}
