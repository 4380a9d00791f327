"""The transcript writer: whole frames only on disk, a sync policy, append after a crash."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from truc_p2p.bots import make_bot
from truc_p2p.crypto import SigningKey
from truc_p2p.memory_pair import make_pair, run_pair
from truc_p2p.protocol import (
    TRANSCRIPT_MAGIC,
    SessionOptions,
    TranscriptFormatError,
    encode_transcript,
    verify_transcript,
)
from truc_p2p.rules import Player, Ruleset
from truc_p2p.transcript import (
    TranscriptWriteError,
    TranscriptWriter,
    read_transcript,
    scan_transcript,
)


def _game() -> list[bytes]:
    record: list[bytes] = []
    sessions = make_pair(
        SessionOptions(ruleset=Ruleset(target=3)),
        identities=(
            SigningKey.from_bytes(bytes([5]) * 32),
            SigningKey.from_bytes(bytes([6]) * 32),
        ),
        secrets=(bytes([1]) * 32, bytes([2]) * 32),
        records=(record.append, None),
    )
    bots = {p: make_bot("heuristic", int(p)) for p in Player}
    run_pair(sessions, bots)
    return record


ENVELOPES = _game()
DATA = encode_transcript(ENVELOPES)
#: where the second frame starts
SECOND = len(encode_transcript(ENVELOPES[:1]))


def test_the_game_is_valid() -> None:
    assert verify_transcript(ENVELOPES).valid and len(ENVELOPES) >= 20


def _write(path: Path, envelopes: list[bytes], **options: Any) -> TranscriptWriter:
    writer = TranscriptWriter(path, **options)
    for env in envelopes:
        writer.append(env)
    return writer


# ----------------------------------------------------------------- sync policy


@pytest.mark.parametrize(
    ("options", "policy"),
    [
        ({}, "on-demand"),
        ({"fsync": True}, "each"),
        ({"fsync": False}, "never"),
        ({"sync": "each"}, "each"),
        ({"sync": "on-demand"}, "on-demand"),
        ({"sync": "never"}, "never"),
    ],
)
def test_policies(tmp_path: Path, options: dict[str, Any], policy: str) -> None:
    with _write(tmp_path / "t.truc", ENVELOPES[:5], **options) as writer:
        assert writer.sync_policy == policy
        fsyncs = writer.fsyncs
        assert fsyncs == {"each": 6, "on-demand": 0, "never": 0}[policy]
        assert writer.sync() is (policy == "on-demand")
        assert writer.sync() is False  # nothing new since
        writer.append(ENVELOPES[5])
        assert writer.unsynced is (policy == "on-demand")
        assert writer.sync() is (policy == "on-demand")
    assert read_transcript(tmp_path / "t.truc") == ENVELOPES[:6]


def test_on_demand_syncs_on_close(tmp_path: Path) -> None:
    writer = _write(tmp_path / "t.truc", ENVELOPES[:2])
    assert writer.unsynced
    writer.close()
    assert writer.fsyncs == 1 and writer.closed
    writer.close()  # twice is fine


def test_bad_policy(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="sync must be one of"):
        TranscriptWriter(tmp_path / "t.truc", sync="always")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        TranscriptWriter(tmp_path / "t.truc", sync="each", fsync=True)
    assert not (tmp_path / "t.truc").exists()


def test_new_file_mode_follows_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        TranscriptWriter(tmp_path / "t.truc").close()
    finally:
        os.umask(old)
    assert (tmp_path / "t.truc").stat().st_mode & 0o777 == 0o644


# ------------------------------------------------------------ failed writes


def _failing_write(after: int, code: int = errno.ENOSPC) -> Callable[[int, Any], int]:
    """An ``os.write`` that writes ``after`` more bytes in total, then fails with ``code``."""
    real = os.write
    left = [after]

    def write(fd: int, data: Any) -> int:
        if left[0] <= 0:
            raise OSError(code, os.strerror(code))
        n = real(fd, bytes(data)[: left[0]])
        left[0] -= n
        return n

    return write


@pytest.mark.parametrize("room", [0, 1, 3, 4, 50])
def test_a_full_disk_leaves_no_torn_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, room: int
) -> None:
    path = tmp_path / "t.truc"
    writer = _write(path, ENVELOPES[:3], sync="never")
    size = path.stat().st_size
    monkeypatch.setattr(os, "write", _failing_write(room))
    with pytest.raises(TranscriptWriteError) as caught:
        writer.append(ENVELOPES[3])
    err = caught.value
    assert isinstance(err, OSError) and err.errno == errno.ENOSPC and err.path == path
    assert str(err) == f"cannot write transcript {path}: No space left on device"
    assert not err.torn
    assert path.stat().st_size == size == writer.size and writer.count == 3
    assert read_transcript(path) == ENVELOPES[:3]
    # Space is back: the same writer goes on and the file is whole.
    monkeypatch.undo()
    writer.append(ENVELOPES[3])
    writer.close()
    assert read_transcript(path) == ENVELOPES[:4]


def test_a_failed_fsync_cuts_the_frame_and_stops_the_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.truc"
    writer = _write(path, ENVELOPES[:3], sync="each")

    def fsync(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(TranscriptWriteError, match="Input/output error"):
        writer.append(ENVELOPES[3])
    assert read_transcript(path) == ENVELOPES[:3]
    monkeypatch.undo()
    on_demand = _write(tmp_path / "u.truc", ENVELOPES[:1], sync="on-demand")
    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(TranscriptWriteError):
        on_demand.sync()
    # After a failed fsync the kernel may have dropped the data: no retry.
    with pytest.raises(TranscriptWriteError, match="an earlier fsync failed") as caught:
        on_demand.append(ENVELOPES[1])
    assert not caught.value.torn
    monkeypatch.undo()
    on_demand.close()
    writer.close()


def test_when_the_cut_fails_too_the_writer_says_torn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.truc"
    writer = _write(path, ENVELOPES[:3], sync="never")
    monkeypatch.setattr(os, "write", _failing_write(10, errno.EIO))

    def ftruncate(fd: int, size: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "ftruncate", ftruncate)
    with pytest.raises(TranscriptWriteError) as caught:
        writer.append(ENVELOPES[3])
    assert caught.value.torn and "may end inside a frame" in str(caught.value)
    monkeypatch.undo()
    with pytest.raises(TranscriptWriteError):
        writer.append(ENVELOPES[3])
    writer.close()
    scan = scan_transcript(path.read_bytes())
    assert scan.torn and scan.envelopes == ENVELOPES[:3]


def test_creation_failures_are_transcript_write_errors(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    with pytest.raises(TranscriptWriteError) as caught:
        TranscriptWriter(blocker / "t.truc")
    assert isinstance(caught.value, OSError) and str(blocker) in str(caught.value)
    existing = tmp_path / "t.truc"
    existing.write_bytes(b"x")
    with pytest.raises(TranscriptWriteError, match="File exists"):
        TranscriptWriter(existing)
    assert existing.read_bytes() == b"x"


def test_no_file_is_left_when_the_magic_line_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "write", _failing_write(5))
    with pytest.raises(TranscriptWriteError):
        TranscriptWriter(tmp_path / "t.truc")
    assert not (tmp_path / "t.truc").exists()


# --------------------------------------------------------- append after a crash


def _cuts() -> list[int]:
    """Cut points in and around every header, and through the last three frames."""
    ends = [len(encode_transcript(ENVELOPES[:k])) for k in range(len(ENVELOPES) + 1)]
    cuts = set(range(ends[-4], len(DATA), 29))
    cuts.update(e + d for e in ends for d in (-2, -1, 0, 1, 3, 4, 5))
    cuts.update(range(1, len(TRANSCRIPT_MAGIC) + 6))
    return sorted(c for c in cuts if 0 < c <= len(DATA))


def test_open_append_repairs_every_tear_and_continues(tmp_path: Path) -> None:
    ends = [len(encode_transcript(ENVELOPES[:k])) for k in range(len(ENVELOPES) + 1)]
    for cut in _cuts():
        path = tmp_path / f"cut-{cut}.truc"
        path.write_bytes(DATA[:cut])
        whole = max(k for k, end in enumerate(ends) if end <= cut) if cut >= ends[0] else 0
        good = ends[whole] if cut >= ends[0] else 0
        with TranscriptWriter.open_append(path, sync="never") as writer:
            assert writer.count == whole and writer.existing == ENVELOPES[:whole]
            if cut == good:
                assert writer.repaired is None, cut
            else:
                repair = writer.repaired
                assert repair is not None, cut
                assert (repair.offset, repair.dropped, repair.message) == (
                    good,
                    cut - good,
                    whole,
                )
                assert f"dropped {cut - good} torn bytes at byte {good}" in str(repair)
            for env in ENVELOPES[whole:]:
                writer.append(env)
        assert path.read_bytes() == DATA, cut


def test_open_append_treats_a_zero_filled_tail_as_a_tear(tmp_path: Path) -> None:
    path = tmp_path / "t.truc"
    good = len(encode_transcript(ENVELOPES[:4]))
    path.write_bytes(DATA[:good] + bytes(300))
    with TranscriptWriter.open_append(path) as writer:
        assert writer.repaired is not None and writer.repaired.dropped == 300
        assert "zero bytes" in writer.repaired.detail
    assert read_transcript(path) == ENVELOPES[:4]


def test_open_append_of_an_empty_file_writes_the_magic_line(tmp_path: Path) -> None:
    path = tmp_path / "t.truc"
    path.write_bytes(b"")
    TranscriptWriter.open_append(path).close()
    assert path.read_bytes() == TRANSCRIPT_MAGIC


@pytest.mark.parametrize(
    "content",
    [
        b"not a transcript at all\n",
        DATA[:SECOND] + b"\xff\xff\xff\xff" + DATA[SECOND + 4 :],  # a bad header, data after it
    ],
    ids=["bad-magic", "corrupt"],
)
def test_open_append_refuses_what_is_not_a_tear(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "t.truc"
    path.write_bytes(content)
    with pytest.raises(TranscriptFormatError):
        TranscriptWriter.open_append(path)
    assert path.read_bytes() == content


def test_open_append_of_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TranscriptWriteError, match="No such file"):
        TranscriptWriter.open_append(tmp_path / "missing.truc")


def test_one_writer_per_file(tmp_path: Path) -> None:
    path = tmp_path / "t.truc"
    with (
        _write(path, ENVELOPES[:2]),
        pytest.raises(TranscriptWriteError, match="being written by another process"),
    ):
        TranscriptWriter.open_append(path)
    with TranscriptWriter.open_append(path) as writer:  # free again once closed
        assert writer.count == 2


@settings(max_examples=examples(200), deadline=None)
@given(cut=st.integers(min_value=1, max_value=len(DATA)), junk=st.binary(max_size=8))
def test_scan_never_raises_on_a_prefix(cut: int, junk: bytes) -> None:
    """Any prefix of a transcript is intact or torn, with its whole frames; a prefix
    followed by junk is intact, torn or corrupt, but the frames before it are kept."""
    scan = scan_transcript(DATA[:cut])
    assert scan.damage in (None, "torn")
    assert scan.envelopes == ENVELOPES[: len(scan.envelopes)]
    assert (scan.damage is None) == (scan.good_length == cut)
    if cut >= len(TRANSCRIPT_MAGIC):
        mixed = scan_transcript(DATA[: scan.good_length] + junk)
        assert mixed.envelopes[: len(scan.envelopes)] == scan.envelopes


def test_scan_rejects_what_is_not_a_transcript() -> None:
    for data in (b"", b"TRUC-P2P transcript v2\n", b"hello"):
        with pytest.raises(TranscriptFormatError):
            scan_transcript(data)
