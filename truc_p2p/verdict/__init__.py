"""The verifier's verdict in words: ``truc-p2p verify``'s report (its lines, its
``--json``, its exit status), the end screens' and the site's verify page's words.

Below the presentation layer, so that ``truc-p2p verify`` loads no ``ui`` module:
it needs the verifier (:mod:`truc_p2p.protocol`), the transcript and evidence files'
reports and the texts' language (:mod:`truc_p2p.i18n`), nothing of trio or a screen.
"""

from __future__ import annotations

from ._findings import damage_line, evidence_said
from ._verdict import (
    EXIT_STATUS,
    report_json,
    scan_json,
    verdict_words,
    verify_bytes,
    verify_json,
    with_damage,
)
from ._words import (
    EDITED,
    reason_word,
    verify_headline,
    verify_summary,
)

__all__ = [
    "EDITED",
    "EXIT_STATUS",
    "damage_line",
    "evidence_said",
    "reason_word",
    "report_json",
    "scan_json",
    "verdict_words",
    "verify_bytes",
    "verify_headline",
    "verify_json",
    "verify_summary",
    "with_damage",
]
