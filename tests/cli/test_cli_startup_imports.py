"""``verify`` starts light: no presentation layer, only the verdict's words and i18n;
``truc-p2p --help``, no command, a typo and the light commands import no command's
module, nor the network, the session, the screens or the bots."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from truc_p2p.cli import COMMANDS

PROBE = """
import sys
from truc_p2p.cli import main
main(sys.argv[1:])
print("LOADED", ",".join(sorted(m for m in sys.modules if m.startswith("truc_p2p."))))
"""
#: Packages and modules ``verify`` has no use for.
UNUSED = ("truc_p2p.ui", "truc_p2p.history", "truc_p2p.bench", "truc_p2p.bots", "truc_p2p.net")


def test_verify_loads_no_ui_history_bench_bot_or_net(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "verify", str(tmp_path / "missing.truc")],
        capture_output=True,
        text=True,
    )
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("LOADED ")]
    loaded = line.removeprefix("LOADED ").split(",")
    assert "truc_p2p.verdict._words" in loaded  # the probe sees what verify loads
    assert [m for m in loaded if m.startswith(UNUSED)] == []


#: What the parser of a light command line has no use for: the network, the session,
#: the screens, the bots, the history, and any command's module but its own.
HEAVY = ("trio", "truc_p2p.protocol", "truc_p2p.ui", "truc_p2p.bots", "truc_p2p.net")
HEAVY += ("truc_p2p.history", "truc_p2p.deck", "truc_p2p.cli._")
#: Command lines answered by the top-level parser alone (help, no command, a typo),
#: and the light commands' help.
LIGHT = (
    ("--help",),
    ("--lang", "fr", "--help"),
    (),
    ("no-such-command",),
    ("--version",),
    ("languages", "--help"),
    ("site", "--help"),
)


@pytest.mark.parametrize("argv", LIGHT, ids=" ".join)
def test_help_and_light_commands_import_no_command_module(argv: tuple[str, ...]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE_EXIT, *argv], capture_output=True, text=True, check=False
    )
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("LOADED ")]
    loaded = line.removeprefix("LOADED ").split(",")
    assert "truc_p2p.i18n" in loaded  # the probe sees what the command line loads
    own = {"truc_p2p.cli._parser", COMMANDS.get(argv[0] if argv else "", "")}
    heavy = [m for m in loaded if m.startswith(HEAVY) and m not in own]
    assert heavy == [], heavy
    if argv == ("--help",):
        assert "verify a game transcript" in done.stdout.split("LOADED")[0]


#: ``main`` may end in SystemExit (``--help``, a bad command): print what it loaded anyway.
PROBE_EXIT = """
import sys
from truc_p2p.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("\\nLOADED", ",".join(sorted(m for m in sys.modules if m.startswith("truc_p2p."))))
"""


def test_the_top_level_help_without_the_commands_is_the_full_one() -> None:
    """The lines of ``truc-p2p --help`` come from COMMAND_HELP, the commands' own
    parsers use the same lines: both parsers print the same help, in every language."""
    from truc_p2p.cli import build_parser
    from truc_p2p.cli._parser import COMMAND_HELP, top_parser
    from truc_p2p.i18n import LANGUAGES, speaking

    assert list(COMMAND_HELP) == list(COMMANDS)
    for code in LANGUAGES:
        with speaking(code):
            assert top_parser().format_help() == build_parser().format_help(), code
            assert top_parser().format_usage() == build_parser().format_usage(), code
