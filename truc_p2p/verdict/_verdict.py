"""The verifier's verdict on a transcript's bytes, trio-free and file-free: the one
judgement ``truc-p2p verify --json``, the end screens and the site's verify page
all give (the page has a dropped file's bytes, not a path)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from truc_p2p.i18n import _, english
from truc_p2p.protocol import (
    FRAME_HEADER,
    TranscriptFormatError,
    TranscriptScan,
    VerifyReport,
    scan_transcript,
    verify_transcript,
)
from truc_p2p.verdict._findings import damage_line, evidence_said
from truc_p2p.verdict._words import EDITED, verify_headline, verify_summary

if TYPE_CHECKING:
    from truc_p2p.evidence import EvidenceCheck

__all__ = [
    "EXIT_STATUS",
    "report_json",
    "scan_json",
    "verdict_words",
    "verify_bytes",
    "verify_json",
    "with_damage",
]

#: Exit status of ``truc-p2p verify`` by the report's status.
EXIT_STATUS = {"complete": 0, "violation": 1, "unfinished": 3, "unknown-feature": 4}


def with_damage(report: VerifyReport, scan: TranscriptScan) -> VerifyReport:
    """A damaged file is never complete, even when its whole messages are: a torn one
    (a crash while writing) is unfinished, a corrupt one a violation at the cut."""
    if scan.damage is None or report.status == "violation":
        return report
    if report.status == "unknown-feature" and scan.torn:
        return report  # cut by a crash: still not judged (a corrupt file is a violation)
    with english():  # the report's ``error``, as ``--json`` gives it
        error = damage_line(scan)
    return dataclasses.replace(
        report,
        valid=False,
        error=error,
        error_code=scan.damage,
        error_message_no=scan.cut_message,
        status="unfinished" if scan.torn else "violation",
    )


def verdict_words(report: object) -> dict[str, object]:
    """The verdict of a report (or of the exception that made the file unreadable),
    in the language in use: ``valid``, ``status``, ``headline``, ``summary``."""
    if not isinstance(report, VerifyReport):
        text = _("cannot read the transcript: {reason}", reason=report)
        return {"valid": False, "status": "unreadable", "headline": text, "summary": text}
    return {
        "valid": report.valid,
        "status": report.status,
        "headline": verify_headline(report),
        "summary": verify_summary(report),
    }


def verify_json(
    data: bytes, *, local_secret: bytes | None = None, evidence: EvidenceCheck | None = None
) -> dict[str, Any]:
    """``truc-p2p verify --json``'s object for a transcript's bytes (``evidence``: the
    check of an evidence file kept beside it, which a dropped file has none of)."""
    try:
        scan = scan_transcript(data)
    except TranscriptFormatError as exc:
        return {"valid": False, "status": "unreadable", "error": f"cannot read transcript: {exc}"}
    return scan_json(scan, local_secret=local_secret, evidence=evidence)


def scan_json(
    scan: TranscriptScan,
    *,
    local_secret: bytes | None = None,
    evidence: EvidenceCheck | None = None,
) -> dict[str, Any]:
    """:func:`verify_json` of a transcript already scanned."""
    report = with_damage(verify_transcript(scan.envelopes, local_secret=local_secret), scan)
    return report_json(report, scan, evidence=evidence)


def report_json(
    report: VerifyReport, scan: TranscriptScan, *, evidence: EvidenceCheck | None = None
) -> dict[str, Any]:
    """The ``--json`` object of a report (:func:`with_damage` applied) on ``scan``."""
    envelopes = scan.envelopes
    obj = report.to_json()
    # The whole frames' bytes (4-byte length + envelope each), as `--json` of the
    # game commands counts them.
    obj["bytes"] = sum(FRAME_HEADER + len(e) for e in envelopes)
    obj["damage"] = (
        None
        if scan.damage is None
        else {
            "kind": scan.damage,
            "message": scan.cut_message,
            "offset": scan.good_length,
            "dropped_bytes": scan.dropped,
            "detail": scan.detail,
        }
    )
    # wire.md 13.8: the lines verify prints, in English, and each finding with its
    # weight ("proof", or "word": the other player's word); a dropped file has none
    with english():
        obj["evidence"] = evidence_said(evidence)
    obj["evidence_findings"] = [
        f.to_json() for f in (evidence.findings if evidence is not None else ())
    ]
    # a file changed after the game: the sentence verify prints first, in English
    obj["edited"] = report.status == "violation" and report.error_code in EDITED
    if obj["edited"]:
        with english():
            obj["headline"] = verify_headline(report, scan)
            obj["summary"] = verify_summary(report, scan)
    return obj


def verify_bytes(data: bytes) -> tuple[dict[str, Any], dict[str, object]]:
    """A dropped file's verdict: ``verify --json``'s object and its words in the
    language in use (:func:`verdict_words`), from one verification."""
    try:
        scan = scan_transcript(data)
    except TranscriptFormatError as exc:
        obj = {"valid": False, "status": "unreadable", "error": f"cannot read transcript: {exc}"}
        return obj, verdict_words(exc)
    try:
        report = with_damage(verify_transcript(scan.envelopes), scan)
    except ModuleNotFoundError as exc:  # the page: deck v1 needs OpenSSL's P-256
        if (exc.name or "").partition(".")[0] != "cryptography":
            raise
        return _deck_v1_elsewhere()
    words = verdict_words(report)
    if scan.damage is not None or report.error_code in EDITED:
        words["headline"] = verify_headline(report, scan)
        words["summary"] = verify_summary(report, scan)
    return report_json(report, scan), words


def _deck_v1_elsewhere() -> tuple[dict[str, Any], dict[str, object]]:
    """The verdict of a deck v1 game where no ``cryptography`` is (the page): deck v1
    runs on P-256 through OpenSSL, which only the desktop program has, so this verifier
    cannot judge it and blames nobody (wire.md section 11.2's ``unknown-feature``)."""

    def said() -> str:
        return _(
            "Cannot judge here: this game uses deck v1, which only the desktop program "
            "verifies (truc-p2p verify FILE); nobody is blamed"
        )

    with english():
        error = said()
    text = said()
    obj = {
        "valid": False,
        "status": "unknown-feature",
        "unknown_features": ["deck v1"],
        "error": error,
    }
    return obj, {"valid": False, "status": "unknown-feature", "headline": text, "summary": text}
