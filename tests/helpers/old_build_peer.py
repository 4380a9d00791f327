"""An earlier build of this program as a peer of ``truc-p2p interop``.

The builds of ``tests/helpers/compat_builds.py`` know nothing of the ``TRUC_*``
variables: this adapter turns them into the build's own ``truc-p2p host`` or
``join`` command line with the heuristic bot, and answers 127 (unsupported) for
the cases that build cannot play -- a case that needs a scripted decision (its
command line has no way to script the bot), or a feature the build predates
(:data:`UNSUPPORTED`; ``protocol_spec/interop.md`` section 6 gives the expected
matrix).

Usage: ``PYTHONPATH=tests python tests/helpers/old_build_peer.py COMMIT`` with the
``TRUC_*`` variables.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from helpers.compat_builds import BUILDS, BuildError, build

#: No build can script its bot: the peer's own redeal, "my rest" or resignation.
SCRIPTED = {"redeal", "rest", "resign-peer"}
#: What each build does not know (compat_builds.BUILDS says what it is): the
#: rematch needs a person to answer "play again?" in both.
UNSUPPORTED = {
    "c2ef0f2": SCRIPTED | {"resign-runner", "match3", "rematch", "slow", "classic"},
    "2731091": SCRIPTED | {"match3", "rematch"},
    "b0f1f7f": SCRIPTED | {"rematch"},
}


def command(commit: str, env: dict[str, str]) -> list[str] | None:
    """The build's command line for the case, ``None`` when it cannot play it."""
    case, role = env["TRUC_CASE"], env["TRUC_ROLE"]
    if case in UNSUPPORTED[commit]:
        return None
    exe = build(commit)[0]
    out = Path(env["TRUC_OUT"])
    out.mkdir(parents=True, exist_ok=True)
    args = ["--bot", "heuristic", "--json", "--quiet", "--out", str(out)]
    args += ["--name", env.get("TRUC_NAME") or "peer", "--identity", str(out / "peer.key")]
    args += ["--timeout", "120"]
    if case == "classic":
        args.append("--no-pipeline")
    if case == "match3":
        args += ["--match", "3"]
    if role == "host":
        return [exe, "host", "--bind", "127.0.0.1", "--port", env["TRUC_PORT"],
                "--no-announce", "--no-portmap", *args]  # fmt: skip
    return [exe, "join", env["TRUC_INVITE"], *args]


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in BUILDS:
        print(f"usage: old_build_peer.py COMMIT (one of {', '.join(BUILDS)})", file=sys.stderr)
        return 2
    env = dict(os.environ)
    try:
        cmd = command(argv[0], env)
    except (KeyError, BuildError) as exc:
        print(f"old_build_peer: {exc}", file=sys.stderr)
        return 2
    if cmd is None:
        return 127
    env["XDG_DATA_HOME"] = str(Path(env["TRUC_OUT"]) / "xdg")
    env = {k: v for k, v in env.items() if not k.startswith("PYTHON")}
    # its stdout (the invite) goes straight to the runner
    status = subprocess.run(cmd, env=env, check=False).returncode
    if status < 0:  # killed by a signal: say so, and end the same way
        print(f"old_build_peer: the build was killed by {signal.Signals(-status).name}",
              file=sys.stderr, flush=True)  # fmt: skip
        with contextlib.suppress(OSError, ValueError):  # SIGKILL has no handler to reset
            signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    # 0 (finished) and 1 (another ending: a cheat, a resignation...) both mean it
    # played the case; the runner judges it from the transcripts
    return 0 if status in (0, 1) else status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
