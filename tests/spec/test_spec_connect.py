"""``protocol_spec/connect.md`` names the same bytes and defaults as the code."""

from __future__ import annotations

import re
from pathlib import Path

from truc_p2p.net import DEFAULT_RELAY_PORT, DIRECT_WINDOW, RelayLimits
from truc_p2p.net._connect import PUNCH_TIME
from truc_p2p.net._relay_wire import MAGIC, MAX_ADDRS, MAX_BODY, PROBE_MAGIC, Msg
from truc_p2p.net._rendezvous import PING_INTERVAL

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


def test_the_invite_settings_vectors_of_section_1_1() -> None:
    """connect.md 1.1: the settings fields, their order and the full invite."""
    from truc_p2p.net import SETTING_KEYS, Invite, settings_fields
    from truc_p2p.protocol import SessionOptions
    from truc_p2p.rules import Ruleset

    assert re.search(r"^\| `target` \|", SPEC, flags=re.M)
    keys = re.findall(r"^\| `(\w+)` \| .* \| `(?:ruleset|options)\.", SPEC, flags=re.M)
    assert tuple(keys) == SETTING_KEYS
    default = "&" + "&".join(f"{k}={v}" for k, v in settings_fields(SessionOptions()).items())
    assert f"`{default}`" in SPEC
    other = Ruleset.from_dict({"target": 24, "ladder": "even", "rest_refused": "value"})
    fields = settings_fields(SessionOptions(ruleset=other, pipeline=False))
    tail = "&" + "&".join(f"{k}={v}" for k, v in fields.items())
    assert f"`{tail}`" in SPEC
    full = re.search(r"`(truc://10\.1\.0\.2:4455/\?fp=0{64}&[^`]*)`", SPEC)
    assert full is not None
    invite = Invite.parse(full.group(1))
    assert invite.settings.fields() == fields and str(invite) == full.group(1)
    # the TXT keys of section 7 are the same keys, in the same order
    section7 = SPEC.split("## 7. LAN discovery")[1].split("## 8.")[0]
    listed = re.findall(r"`(\w+)`", section7.split("settings of §1.1")[1].split("(older")[0])
    assert tuple(listed) == SETTING_KEYS
