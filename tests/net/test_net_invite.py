"""The ``truc://HOST:PORT/?fp=…`` invite format and the identity file."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from truc_p2p.identity import (
    IdentityError,
    default_identity_path,
    load_identity,
    load_or_create_identity,
)
from truc_p2p.net import Invite, InviteError

FP = "0123456789abcdef" * 4


@pytest.mark.parametrize(
    ("host", "text"),
    [
        ("192.168.1.20", f"truc://192.168.1.20:4455/?fp={FP}"),
        ("2001:db8::7", f"truc://[2001:db8::7]:4455/?fp={FP}"),
        ("game.example.org", f"truc://game.example.org:4455/?fp={FP}"),
    ],
)
def test_invite_round_trip(host: str, text: str) -> None:
    invite = Invite(host, 4455, FP)
    assert str(invite) == text
    assert Invite.parse(text) == invite
    assert Invite.parse("  " + text.upper().replace(FP.upper(), FP) + "\n") == invite


def test_invite_parse_tolerates_upper_case_fingerprint_and_extra_parameters() -> None:
    invite = Invite.parse(f"truc://[::1]:9/?fp={FP.upper()}&v=2")
    assert invite == Invite("::1", 9, FP) and invite.is_ipv6


def test_a_relay_invite_round_trips_and_old_invites_stay_valid() -> None:
    text = f"truc://10.1.0.2:4455/?fp={FP}&relay=relay.example.org:4456&code=k3jz7q2mxa4bq5de"
    invite = Invite.parse(text)
    assert invite.relay == ("relay.example.org", 4456) and invite.code == "k3jz7q2mxa4bq5de"
    assert str(invite) == text and Invite.parse(str(invite)) == invite
    v6 = Invite("::1", 9, FP, relay=("2001:db8::1", 4456), code="abcd")
    assert "&relay=[2001:db8::1]:4456&code=abcd" in str(v6)
    assert Invite.parse(str(v6)) == v6
    assert Invite.parse(f"truc://1.2.3.4:1/?fp={FP}").relay is None
    # An old reader's view of a new invite is the plain direct invite.
    assert Invite(invite.host, invite.port, invite.fingerprint) == Invite.parse(text.split("&")[0])


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (f"truc://1.2.3.4:1/?fp={FP}&relay=5.6.7.8:9", "both relay= and code="),
        (f"truc://1.2.3.4:1/?fp={FP}&code=abcd1234", "both relay= and code="),
        (f"truc://1.2.3.4:1/?fp={FP}&relay=5.6.7.8&code=abcd1234", "HOST:PORT"),
        (f"truc://1.2.3.4:1/?fp={FP}&relay=5.6.7.8:0&code=abcd1234", "port"),
        (f"truc://1.2.3.4:1/?fp={FP}&relay=5.6.7.8:9&code=ab", "code must be"),
        (f"truc://1.2.3.4:1/?fp={FP}&relay=5.6.7.8:9&code=ab-cd", "code must be"),
        (f"truc://1.2.3.4:1/?fp={FP}&relay=a:9&relay=b:9&code=abcd", "more than one"),
    ],
)
def test_bad_relay_parameters_are_rejected(text: str, why: str) -> None:
    with pytest.raises(InviteError, match=why):
        Invite.parse(text)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (f"http://1.2.3.4:1/?fp={FP}", "starts with truc://"),
        (f"truc://1.2.3.4/?fp={FP}", "no port"),
        (f"truc://1.2.3.4:0/?fp={FP}", "(?i)port"),
        (f"truc://1.2.3.4:70000/?fp={FP}", "(?i)port"),
        ("truc://1.2.3.4:1/", "fp="),
        (f"truc://1.2.3.4:1/?fp={FP}&fp={FP}", "exactly one"),
        ("truc://1.2.3.4:1/?fp=abc", "64 lowercase hex"),
        (f"truc://:1/?fp={FP}", "no host"),
        (f"truc://bad_host!:1/?fp={FP}", "not a host"),
        (f"truc://user@1.2.3.4:1/?fp={FP}", "user name"),
    ],
)
def test_bad_invites_are_rejected_with_a_reason(text: str, why: str) -> None:
    with pytest.raises(InviteError, match=why):
        Invite.parse(text)


def test_identity_is_created_once_with_mode_0600(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "id.key"
    first = load_or_create_identity(path)
    assert first.created and path.exists()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = load_or_create_identity(path)
    assert not again.created and again.fingerprint == first.fingerprint
    assert len(first.fingerprint) == 64


def test_identity_accepts_raw_key_bytes_and_rejects_junk(tmp_path: Path) -> None:
    raw = tmp_path / "raw.key"
    raw.write_bytes(bytes(range(32)))
    assert len(load_identity(raw).fingerprint) == 64
    junk = tmp_path / "junk.key"
    junk.write_bytes(b"not a key")
    with pytest.raises(IdentityError, match="neither"):
        load_identity(junk)
    with pytest.raises(IdentityError, match="cannot read"):
        load_identity(tmp_path / "missing.key")


def test_default_identity_path_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_identity_path() == tmp_path / "truc-p2p" / "identity.key"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_identity_path() == tmp_path / "home/.local/share/truc-p2p/identity.key"
