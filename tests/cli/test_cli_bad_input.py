"""No command prints a traceback for an argument or file problem (issue 8, item 5).

Each sub-command is run in-process through ``truc_p2p.cli.main`` with bad
arguments and bad files: the exit status is 2 (bad usage, or a file that
cannot be used) or 1 (a transcript that does not verify), the reason is one
line ``truc-p2p COMMAND: ...`` on stderr, and nothing says "Traceback".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.cli import demo_transcript, run_main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from truc_p2p.cli import main
from truc_p2p.protocol import TRANSCRIPT_MAGIC

FP = "0" * 64
LONG_NAME = "x" * 41


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in ``tmp_path`` with its own data directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return tmp_path


# (id, argv with {home} and {file} placeholders, exit status, stderr start or None)
# ``None``: an argparse usage error (usage line + "error:"), also exit 2; "": the help.
CASES: list[tuple[str, list[str], int, str | None]] = [
    ("no-command", [], 2, ""),
    ("unknown-command", ["nope"], 2, None),
    ("demo-target-0", ["demo", "--target", "0"], 2, "truc-p2p demo: --target must be between"),
    ("demo-target-big", ["demo", "--target", "1001"], 2, "truc-p2p demo: --target must be"),
    ("demo-target-negative", ["demo", "--target", "-5"], 2, "truc-p2p demo: --target must be"),
    ("demo-target-text", ["demo", "--target", "ten"], 2, None),
    ("demo-games-0", ["demo", "--games", "0"], 2, "truc-p2p demo: --games must be at least 1"),
    ("demo-games-negative", ["demo", "--games", "-3"], 2, "truc-p2p demo: --games must be"),
    ("demo-bad-bot", ["demo", "--bots", "random", "nobody"], 2, None),
    ("demo-bad-ladder", ["demo", "--ladder", "odd"], 2, None),
    ("demo-bad-seed", ["demo", "--seed", "x"], 2, None),
    (
        "demo-out-is-a-file",
        ["demo", "--out", "{file}"],
        2,
        "truc-p2p demo: cannot write transcripts to {file}: ",
    ),
    (
        "demo-out-under-a-file",
        ["demo", "--out", "{file}/games"],
        2,
        "truc-p2p demo: cannot write transcripts to {file}/games: Not a directory",
    ),
    ("verify-no-file", ["verify"], 2, "truc-p2p verify: give a transcript file (or --match FILE)"),
    (
        "verify-missing",
        ["verify", "{home}/missing.truc"],
        2,
        "truc-p2p verify: cannot read {home}/missing.truc: No such file or directory",
    ),
    (
        "verify-directory",
        ["verify", "{home}"],
        2,
        "truc-p2p verify: cannot read {home}: Is a directory",
    ),
    ("verify-empty", ["verify", "{home}/empty"], 2, "truc-p2p verify: cannot read"),
    (
        "verify-device",
        ["verify", "/dev/zero"],
        2,
        "truc-p2p verify: cannot read /dev/zero: not a regular file",
    ),
    ("verify-not-a-transcript", ["verify", "{file}"], 2, "truc-p2p verify: cannot read"),
    (
        "verify-json-missing",
        ["verify", "--json", "{home}/missing.truc"],
        2,
        "truc-p2p verify: cannot read",
    ),
    (
        "verify-secret-missing",
        ["verify", "{game}", "--secret", "{home}/nope"],
        2,
        "truc-p2p verify: cannot read {home}/nope",
    ),
    (
        "verify-secret-wrong-size",
        ["verify", "{game}", "--secret", "{file}"],
        2,
        "truc-p2p verify: {file} is not a 32-byte secret",
    ),
    (
        "verify-secret-device",
        ["verify", "{game}", "--secret", "/dev/zero"],
        2,
        "truc-p2p verify: cannot read /dev/zero: not a regular file",
    ),
    ("verify-secret-directory", ["verify", "{game}", "--secret", "{home}"], 2, "truc-p2p verify:"),
    ("identity-directory", ["identity", "--identity", "{home}"], 2, "truc-p2p identity: cannot"),
    (
        "identity-device",
        ["identity", "--identity", "/dev/zero"],
        2,
        "truc-p2p identity: cannot read identity /dev/zero: not a regular file",
    ),
    ("identity-garbage", ["identity", "--identity", "{file}"], 2, "truc-p2p identity: {file} is"),
    (
        "identity-under-a-file",
        ["identity", "--identity", "{file}/key"],
        2,
        "truc-p2p identity: cannot create identity {file}/key: Not a directory",
    ),
    ("bench-no-what", ["bench"], 2, None),
    ("bench-hands-0", ["bench", "deck", "--hands", "0"], 2, "truc-p2p bench: --hands must be"),
    ("bench-hands-text", ["bench", "deck", "--hands", "many"], 2, None),
    # The network commands get the shared checks before any network or file work.
    ("host-target-0", ["host", "--target", "0"], 2, "truc-p2p host: --target must be between"),
    (
        "join-target-0",
        ["join", f"truc://127.0.0.1:1/?fp={FP}", "--target", "0"],
        2,
        "truc-p2p join: --target must be",
    ),
    ("play-target-0", ["play", "--target", "0"], 2, "truc-p2p play: --target must be"),
    (
        "play-long-name",
        ["play", "--name", LONG_NAME],
        2,
        "truc-p2p play: --name must be at most 40 characters, not 41",
    ),
    ("host-tab-name", ["host", "--name", "a\tb"], 2, "truc-p2p host: --name must be printable"),
    ("join-empty-name", ["join", "x", "--name", ""], 2, "truc-p2p join: --name must not be empty"),
]


@pytest.mark.parametrize(
    ("argv", "code", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_input_is_one_clean_line(
    home: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    code: int,
    message: str | None,
) -> None:
    (home / "empty").write_bytes(b"")
    (home / "file").write_text("not a transcript, not a key, not a directory\n")
    fields = {"home": str(home), "file": str(home / "file")}
    if any("{game}" in a for a in argv):
        fields["game"] = str(demo_transcript(home))
        capsys.readouterr()
    ran = run_main(capsys, [a.format(**fields) for a in argv])
    assert ran.code == code, ran
    if message is None:
        assert "error:" in ran.err  # argparse: a usage line, then the error
    elif not message:
        assert "usage:" in ran.out  # the help
    else:
        assert len(ran.err_lines) == 1, ran.err
        assert ran.err_lines[0].startswith(message.format(**fields)), ran.err


def test_verify_a_named_pipe_does_not_wait(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import os

    os.mkfifo(home / "pipe")
    ran = run_main(capsys, ["verify", str(home / "pipe")])
    assert ran.code == 2 and "not a regular file" in ran.err


def test_demo_unusable_out_leaves_nothing_behind(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The check runs before any game: no transcript, no directory created beside it."""
    (home / "file").write_text("x")
    run_main(capsys, ["demo", "--out", str(home / "file" / "games")])
    assert sorted(p.name for p in home.iterdir()) == ["file"]


def test_out_is_created_when_missing(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = home / "a" / "b" / "c"
    assert run_main(capsys, ["demo", "--in-memory", "--quiet", "--out", str(out)]).code == 0
    assert len(list(out.glob("*.truc"))) == 2
    assert not list(out.glob(".truc-p2p-check-*"))  # the probe file is gone


@pytest.mark.parametrize(
    ("value", "message"),
    [("", "HOME is empty"), ("relative/dir", "HOME is not an absolute path")],
    ids=["empty-home", "relative-home"],
)
def test_identity_needs_a_home(
    home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    value: str,
    message: str,
) -> None:
    """With no usable HOME (and no XDG_DATA_HOME) the key never lands under ``/.local``."""
    monkeypatch.setenv("HOME", value)
    monkeypatch.setenv("XDG_DATA_HOME", "not/absolute")  # ignored, as the XDG spec says
    key = Path("/.local/share/truc-p2p/identity.key")
    existed = key.exists()
    for argv in (["identity"], ["identity", "--json"], ["host", "--port", "1"]):
        ran = run_main(capsys, argv)
        assert ran.code == 2, (argv, ran)
        assert len(ran.err_lines) == 1 and message in ran.err, ran.err
        assert ran.err.startswith(f"truc-p2p {argv[0]}: no place for your identity key"), ran.err
    assert key.exists() == existed
    assert not list(home.glob("**/identity.key"))
    # --help still works and names the default without a home.
    assert run_main(capsys, ["identity", "--help"]).code == 0


def test_help_survives_a_percent_in_home(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "100%"))
    ran = run_main(capsys, ["identity", "--help"])
    assert ran.code == 0 and "100%" in ran.out


# ------------------------------------------------------------- verify: damaged files


def test_verify_torn_transcript_is_unfinished_not_unreadable(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tear is a crash while writing, not a cheat: unfinished (exit 3)."""
    game = demo_transcript(home)
    data = game.read_bytes()
    torn = home / "torn.truc"
    torn.write_bytes(data[: len(data) * 2 // 3])
    capsys.readouterr()
    ran = run_main(capsys, ["verify", str(torn)])
    assert ran.code == 3
    first = ran.out.splitlines()[0]
    assert first.startswith("Unfinished: the file is cut in hand "), first
    (damage,) = [ln for ln in ran.out.splitlines() if "the transcript is incomplete" in ln]
    assert "cut inside message " in damage
    assert "(a crash or a full disk while writing?)" in damage and "were checked" in damage
    assert "UNFINISHED" in ran.out and "INVALID" not in ran.out
    ran = run_main(capsys, ["verify", "--json", str(torn)])
    report = json.loads(ran.out)
    assert ran.code == 3 and not report["valid"] and report["status"] == "unfinished"
    damage = report["damage"]
    assert damage["kind"] == "torn" and damage["message"] == report["messages"]
    assert damage["offset"] + damage["dropped_bytes"] == len(data) * 2 // 3


def test_verify_whole_game_with_a_torn_tail_is_not_valid(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = demo_transcript(home)
    torn = home / "tail.truc"
    torn.write_bytes(game.read_bytes() + b"\x00\x00\x02\x00abc")
    capsys.readouterr()
    ran = run_main(capsys, ["verify", "--json", str(torn)])
    report = json.loads(ran.out)
    assert ran.code == 3 and report["error_code"] == "torn" and report["winner"] is not None
    ran = run_main(capsys, ["verify", str(torn)])
    assert ran.code == 3 and ran.out.startswith("Unfinished: the file is cut")
    assert ran.out.splitlines()[1].startswith("transcript: UNFINISHED")
    assert ran.out.count("the transcript is incomplete: cut inside message") == 1


def test_verify_corrupt_transcript(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = demo_transcript(home)
    data = game.read_bytes()
    bad = home / "bad.truc"
    start = len(TRANSCRIPT_MAGIC)
    bad.write_bytes(data[:start] + b"\xff\xff\xff\xff" + data[start + 4 :])
    capsys.readouterr()
    ran = run_main(capsys, ["verify", str(bad)])
    assert ran.code == 1
    assert ran.out.startswith(
        "Violation at message 0: the transcript is corrupt: message 0 at byte 23 declares"
    )


def test_verify_cut_inside_the_magic_line(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cut = home / "cut.truc"
    cut.write_bytes(TRANSCRIPT_MAGIC[:7])
    ran = run_main(capsys, ["verify", str(cut)])
    assert ran.code == 3 and "cut inside the magic line" in ran.out


@pytest.mark.slow
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_verify_any_file_content(
    home: Path, capsys: pytest.CaptureFixture[str], data: st.DataObject
) -> None:
    """Whatever the bytes (junk, a cut, a flipped byte, junk appended), verify answers
    1, 2 or 3 with no traceback, 2 only for what is not a transcript at all, and 3
    (unfinished) only for a file that stops early with nothing wrong before."""
    game = home / "game.truc"
    if not game.exists():
        assert main(["demo", "--quiet", "--in-memory", "--seed", "9", "--out", str(home)]) == 0
        next(home.glob("*alice.truc")).rename(game)
    whole = game.read_bytes()
    kind = data.draw(st.sampled_from(["junk", "cut", "flip", "append"]))
    if kind == "junk":
        content = data.draw(st.binary(max_size=64))
    elif kind == "cut":
        content = whole[: data.draw(st.integers(0, len(whole) - 1))]
    elif kind == "flip":
        at = data.draw(st.integers(0, len(whole) - 1))
        content = whole[:at] + bytes([whole[at] ^ data.draw(st.integers(1, 255))]) + whole[at + 1 :]
    else:
        content = whole + data.draw(st.binary(min_size=1, max_size=16))
    path = home / "fuzz.truc"
    path.write_bytes(content)
    capsys.readouterr()
    for argv in (["verify", str(path)], ["verify", "--json", str(path)]):
        ran = run_main(capsys, argv)
        is_transcript = content.startswith(TRANSCRIPT_MAGIC) or (
            bool(content) and TRANSCRIPT_MAGIC.startswith(content)
        )
        if not is_transcript:
            assert ran.code == 2, (kind, ran)
        elif kind in ("flip", "append", "junk"):
            assert ran.code in (1, 3), (kind, ran)
        else:  # a cut of an honest transcript: never a violation
            assert ran.code == 3, (kind, ran)


def test_an_unexpected_os_error_is_one_line(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last resort in ``main``: an ``OSError`` no command reported itself."""
    import errno
    import os

    from truc_p2p.cli import _identity

    def broken(args: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "/some/file")

    monkeypatch.setattr(_identity, "_identity", broken)
    ran = run_main(capsys, ["identity"])
    assert ran.code == 1
    assert ran.err == "truc-p2p identity: /some/file: No space left on device\n"


def test_check_out_dir_contract(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The helper host/join/play/resume call before printing an invite or connecting."""
    from truc_p2p.cli._common import check_out_dir

    assert check_out_dir(str(home / "new" / "dir"), "host") is None
    assert (home / "new" / "dir").is_dir() and list((home / "new" / "dir").iterdir()) == []
    assert capsys.readouterr().err == ""
    (home / "file").write_text("x")
    assert check_out_dir(home / "file", "join") == 2
    assert capsys.readouterr().err == (
        f"truc-p2p join: cannot write transcripts to {home / 'file'}: Not a directory\n"
    )
    assert check_out_dir("a\0b", "play") == 2
    assert capsys.readouterr().err.startswith("truc-p2p play: cannot write transcripts to")


def test_player_name_helper() -> None:
    from truc_p2p.cli._common import UsageError, check_name, player_name

    assert player_name(None, "you")  # the login name, or "you"
    assert player_name("Zoë", "you") == "Zoë" == check_name("Zoë")
    assert check_name("x" * 40) == "x" * 40
    for bad in ("", "x" * 41, "a\nb", "\x1b[31mred"):
        with pytest.raises(UsageError):
            player_name(bad, "you")
