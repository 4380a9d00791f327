"""The rule for evidence, checked by a machine (issue 46, wire.md 13.8): an honest
player against an adversary that may equivocate, replay messages of other games
between the same keys, cut the link, resume (or lie in its resume) at any point and
file any message it ever saw as evidence behind its ``abort`` ``cheat``.  ``verify``
never holds the honest player responsible.

The budget here is small (a few seconds); ``benchmarks/evidence_property.py`` runs
the same machine with a large one and prints the counts.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers.evidence import RESUME_MOVES, TALLY, TAMPER_MOVES, Duel
from helpers.protocol import P0, P1
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    rule,
    run_state_machine_as_test,
)

#: The adversary's kinds of move, weighted: mostly play and cuts, so games get far,
#: and a filing now and then (it may file several times in one game).
MOVES = ("play", "play", "think", "cut", "cut", "cut", "tamper", "bye", "file", "file")


class EvidenceDuel(RuleBasedStateMachine):
    """The adversary's moves as one rule; :meth:`Duel.file` holds the property."""

    duel: Duel

    @initialize(
        honest=st.sampled_from([P0, P1]), number=st.integers(0, 3), steps=st.integers(8, 60)
    )
    def start(self, honest: Any, number: int, steps: int) -> None:
        TALLY.examples += 1
        self.duel = Duel(honest, number)
        self.duel.play(steps)  # the game is under way when the adversary starts acting

    @rule(
        kind=st.sampled_from(MOVES),
        steps=st.integers(1, 30),
        resume=st.sampled_from(RESUME_MOVES),
        tamper=st.sampled_from(TAMPER_MOVES),
        pick=st.integers(0, 10_000),
        data=st.data(),
    )
    def move(
        self, kind: str, steps: int, resume: str, tamper: str, pick: int, data: st.DataObject
    ) -> None:
        """One adversary move: let the game run (the honest side may think: its turn
        waits), cut the link (and resume as it likes),
        tamper with its next envelope, have a finished honest side say bye, or file a
        transcript and evidence (where the property is checked)."""
        if kind in ("play", "think"):
            self.duel.play(steps, think=kind == "think")
        elif kind == "cut":
            self.duel.cut(resume, pick)
            self.duel.play(steps)
        elif kind == "tamper":
            self.duel.tamper(tamper, pick)
        elif kind == "bye":
            self.duel.farewell()
        else:
            self.duel.file(data.draw)


def run(examples: int, steps: int) -> None:
    """The machine with ``examples`` games of up to ``steps`` adversary moves each
    (after the opening play); the counts go to :data:`helpers.evidence.TALLY`."""
    run_state_machine_as_test(
        EvidenceDuel,
        settings=settings(
            max_examples=examples,
            stateful_step_count=steps,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        ),
    )


@pytest.mark.slow  # seconds of CPU: the fast loop leaves it out, CI runs it
def test_verify_never_holds_the_honest_player_responsible() -> None:
    """Small budget (a few seconds); benchmarks/evidence_property.py runs thousands."""
    examples, filed = TALLY.examples, TALLY.verdicts["filed"]
    run(examples=8, steps=20)
    assert TALLY.examples >= examples + 8
    assert TALLY.verdicts["filed"] > filed  # the property was checked, not skipped
    assert TALLY.verdicts["proof-against-honest"] == 0  # (Duel.file asserts it too)
