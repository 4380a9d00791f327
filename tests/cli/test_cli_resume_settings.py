"""What ``truc-p2p resume`` keeps beside a game is one serialized
:class:`~truc_p2p.net.GameSettings`; the shape earlier builds wrote (the name,
ruleset, audit and three clocks, side by side) still loads."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from truc_p2p.bots import make_bot
from truc_p2p.crypto import SigningKey
from truc_p2p.memory_pair import make_pair, run_pair
from truc_p2p.net import Clocks, GameSettings, read_meta, restore_game, write_meta
from truc_p2p.protocol import TRANSCRIPT_MAGIC, Series, SessionOptions, frame
from truc_p2p.rules import Ladder, Player, RestRefused, Ruleset

CLI = (sys.executable, "-m", "truc_p2p.cli", "play")
ASKED = ("--timeout", "45", "--target", "6", "--no-pipeline")
RULES = Ruleset(target=6, ladder=Ladder.EVEN, rest_refused=RestRefused.VALUE)

#: A ``.meta.json`` as the builds before GameSettings wrote it (a joiner's).
OLD_META = {
    "format": 1,
    "role": "join",
    "invite": "truc://127.0.0.1:9/x",
    "name": "alice",
    "ruleset": RULES.to_dict(),
    "audit": "hand",
    "identity": None,
    "bind": None,
    "timeout": 45.0,
    "grace": 33.0,
    "hello_timeout": 7.0,
}


def test_the_settings_go_through_json_unchanged() -> None:
    settings = GameSettings(
        session=SessionOptions(
            ruleset=RULES,
            name="ana",
            audit="hand",
            deck="v1",
            resign=False,
            series=Series(match=3, prev=b"\x07" * 32, dealer=Player.P1),
            heartbeat=True,
        ),
        clocks=Clocks(turn_timeout=45, grace=12.5, heartbeat=math.inf),
    )
    stored = json.loads(json.dumps({"settings": settings.to_json()}))
    assert GameSettings.stored(stored) == settings


def test_an_earlier_builds_settings_still_load() -> None:
    settings = GameSettings.stored(OLD_META)
    assert settings.session == SessionOptions(ruleset=RULES, name="alice", audit="hand")
    assert settings.clocks == Clocks(turn_timeout=45.0, grace=33.0, hello_timeout=7.0)
    # ``resume`` stored no turn clock of its own (``null``): the default then
    assert GameSettings.stored({**OLD_META, "timeout": None}).clocks.turn_timeout == 300.0


@pytest.mark.parametrize(
    "meta",
    [{"settings": {"session": {"name": 3}, "clocks": {}}}, {**OLD_META, "grace": -1}],
    ids=["bad-name", "bad-grace"],
)
def test_bad_stored_settings_are_a_value_error(meta: dict[str, object]) -> None:
    with pytest.raises((ValueError, KeyError, TypeError)):
        GameSettings.stored(meta)


@pytest.mark.parametrize("held", [1, 9], ids=["before-our-hello", "mid-game"])
def test_a_game_with_an_earlier_builds_settings_is_restored(tmp_path: Path, held: int) -> None:
    """The responder's side, stopped before its hello was recorded (the stored name
    and ruleset make it again) or mid-game (its own hello says them)."""
    keys = (SigningKey.generate(), SigningKey.generate())
    seeds = (b"\x01" * 32, b"\x02" * 32)
    records: list[bytes] = []
    sessions = make_pair(
        SessionOptions(ruleset=RULES, audit="hand"),
        names=("bob", "alice"),
        identities=keys,
        secrets=seeds,
        records=(None, records.append),
    )
    run_pair(sessions, {p: make_bot("random", int(p)) for p in Player})
    path = tmp_path / "game.truc"
    path.write_bytes(TRANSCRIPT_MAGIC + b"".join(frame(e) for e in records[:held]))
    path.with_name(path.name + ".secret").write_bytes(seeds[1])
    old = {k: v for k, v in OLD_META.items() if k != "format"}
    write_meta(path, {**old, "role": "host"})
    restored = restore_game(
        path, identity=keys[1], role=Player.P1, settings=GameSettings.stored(read_meta(path))
    )
    restored.writer.close()
    session = restored.session
    assert (session.name, session.ruleset, session.audit_mode) == ("alice", RULES, "hand")
    assert restored.settings.clocks.grace == 33.0
    assert path.read_bytes().endswith(b"".join(frame(e) for e in records[: max(held, 2)]))


def test_a_game_stores_its_settings_in_one_value(tmp_path: Path) -> None:
    done = subprocess.run(
        [*CLI, "--json", "--out", "games", "--name", "ana", *ASKED],
        cwd=tmp_path,
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr  # end of input: the player resigned
    (meta_file,) = (tmp_path / "games").glob("*.meta.json")
    meta = json.loads(meta_file.read_text())
    assert not {"name", "ruleset", "audit", "timeout", "grace"} & meta.keys()
    settings = GameSettings.stored(meta)
    assert settings.session.name == "ana" and settings.session.ruleset.target == 6
    assert settings.session.pipeline is False and settings.clocks.turn_timeout == 45
