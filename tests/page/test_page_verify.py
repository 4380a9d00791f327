"""The page's verify screen gives ``truc-p2p verify --json``'s verdict, byte for byte,
on every vector transcript and on damaged and tampered files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.page import PagePlayer, new_app

from truc_p2p.cli import main as cli_main
from truc_p2p.protocol import encode_transcript

VECTORS = Path(__file__).resolve().parents[2] / "protocol_spec" / "vectors"


def _vector_files() -> dict[str, bytes]:
    """Every transcript the vectors hold, as the bytes of a ``.truc`` file."""
    files: dict[str, bytes] = {}
    for path in sorted(VECTORS.glob("*.json")):
        data = json.loads(path.read_text())
        found: list[tuple[str, Any]] = [(path.stem, data)]
        if "rejected" in data:
            found += [
                (f"{path.stem}-{r.get('case', i)}", r) for i, r in enumerate(data["rejected"])
            ]
            found.append((f"{path.stem}-game", data.get("game")))
        for name, item in found:
            if not isinstance(item, dict):
                continue
            if "file_hex" in item:
                files[name] = bytes.fromhex(item["file_hex"])
                continue
            envs = item.get("envelopes") or item.get("transcript")
            if isinstance(envs, list) and envs:
                raw = [bytes.fromhex(e["hex"] if isinstance(e, dict) else e) for e in envs]
                files[name] = encode_transcript(raw)
    return files


VECTOR_FILES = _vector_files()


def _tampered(data: bytes) -> dict[str, bytes]:
    middle = len(data) // 2
    flipped = bytearray(data)
    flipped[middle] ^= 0x01
    return {
        "flipped-byte": bytes(flipped),
        "torn": data[: middle + 3],
        "garbage-after": data + b"\x00\x00\x01\x00junk",
        "magic-only": data[:20],
        "empty": b"",
        "not-a-transcript": b"GIF89a not a game at all",
    }


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


@pytest.mark.parametrize("kind", sorted(_tampered(b"x" * 40)))
def test_the_page_verdict_is_verify_json_on_tampered_files(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _tampered(VECTOR_FILES["wire_v2"])[kind]
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
