"""A full disk and an unwritable ``--out``, on real file systems (small tmpfs mounts).

The tests run as root in CI; where ``mount`` is not allowed they are skipped
with the reason.  A game that fills the disk stops with one clean line and
exit 1, and what was written stays readable by ``verify`` (an incomplete game,
not an unreadable file) and can be appended to again once space is back.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from truc_p2p.cli import main
from truc_p2p.transcript import TranscriptWriter, scan_transcript_file

Mount = Callable[..., Path]


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, out + err
    return code, out, err


@pytest.mark.parametrize("transport", ["tcp", "in-memory"])
def test_a_full_disk_mid_game(
    tmpfs: Mount, capsys: pytest.CaptureFixture[str], transport: str
) -> None:
    disk = tmpfs("64k")
    filler = disk / "filler"
    filler.write_bytes(bytes(40 * 1024))  # leaves room for part of one game only
    out = disk / "games"
    argv = ["demo", "--quiet", "--seed", "5", "--games", "2", "--out", str(out)]
    if transport == "in-memory":
        argv.append("--in-memory")
    code, _, err = _run(capsys, argv)
    assert code == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("truc-p2p demo: game 1 stopped: cannot write transcript ")
    assert "No space left on device" in lines[0]
    transcripts = sorted(out.glob("*.truc"))
    assert len(transcripts) == 2
    for path in transcripts:
        scan = scan_transcript_file(path)
        assert scan.damage is None, scan.detail  # no torn frame: only whole messages
        code, report_text, err = _run(capsys, ["verify", "--json", str(path)])
        assert code == 3, err  # unfinished (it stops early), neither a violation nor unreadable
        report = json.loads(report_text)
        assert report["error_code"] in ("incomplete", "aborted"), report
        assert report["status"] == "unfinished"
        assert report["messages"] == len(scan.envelopes) > 0
    # Space is back: the transcripts can be continued.
    filler.unlink()
    for path in transcripts:
        with TranscriptWriter.open_append(path) as writer:
            assert writer.repaired is None and writer.count > 0


def test_a_full_disk_before_the_game_is_found_up_front(
    tmpfs: Mount, capsys: pytest.CaptureFixture[str]
) -> None:
    disk = tmpfs("64k")
    out = disk / "games"
    out.mkdir()
    with (disk / "filler").open("wb") as f, pytest.raises(OSError, match="No space"):
        f.write(bytes(128 * 1024))
    code, _, err = _run(capsys, ["demo", "--quiet", "--out", str(out)])
    assert code == 2
    assert err.strip() == (
        f"truc-p2p demo: cannot write transcripts to {out}: No space left on device"
    )
    assert list(out.iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["demo", "--out", "{ro}/games"], "truc-p2p demo: cannot write transcripts to {ro}/games"),
        (["demo", "--out", "{ro}"], "truc-p2p demo: cannot write transcripts to {ro}"),
        (["identity", "--identity", "{ro}/id.key"], "truc-p2p identity: cannot create identity"),
    ],
    ids=["demo-new-dir", "demo-mount-point", "identity"],
)
def test_read_only_file_system(
    tmpfs: Mount, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    ro = tmpfs("64k", ro=True)
    code, _, err = _run(capsys, [a.format(ro=ro) for a in argv])
    assert code == 2
    assert err.strip().startswith(message.format(ro=ro)), err
    assert err.strip().endswith("Read-only file system"), err
    assert len(err.strip().splitlines()) == 1


def test_a_full_disk_with_json(tmpfs: Mount, capsys: pytest.CaptureFixture[str]) -> None:
    disk = tmpfs("64k")
    (disk / "filler").write_bytes(bytes(40 * 1024))
    out = disk / "games"
    argv = ["demo", "--json", "--in-memory", "--seed", "5", "--games", "3", "--out", str(out)]
    code, text, err = _run(capsys, argv)
    assert code == 1 and len(err.strip().splitlines()) == 1
    (line,) = text.strip().splitlines()  # the games after the failure are not played
    result = json.loads(line)
    assert result["game"] == 1 and result["valid"] is False
    assert result["reason"] == "write-error" and "No space left" in result["error"]
    assert sorted(result["transcripts"]) == sorted(str(p) for p in out.glob("*.truc"))


def test_identity_on_a_full_disk_leaves_no_half_key(
    tmpfs: Mount, capsys: pytest.CaptureFixture[str]
) -> None:
    disk = tmpfs("64k")
    (disk / "dir").mkdir()
    with (disk / "filler").open("wb") as f, pytest.raises(OSError, match="No space"):
        f.write(bytes(128 * 1024))
    key = disk / "dir" / "identity.key"
    code, _, err = _run(capsys, ["identity", "--identity", str(key)])
    assert code == 2
    assert err == f"truc-p2p identity: cannot create identity {key}: No space left on device\n"
    assert not key.exists()  # the next run creates a whole key, once there is room
    (disk / "filler").unlink()
    code, out, _ = _run(capsys, ["identity", "--identity", str(key)])
    assert code == 0 and "created now" in out
