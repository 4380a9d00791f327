"""Verify game transcripts from Python, as a neutral referee would.

    python examples/verify_transcript.py games/*.truc

``verify_transcript`` replays a transcript offline: every signature, the
hash chain, the turn order, every action against the rules, every opened
card, the deck audit and the co-signed result.  Exit status 0 when every
file is a valid, complete game.
"""

from __future__ import annotations

import sys

from truc_p2p.protocol import TranscriptFormatError, verify_transcript
from truc_p2p.transcript import scan_transcript_file


def check(path: str) -> bool:
    try:
        scan = scan_transcript_file(path)  # a torn or corrupt end is reported, not raised
    except (OSError, TranscriptFormatError) as exc:
        print(f"{path}: unreadable: {exc}")
        return False
    if scan.damage is not None:
        print(f"{path}: {scan.damage}: {scan.detail}; checking the messages before it")
    report = verify_transcript(scan.envelopes)
    if scan.damage is not None and report.valid:
        print(f"{path}: INVALID: {scan.damage} after a complete game")
        return False
    if report.valid:  # a co-signed result, or a resignation (which may have no score)
        print(f"{path}: valid; {report.headline()}")
    else:
        print(f"{path}: INVALID at message {report.error_message_no}: {report.error}")
        if report.ended_by:
            print(f"  ended by {report.ended_by}")
    return report.valid


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} TRANSCRIPT...")
    sys.exit(0 if all([check(p) for p in sys.argv[1:]]) else 1)
