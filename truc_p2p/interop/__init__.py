"""The interop runner (``truc-p2p interop``, ``protocol_spec/interop.md``).

Any implementation of the protocol, started as a command with the ``TRUC_*``
variables, plays every case against this program in both roles; the runner
judges each case from both transcripts and the case's criteria.
:mod:`truc_p2p.interop.peer` is this program as such a peer.
"""

from __future__ import annotations

from truc_p2p.interop._cases import (
    CASE_NAMES,
    CASES,
    SLOW_THINK,
    Case,
    Scripted,
    default_cases,
)
from truc_p2p.interop._judge_case import NO_MAP
from truc_p2p.interop._runner import (
    DEFAULT_CASE_TIMEOUT,
    CaseResult,
    ErrorMap,
    RunnerConfig,
    dumps,
    junit,
    matrix_text,
    read_error_map,
    run_cases,
    to_json,
)

__all__ = [
    "CASES",
    "CASE_NAMES",
    "DEFAULT_CASE_TIMEOUT",
    "NO_MAP",
    "SLOW_THINK",
    "Case",
    "CaseResult",
    "ErrorMap",
    "RunnerConfig",
    "Scripted",
    "default_cases",
    "dumps",
    "junit",
    "matrix_text",
    "read_error_map",
    "run_cases",
    "to_json",
]
