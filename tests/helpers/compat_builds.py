"""Earlier builds of this program, built from the repository's history, and whole
bot-vs-bot games between one of them and today's program over loopback TCP.

Each build is the tree of one commit (``git archive COMMIT``) installed into a
venv of its own under ``.cache/compat/<commit>/`` (git-ignored; another place
with ``TRUC_COMPAT_CACHE``).  A finished build leaves a stamp, so the second
run costs nothing.  ``python tests/helpers/compat_builds.py`` builds them all
(``.ci/run`` does, before the tests).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The earlier builds played against, with what each one knows.
BUILDS = {
    "c2ef0f2": "before early cards, resignation and heartbeats",
    "2731091": "early cards, resignation, unannounced heartbeats, invites without settings",
    "b0f1f7f": "early cards, resignation and unannounced heartbeats",
}
#: Today's program.
TODAY = (sys.executable, "-m", "truc_p2p.cli")
#: Bound for one process (a bot game takes a few seconds).
LIMIT = 90


class BuildError(Exception):
    """An earlier build could not be made (no history, no network, a failed install)."""


def cache_dir() -> Path:
    return Path(os.environ.get("TRUC_COMPAT_CACHE") or ROOT / ".cache" / "compat")


def _run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[bytes]:
    done = subprocess.run(cmd, capture_output=True, check=False, **kw)  # type: ignore[call-overload]
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).decode(errors="replace").strip()[-800:]
        raise BuildError(f"{' '.join(cmd[:3])} … failed ({done.returncode}): {tail}")
    result: subprocess.CompletedProcess[bytes] = done
    return result


def build(commit: str) -> tuple[str, ...]:
    """The command that runs the build of ``commit`` (built and cached on first use)."""
    where = cache_dir() / commit
    exe = where / "venv" / "bin" / "truc-p2p"
    stamp = where / "built"
    if stamp.exists() and exe.exists():
        return (str(exe),)
    where.mkdir(parents=True, exist_ok=True)
    with open(where / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another run may be building it
        if stamp.exists() and exe.exists():
            return (str(exe),)
        if shutil.which("git") is None:
            raise BuildError("git is not installed")
        full = _run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{commit}^{{commit}}"])
        src = where / "src"
        shutil.rmtree(src, ignore_errors=True)
        shutil.rmtree(where / "venv", ignore_errors=True)
        src.mkdir()
        archive = _run(["git", "-C", str(ROOT), "archive", "--format=tar", commit])
        _run(["tar", "-x", "-C", str(src)], input=archive.stdout)
        _run([sys.executable, "-m", "venv", str(where / "venv")])
        _run([str(where / "venv" / "bin" / "python"), "-m", "pip", "install", "-q", str(src)])
        stamp.write_text(full.stdout.decode())
    return (str(exe),)


@dataclass
class Side:
    """One player's process: its command, its result line and its transcript."""

    cmd: tuple[str, ...]
    status: int | None = None
    out: str = ""
    err: str = ""
    killed: bool = False
    transcripts: list[Path] = field(default_factory=list)


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return {**env, "XDG_DATA_HOME": str(tmp / "xdg"), "PYTHONUNBUFFERED": "1"}


def _popen(cmd: list[str], tmp: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env=_env(tmp),
        cwd=tmp,
    )
    threading.Timer(LIMIT, proc.kill).start()  # never hang the suite
    return proc


def _finish(proc: subprocess.Popen[str], side: Side, prefix: str = "") -> None:
    out, err = proc.communicate(timeout=LIMIT)
    side.status, side.out, side.err = proc.returncode, prefix + out, side.err + err


def _transcripts(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.truc") if p.stat().st_size > 0)


#: The bot of each side; the side whose process is killed thinks a little per
#: move, so that the kill lands mid-game.
BOT = ("--bot", "heuristic")
SLOW_BOT = ("--bot", "search", "--think", "0.1")


def _dealing(transcript: Path) -> bool:
    """Whether the host has sent a deal message on this transcript's chain: the game
    started (a discarded attempt, ended by an old host's abort after its hello, never
    gets there) and the joiner is past the first deal's start."""
    from truc_p2p.protocol import decode_envelope
    from truc_p2p.transcript import read_transcript

    try:
        records = read_transcript(transcript)
        kinds = [(decode_envelope(r).sender, decode_envelope(r).type) for r in records]
    except (OSError, ValueError):  # torn while being written: look again
        return False
    return any(sender == 1 and kind not in ("hello", "abort") for sender, kind in kinds) and all(
        kind != "abort" for _sender, kind in kinds
    )


def play(
    tmp: Path, host: tuple[str, ...], joiner: tuple[str, ...], *, kill_joiner: bool = False
) -> tuple[Side, Side]:
    """One bot game: ``host`` hosts, ``joiner`` joins (each a command).  With
    ``kill_joiner`` the joiner's process is killed (SIGKILL) once its transcript
    holds the first hand's deal, and ``truc-p2p resume`` of the same build
    finishes the game on that transcript."""
    h, j = Side(host), Side(joiner)
    proc = _popen(
        [*host, "host", "--port", "0", "--bind", "127.0.0.1", *BOT, "--seed", "1", "--json",
         "--quiet", "--identity", "host.key", "--out", "h", "--timeout", "30",
         "--no-announce", "--no-portmap", "--grace", "60"],
        tmp,
    )  # fmt: skip
    assert proc.stdout is not None
    lines: list[str] = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("truc://"):
            break
    else:
        _finish(proc, h, "".join(lines))
        raise AssertionError(f"the host printed no invite: {h.out} {h.err}")
    invite = lines[-1].strip()
    bot = SLOW_BOT if kill_joiner else BOT
    jproc = _popen(
        [*joiner, "join", invite, *bot, "--seed", "2", "--json", "--quiet",
         "--identity", "join.key", "--out", "j", "--timeout", "30"],
        tmp,
    )  # fmt: skip
    if kill_joiner:
        deadline = time.monotonic() + LIMIT
        while jproc.poll() is None and time.monotonic() < deadline:
            done = _transcripts(tmp / "j")
            if done and _dealing(done[-1]):
                jproc.send_signal(signal.SIGKILL)
                j.killed = True
                break
            time.sleep(0.01)
        _finish(jproc, j)
        if j.killed:
            j.err += "\n-- killed, resumed:\n"
            [transcript] = _transcripts(tmp / "j")
            resumed = _popen([*joiner, "resume", str(transcript), *BOT, "--json", "--quiet"], tmp)
            _finish(resumed, j)
    else:
        _finish(jproc, j)
    _finish(proc, h, "".join(lines))
    h.transcripts, j.transcripts = _transcripts(tmp / "h"), _transcripts(tmp / "j")
    return h, j


def verify(cmd: tuple[str, ...], transcript: Path, tmp: Path) -> tuple[bool, str]:
    """Whether the verifier ``cmd`` says ``transcript`` is a valid game, and its words."""
    done = subprocess.run(
        [*cmd, "verify", str(transcript)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=LIMIT,
        env=_env(tmp),
        cwd=tmp,
        check=False,
    )
    return done.returncode == 0 and "transcript: VALID" in done.stdout, done.stdout + done.stderr


def build_all() -> int:
    """Build every earlier build at once (each is a git archive and a pip install,
    mostly waiting on pip): print each one's command, or why it could not be made."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(BUILDS)) as pool:
        futures = {name: pool.submit(build, name) for name in BUILDS}
    status = 0
    for name, future in futures.items():
        try:
            print(name, *future.result())
        except BuildError as exc:
            print(f"cannot build {name} ({BUILDS[name]}): {exc}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(build_all())
