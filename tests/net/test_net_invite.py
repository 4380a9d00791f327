"""The ``truc://HOST:PORT/?fp=…`` invite format and the identity file."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from truc_p2p.crypto import SigningKey
from truc_p2p.identity import (
    IdentityError,
    default_identity_path,
    load_identity,
    load_or_create_identity,
)
from truc_p2p.net import Invite, InviteError
from truc_p2p.protocol import Series, SessionOptions
from truc_p2p.rules import Ruleset

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


# -- the host's settings in the invite (connect.md 1.1) ---------------------------

SETTINGS_TAIL = "&target=24&ladder=even&rest=value&audit=game&deck=v2&pipeline=0"


def test_settings_fields_are_what_invite_record_and_listing_carry() -> None:
    from truc_p2p.net import SETTING_KEYS, settings_fields
    from truc_p2p.rules import Ruleset

    assert settings_fields(SessionOptions()) == {
        "target": "12",
        "ladder": "literal",
        "rest": "game",
        "audit": "game",
        "deck": "v2",
        "pipeline": "1",
    }
    fields = settings_fields(
        SessionOptions(
            ruleset=Ruleset.from_dict({"target": 24, "ladder": "even", "rest_refused": "value"}),
            pipeline=False,
        )
    )
    assert list(fields) == list(SETTING_KEYS[:-1])  # a single game names no match
    assert list(settings_fields(SessionOptions(series=Series(match=2)))) == list(SETTING_KEYS)
    assert "&" + "&".join(f"{k}={v}" for k, v in fields.items()) == SETTINGS_TAIL


def test_an_invite_with_settings_round_trips_and_an_old_one_says_none() -> None:
    from truc_p2p.net import HostSettings

    text = f"truc://10.1.0.2:4455/?fp={FP}&relay=r.example:4456&code=abcd1234{SETTINGS_TAIL}"
    invite = Invite.parse(text)
    assert invite.settings == HostSettings(
        target=24, ladder="even", rest="value", audit="game", deck="v2", pipeline=False
    )
    assert str(invite) == text and Invite.parse(str(invite)) == invite
    assert invite.settings.describe() == (
        "to 24, ladder even, refused rest: value, audit game, deck v2 classic"
    )
    old = Invite.parse(f"truc://10.1.0.2:4455/?fp={FP}")
    assert old.settings.empty and old.settings == HostSettings()
    # only some keys: the others are not said
    some = Invite.parse(f"truc://10.1.0.2:4455/?fp={FP}&target=3")
    assert some.settings.fields() == {"target": "3"}


def test_an_invite_carries_the_match_length_and_round_trips() -> None:
    """connect.md 1.1: ``match=N`` last, for a match only; absent, a single game."""
    from truc_p2p.net import HostSettings, settings_fields
    from truc_p2p.rules import Ruleset

    other = Ruleset.from_dict({"target": 24, "ladder": "even", "rest_refused": "value"})
    fields = settings_fields(SessionOptions(ruleset=other, pipeline=False, series=Series(match=3)))
    assert "&" + "&".join(f"{k}={v}" for k, v in fields.items()) == SETTINGS_TAIL + "&match=3"
    assert settings_fields(
        SessionOptions(ruleset=other, pipeline=False, series=Series(match=1))
    ) == (settings_fields(SessionOptions(ruleset=other, pipeline=False)))
    text = (
        f"truc://10.1.0.2:4455/?fp={FP}&relay=r.example:4456&code=abcd1234{SETTINGS_TAIL}&match=3"
    )
    invite = Invite.parse(text)
    assert invite.settings.match == 3 and invite.settings == HostSettings.of_game(
        other, audit="game", deck="v2", pipeline=False, match=3
    )
    assert str(invite) == text and Invite.parse(str(invite)) == invite
    assert invite.settings.describe().endswith("deck v2 classic, a match of 3 games")
    # an older invite, or a single game's: no match said
    assert Invite.parse(f"truc://10.1.0.2:4455/?fp={FP}{SETTINGS_TAIL}").settings.match is None
    assert Invite.parse(f"truc://10.1.0.2:4455/?fp={FP}&MATCH=5").settings.match == 5


def test_the_mdns_record_carries_the_match_length() -> None:
    from truc_p2p.net import FoundGame, settings_fields
    from truc_p2p.net._discovery import _properties

    props = _properties("ana", FP, settings_fields(SessionOptions(series=Series(match=5))))
    assert props["match"] == "5"
    settings = {k: v for k, v in props.items() if k not in ("v", "fp", "name")}
    found = FoundGame("ana", FP, ("192.168.1.20",), 4455, settings)
    assert found.invite.settings.match == 5 and str(found.invite).endswith("&match=5")


@pytest.mark.parametrize(
    ("tail", "why"),
    [
        ("&match=0", "match must be in"),
        ("&match=100", "match must be in"),
        ("&match=three", "match must be a number"),
        ("&match=3&match=3", "more than one match="),
        ("&target=0", "target must be in"),
        ("&target=x", "target must be a number"),
        ("&target=3&target=4", "more than one target="),
        ("&ladder=odd", "not a ladder"),
        ("&rest=never", "not a rest rule"),
        ("&audit=never", "audit must be"),
        ("&deck=v9", "deck must be"),
        ("&pipeline=yes", "pipeline must be 0 or 1"),
        ("&deck=v1&pipeline=1", "needs deck v2"),
    ],
)
def test_bad_settings_in_an_invite_are_rejected(tail: str, why: str) -> None:
    with pytest.raises(InviteError, match=why):
        Invite.parse(f"truc://1.2.3.4:1/?fp={FP}{tail}")


def test_the_mdns_record_carries_the_settings_and_its_invite_too() -> None:
    from truc_p2p.net import FoundGame, HostSettings, settings_fields
    from truc_p2p.net._discovery import _properties
    from truc_p2p.rules import Ruleset

    props = _properties("ana", FP, settings_fields(SessionOptions(ruleset=Ruleset(target=24))))
    assert props == {"v": "1", "fp": FP, "name": "ana", "target": "24", "ladder": "literal",
                     "rest": "game", "audit": "game", "deck": "v2", "pipeline": "1"}  # fmt: skip
    settings = {k: v for k, v in props.items() if k not in ("v", "fp", "name")}
    found = FoundGame("ana", FP, ("192.168.1.20",), 4455, settings)
    assert found.invite.settings == HostSettings.of_game(
        Ruleset(target=24), audit="game", deck="v2", pipeline=True
    )
    assert str(found.invite).endswith(
        "&target=24&ladder=literal&rest=game&audit=game&deck=v2&pipeline=1"
    )
    # an older host's record (no deck, no pipeline) and a bad value: nothing trusted
    assert FoundGame("b", FP, ("10.0.0.1",), 1, {"target": "x"}).invite.settings.empty


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--target", "12"], "use --target 24 or leave the option out"),
        (["--ladder", "literal"], "use --ladder even or leave the option out"),
        (["--rest-refused", "game"], "use --rest-refused value or leave the option out"),
    ],
)
def test_join_with_a_conflicting_option_says_so_in_one_line_before_connecting(
    options: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from truc_p2p.cli import main

    # port 1 on 127.0.0.1 answers nobody: the line comes before any connection attempt
    invite = f"truc://127.0.0.1:1/?fp={FP}{SETTINGS_TAIL}"
    argv = ["join", invite, *options, "--out", str(tmp_path), "--bot", "random"]
    assert main([*argv, "--identity", str(tmp_path / "id")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "truc-p2p join: the host plays to 24, ladder even, refused rest: value, audit game, "
        f"deck v2 classic; {says}."
    ]


def test_join_adopts_what_the_invite_says_and_keeps_agreeing_options() -> None:
    from truc_p2p.cli import build_parser
    from truc_p2p.cli._common import ruleset_from_args
    from truc_p2p.cli._game_args import GameOptions
    from truc_p2p.cli._join import _adopt_host_settings
    from truc_p2p.cli._lifecycle import game_settings

    def options(*argv: str) -> GameOptions:
        return GameOptions.from_args(build_parser().parse_args(list(argv)))

    invite = Invite.parse(f"truc://127.0.0.1:1/?fp={FP}{SETTINGS_TAIL}")
    opts = _adopt_host_settings(options("join", str(invite), "--target", "24"), invite)
    assert isinstance(opts, GameOptions)
    settings = game_settings(opts, ruleset_from_args(opts.rules), "guest").session
    assert settings.ruleset.to_dict() == {
        "target": 24, "ladder": "even", "rest_refused": "value"}  # fmt: skip
    assert settings.pipeline is False and settings.audit == "game" and settings.deck == "v2"
    # --no-pipeline against a pipelining host: one line
    piped = Invite.parse(f"truc://127.0.0.1:1/?fp={FP}&pipeline=1")
    clash = _adopt_host_settings(options("join", str(piped), "--no-pipeline"), piped)
    assert isinstance(clash, str) and "leave out --no-pipeline" in clash
    # an invite without settings changes nothing
    before = options("join", f"truc://127.0.0.1:1/?fp={FP}")
    assert before.network.invite is not None
    assert _adopt_host_settings(before, Invite.parse(before.network.invite)) == before


async def test_the_hosts_invite_carries_the_settings_it_plays() -> None:
    import trio
    from helpers.net import bot, hosting

    from truc_p2p.net import GameSettings, HostSettings, Listen

    rules = Ruleset.from_dict({"target": 5, "ladder": "even", "rest_refused": "value"})
    stop = trio.Event()
    with trio.fail_after(20):
        async with hosting(
            strategy=bot(),
            identity=SigningKey.generate(),
            settings=GameSettings(session=SessionOptions(ruleset=rules, pipeline=False)),
            listen=Listen(announce=False, portmap=False),
            stop=stop,
        ) as (invite, _):
            stop.set()
    assert invite.settings == HostSettings(
        target=5, ladder="even", rest="value", audit="game", deck="v2", pipeline=False
    )
    assert str(invite).endswith("&target=5&ladder=even&rest=value&audit=game&deck=v2&pipeline=0")
