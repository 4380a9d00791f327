"""Where a command's CPU goes, by kind of process: the suite's budget on this machine.

    python benchmarks/suite_cpu.py                       # the full suite (what CI runs)
    python benchmarks/suite_cpu.py -- -m "not slow"      # the fast loop
    python benchmarks/suite_cpu.py --command "truc-p2p demo --in-memory" [--json]

Theory of operation
-------------------
The command runs as a child; every ``--interval`` seconds the script reads
``/proc`` and keeps, for every process descended from the child (a process whose
parent is one of them when first seen; a pid is told from its reuse by its start
time), the CPU time (user + system) it last had.  A process is counted from its
start, so the sum is the work the command caused, browsers and peers included,
which ``/usr/bin/time`` misses when their parent never waits for them.  A process
that lives less than an interval can be missed, and one's last interval lost:
the system-wide busy time over the run (``/proc/stat``) is printed beside the
sum as a check.  The *floor* is the sum over the cores: no scheduling of this
work on this machine can take less wall time.  Linux only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
ROOT = Path(__file__).resolve().parents[1]

#: (kind, pattern on the command line), first match wins.
KINDS = (
    ("chromium", re.compile(r"chrom|headless_shell|^/proc/self/exe --type=")),
    ("node (playwright's drivers, Pyodide under node)", re.compile(r"(^|/)node\b|playwright")),
    ("pytest's workers (the tests run in process)", re.compile(r"exec\(eval\(sys\.stdin")),
    ("Python processes (the program, peers, runners, scripts)", re.compile(r"python|truc-p2p")),
)


def kind_of(cmdline: str) -> str:
    for kind, pattern in KINDS:
        if pattern.search(cmdline):
            return kind
    return "other: " + (cmdline.split()[0].rsplit("/", 1)[-1] if cmdline else "(unnamed)")


@dataclass
class Seen:
    cpu: float
    cmdline: str


@dataclass
class Sampler:
    root: int
    ours: dict[tuple[int, str], Seen] = field(default_factory=dict)

    def sample(self) -> None:
        stats: dict[int, tuple[int, str, float]] = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                raw = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            rest = raw[raw.rindex(")") + 2 :].split()
            stats[int(name)] = (int(rest[1]), rest[19], (int(rest[11]) + int(rest[12])) / TICK)
        # ours and still alive (a pid another process reuses is not ours)
        live = {pid for pid, start in self.ours if pid in stats and stats[pid][1] == start}
        live.add(self.root)
        grew = True
        while grew:  # a child and its grandchild may both be new
            grew = False
            for pid, (ppid, start, cpu) in stats.items():
                key = (pid, start)
                if ppid in live and pid not in live:
                    live.add(pid)
                    grew = True
                    if key not in self.ours:
                        self.ours[key] = Seen(cpu, _cmdline(pid))
        for key, seen in self.ours.items():
            now = stats.get(key[0])
            if now is not None and now[1] == key[1]:
                seen.cpu = now[2]
        if self.root in stats:
            pid, (_, start, cpu) = self.root, stats[self.root]
            self.ours.setdefault((pid, start), Seen(cpu, _cmdline(pid))).cpu = cpu


def _cmdline(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()


def _busy() -> float:
    """Seconds of CPU the whole machine spent busy since boot."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / TICK


def measure(command: list[str], interval: float) -> dict[str, object]:
    busy0, start = _busy(), time.monotonic()
    with subprocess.Popen(command, cwd=ROOT) as proc:
        sampler = Sampler(proc.pid)
        while proc.poll() is None:
            sampler.sample()
            time.sleep(interval)
        sampler.sample()
    wall = time.monotonic() - start
    busy = _busy() - busy0
    kinds: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    for seen in sampler.ours.values():
        kinds[kind_of(seen.cmdline)] += seen.cpu
        counts[kind_of(seen.cmdline)] += 1
    total = sum(kinds.values())
    cores = os.cpu_count() or 1
    return {
        "command": shlex.join(command),
        "exit": proc.returncode,
        "wall_s": round(wall, 1),
        "cpu_s": round(total, 1),
        "machine_busy_s": round(busy, 1),
        "cores": cores,
        "busy_share": round(busy / (wall * cores), 3) if wall else None,
        "floor_s": round(total / cores, 1),
        "processes": len(sampler.ours),
        "kinds": [
            {
                "kind": k,
                "cpu_s": round(v, 1),
                "share": round(v / total, 3) if total else 0.0,
                "processes": counts[k],
            }
            for k, v in kinds.most_common()
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--command", help="a shell-quoted command instead of the suite")
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between samples")
    parser.add_argument("--json", action="store_true", help="the figures as one JSON line")
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's arguments")
    args = parser.parse_args()
    if args.command and args.pytest_args:
        parser.error("give --command or pytest's arguments, not both")
    if not Path("/proc/stat").exists():
        parser.error("this script reads /proc: Linux only")
    command = (
        shlex.split(args.command)
        if args.command
        else [sys.executable, "-m", "pytest", "-q", *args.pytest_args]
    )
    report = measure(command, args.interval)
    if args.json:
        print(json.dumps(report))
        return
    print(
        f"{report['command']}: exit {report['exit']}, {report['wall_s']} s wall; "
        f"{report['cpu_s']} s of CPU in {report['processes']} processes "
        f"(the machine was busy {report['machine_busy_s']} s, "
        f"{100 * float(report['busy_share'] or 0):.0f} % of its {report['cores']} cores); "
        f"floor on {report['cores']} cores: {report['floor_s']} s"
    )
    for row in report["kinds"]:  # type: ignore[attr-defined]
        share = 100 * row["share"]
        print(f"{row['cpu_s']:9.1f} s {share:4.0f} %  {row['processes']:5d}  {row['kind']}")


if __name__ == "__main__":
    main()
