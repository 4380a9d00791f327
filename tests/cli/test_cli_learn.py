"""``truc-p2p learn``: the guided hand played to its end, wrong moves refused with a hint."""

from __future__ import annotations

import io

import pytest
import trio
from helpers.cli import run

from truc_p2p.i18n import LANGUAGES, use_language
from truc_p2p.ui import LESSON_STEPS, run_lesson
from truc_p2p.ui._texts import help_text
from truc_p2p.ui._tui import ScriptedLines

#: The lesson's moves, one per step that waits for the learner.
MOVES = ["d", "1", "r", "1", "a", "m", "1", "1"]


def _play(lines: list[str], *, ascii: bool = True) -> tuple[int, str]:
    out = io.StringIO()
    status = trio.run(lambda: run_lesson(ScriptedLines(lines), out=out, ascii=ascii))
    return status, out.getvalue()


def _steps(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("** ")]


def test_the_lesson_is_played_to_its_end() -> None:
    status, text = _play(MOVES)
    assert status == 0
    assert len(_steps(text)) == LESSON_STEPS > len(MOVES)
    # the real rules engine told each lesson as the game tells it
    assert "you ask for a redeal" in text and "redeal of hand 1" in text
    assert "trick 1 is spoiled (equal ranks)" in text
    assert 'you ask "2 more?" (to 2)' in text and "tutor accepts: the hand is worth 2" in text
    assert "you win hand 1: +2 points" in text
    assert 'tutor accepts "my rest"' in text
    assert "you win the game" in text
    assert "7 8 A K Q J 10 9" in " ".join(text.split())
    # the screen is the terminal game's own
    assert text.count("your hand: [1]") == len(MOVES)


def test_each_wrong_move_is_refused_with_the_step_s_hint() -> None:
    wrong = {  # the step's move -> a move the lesson refuses there
        0: ("2", "not in this lesson: type d to ask for a redeal"),
        1: ("2", "not in this lesson: play your king"),
        2: ("1", 'not in this lesson: type r to ask "2 more?"'),
        3: ("2", "not in this lesson: play your 7"),
        4: ("x", "not in this lesson: type a to accept"),
        5: ("r", 'not in this lesson: type m for "my rest"'),
        6: ("3", "not in this lesson: play your 7"),
        7: ("zz", "(lesson: play your ace)"),
    }
    lines: list[str] = []
    for index, move in enumerate(MOVES):
        lines += [wrong[index][0], move]
    status, text = _play(lines)
    assert status == 0, text
    for _bad, hint in wrong.values():
        assert hint in text
    assert "unknown key 'zz'" in text
    assert len(_steps(text)) == LESSON_STEPS


def test_help_in_the_lesson_shows_the_hand_again() -> None:
    status, text = _play(["?", *MOVES])
    assert status == 0
    after = text[text.index("Le Truc for two, in short") :]
    assert "truc-p2p learn" in after.splitlines()[0]
    assert "your hand: [1] 9H  [2] 10C  [3] JD" in after  # not scrolled away


def test_leaving_the_lesson() -> None:
    status, text = _play(["d", "q"])
    assert status == 1
    assert "lesson left" in text
    status, text = _play(["d"])  # the end of input leaves too
    assert status == 1


def test_the_lesson_in_french() -> None:
    use_language("fr")
    try:
        status, text = _play(["1", *MOVES], ascii=False)
    finally:
        use_language("en")
    assert status == 0
    assert len(_steps(text)) == LESSON_STEPS
    flat = " ".join(text.split())
    assert "7 8 A R D V 10 9" in flat
    assert "pas dans cette leçon : tapez d pour demander à redonner" in flat
    assert "« mon reste »" in flat
    assert "vous gagnez la partie" in flat


@pytest.mark.parametrize("lang", sorted(set(LANGUAGES) - {"en"}))
def test_help_names_the_lesson_not_a_file_of_the_source(lang: str) -> None:
    use_language(lang)
    try:
        text = help_text()
    finally:
        use_language("en")
    assert "rules.md" not in text
    assert "truc-p2p learn" in text.splitlines()[0]


def test_the_learn_command(tmp_path) -> None:  # type: ignore[no-untyped-def]
    done = run(tmp_path, "learn", "--ascii", stdin="\n".join(["x", *MOVES]) + "\n")
    assert done.returncode == 0, done.stderr
    assert "(lesson: type d to ask for a redeal)" in done.stdout
    assert "you win the game" in done.stdout
    assert not done.stderr


def test_help_in_a_game_shows_the_hand_and_the_choices_again() -> None:
    """Issue 32: ``?`` scrolled the hand and the choices away."""
    from truc_p2p.protocol import CardsDealt, GameStarted
    from truc_p2p.rules import DEFAULT_RULESET, Action, Card, Game, Player
    from truc_p2p.ui._tui import TerminalPlayer

    out = io.StringIO()
    player = TerminalPlayer(ScriptedLines(["?", "1"]), "alice", ascii=True, out=out)
    player(
        GameStarted(
            game_id=bytes(16),
            me=Player.P0,
            peer_name="bob",
            peer_fingerprint="",
            ruleset=DEFAULT_RULESET,
            audit="",
            first_dealer=Player.P1,
        )
    )
    cards = tuple(Card.from_str(c) for c in ("7S", "10H", "AD"))
    player(CardsDealt(round_no=1, dealer=Player.P1, cards=cards, redeal=False))
    game = Game(first_dealer=Player.P1, view=Player.P0)
    game.deal({Player.P0: cards})
    action = trio.run(lambda: player.choose(game, tuple(game.legal_actions())))
    assert action == Action.play("7S")
    text = out.getvalue()
    after = text[text.index("Le Truc for two, in short") :]
    assert "truc-p2p learn" in after.splitlines()[0] and "rules.md" not in text
    assert "your hand: [1] 7S  [2] 10H  [3] AD" in after
    assert "[?] help" in after


@pytest.mark.parametrize("lang", ["en", "fr", "uk"])
def test_the_lesson_and_the_help_teach_the_sure_rest(lang: str) -> None:
    # Issue 42: trick 1 won and a 7 in hand make "my rest" a sure win; say so.
    use_language(lang)
    try:
        status, text = _play(MOVES, ascii=False)
        help = help_text()
    finally:
        use_language("en")
    assert status == 0
    tip = {
        "en": "Won the first trick and still holding a 7?",
        "fr": "Premier pli gagné et encore un 7 en main ?",
        "uk": "Першу взятку виграно, а в руці ще є 7?",
    }[lang]
    flat = " ".join(text.split())
    assert tip in flat and tip in " ".join(help.split())
