"""``truc-p2p review``: each decision judged by the solved round."""

from __future__ import annotations

from pathlib import Path

import pytest

from truc_p2p.bots import make_bot, review_game
from truc_p2p.bots._review import record_game
from truc_p2p.cli import main
from truc_p2p.rules import Player


def _mean_cost(name: str, seed: int) -> tuple[float, int]:
    log, hands = record_game(
        make_bot(name, seed), make_bot("medium", seed + 1), seed=seed, me=Player.P0
    )
    judged = review_game(log, hands, Player.P0)
    assert all(j.cost >= 0 and j.chosen in j.values for j in judged)
    assert all(j.cost == pytest.approx(max(j.values.values()) - j.values[j.chosen]) for j in judged)
    return sum(j.cost for j in judged), len(judged)


@pytest.mark.slow
def test_the_solved_play_costs_little_and_random_play_much() -> None:
    solved = [_mean_cost("solved", s) for s in range(3)]
    rand = [_mean_cost("random", s) for s in range(3)]
    solved_mean = sum(c for c, _ in solved) / max(1, sum(n for _, n in solved))
    random_mean = sum(c for c, _ in rand) / max(1, sum(n for _, n in rand))
    assert sum(n for _, n in rand) >= 5
    assert solved_mean < 0.5 < 2 * solved_mean + 1 < random_mean


def test_review_says_in_one_line_when_a_file_is_not_a_transcript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "x.truc"
    bad.write_bytes(b"not a transcript")
    assert main(["review", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "review" in err[0]
