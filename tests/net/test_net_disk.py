"""A full disk in the middle of a network game (a small tmpfs; tests run as root).

The joiner's transcript lives on a 64 KiB tmpfs that fills up mid-game.  The
joiner stops cleanly with ``End.DISK_ERROR`` (no exception, no traceback),
tells the host with a signed abort when that abort can still be written
first, and leaves a transcript that is whole frames only: ``verify`` reads it
as an unfinished game, never as an unreadable file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import trio
from helpers.net import bot, hosting

from truc_p2p.crypto import SigningKey
from truc_p2p.net import Clocks, End, GameSettings, Storage, join_game
from truc_p2p.protocol import verify_transcript
from truc_p2p.transcript import scan_transcript_file

Mount = Callable[..., Path]


async def test_a_full_disk_ends_the_joiners_game_cleanly(tmpfs: Mount, tmp_path: Path) -> None:
    disk = tmpfs("64k")
    (disk / "filler").write_bytes(bytes(52 * 1024))  # room for the start of a game only
    with trio.fail_after(60):
        async with hosting(
            strategy=bot(1),
            identity=SigningKey.generate(),
            settings=GameSettings(clocks=Clocks(grace=5)),
            storage=Storage(out_dir=tmp_path),
        ) as (invite, results):
            joined = await join_game(
                invite,
                bot(2),
                identity=SigningKey.generate(),
                settings=GameSettings(clocks=Clocks(grace=5)),
                storage=Storage(out_dir=disk / "games"),
            )
    hosted = results["host"]
    assert joined.end is End.DISK_ERROR, joined.message
    assert "No space left on device" in joined.message
    assert hosted.end in (End.OPPONENT_ABORTED, End.OPPONENT_ABANDONED), hosted.message
    assert joined.transcript is not None
    scan = scan_transcript_file(joined.transcript)
    assert scan.damage is None  # whole frames only: the failed write was cut back
    report = verify_transcript(scan.envelopes)
    assert not report.valid and report.error_code in ("incomplete", "aborted")
