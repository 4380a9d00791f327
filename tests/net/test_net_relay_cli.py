"""The relay walk-through of docs/friends.md as processes on loopback (no namespaces needed)."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from helpers.net import free_port
from helpers.netns import LIMIT, Proc, truc_command

from truc_p2p.cli import main as cli_main
from truc_p2p.net import Invite, _register
from truc_p2p.protocol import verify_transcript
from truc_p2p.transcript import read_transcript

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow


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


def test_host_with_an_unreachable_relay_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # in-process, with the first registration's patience cut from 30 s to 1.2 s: the
    # host still retries (0.5 s, then 1 s would pass the limit) and then gives up
    monkeypatch.setattr(_register, "FIRST_REGISTRATION_PATIENCE", 1.2)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        dead = unused.getsockname()[1]
    status = cli_main(
        ["host", "--relay", f"127.0.0.1:{dead}", "--bind", "127.0.0.1", "--port", "0",
         "--bot", "random", "--identity", "h.key"]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert status == 4
    assert "cannot reach the relay" in out + err
    assert "trying again in 0.5 s" in out + err, out + err
    done = subprocess.run(
        [*truc_command(), "host", "--relay", "nowhere", "--identity", str(tmp_path / "k")],
        capture_output=True, text=True, timeout=LIMIT,
    )  # fmt: skip
    assert done.returncode == 2 and "HOST:PORT" in done.stderr


def _unreachable(invite: str) -> str:
    """The invite with its direct address replaced by a dead port: the host is behind
    a NAT, only the relay route of the invite reaches it."""
    parsed = Invite.parse(invite)
    return str(Invite("127.0.0.1", free_port(), parsed.fingerprint, parsed.relay, parsed.code))


def _verified(directory: Path, count: int = 1) -> None:
    files = sorted(directory.glob("*.truc"))
    assert len(files) == count, files
    for path in files:
        report = verify_transcript(read_transcript(path))
        assert report.valid, (path, report.error)


def _grown(directory: Path, size: int, proc: Proc) -> Path:
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        files = list(directory.glob("*.truc"))
        if files and files[0].stat().st_size >= size:
            return files[0]
        assert proc.proc.poll() is None, f"the game ended before {size} bytes:\n{proc.text()}"
        time.sleep(0.002)
    raise AssertionError("the transcript did not grow")


def _relay_on(cwd: Path, port: int) -> Proc:
    relay = _proc(cwd, "relay", "--bind", "127.0.0.1", "--port", str(port), "--json")
    relay.wait_for(lambda text: '"listening"' in text, 20)
    return relay


def test_a_relay_killed_and_restarted_gets_the_forever_host_back(tmp_path: Path) -> None:
    """``kill -9`` the relay under a ``host --forever``, start it again on its port:
    the host registers again with the same code, says so on one line, and a joiner
    behind NAT gets in with the invite printed before the restart."""
    port = free_port()
    relay = _relay_on(tmp_path, port)
    host = _proc(
        tmp_path, "host", "--relay", f"127.0.0.1:{port}", "--bind", "127.0.0.1", "--port", "0",
        "--bot", "random", "--seed", "1", "--timeout", "30", "--forever", "--quiet",
        "--identity", "h.key", "--out", "h",
    )  # fmt: skip
    restarted: Proc | None = None
    try:
        _, printed = host.wait_for(lambda text: text.startswith("truc://"), 20)
        invite = _unreachable(printed)
        joiner = _proc(
            tmp_path, "join", invite, "--bot", "random", "--seed", "2", "--timeout", "30",
            "--identity", "j.key", "--out", "j1", "--json",
        )  # fmt: skip
        assert joiner.finish() == 0, joiner.text()
        relay.proc.send_signal(signal.SIGKILL)
        relay.finish()
        host.wait_for(lambda text: text.startswith("lost the relay"), 20)
        restarted = _relay_on(tmp_path, port)
        at, line = host.wait_for(lambda text: text.startswith("registered with the relay again"))
        took = host.started + at - restarted.started
        assert f"same code {Invite.parse(printed).code}" in line
        print(f"relay process start to host registered again: {took:.2f} s")
        joiner = _proc(
            tmp_path, "join", invite, "--bot", "random", "--seed", "3", "--timeout", "30",
            "--identity", "j.key", "--out", "j2", "--json",
        )  # fmt: skip
        assert joiner.finish() == 0, joiner.text()
        assert joiner.last_json()["valid"]
    finally:
        host.stop()
        if restarted is not None:
            restarted.stop()
        relay.stop()
    assert host.proc.returncode == 0, host.text()
    assert sum(text.startswith("lost the relay") for _, _, text in host.lines) == 1
    assert '"event": "session"' in restarted.text()
    _verified(tmp_path / "h", 2)
    _verified(tmp_path / "j1")
    _verified(tmp_path / "j2")


def test_a_relay_host_killed_mid_game_resumes_through_the_relay(tmp_path: Path) -> None:
    """``kill -9`` a ``host --relay`` mid-game; ``truc-p2p resume`` registers its code
    again, and the joiner (behind NAT: only the invite's relay route reaches the
    host) redials through the relay; the game ends with a co-signed result."""
    relay = _relay_on(tmp_path, 0)
    port = json.loads(relay.wait_for(lambda text: '"listening"' in text)[1])["addresses"][0][1]
    host = _proc(
        tmp_path, "host", "--relay", f"127.0.0.1:{port}", "--bind", "127.0.0.1", "--port", "0",
        "--bot", "random", "--seed", "5", "--timeout", "30", "--grace", "40", "--quiet",
        "--identity", "h.key", "--out", "h",
    )  # fmt: skip
    resumed: Proc | None = None
    joiner: Proc | None = None
    try:
        _, printed = host.wait_for(lambda text: text.startswith("truc://"), 20)
        joiner = _proc(
            tmp_path, "join", _unreachable(printed), "--bot", "random", "--seed", "6",
            "--timeout", "30", "--grace", "40", "--identity", "j.key", "--out", "j", "--json",
        )  # fmt: skip
        transcript = _grown(tmp_path / "h", 4_000, host)
        host.proc.send_signal(signal.SIGKILL)
        host.finish()
        meta = json.loads(transcript.with_name(transcript.name + ".meta.json").read_text())
        assert meta["relay"] == ["127.0.0.1", port]
        assert meta["relay_code"] == Invite.parse(printed).code
        resumed = _proc(tmp_path, "resume", str(transcript), "--bot", "random", "--json")
        assert resumed.finish(120) == 0, resumed.text()
        assert joiner.finish(120) == 0, joiner.text()
    finally:
        for proc in (resumed, joiner, host):
            if proc is not None:
                proc.stop()
        relay.stop()
    assert "registering with the relay" in resumed.text()
    assert resumed.last_json()["valid"] and joiner.last_json()["valid"]
    assert "result co-signed" in joiner.last_json()["message"]
    connected = [t for _, _, t in joiner.lines if "connected (" in t]
    assert len(connected) >= 2, joiner.text()  # the first connection and the redial
    sessions = [x for x in relay.text().splitlines() if '"event": "session"' in x]
    assert len(sessions) >= 2, relay.text()  # both went through the relay's MEET
    _verified(tmp_path / "h")
    _verified(tmp_path / "j")
