"""The page's verify screen gives ``truc-p2p verify --json``'s verdict, byte for byte,
on every vector transcript and on damaged and tampered files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.page import VECTOR_FILES, PagePlayer, new_app, tampered

from truc_p2p.cli import main as cli_main


def _cli_verdict(tmp_path: Path, data: bytes, capsys: pytest.CaptureFixture[str]) -> Any:
    path = tmp_path / "game.truc"
    path.write_bytes(data)
    capsys.readouterr()
    status = cli_main(["verify", "--json", str(path)])
    out = capsys.readouterr().out
    assert status in (0, 1, 2, 3)
    return json.loads(out.splitlines()[0])


def _page_verdict(data: bytes) -> dict[str, Any]:
    player = PagePlayer(new_app())
    player.call({"type": "hello", "lang": "en"}, 0.0)
    player.call({"type": "verify", "data": data, "name": "game.truc"}, 0.0)
    (verdict,) = player.texts("verdict")
    return verdict


def test_the_vectors_hold_transcripts() -> None:
    assert len(VECTOR_FILES) >= 15  # the wire, resume and case vectors


@pytest.mark.parametrize("name", sorted(VECTOR_FILES))
def test_the_page_verdict_is_verify_json_on_the_vectors(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = VECTOR_FILES[name]
    page = _page_verdict(data)
    assert page["json"] == _cli_verdict(tmp_path, data, capsys)
    assert page["status"] == page["json"]["status"] and page["headline"]


@pytest.mark.parametrize("kind", sorted(tampered(b"x" * 40)))
def test_the_page_verdict_is_verify_json_on_tampered_files(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tampered(VECTOR_FILES["wire_v2"])[kind]
    page = _page_verdict(data)
    cli = _cli_verdict(tmp_path, data, capsys)
    assert page["json"] == cli
    assert page["status"] != "complete"


def test_a_verdict_is_said_in_the_players_language() -> None:
    player = PagePlayer(new_app())
    player.call({"type": "hello", "lang": "fr"}, 0.0)
    player.call({"type": "verify", "data": VECTOR_FILES["wire_v2"]}, 0.0)
    (verdict,) = player.texts("verdict")
    assert verdict["json"]["headline"] != verdict["headline"]  # the JSON stays English


def test_verify_without_bytes_is_one_line() -> None:
    player = PagePlayer(new_app())
    player.call({"type": "verify", "data": "not bytes"}, 0.0)
    (error,) = player.texts("app_error")
    assert ".truc" in error["text"]


def test_a_deck_v1_game_where_no_openssl_is_says_so_in_one_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The page has no ``cryptography``: a deck v1 game (P-256 through OpenSSL) gets a
    "cannot judge here" verdict that blames nobody, not a traceback."""
    import sys

    for name in [m for m in sys.modules if m.startswith("cryptography.hazmat.primitives")]:
        monkeypatch.setitem(sys.modules, name, None)  # "import" of each now fails
    data = VECTOR_FILES["wire_v1"]
    verdict = _page_verdict(data)
    assert verdict["status"] == "unknown-feature"
    assert verdict["json"]["unknown_features"] == ["deck v1"]
    assert "culprit" not in verdict["json"] and "truc-p2p verify" in verdict["headline"]
