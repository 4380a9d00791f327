"""Linux network namespaces for the NAT tests: an "internet", home routers, players.

Layout (names get a random per-run prefix, removed at the end)::

    wan     bridge br0 198.18.0.1/15   (the internet; the relay runs here)
    rX      router of home X: wan 198.18.0.1N/15, lan 10.N.0.1/24,
            nftables masquerade (optionally ``random``) and a firewall that
            drops unsolicited inbound connections, like a home router
    hX, hX2 players in home X: 10.N.0.2/24, 10.N.0.3/24 (default route via rX)
    evil    an attacker on the internet, 198.18.0.66/15

Everything is made with ``ip`` and ``nft``; :func:`unavailable` says why the
tests must skip (not root, no ``ip`` or ``nft``, no namespaces).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "RELAY",
    "TURN_IP",
    "TURN_PASSWORD",
    "TURN_USER",
    "Lab",
    "Proc",
    "start_coturn",
    "start_host",
    "start_join",
    "start_relay",
    "turn_args",
    "unavailable",
    "verify",
]


def _sh(*cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=30)


def unavailable() -> str | None:
    """Why namespace tests cannot run here, or ``None``."""
    if os.name != "posix" or os.geteuid() != 0:
        return "network namespace tests need root"
    for tool in ("ip", "nft"):
        if shutil.which(tool) is None:
            return f"network namespace tests need the {tool!r} command"
    probe = f"t9probe{secrets.token_hex(3)}"
    done = _sh("ip", "netns", "add", probe, check=False)
    if done.returncode != 0:
        return f"cannot create a network namespace: {done.stderr.strip()}"
    _sh("ip", "netns", "del", probe, check=False)
    return None


@dataclass
class Lab:
    """A set of namespaces made for one test, deleted by :meth:`close`."""

    prefix: str = field(default_factory=lambda: "t9" + secrets.token_hex(3))
    namespaces: list[str] = field(default_factory=list)
    homes: int = 0

    def ns(self, name: str) -> str:
        return f"{self.prefix}-{name}"

    def run(self, name: str, *cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return _sh("ip", "netns", "exec", self.ns(name), *cmd, check=check)

    def _add(self, name: str) -> None:
        full = self.ns(name)
        _sh("ip", "netns", "add", full)
        self.namespaces.append(full)
        _sh("ip", "-n", full, "link", "set", "lo", "up")

    def _veth(self, a: str, a_if: str, b: str, b_if: str) -> None:
        tmp_a, tmp_b = f"{self.prefix}a", f"{self.prefix}b"
        _sh("ip", "link", "add", tmp_a, "type", "veth", "peer", "name", tmp_b)
        for tmp, ns, ifname in ((tmp_a, a, a_if), (tmp_b, b, b_if)):
            _sh("ip", "link", "set", tmp, "netns", self.ns(ns))
            _sh("ip", "-n", self.ns(ns), "link", "set", tmp, "name", ifname)
            _sh("ip", "-n", self.ns(ns), "link", "set", ifname, "up")

    def internet(self) -> None:
        self._add("wan")
        _sh("ip", "-n", self.ns("wan"), "link", "add", "br0", "type", "bridge")
        _sh("ip", "-n", self.ns("wan"), "addr", "add", "198.18.0.1/15", "dev", "br0")
        _sh("ip", "-n", self.ns("wan"), "link", "set", "br0", "up")

    def _on_internet(self, name: str, address: str) -> None:
        self._veth(name, "wan", "wan", f"p{len(self.namespaces)}")
        _sh("ip", "-n", self.ns("wan"), "link", "set", f"p{len(self.namespaces)}", "master", "br0")
        _sh("ip", "-n", self.ns(name), "addr", "add", f"{address}/15", "dev", "wan")
        _sh("ip", "-n", self.ns(name), "route", "add", "default", "via", "198.18.0.1")

    def outsider(self, name: str, address: str) -> None:
        """A machine with a public address (no NAT)."""
        self._add(name)
        self._on_internet(name, address)

    def home(self, letter: str, *, random_ports: bool = False, players: int = 1) -> list[str]:
        """Router ``r<letter>`` and players ``h<letter>`` (``h<letter>2``...); returns
        the players' addresses."""
        self.homes += 1
        n = self.homes
        router = f"r{letter}"
        self._add(router)
        self._on_internet(router, f"198.18.0.{10 + n}")
        rns = self.ns(router)
        _sh("ip", "-n", rns, "link", "add", "lan", "type", "bridge")
        _sh("ip", "-n", rns, "addr", "add", f"10.{n}.0.1/24", "dev", "lan")
        _sh("ip", "-n", rns, "link", "set", "lan", "up")
        self.run(router, "sysctl", "-qw", "net.ipv4.ip_forward=1")
        random = " random" if random_ports else ""
        rules = f"""
table ip nat {{
  chain pre {{ type nat hook prerouting priority dstnat; policy accept; }}
  chain post {{ type nat hook postrouting priority srcnat; policy accept;
    oifname "wan" masquerade{random}; }}
}}
table inet filter {{
  chain guard_fwd {{ type filter hook forward priority filter; policy accept;
    ct state established,related accept; ct status dnat accept; iifname "wan" drop; }}
  chain guard_in {{ type filter hook input priority filter; policy accept;
    ct state established,related accept; iifname "wan" drop; }}
}}
"""
        done = subprocess.run(
            ["ip", "netns", "exec", rns, "nft", "-f", "-"],
            input=rules,
            capture_output=True,
            text=True,
            timeout=30,
        )
        if done.returncode != 0:
            raise RuntimeError(f"nft failed: {done.stderr}")
        addresses = []
        for i in range(players):
            name = f"h{letter}" + ("" if i == 0 else str(i + 1))
            self._add(name)
            self._veth(name, "eth0", router, f"l{i}")
            _sh("ip", "-n", rns, "link", "set", f"l{i}", "master", "lan")
            address = f"10.{n}.0.{2 + i}"
            _sh("ip", "-n", self.ns(name), "addr", "add", f"{address}/24", "dev", "eth0")
            _sh("ip", "-n", self.ns(name), "route", "add", "default", "via", f"10.{n}.0.1")
            addresses.append(address)
        return addresses

    def popen(self, name: str, *cmd: str) -> subprocess.Popen[str]:
        """Any command in namespace ``name``, stdout piped."""
        return subprocess.Popen(
            ["ip", "netns", "exec", self.ns(name), *cmd],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def close(self) -> None:
        for full in reversed(self.namespaces):
            _sh("ip", "netns", "del", full, check=False)
        self.namespaces.clear()


# --------------------------------------------------------------------------- processes

RELAY = ("198.18.0.1", 4456)
#: Generous bound for one process in a namespace.
LIMIT = 60


def truc_command() -> list[str]:
    """``truc-p2p`` from this environment (the venv's script, else ``python -m``)."""
    script = Path(sys.executable).with_name("truc-p2p")
    return [str(script)] if script.exists() else [sys.executable, "-m", "truc_p2p.cli"]


class Proc:
    """A ``truc-p2p`` process in a namespace whose output lines are timestamped."""

    def __init__(
        self, lab: Lab | None, ns: str | None, cwd: Path, *args: str, stdin: str | None = None
    ):
        self.started = time.monotonic()
        self.lines: list[tuple[float, str, str]] = []  # (seconds since start, stream, text)
        self._cond = threading.Condition()
        env = {**os.environ, "XDG_DATA_HOME": str(cwd / "xdg"), "PYTHONUNBUFFERED": "1"}
        where = [] if lab is None or ns is None else ["ip", "netns", "exec", lab.ns(ns)]
        self.proc = subprocess.Popen(
            [*where, *truc_command(), *args],
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            cwd=cwd,
            env=env,
        )
        if stdin is not None:
            assert self.proc.stdin is not None
            self.proc.stdin.write(stdin)
            self.proc.stdin.close()
        self._threads = [
            threading.Thread(target=self._read, args=(self.proc.stdout, "out"), daemon=True),
            threading.Thread(target=self._read, args=(self.proc.stderr, "err"), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _read(self, pipe: Any, name: str) -> None:
        for line in pipe:
            with self._cond:
                self.lines.append((time.monotonic() - self.started, name, line.rstrip("\n")))
                self._cond.notify_all()

    def wait_for(
        self, predicate: Callable[[str], bool], timeout: float = LIMIT
    ) -> tuple[float, str]:
        """The first line (and its time) that satisfies ``predicate``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for at, _, text in self.lines:
                    if predicate(text):
                        return at, text
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._alive()):
                    raise AssertionError(f"no such line; output so far:\n{self.text()}")
                self._cond.wait(min(left, 0.2))

    def _alive(self) -> bool:
        return any(t.is_alive() for t in self._threads)

    def finish(self, timeout: float = LIMIT) -> int:
        try:
            status = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"process did not finish:\n{self.text()}") from None
        self._close_pipes()
        return status

    def _close_pipes(self) -> None:
        for thread in self._threads:
            thread.join(5)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._close_pipes()

    def text(self) -> str:
        return "\n".join(f"{at:7.3f} {name} {line}" for at, name, line in self.lines)

    def last_json(self) -> dict[str, Any]:
        for _, name, line in reversed(self.lines):
            if name == "out" and line.startswith("{"):
                data: dict[str, Any] = json.loads(line)
                return data
        raise AssertionError(f"no JSON result:\n{self.text()}")


def start_relay(lab: Lab, cwd: Path, ns: str = "wan") -> Proc:
    relay = Proc(lab, ns, cwd, "relay", "--bind", RELAY[0], "--port", str(RELAY[1]), "--json")
    relay.wait_for(lambda line: '"listening"' in line, 20)
    return relay


def start_host(lab: Lab, ns: str, cwd: Path, *args: str, relay: bool = True) -> tuple[Proc, str]:
    """``truc-p2p host`` with a bot, registered with the relay; returns it and its invite."""
    via = ["--relay", f"{RELAY[0]}:{RELAY[1]}"] if relay else []
    host = Proc(
        lab, ns, cwd, "host", *via, "--port", "0",
        "--bot", "random", "--seed", "1", "--timeout", "30", "--json",
        "--identity", "host.key", "--out", "host-games", "--name", "host", *args,
    )  # fmt: skip
    _, invite = host.wait_for(lambda line: line.startswith("truc://"), 30)
    return host, invite


def start_join(lab: Lab, ns: str, cwd: Path, *args: str, stdin: str | None = None) -> Proc:
    return Proc(
        lab, ns, cwd, "join", *args, "--bot", "random", "--seed", "2", "--timeout", "30",
        "--identity", "join.key", "--out", "join-games", "--name", "joiner", stdin=stdin,
    )  # fmt: skip


#: A NAT-PMP-only router (RFC 6886) that really forwards: each mapping becomes an
#: nftables DNAT rule in the router's namespace, deleted with lifetime 0.
NAT_PMP_DAEMON = r"""
import socket, struct, subprocess, sys
wan_ip, lan_ip = sys.argv[1:3]
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind((lan_ip, 5351))
print("ready", flush=True)
while True:
    data, peer = sock.recvfrom(1100)
    if data[:1] == b"\x02":  # PCP: answer "unsupported version" like a NAT-PMP-only router
        sock.sendto(struct.pack("!BBHI", 0, data[1] | 0x80, 1, 0), peer)
    elif data == b"\x00\x00":
        sock.sendto(struct.pack("!BBHI", 0, 128, 0, 1) + socket.inet_aton(wan_ip), peer)
    elif data[:2] == b"\x00\x02" and len(data) >= 12:
        _, _, _, port, _, lifetime = struct.unpack("!BBHHHI", data[:12])
        if lifetime:
            rule = f'iifname "wan" tcp dport {port} dnat to {peer[0]}:{port}'
            subprocess.run(["nft", "add rule ip nat pre " + rule], check=True)
            print(f"mapped {port} to {peer[0]}", flush=True)
        else:
            subprocess.run(["nft", "flush chain ip nat pre"], check=True)
            print(f"unmapped {port}", flush=True)
        reply = struct.pack("!BBHIHHI", 0, 130, 0, 1, port, port if lifetime else 0, lifetime)
        sock.sendto(reply, peer)
"""


#: Where coturn runs in the lab: a machine on the "internet" (connect.md §11).
TURN_IP = "198.18.0.3"
TURN_USER, TURN_PASSWORD = "alice", "s3cret-turn"


def coturn_config(cwd: Path) -> Path:
    """A coturn config that listens only inside its namespace, TCP only, with one
    long-term user, relaying only to the lab's "internet" (the NATs' addresses)."""
    conf = cwd / "turnserver.conf"
    conf.write_text(
        f"""listening-ip={TURN_IP}
relay-ip={TURN_IP}
listening-port=3478
no-tls
no-dtls
no-udp
no-cli
lt-cred-mech
user={TURN_USER}:{TURN_PASSWORD}
realm=truc.test
allowed-peer-ip=198.18.0.0-198.19.255.255
denied-peer-ip=0.0.0.0-198.17.255.255
denied-peer-ip=198.20.0.0-255.255.255.255
userdb={cwd / "turndb"}
pidfile={cwd / "turnserver.pid"}
log-file={cwd / "turnserver.log"}
simple-log
verbose
"""
    )
    return conf


def start_coturn(lab: Lab, cwd: Path) -> subprocess.Popen[bytes]:
    """Debian's coturn (``turnserver``, no daemon) on a machine ``turn`` of the lab's
    internet at ``TURN_IP:3478``; its log is ``cwd/turnserver.log``."""
    lab.outsider("turn", TURN_IP)
    server = subprocess.Popen(
        ["ip", "netns", "exec", lab.ns("turn"), "turnserver", "-c", str(coturn_config(cwd))],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while "3478" not in lab.run("turn", "ss", "-ltn").stdout:
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            server.wait()
            raise RuntimeError("coturn did not start")
        time.sleep(0.1)
    return server


def turn_args(password: str = TURN_PASSWORD) -> tuple[str, ...]:
    """``host`` options for the lab's coturn."""
    return (f"--turn=turn:{TURN_IP}:3478", "--turn-user", TURN_USER, "--turn-password", password)


def verify(cwd: Path, transcript: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*truc_command(), "verify", transcript],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=LIMIT,
    )
