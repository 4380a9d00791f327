"""The runner can fail: deliberately broken peers (``broken_peer.py``), each reported
``fail`` with a one-line reason, whatever their exit status says."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.interop import broken, run


@pytest.mark.parametrize(
    ("fault", "case", "role", "timeout", "reason"),
    [
        # every frame is a link fault: no game ever starts (6 s: CI only)
        pytest.param(
            "bad-signature",
            "basic",
            "join",
            6.0,
            "did not end within its time limit",
            marks=pytest.mark.slow,
        ),
        ("wrong-order", "basic", "host", 60.0, "deck check failed"),
        ("wrong-order", "basic", "join", 60.0, "deck check failed"),
        ("illegal-move", "basic", "join", 60.0, "illegal"),
        # 5 s each: CI only
        pytest.param(
            "no-resume",
            "resume",
            "join",
            60.0,
            "exited (status 0) before the game ended",
            marks=pytest.mark.slow,
        ),
        pytest.param(
            "no-heartbeat",
            "slow",
            "host",
            60.0,
            "the link was lost during the runner's think",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_a_broken_peer_fails(
    tmp_path: Path, fault: str, case: str, role: str, timeout: float, reason: str
) -> None:
    result = run(broken(fault), tmp_path, [case], (role,), timeout=timeout)[(case, role)]
    assert result.result == "fail", result.detail
    assert reason in result.detail
    assert "\n" not in result.detail
