"""``protocol_spec/connect.md`` names the same bytes and defaults as the code."""

from __future__ import annotations

import re
from pathlib import Path

from truc_p2p.net import DEFAULT_RELAY_PORT, DIRECT_WINDOW, RelayLimits
from truc_p2p.net._connect import PING_INTERVAL, PUNCH_TIME
from truc_p2p.net._relay_wire import MAGIC, MAX_ADDRS, MAX_BODY, PROBE_MAGIC, Msg

SPEC = (Path(__file__).resolve().parents[2] / "protocol_spec" / "connect.md").read_text()


def test_every_message_type_in_the_table_matches_the_code() -> None:
    rows = re.findall(r"^\| `0x([0-9A-F]{2})` \| (\w+) \|", SPEC, flags=re.M)
    table = {name: int(code, 16) for code, name in rows}
    code = {k: v for k, v in vars(Msg).items() if k.isupper()}
    assert table == code


def test_constants_quoted_in_the_spec() -> None:
    limits = RelayLimits()
    for text in (
        f"`{MAGIC.decode()}`",
        f'"{PROBE_MAGIC.decode()}" (8 bytes)',
        f"≤ {MAX_BODY}",
        f"≤ {MAX_ADDRS}",
        f"port **{DEFAULT_RELAY_PORT}**",
        f"after **{DIRECT_WINDOW:g} s**",
        f"every {PING_INTERVAL:g} s",
        f"for {PUNCH_TIME:g} s",
        f"{limits.max_connections}\nconnections, {limits.max_per_ip} per IP address",
        f"{limits.meeting_timeout:g} s for a meeting",
        f"{limits.splice_idle:g} s idle",
    ):
        assert text in SPEC, text


def test_the_code_of_a_claim_matches_the_spec_vectors() -> None:
    import base64
    import hashlib

    from truc_p2p.net._relay_wire import code_for_claim

    for claim, text in ((bytes(16), "16 zero bytes"), (bytes(range(16)), "`000102…0f`")):
        digest = hashlib.sha256(b"truc-p2p relay code v1" + claim).digest()[:10]
        expected = base64.b32encode(digest).decode().lower()  # 80 bits: 16 characters
        assert code_for_claim(claim) == expected
        assert re.search(rf"{re.escape(text)} gives\s+`{expected}`", SPEC), (text, expected)
