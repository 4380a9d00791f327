"""``verify_transcript_file``: the one way to verify a game file (a whole file, a torn
one, one that is no transcript, one that is missing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from truc_p2p.bots import make_bot
from truc_p2p.memory_pair import make_pair, run_pair
from truc_p2p.protocol import (
    SessionOptions,
    TranscriptFormatError,
    encode_transcript,
    verify_transcript,
)
from truc_p2p.rules import Player, Ruleset
from truc_p2p.transcript import verify_transcript_file


def _game() -> list[bytes]:
    record: list[bytes] = []
    sessions = make_pair(SessionOptions(ruleset=Ruleset(target=1)), records=(record.append, None))
    run_pair(sessions, {p: make_bot("random", int(p)) for p in Player})
    return record


ENVELOPES = _game()


def test_a_whole_file_gives_its_scan_and_the_verifiers_report(tmp_path: Path) -> None:
    path = tmp_path / "game.truc"
    path.write_bytes(encode_transcript(ENVELOPES))
    scan, report = verify_transcript_file(path, torn=False)
    assert scan.damage is None and scan.envelopes == ENVELOPES
    assert report.status == "complete"
    assert report.to_json() == verify_transcript(ENVELOPES).to_json()


def test_a_torn_file_is_verified_up_to_the_tear_unless_whole_is_asked(tmp_path: Path) -> None:
    path = tmp_path / "game.truc"
    path.write_bytes(encode_transcript(ENVELOPES)[:-3])  # a crash inside the last frame
    scan, report = verify_transcript_file(path)
    assert scan.damage == "torn" and scan.envelopes == ENVELOPES[:-1]
    assert report.to_json() == verify_transcript(ENVELOPES[:-1]).to_json()
    with pytest.raises(TranscriptFormatError, match="torn"):
        verify_transcript_file(path, torn=False)


def test_no_transcript_and_no_file_raise_the_readers_errors(tmp_path: Path) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("not a game\n")
    with pytest.raises(TranscriptFormatError):
        verify_transcript_file(other)
    with pytest.raises(OSError):
        verify_transcript_file(tmp_path / "missing.truc")
