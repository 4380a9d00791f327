"""The CFR bot: its opening game, the CFR+ solver, the shipped table and the bot."""

from __future__ import annotations

import random
from importlib import resources

import pytest
from helpers.bots import P0, P1, view
from helpers.matrix import fast_first
from helpers.scripts import load_script

from truc_p2p.bots import _cfr, _cfr_game, make_bot, play_local_game
from truc_p2p.bots._cfr_game import DEALER, HAND_INDEX, HANDS, LEADER
from truc_p2p.bots._make import STRENGTHS
from truc_p2p.bots._search import SearchBot, SearchOptions
from truc_p2p.rules import Action, ActionKind, Game, Player

np = pytest.importorskip("numpy")  # the training code's only dependency (test extra)

# The trainer lives beside tools/train_cfr.py, outside the installed package.
_cfr_train = load_script("tools/cfr_train.py")


def test_hands_and_deal_chances() -> None:
    assert len(HANDS) == 120
    p = _cfr_game.prior()
    assert sum(map(sum, p)) == pytest.approx(1.0)
    # Card removal: four sevens exist, so two hands of three sevens cannot be dealt.
    sevens = HAND_INDEX[(7, 7, 7)]
    assert p[sevens][sevens] == 0.0
    assert p[sevens][HAND_INDEX[(0, 0, 7)]] > 0.0


def test_showdown_chances() -> None:
    o = _cfr_game.outcomes()
    best, worst = HAND_INDEX[(6, 7, 7)], HAND_INDEX[(0, 0, 1)]
    assert o[best][worst] == (1.0, 0.0, 0.0)
    assert o[worst][best] == (0.0, 1.0, 0.0)
    for row in o:
        for lw, dw, sp in row:
            assert min(lw, dw, sp) >= 0.0 and lw + dw + sp == pytest.approx(1.0)


# the plain opening in the fast loop, the redeal at 9-4 in CI too
@pytest.mark.parametrize(("redeal", "scores"), fast_first([(False, (0, 0)), (True, (9, 4))]))
def test_cfr_exploitability_goes_down(redeal: bool, scores: tuple[int, int]) -> None:
    # Exact best responses on the whole opening: CFR+ converges to an equilibrium.
    gaps = []
    for iterations in (2, 10, 60):
        _, solver = _cfr_train.solve(redeal, scores, 12, iterations)
        gaps.append(_cfr_train.exploitability(solver))
    assert gaps[0] > gaps[1] > gaps[2] >= -1e-9
    assert gaps[2] < 0.005
    # A uniformly random strategy is far from it.
    _, uniform = _cfr_train.solve(redeal, scores, 12, 0)
    assert _cfr_train.exploitability(uniform) > 0.1


def test_the_equilibrium_stakes_the_game_on_great_hands_and_folds_hopeless_ones() -> None:
    solution, _ = _cfr_train.solve(False, (0, 0), 12, 100)
    root = solution.strategy[0]
    actions = solution.nodes[0].actions
    assert root[HAND_INDEX[(6, 7, 7)], actions.index("s")] > 0.99
    assert root[HAND_INDEX[(0, 0, 1)], actions.index("s")] < 0.01
    # Answering a rest that refusing would lose the game: always accept.
    answer = next(i for i, n in enumerate(solution.nodes) if n.path == "s")
    assert (solution.strategy[answer][:, solution.nodes[answer].actions.index("a")] > 0.99).all()


@pytest.mark.slow
def test_the_table_build_is_deterministic() -> None:
    a = _cfr_train.build_table(3, 0.2, 0.05, target=2)
    b = _cfr_train.build_table(3, 0.2, 0.05, target=2)
    assert a == b
    header, strategies = _cfr.decode_table(a)
    assert header["target"] == 2 and len(strategies) == 2 * 2 * 2 * _cfr._BLOCK
    assert header["game_ends"] == _cfr_game.GAME_ENDS
    # Another model of the rounds to come is another game.
    staking = _cfr_train.build_table(3, 0.2, 0.05, target=2, game_ends=0.5)
    header, other = _cfr.decode_table(staking)
    assert header["game_ends"] == 0.5 and other != strategies


def test_the_shipped_table_fits_and_is_made_of_distributions() -> None:
    table = _cfr._table()
    assert table is not None, "truc_p2p/bots/cfr_opening.bin is missing"
    assert table[0] == 12
    data = (resources.files("truc_p2p.bots") / _cfr.TABLE_FILE).read_bytes()
    assert _cfr.decode_table(data)[0]["game_ends"] == _cfr_game.GAME_ENDS
    rng = random.Random(1)
    for _ in range(200):
        scores = (rng.randrange(12), rng.randrange(12))
        redeal = rng.random() < 0.5
        nodes = _cfr._TREES[int(redeal)]
        node = rng.choice([n for n in nodes if n.player >= 0])
        hand = rng.choice(HANDS)
        role = rng.choice((LEADER, DEALER))
        strategy = _cfr.opening_strategy(scores, role, redeal, node.path, hand)
        assert strategy is not None and set(strategy) == set(node.actions)
        assert sum(strategy.values()) == pytest.approx(1.0)


def test_the_opening_path_follows_the_public_history() -> None:
    # P1 deals (first dealer): P0 leads.
    game = view([("7C 7D 8S", ["redeal", "decline-redeal", "play 7C", "raise"])], seat=P0)
    assert game.to_act is P0
    bot = make_bot("cfr", 1)
    assert isinstance(bot, _cfr.CfrBot)
    deal_actions = bot._search.deal_actions(game)
    assert _cfr.opening_path(deal_actions, P0) == "qn7r"
    game = view([("7C 7D 8S", ["raise", "accept", "play 9C"])], seat=P1)
    assert _cfr.opening_path(bot._search.deal_actions(game), P0) == "ra0"
    # Past the opening once the dealer has played.
    game = view([("7C 7D 8S", ["play 9C", "play 7C"])], seat=P1)
    with pytest.raises(_cfr._Outside):
        _cfr.opening_path(bot._search.deal_actions(game), P0)


def _first_action(game: Game) -> Action:
    return make_bot("cfr", 3).choose(game)


def test_the_bot_answers_from_the_table_and_plays_whole_games() -> None:
    # The dealer answers a rest from the table: with any hand, accept (refusing loses).
    assert _first_action(view([("9C 9D 10S", ["rest"])], seat=P1)) == Action.ACCEPT
    # Whole games against the expert, reproducible under a seed.
    results = []
    for _ in range(2):
        outcome = play_local_game(make_bot("cfr", 5), make_bot("expert", 6), seed=11)
        results.append((outcome.winner, outcome.scores))
    assert results[0] == results[1]
    assert results[0][0] in (Player.P0, Player.P1)


def test_a_declined_redeal_request_is_looked_up_as_a_fresh_opening() -> None:
    # The equilibrium asks for a redeal with weak hands only; an opponent asking
    # with any hand must not be read as weak: after a decline, the table of the
    # opening without a redeal is used.
    assert _cfr._locate("qn5", redealt=False) == (0, "5")
    assert _cfr._locate("q", redealt=False) == (1, "q")
    assert _cfr._locate("r", redealt=True) == (0, "r")
    # The dealer answering a redeal request uses the table's answer.
    game = view([("7C 7D 8S", ["redeal"])], seat=P1)
    assert {make_bot("cfr", s).choose(game) for s in range(4)} == {Action.DECLINE_REDEAL}


class _Scripted:
    """Never stakes the game: plays its lowest card, accepts every request;
    ``folds`` gives up every round at its first turn instead."""

    def __init__(self, folds: bool) -> None:
        self.name = "folder" if folds else "passive"
        self.folds = folds

    def choose(self, game: Game) -> Action:
        legal = game.legal_actions()
        if self.folds and Action.FOLD in legal and game.pending is None:
            return Action.FOLD
        for action in (Action.ACCEPT, Action.ACCEPT_REDEAL):
            if action in legal:
                return action
        plays = [a for a in legal if a.card is not None]
        if plays:
            return min(plays, key=lambda a: (a.card.strength, a.card.index) if a.card else (0, 0))
        return next(a for a in legal if a.kind is not ActionKind.FOLD)


class _Watched:
    """The CFR bot, noting at each decision whether it reads the opponent as
    passive, and at the first such turn of its own the patient search bot's choice."""

    def __init__(self, seed: int) -> None:
        bot = make_bot("cfr", seed)
        assert isinstance(bot, _cfr.CfrBot)
        self.bot, self.name, self.seed = bot, bot.name, seed
        self.flags: list[bool] = []
        self.first: tuple[Action, Action] | None = None

    def choose(self, game: Game) -> Action:
        passive = self.bot.passive(game)
        self.flags.append(passive)
        if passive and self.first is None and game.pending is None:
            # The same decision by a fresh patient search bot (what the CFR bot
            # builds for a passive opponent, seeded alike).
            cfr_seed = self.seed + 7_000_003
            patient = SearchBot(
                cfr_seed + 1,
                iterations=STRENGTHS["default"].iterations,
                options=SearchOptions(rest_margin=_cfr.PATIENT_REST_MARGIN),
            )
            expected = patient.choose(game)
            action = self.bot.choose(game)
            self.first = (action, expected)
            return action
        return self.bot.choose(game)


def test_a_passive_opponent_is_played_by_the_patient_search_and_a_staking_one_by_the_table() -> (
    None
):
    # An opponent that neither stakes the game nor gives a round up: after its
    # first chances to, the bot stops playing the equilibrium (which folds weak
    # hands expecting to be bullied) and plays the patient search bot.
    watched = _Watched(5)
    play_local_game(watched, _Scripted(folds=False), seed=3)
    assert any(watched.flags)
    assert watched.first is not None and watched.first[0] == watched.first[1]
    assert watched.bot._patient is not None
    # One that gives up every round plays for the stakes: the table stands.
    watched = _Watched(5)
    play_local_game(watched, _Scripted(folds=True), seed=3)
    assert not any(watched.flags)
    assert watched.bot._patient is None
    # Straight from the record: the prior (no chance seen yet), a rest at the
    # opponent's first chance, a lead without one.
    bot = make_bot("cfr", 1)
    assert isinstance(bot, _cfr.CfrBot)
    assert not bot.passive(view([("9C 9D 10S", [])], seat=P0))
    assert bot.passive(view([("9C 9D 10S", ["play 7C"])], seat=P1))
    assert not bot.passive(view([("9C 9D 10S", ["rest"])], seat=P1))


def _record(game: Game) -> tuple[int, ...]:
    """The opponent's record as a new CFR bot reads it: stake chances, stakes or
    folds, judged follows, dominated ones, raise chances, raises."""
    bot = make_bot("cfr", 0)
    assert isinstance(bot, _cfr.CfrBot)
    return bot.record(game)


def _follows(rounds: list[tuple[str, list[str]]]) -> tuple[int, ...]:
    game = view(rounds, seat=P0)
    assert game.to_act is P0
    return _record(game)[2:4]


def test_dominated_follows_are_read_from_the_cards_played_later() -> None:
    # P0 leads both tricks; the opponent's second card tells what it kept.
    nxt = ("8C 8D 8H", ["play 10S"])  # a second round, so that P0 is to act
    # Lost the first trick with a king while keeping a nine: dominated.
    assert _follows([("7C 7D 7H", ["play 7C", "play KS", "play 7D", "play 9S"]), nxt]) == (1, 1)
    # Lost it with the nine, kept the king: sensible.
    assert _follows([("7C 7D 7H", ["play 7C", "play 9S", "play 7D", "play KS"]), nxt]) == (1, 0)
    # Won with an ace while keeping a king that also beat the ten: dominated.
    won = [("10C JC QC", ["play 10C", "play AS", "play KS", "play QC"]), nxt]
    game = view(won, seat=P0)
    assert game.to_act is P0
    assert _record(game)[2:4] == (1, 1)
    bot = make_bot("cfr", 1)
    assert isinstance(bot, _cfr.CfrBot)
    assert bot.careless(game)
    assert not bot.careless(view([("7C 7D 7H", ["play 7C", "play 9S", "play 7D", "play KS"]), nxt]))


def _answerer_choice(game: Game, seed: int) -> Action:
    """What the CFR bot's answerer for a weak opponent (seeded alike) would play."""
    search = SearchBot(
        seed + 7_000_003 + 1,
        iterations=STRENGTHS["default"].iterations,
        options=SearchOptions(
            game_model=True,
            model_edge=_cfr.WEAK_EDGE,
            model_ends=_cfr.WEAK_ENDS,
            mix=0.01,
            rest_margin=0.05,
        ),
    )
    return search.choose(game)


def test_a_weak_opponents_raise_is_answered_as_by_a_player_who_outplays_it() -> None:
    # Rounds 1 and 2: the opponent (P1) plays its cards without staking the
    # game or folding; round 3: it raises.  The answer comes from the search
    # that counts on outplaying it (a refusal costs a point, not a coin flip
    # for the game).
    passive = [
        ("7C 7D 7H", ["play 7C", "play 9S", "play 7D", "play 10S"]),
        ("8C 8D 8H", ["play 9C", "play 8C", "play 8D", "play 10C"]),
        ("QC JD 10H", ["play QC", "raise"]),
    ]
    game = view(passive, seat=P0)
    assert game.pending is ActionKind.RAISE and game.to_act is P0
    chances, taken = _record(game)[0:2]
    assert chances >= _cfr.WEAK_EVIDENCE and taken == 0
    # Its first raise, before it has let that many chances pass, is answered
    # by the table and the expert.
    early = view([("7C 7D 7H", ["play 7C", "raise"])], seat=P0)
    bot = make_bot("cfr", 0)
    assert isinstance(bot, _cfr.CfrBot)
    assert bot.passive(early)
    bot.choose(early)
    assert bot._answerer is None
    for seed in range(3):
        bot = make_bot("cfr", seed)
        assert isinstance(bot, _cfr.CfrBot)
        assert bot.passive(game)
        assert bot.choose(game) == _answerer_choice(game, seed)
        assert bot._answerer is not None
    # An opponent that gave a round up plays for the stakes: the table and
    # the expert answer, and the weak opponent's answerer is never built.
    staking = [("7C 7D 7H", ["play 7C", "fold"]), ("QC JD 10H", ["raise"])]
    game = view(staking, seat=P0)
    assert game.pending is ActionKind.RAISE and game.to_act is P0
    bot = make_bot("cfr", 0)
    assert isinstance(bot, _cfr.CfrBot)
    assert not bot.passive(game) and not bot.careless(game)
    bot.choose(game)
    assert bot._answerer is None


def test_raises_made_at_every_chance_are_not_answered_as_a_weak_players() -> None:
    # The record counts the opponent's raises at its chances to raise.
    game = view(
        [
            ("7C 7D 7H", ["play 7C", "raise", "accept", "play 9S", "play 7D", "play 10S"]),
            ("QC JD 10H", ["raise"]),
        ],
        seat=P0,
    )
    chances, raised = _record(game)[4:6]
    assert raised == 2 and chances >= raised
    bot = make_bot("cfr", 0)
    assert isinstance(bot, _cfr.CfrBot)
    # A raise now and then says something about the cards; one at every
    # chance does not, and is answered by the table and the expert instead.
    # (the record: stake chances, stakes, judged follows, dominated, raise chances, raises)
    bot.record = lambda game: (0, 0, 0, 0, 6, 1)  # type: ignore[method-assign]
    assert bot.selective(game)
    bot.record = lambda game: (0, 0, 0, 0, 3, 3)  # type: ignore[method-assign]
    assert not bot.selective(game)
    bot.record = lambda game: (9, 0, 0, 0, 3, 3)  # type: ignore[method-assign]
    assert bot.passive(game)
    bot.choose(game)
    assert bot._answerer is None


class _Recorder:
    """Wraps a CFR bot and notes, at its first decision of each game, what it reads."""

    def __init__(self, bot: _cfr.CfrBot) -> None:
        self.bot = bot
        self.name = bot.name
        self.reads: list[tuple[bool, int]] = []
        self._game: Game | None = None

    def choose(self, game: Game) -> Action:
        if game is not self._game:
            self._game = game
            self.bot._carry(game)
            taken = self.bot.record(game)[1]
            self.reads.append((self.bot.passive(game), taken))
        return self.bot.choose(game)


def _two_games(opponent: str, *, remember: bool) -> list[tuple[bool, int]]:
    """(passive, stakes or folds on record) as the CFR bot reads its opponent at the
    first decision of two games; ``remember``: the same bot object plays both."""
    reads = []
    cfr = make_bot("cfr", 5)
    assert isinstance(cfr, _cfr.CfrBot)
    recorder = _Recorder(cfr)
    for game in range(2):
        if not remember:
            fresh = make_bot("cfr", 5)
            assert isinstance(fresh, _cfr.CfrBot)
            recorder = _Recorder(fresh)
        # the CFR bot leads the first round: it decides before the opponent acts
        play_local_game(recorder, make_bot(opponent, 9), seed=40 + game, first_dealer=P1)
        reads.append(recorder.reads[-1])
    return reads


@pytest.mark.slow
def test_a_rematch_starts_from_what_the_bot_learnt_of_its_opponent() -> None:
    # always-rest stakes the game at its first chance: the first game ends on it.
    # A new bot knows nothing at its first decision; the same bot remembers.
    assert _two_games("always-rest", remember=False) == [(False, 0), (False, 0)]
    assert _two_games("always-rest", remember=True) == [(False, 0), (False, 1)]
    # The heuristic bot lets its chances pass: passive from the rematch's first move.
    assert _two_games("heuristic", remember=True)[1] == (True, 0)
    assert _two_games("heuristic", remember=False)[1] == (False, 0)


def test_the_record_of_earlier_games_adds_to_this_games() -> None:
    cfr = make_bot("cfr", 2)
    assert isinstance(cfr, _cfr.CfrBot)
    first: list[Game] = []

    class Keep:
        name = "keep"

        def choose(self, game: Game) -> Action:
            if not first or first[-1] is not game:
                first.append(game)
            return cfr.choose(game)

    play_local_game(Keep(), make_bot("heuristic", 3), seed=7)
    earlier = cfr._counts(first[0], first[0].view.other)  # type: ignore[union-attr]
    assert earlier[0] > 0  # the heuristic bot had chances to stake the game
    play_local_game(Keep(), make_bot("heuristic", 4), seed=8)
    second = first[1]
    assert cfr._carried == earlier
    assert second.view is not None
    now = cfr._counts(second, second.view.other)
    assert cfr.record(second) == tuple(x + y for x, y in zip(now, earlier, strict=True))
