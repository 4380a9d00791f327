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

import os
import secrets
import shutil
import subprocess
from dataclasses import dataclass, field

__all__ = ["Lab", "unavailable"]


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
  chain post {{ type nat hook postrouting priority srcnat; policy accept;
    oifname "wan" masquerade{random}; }}
}}
table inet filter {{
  chain guard_fwd {{ type filter hook forward priority filter; policy accept;
    ct state established,related accept; iifname "wan" drop; }}
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

    def close(self) -> None:
        for full in reversed(self.namespaces):
            _sh("ip", "netns", "del", full, check=False)
        self.namespaces.clear()
