"""The README's relay walk-through as processes on loopback (no namespaces needed)."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

from netns import LIMIT, Proc, truc_command


def _proc(cwd: Path, *args: str, stdin: str | None = None) -> Proc:
    return Proc(None, None, cwd, *args, stdin=stdin)


def test_relay_host_and_join_on_loopback_report_their_path(tmp_path: Path) -> None:
    relay = _proc(tmp_path, "relay", "--bind", "127.0.0.1", "--port", "0", "--json")
    try:
        _, line = relay.wait_for(lambda text: '"listening"' in text, 20)
        port = json.loads(line)["addresses"][0][1]
        host = _proc(
            tmp_path, "host", "--relay", f"127.0.0.1:{port}", "--bind", "127.0.0.1",
            "--port", "0", "--bot", "random", "--seed", "1", "--timeout", "30",
            "--identity", "h.key", "--out", "h",
        )  # fmt: skip
        _, invite = host.wait_for(lambda text: text.startswith("truc://"), 20)
        assert f"&relay=127.0.0.1:{port}&code=" in invite
        joiner = _proc(
            tmp_path, "join", invite, "--bot", "random", "--seed", "2", "--timeout", "30",
            "--identity", "j.key", "--out", "j", "--json",
        )  # fmt: skip
        assert joiner.finish() == 0, joiner.text()
        assert host.finish() == 0, host.text()
        result = joiner.last_json()
        assert result["valid"] and result["path"] in ("direct", "punched")
        host.wait_for(lambda text: f"({result['path']} path)" in text, 1)
        joiner.wait_for(lambda text: f"connected ({result['path']} path)" in text, 1)
        assert "registered with the relay" in host.text()
    finally:
        relay.stop()
    assert '"event": "session"' in relay.text()


def test_relay_refuses_a_bad_port() -> None:
    done = subprocess.run(
        [*truc_command(), "relay", "--port", "70000"],
        capture_output=True, text=True, timeout=LIMIT,
    )  # fmt: skip
    assert done.returncode == 2 and "--port" in done.stderr


def test_host_with_an_unreachable_relay_says_so(tmp_path: Path) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        dead = unused.getsockname()[1]
    host = _proc(
        tmp_path, "host", "--relay", f"127.0.0.1:{dead}", "--bind", "127.0.0.1", "--port", "0",
        "--bot", "random", "--identity", "h.key",
    )  # fmt: skip
    assert host.finish() == 4
    assert "cannot reach the relay" in host.text()
    done = subprocess.run(
        [*truc_command(), "host", "--relay", "nowhere", "--identity", str(tmp_path / "k")],
        capture_output=True, text=True, timeout=LIMIT,
    )  # fmt: skip
    assert done.returncode == 2 and "HOST:PORT" in done.stderr
