"""What ``truc-p2p verify`` finds beside its report, in words: a transcript torn or
corrupt while it was written (:func:`damage_line`), and the evidence kept beside it
(:func:`evidence_said`, wire.md 13.8)."""

from __future__ import annotations

from truc_p2p.evidence import EvidenceCheck
from truc_p2p.i18n import _, ngettext
from truc_p2p.transcript import TranscriptScan

__all__ = ["damage_line", "evidence_said"]


def damage_line(scan: TranscriptScan) -> str:
    """One sentence on a torn or corrupt transcript: where, and what was still checked."""
    n = len(scan.envelopes)
    if scan.torn:
        return ngettext(
            "the transcript is incomplete: {detail} (a crash or a full disk while writing?); "
            "the {n} whole message before it were checked",
            "the transcript is incomplete: {detail} (a crash or a full disk while writing?); "
            "the {n} whole messages before it were checked",
            n,
            detail=scan.detail,
        )
    return ngettext(
        "the transcript is corrupt: {detail}; the {n} whole message before it were checked",
        "the transcript is corrupt: {detail}; the {n} whole messages before it were checked",
        n,
        detail=scan.detail,
    )


def evidence_said(check: EvidenceCheck | None) -> list[str]:
    """What ``truc-p2p verify`` says about the evidence kept beside a transcript
    (wire.md 13.8), one line per finding; in English byte for byte
    :func:`truc_p2p.evidence.evidence_lines`.  A finding that is not a proof is
    said to be the other player's word, never a proof."""
    if check is None:
        return []
    if check.unreadable is not None:
        return [
            _("evidence: cannot read {file}: {reason}", file=check.name, reason=check.unreadable)
        ]
    if check.nothing is not None:
        return [
            _("evidence: {file} proves nothing: {reason}", file=check.name, reason=check.nothing)
        ]
    lines = []
    for f in check.findings:
        values = {
            "file": check.name,
            "player": f.player,
            "key": f.fingerprint[:16],
            "message": f.message_no,
        }
        if f.proof:
            # Translators: a proof of cheating; "resume" is the protocol message of that
            # name (a reconnection); {key} is the start of a key fingerprint
            lines.append(
                _(
                    "evidence ({file}): player {player} (key {key}…) signed a resume that "
                    "names another message {message} than the transcript's (message {message})",
                    **values,
                )
            )
        elif f.code == "broken-chain":
            # Translators: not a proof: only the other player's word (it wrote the transcript)
            lines.append(
                _(
                    "evidence ({file}): the other player's word, not a proof: player {player} "
                    "(key {key}…) signed a resume that names another message {message} than "
                    "the transcript's (message {message})",
                    **values,
                )
            )
        else:
            lines.append(
                _(
                    "evidence ({file}): the other player's word, not a proof: player {player} "
                    "(key {key}…) signed a resume that says it lacks message {message}, which "
                    "it signed itself (message {message})",
                    **values,
                )
            )
    return lines
