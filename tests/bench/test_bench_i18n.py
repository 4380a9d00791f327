"""``truc-p2p bench``'s text reports in the player's language: no English word left,
columns still aligned; ``--json`` stays English and the same in every language."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import run
from helpers.i18n import TRANSLATED, english_left

from truc_p2p.bench import _deck as _bench_deck
from truc_p2p.bench import _game as _bench_game
from truc_p2p.bench._text import width
from truc_p2p.cli import main
from truc_p2p.i18n import use_language


@pytest.fixture(scope="module")
def deck_result() -> dict[str, Any]:
    return _bench_deck.run(1)


@pytest.fixture(scope="module")
def game_result() -> dict[str, Any]:
    return _bench_game.run(games=1, rtt_ms=0.0, target=1, concurrency=[1])


@pytest.mark.slow
@pytest.mark.parametrize("command", [["deck", "--hands", "1"],
                                     ["game", "--games", "1", "--target", "1", "--rtt", "0",
                                      "--concurrency", "1"]])  # fmt: skip
def test_a_bench_report_in_french_shows_no_english(tmp_path: Path, command: list[str]) -> None:
    done = run(tmp_path, "--lang", "fr", "bench", *command)
    assert done.returncode == 0, done.stderr
    assert english_left(done.stdout) == [], done.stdout
    assert "octets" in done.stdout


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_language_renders_the_reports(
    code: str, deck_result: dict[str, Any], game_result: dict[str, Any]
) -> None:
    english = _bench_deck.report_lines(deck_result) + _bench_game.report_lines(game_result)
    use_language(code)
    try:
        deck = _bench_deck.report_lines(deck_result)
        game = _bench_game.report_lines(game_result)
    finally:
        use_language("en")
    assert len(deck) + len(game) == len(english)
    assert [x for x in deck + game if x.strip()] != [x for x in english if x.strip()]
    if code == "fr":
        assert english_left("\n".join(deck + game)) == []
    # the rows of the v2 steps and of each role keep their columns aligned
    for rows in (deck[3:5], deck[8:12], deck[12:14]):
        assert len({width(line[: line.index(" ms")]) for line in rows}) == 1, rows


def test_bench_bots_columns_stay_aligned_in_every_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "bots", "--a", "random", "--b", "random", "--games", "2"]
    for code in ("en", *TRANSLATED):
        assert main(["--lang", code, *argv]) == 0
        lines = capsys.readouterr().out.splitlines()[1:]
        assert len({width(line) for line in lines}) == 1, lines
    use_language("en")


@pytest.mark.parametrize("what", ["deck", "game"])
def test_json_is_the_same_in_every_language(
    what: str,
    deck_result: dict[str, Any],
    game_result: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The figures vary from run to run: one result, printed in every language."""
    if what == "deck":
        monkeypatch.setattr(_bench_deck, "run", lambda hands: deck_result)
        argv = ["bench", "deck", "--hands", "1", "--json"]
    else:
        monkeypatch.setattr(_bench_game, "run", lambda **kwargs: game_result)
        argv = ["bench", "game", "--games", "1", "--json"]
    outputs = set()
    for code in ("en", *TRANSLATED):
        assert main(["--lang", code, *argv]) == 0
        outputs.add(capsys.readouterr().out)
    use_language("en")
    assert len(outputs) == 1
    assert json.loads(outputs.pop())
