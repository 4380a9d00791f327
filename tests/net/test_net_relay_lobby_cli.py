"""The lobby as a player uses it, in processes on loopback: two ``host --public``,
``lobby`` (text and ``--json``), ``join --relay --pick`` and the number on stdin."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import time
from pathlib import Path

import pytest
from helpers.netns import LIMIT, Proc, truc_command

from truc_p2p.protocol import verify_transcript
from truc_p2p.transcript import read_transcript

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow


def _proc(cwd: Path, *args: str, stdin: str | None = None) -> Proc:
    return Proc(None, None, cwd, *args, stdin=stdin)


def _run(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*truc_command(), *args], capture_output=True, text=True, timeout=LIMIT, cwd=cwd,
        input=stdin, env={"XDG_DATA_HOME": str(cwd / "xdg"), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip


def _host(cwd: Path, port: int, name: str, *extra: str) -> Proc:
    proc = _proc(
        cwd, "host", "--relay", f"127.0.0.1:{port}", "--public", "--bind", "127.0.0.1",
        "--port", "0", "--bot", "random", "--seed", "1", "--timeout", "30", "--name", name,
        "--identity", f"{name}.key", "--out", name, *extra,
    )  # fmt: skip
    proc.wait_for(lambda text: "listed in the relay's lobby" in text, 20)
    return proc


def test_two_public_hosts_are_listed_and_joined_by_number(tmp_path: Path) -> None:
    relay = _proc(tmp_path, "relay", "--bind", "127.0.0.1", "--port", "0", "--json")
    hosts: list[Proc] = []
    try:
        _, line = relay.wait_for(lambda text: '"listening"' in text, 20)
        port = json.loads(line)["addresses"][0][1]
        hosts.append(_host(tmp_path, port, "ana"))
        hosts.append(_host(tmp_path, port, "bea", "--target", "6", "--ladder", "even"))
        listed = _run(tmp_path, "lobby", f"127.0.0.1:{port}", "--json")
        assert listed.returncode == 0, listed.stderr
        games = json.loads(listed.stdout)["games"]
        assert [g["name"] for g in games] == ["ana", "bea"]
        assert games[1]["target"] == 6 and games[1]["ladder"] == "even"
        assert games[1]["match"] == 1 and len(games[1]["fingerprint"]) == 64
        text = _run(tmp_path, "lobby", f"127.0.0.1:{port}")
        assert text.stdout.splitlines()[1].startswith("2. bea  to 6 points; ")
        assert "raises go 1, 2, 4, 6, 8…" in text.stdout and "  key " in text.stdout
        # --pick for scripts: the listed rules are adopted (the host refuses others).
        joiner = _proc(
            tmp_path, "join", "--relay", f"127.0.0.1:{port}", "--pick", "2", "--bot",
            "random", "--seed", "2", "--timeout", "30", "--identity", "j.key", "--out", "j",
            "--json",
        )  # fmt: skip
        assert joiner.finish() == 0, joiner.text()
        result = joiner.last_json()
        assert result["valid"] and result["players"][1] == "bea"
        assert hosts[1].finish() == 0, hosts[1].text()
        assert games[1]["fingerprint"] in hosts[1].text()
        # Only ana is left; a number on stdin picks it.
        again = _run(
            tmp_path, "join", "--relay", f"127.0.0.1:{port}", "--bot", "random", "--seed",
            "3", "--timeout", "30", "--identity", "j.key", "--out", "j", "--json", stdin="1\n",
        )  # fmt: skip
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout.splitlines()[-1])["players"][1] == "ana"
        assert hosts[0].finish() == 0, hosts[0].text()
        gone = _run(tmp_path, "lobby", f"127.0.0.1:{port}")
        assert gone.returncode == 1 and "no open game" in gone.stderr
    finally:
        for proc in hosts:
            proc.stop()
        relay.stop()
    transcripts = sorted((tmp_path / "j").glob("*.truc"))
    assert len(transcripts) == 2
    for path in transcripts:
        assert verify_transcript(read_transcript(path)).valid


def test_an_unreachable_relay_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    for args in (("lobby",), ("join", "--relay")):
        done = _run(tmp_path, *args, f"127.0.0.1:{port}")
        assert done.returncode == 4
        assert done.stderr.strip().count("\n") == 0, done.stderr
        assert "cannot reach the relay" in done.stderr
    as_json = _run(tmp_path, "lobby", f"127.0.0.1:{port}", "--json")
    assert as_json.returncode == 4 and json.loads(as_json.stdout)["games"] == []


def test_public_needs_a_relay_and_an_invite_has_its_own(tmp_path: Path) -> None:
    done = _run(tmp_path, "host", "--public", "--bot", "random")
    assert done.returncode == 2 and "--relay" in done.stderr
    done = _run(tmp_path, "join", "truc://127.0.0.1:1/?fp=" + "ab" * 32, "--relay", "r:1")
    assert done.returncode == 2 and "own relay" in done.stderr


def test_the_relay_refuses_connections_beyond_its_max_connections(tmp_path: Path) -> None:
    """``relay --max-connections 2``: two silent connections are held, the third is
    closed at once and counted as refused (the default, 1024, would hold it)."""
    relay = _proc(
        tmp_path, "relay", "--bind", "127.0.0.1", "--port", "0", "--json",
        "--max-connections", "2",
    )  # fmt: skip
    held: list[socket.socket] = []
    try:
        _, line = relay.wait_for(lambda text: '"listening"' in text, 20)
        port = json.loads(line)["addresses"][0][1]
        for _ in range(2):
            held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        time.sleep(0.5)  # both accepted and counted before the third comes
        third = socket.create_connection(("127.0.0.1", port), timeout=5)
        with third, contextlib.suppress(ConnectionResetError):  # closed, not left waiting
            assert third.recv(1) == b""
        for sock in held:  # the two within the limit are still open
            sock.settimeout(0.3)
            with pytest.raises(TimeoutError):
                sock.recv(1)
    finally:
        for sock in held:
            sock.close()
        relay.stop()
    stopped = relay.last_json()
    assert stopped["event"] == "stopped", relay.text()
    assert (stopped["connections"], stopped["refused_connections"]) == (3, 1), relay.text()


@pytest.mark.parametrize("value", ["0", "-5"])
def test_a_bad_max_connections_is_one_line(tmp_path: Path, value: str) -> None:
    done = _run(tmp_path, "relay", "--port", "0", "--max-connections", value)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"truc-p2p relay: --max-connections must be at least 1, not {value}"
    ]
