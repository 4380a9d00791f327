"""More of issue 41's browser tests, in headless Chromium at a phone's size, on the site
served by ``truc-p2p relay --site`` (the fixtures and the phone of test_page_browser):
the verify screen gives ``truc-p2p verify --json``'s verdict on every vector transcript
and on tampered files, each uploaded through the page's file input; a page that
reloads mid-hand finishes its game with a desktop host by resume."""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import command, start_host
from helpers.page import SHOTS, VECTOR_FILES, Phone, no_csp_violation, play_phones, tampered

from truc_p2p.protocol import (
    TranscriptFormatError,
    decode_envelope,
    encode_transcript,
    scan_transcript,
    verify_transcript,
)

#: browsers and processes: out of the fast loop
pytestmark = pytest.mark.slow

VERDICT_MS = 30_000


def _cli_json(folder: Path, name: str, data: bytes) -> dict[str, Any]:
    """``truc-p2p verify --json`` on ``data``, in its own process (as a player runs it)."""
    path = folder / f"{name}.truc"
    path.write_bytes(data)
    done = subprocess.run(
        command("verify", "--json", path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 1, 2, 3), done.stderr
    verdict: dict[str, Any] = json.loads(done.stdout.splitlines()[0])
    return verdict


def _corpus() -> dict[str, bytes]:
    """Every vector transcript, and tampered files: bytes flipped, cut short, two
    envelopes swapped, one dropped, and the file's damaged forms of test_page_verify."""
    corpus = {f"vector-{name}": data for name, data in VECTOR_FILES.items()}
    base = VECTOR_FILES["wire_v2"]
    corpus.update({f"tampered-{kind}": data for kind, data in tampered(base).items()})
    envelopes = scan_transcript(base).envelopes
    swapped = list(envelopes)
    swapped[3], swapped[4] = swapped[4], swapped[3]
    corpus["tampered-swapped-envelopes"] = encode_transcript(swapped)
    corpus["tampered-dropped-envelope"] = encode_transcript(envelopes[:5] + envelopes[6:])
    corpus["tampered-truncated-game"] = encode_transcript(envelopes[: len(envelopes) // 2])
    late = bytearray(base)
    late[-40] ^= 0x80
    corpus["tampered-late-flip"] = bytes(late)
    return corpus


def _upload(phone: Phone, name: str, data: bytes) -> dict[str, Any]:
    """Choose ``data`` in the page's verify file input; the verdict the page shows."""
    phone.page.evaluate("window.trucApp.verdict = null")
    phone.page.set_input_files(
        "#app-verify-file",
        files=[{"name": f"{name}.truc", "mimeType": "application/octet-stream", "buffer": data}],
    )
    try:
        phone.page.wait_for_function("() => window.trucApp.verdict !== null", timeout=VERDICT_MS)
    except Exception as exc:  # what the page shows instead says why
        said = phone.page.text_content("#app-error") or phone.page.evaluate(
            "document.body.innerText"
        )
        raise AssertionError(f"{name}: no verdict: {said} {phone.console[-10:]}") from exc
    verdict: dict[str, Any] = phone.page.evaluate("window.trucApp.verdict")
    shown = phone.page.text_content("#app-verdict-headline") or ""
    assert phone.page.is_visible("#app-verdict-headline") and shown.strip(), name
    assert shown == (verdict.get("headline") or verdict["status"])
    return verdict


def _verify_all(
    browser: Any, relay: int, tmp_path: Path, corpus: dict[str, bytes]
) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Each file of ``corpus`` uploaded in one page: (name, page verdict, CLI JSON).
    The CLI's processes run meanwhile, two at a time (the page waits on its worker)."""
    phone = Phone(browser, "verify")
    seen = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        cli = {name: pool.submit(_cli_json, tmp_path, name, data) for name, data in corpus.items()}
        try:
            phone.open(f"http://127.0.0.1:{relay}/")
            phone.page.wait_for_selector("#app-home:not([hidden])")
            for name, data in sorted(corpus.items()):
                page = _upload(phone, name, data)
                if name in ("vector-wire_v2", "tampered-flipped-byte"):
                    phone.page.locator("#app-verdict").scroll_into_view_if_needed()
                    phone.shot(f"verdict-{name}")
                seen.append((name, page, cli[name].result()))
            no_csp_violation(phone)
        finally:
            for job in cli.values():
                job.cancel()
            phone.close()
    return seen


def _deck_v1(name: str) -> bool:
    """Whether a corpus file is a deck v1 game (P-256: the desktop's, SITE.md)."""
    try:
        envelopes = scan_transcript(_corpus()[name]).envelopes
    except TranscriptFormatError:
        return False
    return verify_transcript(envelopes).to_json().get("deck") == "v1"


def test_the_verify_screen_gives_verify_json_on_vectors_and_tampered_files(
    browser: Any, relay: int, tmp_path: Path
) -> None:
    corpus = {name: data for name, data in _corpus().items() if not _deck_v1(name)}
    assert len(corpus) >= 20
    seen = _verify_all(browser, relay, tmp_path, corpus)
    for name, page, cli in seen:
        assert page["json"] == cli, name
        assert page["status"] == cli.get("status"), name
        if name.startswith("tampered-"):
            assert cli.get("status") != "complete", name
    statuses = {str(cli.get("status")) for _, _, cli in seen}
    # the corpus reaches more than one verdict, and some name a culprit
    assert {"complete", "violation", "unreadable"} <= statuses, statuses
    assert any(cli.get("culprit") is not None for _, _, cli in seen)


def test_the_verdict_comes_into_view_on_a_phone(browser: Any, relay: int) -> None:
    """The player scrolls to the verify card and chooses a file: at 390x844 the verdict,
    shown under the file button, is scrolled into view (it was below the fold)."""
    phone = Phone(browser, "verify-fold")
    try:
        phone.open(f"http://127.0.0.1:{relay}/")
        phone.page.wait_for_selector("#app-home:not([hidden])")
        # where a thumb scrolls to: the file button at the bottom of the screen
        phone.page.evaluate(
            "document.getElementById('app-verify-file').scrollIntoView({block: 'end'})"
        )
        _upload(phone, "vector-wire_v2", VECTOR_FILES["wire_v2"])
        phone.page.wait_for_timeout(300)
        box = phone.page.evaluate(
            """() => { const r = document.getElementById('app-verdict-headline')
                .getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight]; }"""
        )
        phone.shot("verdict-in-view")
        top, bottom, height = box
        assert top >= 0 and bottom <= height, box
    finally:
        phone.close()


def test_the_verify_screen_says_it_cannot_judge_deck_v1_here(
    browser: Any, relay: int, tmp_path: Path
) -> None:
    """The page has no OpenSSL for deck v1's P-256: a deck v1 transcript gets one verdict
    that sends the player to the desktop program and blames nobody, never a traceback."""
    corpus = {name: data for name, data in _corpus().items() if _deck_v1(name)}
    assert len(corpus) >= 2
    for name, page, cli in _verify_all(browser, relay, tmp_path, corpus):
        assert cli["status"] != "unknown-feature", name  # the desktop judges it
        assert page["json"]["status"] == "unknown-feature", name
        assert page["json"]["unknown_features"] == ["deck v1"], name
        assert "culprit" not in page["json"], name


def test_a_page_reloaded_mid_hand_finishes_its_game_by_resume(
    browser: Any, relay: int, tmp_path: Path
) -> None:
    """The page joins a desktop host through the relay's WebSocket, plays one card, is
    reloaded (page.reload()) with cards still in hand, and finishes the game: the
    host's transcript and the page's download verify, with one game id."""
    host = start_host(
        tmp_path, "--relay", f"127.0.0.1:{relay}", "--bot", "random", "--seed", "7",
        "--timeout", "120", "--identity", "h.key", "--out", "h",
    )  # fmt: skip
    phone = Phone(browser, "reload")
    try:
        phone.open(f"http://127.0.0.1:{relay}/#join={host.invite}")
        phone.page.wait_for_selector("#app-table:not([hidden])")
        played = False
        for _ in range(600):
            if phone.page.locator("#my-hand button.card:not([disabled])").count() >= 2:
                played = phone.step()
                if played:
                    break
            elif phone.final() is None:
                phone.step()
            phone.page.wait_for_timeout(100)
        assert played, "the page never had a card to play"
        phone.page.wait_for_timeout(500)
        assert phone.final() is None
        fingerprint = phone.page.evaluate("window.trucApp.fingerprint")
        phone.shot("before-reload")
        phone.page.reload()
        phone.page.wait_for_function(
            "() => window.trucApp && (window.trucApp.ready || window.trucApp.failed)",
            timeout=120_000,
        )
        assert not phone.page.evaluate("window.trucApp.failed")
        phone.page.wait_for_selector("#app-table:not([hidden])", timeout=60_000)
        phone.shot("resumed")
        assert phone.page.evaluate("window.trucApp.fingerprint") == fingerprint
        play_phones([phone])
        phone.shot("reload-final")
        final = phone.final()
        assert final is not None and final["outcome"] == "finished", final
        assert final["verdict"]["status"] == "complete", final
        status, out, err = host.finish()
        assert status == 0, out + err
        with phone.page.expect_download() as download:
            phone.page.tap("#app-final-download")
        got = download.value.path()
        assert got is not None
        page_file = Path(got).read_bytes()
    finally:
        phone.close()
    (host_path,) = (tmp_path / "h").glob("*.truc")
    verdicts = [
        _cli_json(tmp_path, "page", page_file),
        _cli_json(tmp_path, "host", host_path.read_bytes()),
    ]
    assert all(v["valid"] and v["status"] == "complete" for v in verdicts), verdicts
    assert verdicts[0]["game_id"] == verdicts[1]["game_id"], verdicts
    assert (SHOTS / "reload-resumed.png").exists()


#: Loaded by the host's Python (PYTHONPATH): its session sends, once, a card whose share
#: names another point, signed, in place of its honest play (the cheat of
#: test_page_bot's CPython test, here from a desktop process).
CHEAT = """
from helpers.page import some_point
from helpers.protocol import with_payload
from truc_p2p.protocol import decode_envelope
from truc_p2p.protocol._session import Session

_emit = Session._emit
_done = []

def _cheating_emit(self, mtype, payload):
    _emit(self, mtype, payload)
    outbox = self._link.outbox
    if _done or mtype != "v2action" or payload.get("act") != "play" or not outbox:
        return
    raw = outbox[-1]
    other = some_point() + decode_envelope(raw).payload["share"][33:]
    outbox[-1] = with_payload(raw, self._identity, lambda p: p.update(share=other))
    _done.append(decode_envelope(raw).seq)
    print("CHEATED", _done[0], int(self.me), flush=True)

Session._emit = _cheating_emit
"""


def test_a_cheating_desktop_host_is_caught_in_the_page_and_the_evidence_kept(
    browser: Any, relay: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The desktop host sends one forged card (a signed play whose share names another
    point): the page stops at that message, shows the cheat, signs its ``cheat``
    abort, and the transcript it offers holds the evidence: ``verify`` names the host."""
    tests = Path(__file__).resolve().parents[1]
    cheat = tmp_path / "cheat"
    cheat.mkdir()
    (cheat / "sitecustomize.py").write_text(CHEAT)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join((str(cheat), str(tests))))
    host = start_host(
        tmp_path, "--relay", f"127.0.0.1:{relay}", "--bot", "random", "--seed", "3",
        "--timeout", "120", "--identity", "h.key", "--out", "h",
    )  # fmt: skip
    monkeypatch.delenv("PYTHONPATH")
    phone = Phone(browser, "cheat")
    try:
        phone.open(f"http://127.0.0.1:{relay}/#join={host.invite}")
        phone.page.wait_for_selector("#app-table:not([hidden])")
        play_phones([phone])
        phone.shot("cheat-final")
        final = phone.final()
        assert final is not None and final["outcome"] == "protocol-error", final
        shown = phone.page.text_content("#final") or ""
        with phone.page.expect_download() as download:
            phone.page.tap("#app-final-download")
        got = download.value.path()
        assert got is not None
        page_file = Path(got).read_bytes()
        _status, out, err = host.finish()
    finally:
        phone.close()
    cheated = [line.split() for line in out.splitlines() if line.startswith("CHEATED")]
    assert cheated, out + err
    (_, seq, seat) = cheated[0]
    assert "cheat" in shown.lower(), shown
    envelopes = scan_transcript(page_file).envelopes
    abort = decode_envelope(envelopes[-1])
    assert abort.type == "abort" and abort.payload["reason"] == "cheat", abort
    verdict = _cli_json(tmp_path, "cheat", page_file)
    assert verdict["status"] == "violation", verdict
    assert verdict["culprit"] == int(seat), verdict
    assert verdict["error_message"] == int(seq), verdict
