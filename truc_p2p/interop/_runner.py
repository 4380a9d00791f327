"""``truc-p2p interop``: play every case against a peer command and judge it.

For each (case, role) the runner starts the peer with ``sh -c COMMAND`` and the
``TRUC_*`` variables, plays the other side itself with the reference
implementation through a :class:`~._proxy.FrameProxy`, and judges the case from
both sides' transcripts (checked by :func:`~truc_p2p.protocol.verify_transcript`
and against each other), the runner's outcomes and the case's own criteria,
never from the peer's exit status alone (``protocol_spec/interop.md``).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from truc_p2p._text import printable
from truc_p2p.interop._cases import CASES, Case
from truc_p2p.interop._judge_case import NO_MAP, ErrorMap, judge, judge_adversarial
from truc_p2p.interop._play_case import (
    ADVERSARY_LIMIT,
    DEFAULT_CASE_TIMEOUT,
    LINGER,
    LINK_FRAME,
    Played,
    RunnerConfig,
    play_case,
)

# LINK_FRAME is re-exported for the tests that read it here.
__all__ = [
    "DEFAULT_CASE_TIMEOUT",
    "LINGER",
    "LINK_FRAME",
    "CaseResult",
    "ErrorMap",
    "RunnerConfig",
    "dumps",
    "junit",
    "matrix_text",
    "read_error_map",
    "run_cases",
    "to_json",
]


@dataclass(frozen=True)
class CaseResult:
    case: str
    role: str
    result: str  # "pass", "fail" or "unsupported"
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"case": self.case, "role": self.role, "result": self.result, "detail": self.detail}


async def _run_one(
    cfg: RunnerConfig, case: Case, role: str, errors: ErrorMap = NO_MAP
) -> CaseResult:
    if errors.marks(case.name):
        return CaseResult(case.name, role, "unsupported", "marked unsupported by the error map")
    folder = cfg.work / f"{case.name}-{role}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    # The runner's transcripts are written where the peer does not know to look, and
    # moved to runner/ once judged: a peer cannot pass by copying them (interop.md §5).
    hidden = Path(tempfile.mkdtemp(prefix="truc-interop-runner-"))
    played = Played(runner_out=hidden)
    limit = cfg.timeout + (cfg.slow_think if case.runner_thinks else 0.0)
    if case.adversary is not None and not case.adversary.target.late:
        limit = min(limit, ADVERSARY_LIMIT)
    try:
        with trio.move_on_after(limit) as scope:
            try:
                await play_case(cfg, case, role, folder, played)
            except OSError as exc:
                played.error = f"cannot run the case: {exc}"
        played.hung = scope.cancelled_caught
        if case.adversary is not None:
            result, detail = judge_adversarial(case, role, played, folder / "peer", errors)
        else:
            result, detail = judge(case, role, played, folder / "peer")
    finally:
        runner = folder / "runner"
        if runner.is_symlink() or (runner.exists() and not runner.is_dir()):
            runner.unlink()  # planted by the peer: never copy through it
        shutil.copytree(hidden, runner, dirs_exist_ok=True)
        shutil.rmtree(hidden, ignore_errors=True)
    # A detail may quote the peer (its stderr, its transcript's words): printable only.
    return CaseResult(case.name, role, result, printable(detail))


def run_cases(
    cfg: RunnerConfig,
    cases: Sequence[str],
    roles: Sequence[str] = ("host", "join"),
    errors: ErrorMap = NO_MAP,
) -> list[CaseResult]:
    """Play every (case, role), one at a time; an adversarial case only in the
    roles it names (interop.md §8)."""

    async def all_cases() -> list[CaseResult]:
        return [
            await _run_one(cfg, CASES[name], role, errors)
            for name in cases
            for role in roles
            if role in CASES[name].roles
        ]

    return trio.run(all_cases)


def to_json(results: Sequence[CaseResult]) -> dict[str, Any]:
    """The ``--json`` object of ``protocol_spec/interop.md`` section 5."""
    return {
        "cases": [r.to_json() for r in results],
        "passed": sum(r.result == "pass" for r in results),
        "failed": sum(r.result == "fail" for r in results),
        "unsupported": sum(r.result == "unsupported" for r in results),
    }


_MARK = {"pass": "pass", "fail": "FAIL", "unsupported": "-"}


def matrix_text(results: Sequence[CaseResult]) -> str:
    """Cases down, the peer's role across; then the reason of every failure."""
    roles = list(dict.fromkeys(r.role for r in results))
    cases = list(dict.fromkeys(r.case for r in results))
    cell = {(r.case, r.role): r for r in results}
    width = max([len("case"), *map(len, cases)])
    head = "case".ljust(width) + "".join(f"  peer {role:<6}" for role in roles)
    lines = [head.rstrip()]
    for name in cases:
        row = name.ljust(width)
        for role in roles:
            r = cell.get((name, role))
            row += f"  {(_MARK[r.result] if r else ''):<11}"
        lines.append(row.rstrip())
    failed = [r for r in results if r.result == "fail"]
    if failed:
        lines.append("")
        lines.extend(f"FAIL {r.case} (peer {r.role}): {r.detail}" for r in failed)
    summary = to_json(results)
    lines.append("")
    lines.append(
        f"{summary['passed']} passed, {summary['failed']} failed, "
        f"{summary['unsupported']} unsupported"
    )
    return "\n".join(lines)


def junit(results: Sequence[CaseResult]) -> str:
    """A JUnit XML report: one ``testcase`` per (case, role), ``classname`` the
    peer's role, a ``failure`` with the detail, ``skipped`` when unsupported."""
    suite = ET.Element(
        "testsuite",
        name="truc-p2p interop",
        tests=str(len(results)),
        failures=str(sum(r.result == "fail" for r in results)),
        skipped=str(sum(r.result == "unsupported" for r in results)),
        errors="0",
    )
    for r in results:
        tc = ET.SubElement(suite, "testcase", classname=f"peer-{r.role}", name=r.case)
        if r.result == "fail":
            ET.SubElement(tc, "failure", message=r.detail)
        elif r.result == "unsupported":
            ET.SubElement(tc, "skipped", message=r.detail)
        else:
            ET.SubElement(tc, "system-out").text = r.detail
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


def read_error_map(path: Path) -> ErrorMap:
    """The ``--error-map`` file (interop.md §8.3): a JSON object with ``codes``
    (a spec error code -> the implementation's code, or a list of them) and
    ``unsupported`` (case names or shell patterns).  ``ValueError`` in one line
    when it is not such a file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read the error map {path}: {exc}") from None
    if not isinstance(data, dict) or set(data) - {"codes", "unsupported", "comment"}:
        raise ValueError(f"{path}: an error map is an object of codes and unsupported")
    codes_in = data.get("codes", {})
    unsupported = data.get("unsupported", [])
    if not isinstance(codes_in, dict) or not isinstance(unsupported, list):
        raise ValueError(f"{path}: codes is an object, unsupported a list")
    codes: dict[str, tuple[str, ...]] = {}
    for spec_code, theirs in codes_in.items():
        names = [theirs] if isinstance(theirs, str) else theirs
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError(f"{path}: codes[{spec_code!r}] is a code or a list of codes")
        codes[spec_code] = tuple(names)
    if not all(isinstance(p, str) for p in unsupported):
        raise ValueError(f"{path}: unsupported lists case names")
    return ErrorMap(codes, tuple(unsupported))


def dumps(results: Sequence[CaseResult]) -> str:
    """:func:`to_json` as the text ``--json`` prints."""
    return json.dumps(to_json(results), indent=2)
