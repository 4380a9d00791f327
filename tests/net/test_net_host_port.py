"""Addresses are printed as a person types them back: IPv6 in brackets."""

from __future__ import annotations

import pytest

from truc_p2p.cli._hosts import describe
from truc_p2p.net import FoundGame, host_port, parse_host_port


@pytest.mark.parametrize(
    ("host", "port", "text"),
    [
        ("fe80::1", 7777, "[fe80::1]:7777"),
        ("::1", 4455, "[::1]:4455"),
        ("192.0.2.7", 7777, "192.0.2.7:7777"),
        ("relay.example", 4456, "relay.example:4456"),
    ],
)
def test_host_port_brackets_ipv6_only(host: str, port: int, text: str) -> None:
    assert host_port(host, port) == text
    assert parse_host_port(text) == (host, port)  # and it reads back


def test_the_lan_list_brackets_an_ipv6_address() -> None:
    game = FoundGame("ana", "ab" * 32, ("fe80::1",), 7777)
    line = describe(game)
    assert line.endswith(" at [fe80::1]:7777")
    assert "fe80::1:7777" not in line
