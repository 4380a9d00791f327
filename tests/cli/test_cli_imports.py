"""Each sub-command imports only what it uses: ``verify`` never loads trio, the
network, the session or the deck sides (only the checks a transcript needs)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from truc_p2p.bots import make_bot
from truc_p2p.cli import COMMANDS, build_parser
from truc_p2p.memory_pair import make_pair, run_pair
from truc_p2p.protocol import SessionOptions, encode_transcript
from truc_p2p.rules import Player, Ruleset

PROBE = """
import sys
from truc_p2p.cli import main
status = main(sys.argv[1:])
HEAVY = ("trio", "truc_p2p.net", "truc_p2p.bots._search", "truc_p2p.protocol._session",
         "truc_p2p.deck.legacy_v1._steps", "truc_p2p.deck.v2._side")
heavy = sorted(m for m in HEAVY if m in sys.modules)
print("LOADED", ",".join(heavy))
sys.exit(status)
"""


def test_verify_loads_neither_trio_nor_the_network_nor_the_session(tmp_path: Path) -> None:
    records: list[bytes] = []
    sessions = make_pair(SessionOptions(ruleset=Ruleset(target=1)), records=(records.append, None))
    run_pair(sessions, {p: make_bot("random", int(p)) for p in (Player.P0, Player.P1)})
    path = tmp_path / "game.truc"
    path.write_bytes(encode_transcript(records))
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "verify", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "LOADED \n" in done.stdout, done.stdout


def _commands(parser: argparse.ArgumentParser) -> set[str]:
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return set(sub.choices)


def test_every_command_is_registered_by_its_module() -> None:
    assert _commands(build_parser()) == set(COMMANDS)
    for command in COMMANDS:
        assert command in _commands(build_parser(command))
    assert _commands(build_parser("verify")) == {"verify"}


def test_the_lazily_loaded_names_are_still_there() -> None:
    import truc_p2p.deck as deck
    import truc_p2p.protocol as protocol
    from truc_p2p.deck.v2._side import DeckSideV2
    from truc_p2p.protocol import Session
    from truc_p2p.protocol._session import Session as Direct

    assert Session is Direct and deck.DeckSideV2 is DeckSideV2
    assert deck.DeckSide.__name__ == "DeckSide" and deck.OpCounts.__name__ == "OpCounts"
    for module in (deck, protocol):
        try:
            module.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018
        except AttributeError as exc:
            assert "NoSuchThing" in str(exc)
        else:  # pragma: no cover
            raise AssertionError(f"{module.__name__}.NoSuchThing exists")
