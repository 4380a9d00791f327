"""The search bot: view-only access, determinism, every action kind, legal play."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from helpers.bots import P0, P1, cards, view

import truc_p2p.bots._search as search_module
from truc_p2p.bots import SearchBot, _sim, make_bot, play_local_game
from truc_p2p.bots._search import _erratic, _replay
from truc_p2p.rules import (
    Acted,
    Action,
    ActionKind,
    Card,
    Event,
    Game,
    Ladder,
    Phase,
    Player,
    RestRefused,
    Ruleset,
)

VARIANTS = [
    Ruleset(),
    Ruleset(ladder=Ladder.EVEN),
    Ruleset(rest_refused=RestRefused.VALUE),
    Ruleset(target=5, ladder=Ladder.EVEN, rest_refused=RestRefused.VALUE),
]
WEAK = "9C 9D 10S"
#: Whole rounds, from P0's view with P1 dealing first: who gains what.  P1 never
#: folds at its own turn (that would make it look erratic to the bot).
P1_GAINS_1 = (WEAK, ["fold"])  # P0 (non-dealer) folds
P1_GAINS_2 = (WEAK, ["raise", "accept", "play 9H", "fold"])  # P1 leads, P0 folds
P0_GAINS_1 = ("7C 7D 9S", ["play 9H", "play 7C", "play 7D", "play 10H"])  # P1 leads
P0_GAINS_2 = ("7C 7D 9S", ["raise", "accept", "play 7C", "play 9H", "play 7D", "play 10H"])


def _walk(obj: object) -> Iterator[object]:
    """Every object reachable from ``obj`` through containers and attributes."""
    seen: set[int] = set()
    stack = [obj]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
        elif hasattr(item, "__dict__") and not isinstance(item, type):
            stack.extend(vars(item).values())


def _table_after_a_lead(opponent: str, mine: str = "KC QD 8S") -> tuple[Game, Game]:
    """The referee and P1's view after P0 raised, P1 accepted and P0 led its first card."""
    hands = {P0: cards(opponent), P1: cards(mine)}
    referee = Game(first_dealer=P1)
    seen = Game(first_dealer=P1, view=P1)
    referee.deal(hands)
    seen.deal({P1: hands[P1]})
    for action in (Action.RAISE, Action.ACCEPT, Action.play(hands[P0][0])):
        assert referee.push(action) == seen.push(action)
    return referee, seen


def test_the_bot_plays_from_its_own_view_only() -> None:
    referee, _ = _table_after_a_lead("7H 9S AD")
    with pytest.raises(ValueError, match="own view"):
        SearchBot(1, iterations=50).choose(referee)
    other = Game(first_dealer=P1, view=P1)  # P1's view while P0 is to act
    other.deal({P1: cards("7C 7D 7H")})
    with pytest.raises(ValueError, match="own view"):
        SearchBot(1, iterations=50).choose(other)


@pytest.mark.parametrize("seed", range(4))
def test_the_view_holds_no_hidden_card_and_decisions_ignore_them(seed: int) -> None:
    """Nothing the bot is given holds the opponent's unplayed cards, and other unplayed
    cards behind the same public play lead to the very same decision."""
    referee, seen = _table_after_a_lead("JH 7S AD")
    _, twin = _table_after_a_lead("JH 9C 10H")
    hidden = set(cards("7S AD"))
    reachable = {x for x in _walk(seen) if isinstance(x, Card)}
    assert set(cards("KC QD 8S JH")) <= reachable  # its own cards and the played one
    assert not reachable & hidden
    assert hidden <= {x for x in _walk(referee) if isinstance(x, Card)}
    assert seen == twin
    before = seen.copy()
    first = SearchBot(seed, iterations=300).choose(seen)
    assert seen == before  # the bot does not touch its view
    assert SearchBot(seed, iterations=300).choose(twin) == first


def test_determinisations_respect_everything_public() -> None:
    """Opponent hands are drawn from the cards it could hold, whatever it really holds."""
    game = view([(WEAK, ["redeal", "accept-redeal"])], seat=P1)  # P1 dealt; its hand discarded
    game.deal({P1: cards("7C KD 10H")})
    game.push(Action.play("8S"))  # P0 leads the eight of spades
    pool = Counter(c.strength for c in game.possible_cards(P0))
    # Excluded: P1's hand, its discarded hand (9C 9D 10S) and the played 8S.
    assert sum(pool.values()) == 32 - 3 - 3 - 1
    bot = SearchBot(3, iterations=10)
    draw = bot._sampler(game, P1)
    for _ in range(300):
        sim = draw()
        opponent = Counter(sim.hands[P0])
        assert sum(opponent.values()) == game.hand_size(P0) == 2
        assert not opponent - pool  # a sub-multiset of what P0 may hold
        assert sorted(sim.hands[P1]) == [1, 4, 7]  # its own hand, as strengths


def test_opponent_requests_make_strong_hands_likelier() -> None:
    plain = view([("9C 10D JH", ["play 9S"])], seat=P1)
    rested = view([("9C 10D JH", ["rest", "accept", "play 9S"])], seat=P1)
    kinds = [a.kind for _, a in _replay(rested, P0).deal_actions]
    assert kinds == [ActionKind.REST, ActionKind.ACCEPT, ActionKind.PLAY]

    def mean_top(game: Game) -> float:
        draw = SearchBot(5, iterations=10)._sampler(game, P1)
        return sum(max(draw().hands[P0]) for _ in range(400)) / 400

    assert mean_top(rested) > mean_top(plain) + 0.4


# ------------------------------------------------------------ determinism


def _transcript(bot_seed: int, *, game_seed: int = 7) -> list[Event]:
    events: list[Event] = []
    play_local_game(
        make_bot("search:fast", bot_seed),
        make_bot("heuristic", bot_seed + 1),
        seed=game_seed,
        on_event=events.append,
    )
    return events


@pytest.mark.slow
def test_seeded_with_an_iteration_budget_it_is_deterministic() -> None:
    assert _transcript(3) == _transcript(3)
    assert any(_transcript(3, game_seed=s) != _transcript(4, game_seed=s) for s in range(4))


def test_a_think_budget_bounds_the_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget is counted on the search's clock, read at the start and every 16
    iterations (a fake clock here, a 64th of a second further at each reading, so
    the machine's speed does not matter): the search stops at its first reading
    at or past the budget, never before."""
    readings: list[float] = []

    def clock() -> float:
        readings.append(len(readings) / 64)
        return readings[-1]

    monkeypatch.setattr(search_module, "time", SimpleNamespace(perf_counter=clock))
    game = view([("KC QD AS", [])])
    action = SearchBot(1, think=4 / 64).choose(game)
    assert action in game.legal_actions()
    assert readings == [i / 64 for i in range(5)], readings


def test_budgets_are_validated() -> None:
    with pytest.raises(ValueError):
        SearchBot(iterations=0)
    with pytest.raises(ValueError):
        SearchBot(think=0)


# ------------------------------------------------------- every action kind

PLAY_AFTER_REST = view([("QC 7D AS", ["rest", "accept", "play JH"])], seat=P1)


@pytest.mark.parametrize(
    ("game", "expected"),
    [
        # "My rest" answered: no requests left; beat the jack as cheaply as possible.
        (PLAY_AFTER_REST, Action.play("QC")),
        # Three points up in a game to 5 with a good hand: raise (a rest would risk the game).
        (
            view(
                [P0_GAINS_2, P0_GAINS_1, ("AC KD QS", [])],
                ruleset=Ruleset(target=5, rest_refused=RestRefused.VALUE),
            ),
            Action.RAISE,
        ),
        # Three sevens and eights: stake the game on the round.
        (view([("7C 7D 8S", [])]), Action.REST),
        (view([("7C 8D AS", ["raise"])], seat=P1), Action.ACCEPT),
        # Refusing "my rest" would lose the game: accept it even with nothing.
        (view([(WEAK, ["rest"])], seat=P1), Action.ACCEPT),
        (view([(WEAK, ["raise"])], seat=P1), Action.REFUSE),
        # A seven led to 9-10-K: the round is as good as lost; give up its 1 point.
        (view([("9C 10D KS", ["play 7H"])], seat=P1), Action.FOLD),
        # Three nines, one point short of losing a game to 5: ask for new cards.
        (
            view(
                [P1_GAINS_1, P1_GAINS_2, P1_GAINS_1, P0_GAINS_1, (WEAK, [])],
                ruleset=Ruleset(target=5, rest_refused=RestRefused.VALUE),
            ),
            Action.ASK_REDEAL,
        ),
        # Three weak cards, one point from losing a game to 3: take the new cards.
        (
            view(
                [(WEAK, ["play 9H", "fold"]), (WEAK, ["fold"]), (WEAK, ["redeal"])],
                ruleset=Ruleset(target=3),
                seat=P1,
            ),
            Action.ACCEPT_REDEAL,
        ),
        (view([("7C 7D 8S", ["redeal"])], seat=P1), Action.DECLINE_REDEAL),
    ],
    ids=lambda x: str(x) if isinstance(x, Action) else "",
)
def test_every_action_kind_is_chosen_where_it_belongs(game: Game, expected: Action) -> None:
    choices = Counter(SearchBot(seed, iterations=1000).choose(game) for seed in range(3))
    assert choices == Counter({expected: 3}), choices


def test_the_bot_rests_when_the_round_is_won_and_answering_would_be_forced() -> None:
    # P1 won trick 1 with a seven and still holds a seven: the round is certain.
    game = view([("7C 7D 9S", ["play KH", "play 7C"])], seat=P1)
    assert game.to_act is P1 and game.trick_no == 1
    assert SearchBot(1, iterations=500).choose(game) == Action.REST


# ------------------------------------------------------------ legal play


@pytest.mark.slow
@pytest.mark.parametrize(
    "ruleset", VARIANTS, ids=lambda r: "-".join(map(str, r.to_dict().values()))
)
def test_never_an_illegal_action_over_many_games(ruleset: Ruleset) -> None:
    kinds: Counter[ActionKind] = Counter()
    for seed in range(8):
        opponent = "random" if seed % 2 else "heuristic"
        bots = [make_bot("search:fast", seed), make_bot(opponent, seed)]
        if seed % 4 >= 2:
            bots.reverse()
        events: list[Event] = []
        # The referee raises on any illegal action.
        outcome = play_local_game(*bots, ruleset=ruleset, seed=seed, on_event=events.append)
        assert outcome.winner in Player
        search = P0 if bots[0].name == "search:fast" else P1
        kinds.update(e.action.kind for e in events if isinstance(e, Acted) and e.player is search)
    assert kinds[ActionKind.PLAY] > 0


def test_a_game_position_maps_to_the_simulator_and_back() -> None:
    game = view([("KC QD AS", [])])
    sim = _sim.from_view(game, [0, 1, 2])
    assert sim.hands[P0] == [3, 4, 5] and sim.to_act == P0 and sim.can_redeal
    assert game.phase is Phase.PLAY


# --------------------------------------------------------- opponent model

#: Two ways to lead 3-0 at the start of round 2: P1 playing on, and P1 folding twice.
SENSIBLE = [P0_GAINS_2, P0_GAINS_1]
ERRATIC = [(WEAK, ["raise", "accept", "play 9C", "fold"]), (WEAK, ["fold"])]


def test_an_opponent_that_folds_at_its_own_turn_reads_as_erratic() -> None:
    calm = _replay(view([*SENSIBLE, ("KC QD AS", [])]), P1)
    wild = _replay(view([*ERRATIC, ("KC QD AS", [])]), P1)
    assert calm.folds == 0 and calm.fold_odds > 0
    assert wild.folds == 2
    assert _erratic(wild) > 0.5 > _erratic(calm)


def test_against_an_erratic_opponent_it_stakes_the_game_sooner() -> None:
    # Against an opponent it expects to outplay, the bot is patient; not against whims.
    sensible = view([*SENSIBLE, ("QC KD 8S", [])])
    erratic = view([*ERRATIC, ("QC KD 8S", [])])
    assert sensible.scores == erratic.scores == (3, 0)
    assert SearchBot(1, iterations=1000).choose(sensible) != Action.REST
    assert SearchBot(1, iterations=1000).choose(erratic) == Action.REST


def test_far_behind_it_stakes_the_game_on_a_middling_hand() -> None:
    # P1 led a nine; P0 holds 9-Q-A.  At 0-0 that is not worth the game; at 0-10
    # in a game to 12 the round is its best chance.
    behind = view([*[P1_GAINS_1, P1_GAINS_2] * 3, P1_GAINS_1, ("9C QD AS", ["play 9H"])])
    even = view([("9C QD AS", ["play 9H"])], seat=P1)
    assert behind.scores == (0, 10) and behind.to_act is P0 and even.to_act is P1
    for seed in range(3):
        assert SearchBot(seed, iterations=1500).choose(behind) == Action.REST
        assert SearchBot(seed, iterations=1500).choose(even) != Action.REST


def test_the_incremental_replay_matches_a_fresh_one_across_games() -> None:
    bot = SearchBot(2, iterations=30)
    checked = 0

    class Checked:
        name = "checked"

        def choose(self, game: Game) -> Action:
            nonlocal checked
            assert game.view is not None
            mine = bot._replayer.public(game, game.view.other)
            assert mine == _replay(game, game.view.other)
            checked += 1
            return bot.choose(game)

    for seed in range(3):  # the same bot over several games: each starts afresh
        play_local_game(Checked(), make_bot("random", seed), seed=seed)
    assert checked > 6
