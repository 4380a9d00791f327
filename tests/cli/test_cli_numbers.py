"""Numbers on the command line are finite and in range (issue 21, points 7 and 8).

``inf``, ``nan``, negatives and absurd sizes are argparse usage errors: a
usage line and one ``error:`` line naming the option, exit status 2, never a
traceback and never a timer silently turned off.  Worker counts are bounded
by the CPU count.  A resume whose files do not belong together is one line,
exit 2.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest
from helpers.cli import demo_transcript, run_main

from truc_p2p.identity import load_or_create_identity
from truc_p2p.net import write_meta
from truc_p2p.protocol import TRANSCRIPT_MAGIC, frame
from truc_p2p.rules import Ruleset
from truc_p2p.transcript import scan_transcript_file

FP = "0" * 64
INVITE = f"truc://127.0.0.1:9/?fp={FP}"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in ``tmp_path`` with its own data directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return tmp_path


BAD = [
    ("play-think-inf", ["play", "--think", "inf"], "--think"),
    ("host-think-inf", ["host", "--bot", "search", "--think", "inf"], "--think"),
    ("hosts-wait-huge", ["hosts", "--wait", "1e300"], "--wait"),
    ("bench-rtt-nan", ["bench", "game", "--rtt", "nan"], "--rtt"),
    ("bench-rtt-negative", ["bench", "game", "--rtt", "-5"], "--rtt"),
    ("host-hello-timeout-huge", ["host", "--hello-timeout", "1e300"], "--hello-timeout"),
    ("host-timeout-inf", ["host", "--timeout", "inf"], "--timeout"),
    ("host-grace-nan", ["host", "--grace", "nan"], "--grace"),
    ("join-connect-timeout-negative", ["join", INVITE, "--connect-timeout", "-1"], "--connect"),
    ("join-timeout-inf", ["join", INVITE, "--timeout", "inf"], "--timeout"),
    ("bench-jobs-absurd", ["bench", "bots", "--games", "2", "--jobs", "1000"], "--jobs"),
    ("bench-games-absurd", ["bench", "bots", "--games", "10000000000"], "--games"),
    ("bench-hands-negative", ["bench", "deck", "--hands", "-1"], "--hands"),
    ("bench-hands-absurd", ["bench", "deck", "--hands", "10000000000"], "--hands"),
]


@pytest.mark.parametrize(("argv", "option"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_a_number_out_of_range_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], home: Path, argv: list[str], option: str
) -> None:
    ran = run_main(capsys, argv)
    assert ran.code == 2, ran
    # argparse: a usage line and one "error:" line; or the command's own one line
    errors = [line for line in ran.err_lines if "error:" in line or line.startswith("truc-p2p")]
    assert len(errors) == 1 and option in errors[0], ran.err


def test_jobs_up_to_the_cpu_count_are_accepted(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    cpus = os.cpu_count() or 1
    ran = run_main(capsys, ["bench", "bots", "--games", "1", "--jobs", str(cpus), "--target", "1"])
    assert ran.code == 0, ran.err
    assert "1 job(s)" in ran.out  # never more workers than games


@pytest.mark.parametrize("damage", ["other-key", "damaged-secret"])
def test_resume_of_files_that_do_not_belong_together_is_one_line(
    capsys: pytest.CaptureFixture[str], home: Path, damage: str
) -> None:
    path = demo_transcript(home)
    # a game that stopped (a finished one has nothing to resume, whatever the key)
    envelopes = scan_transcript_file(path).envelopes[:4]
    path.write_bytes(TRANSCRIPT_MAGIC + b"".join(frame(e) for e in envelopes))
    stranger = load_or_create_identity(home / "stranger.key")
    write_meta(
        path,
        {
            "role": "host",
            "ruleset": Ruleset().to_dict(),
            "name": "alice",
            "audit": "game",
            "identity": str(stranger.path),
            "port": 9,
        },
    )
    secret = path.with_name(path.name + ".secret")
    secret.write_bytes(secrets.token_bytes(32 if damage == "other-key" else 7))
    ran = run_main(capsys, ["resume", str(path)])
    assert ran.code == 2, ran
    assert len(ran.err_lines) == 1 and ran.err_lines[0].startswith("truc-p2p resume:"), ran.err
    assert ran.err_lines[0].endswith(f"truc-p2p resume {path} --identity FILE"), ran.err
