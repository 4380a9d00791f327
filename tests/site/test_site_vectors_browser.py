"""The js crypto backend in Chromium reproduces, byte for byte, every vector of
protocol_spec/vectors/ that involves secp256k1 or Ed25519: the spec's own generators
(the ones the native spec tests run) run in the page's worker, booted by boot.js from
the built site, with truc_p2p on crypto.js and the vendored noble curves.  Left out:
the deck v1 vectors (P-256, native only: SITE.md), Nostr's (BIP-340 keys through
coincurve, not in the page), the lobby's (net, on trio) and relay_ws_v1.json (no
curve); the negative vectors are judged by the page's verifier rather than regenerated.
LEFT_OUT says why for each."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from helpers.site import FIXTURES, ROOT, STAND_IN_MISSING, serve_folder

from truc_p2p.site import site_files, write_site

pytestmark = pytest.mark.slow

SPEC = ROOT / "protocol_spec"
BOOT_MS = 180_000
#: One vector's generator in Pyodide: a whole game of deck v2 crypto in the page.
CHECK_MS = 600_000

#: vector file -> (generator module, expression making its text)
CHECKS: dict[str, tuple[str, str]] = {
    "deck_v2.json": ("deck_v2_vectors", "m.render()"),
    "wire_v2.json": ("generate", "dumps(m.wire_vector('v2', False, False))"),
    "wire_v2_pipelined.json": ("generate", "dumps(m.wire_vector('v2', True, False))"),
    "wire_v2_early.json": ("generate", "dumps(m.wire_vector('v2', False, True))"),
    "wire_v2_pipelined_early.json": ("generate", "dumps(m.wire_vector('v2', True, True))"),
    "wire_v2_cases.json": ("generate", "dumps(m.cases_vector())"),
    "wire_v2_resign.json": ("generate", "dumps(m.resign_vector())"),
    "wire_v2_rest_final.json": ("generate", "dumps(m.rest_final_vector())"),
    "wire_v2_early_redeal.json": ("generate", "dumps(m.early_redeal_vector())"),
    "resume_v2.json": ("resume_vectors", "dumps(m.resume_vector_v2())"),
    "resume_clock_v1.json": ("resume_vectors", "dumps(m.resume_clock_vector())"),
    "linked_games.json": ("linked_vectors", "dumps(m.linked_vector())"),
}
#: Not reproduced here, and why (every other vector file must be in CHECKS).
LEFT_OUT = {
    "deck_v1.json": "deck v1 (P-256) is native only",
    "wire_v1.json": "deck v1 (P-256) is native only",
    "resume_v1.json": "deck v1 (P-256) is native only",
    "evidence_v1.json": "its games are deck v1 (P-256), native only",
    "lobby_v1.json": "the lobby is net's (trio), not in the page",
    "nostr_lobby_v1.json": "BIP-340 keys through coincurve, not in the page",
    "relay_ws_v1.json": "no curve: the WebSocket handshake and frames",
    "turn_v1.json": "TURN is net's (trio), not in the page",
    "wire_v2_negative.json": (
        "its generator drives interop's adversary (trio); instead the page's verifier "
        "judges every case: test_the_page_verifier_judges_every_negative_vector"
    ),
}

#: Run in the worker: the generator's text beside the vector file's, on the js backend.
CHECK = """
import importlib, json, sys
from truc_p2p import crypto
assert crypto.backend() == "js", crypto.backend()
if "/spec" not in sys.path:
    sys.path.insert(0, "/spec")
def dumps(value):
    return json.dumps(value, indent=1) + "\\n"
m = importlib.import_module({module!r})
made = {expr}
with open("/spec/vectors/{name}", encoding="utf-8") as f:
    want = f.read()
at = next((i for i, (a, b) in enumerate(zip(made, want)) if a != b), min(len(made), len(want)))
json.dumps({{"same": made == want, "at": at, "made": made[at - 40 : at + 40],
            "want": want[at - 40 : at + 40], "backend": crypto.backend()}})
"""


def test_every_vector_file_is_checked_or_left_out_for_a_reason() -> None:
    names = {p.name for p in (SPEC / "vectors").glob("*.json")}
    assert names == set(CHECKS) | set(LEFT_OUT)
    assert not set(CHECKS) & set(LEFT_OUT)


@pytest.fixture(scope="module")
def vectors_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("vectors-site")
    write_site(
        site_files(override_static=[FIXTURES / "vectors"], extra_static=[STAND_IN_MISSING]),
        folder,
    )
    with serve_folder(folder) as url:
        yield url


@pytest.fixture(scope="module")
def worker_page(browser: Any, vectors_url: str) -> Iterator[Any]:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(vectors_url)
        page.wait_for_selector("body[data-ready], body[data-error]", timeout=BOOT_MS)
        error = page.evaluate("document.body.dataset.error")
        assert error is None, error
        files = {f"/spec/{p.name}": p.read_text() for p in SPEC.glob("*.py")}
        files |= {f"/spec/vectors/{p.name}": p.read_text() for p in SPEC.glob("vectors/*.json")}
        page.evaluate("files => window.runInWorker(files, '1')", files)
        yield page
    finally:
        context.close()


def run_check(page: Any, name: str, files: dict[str, str] | None = None) -> dict[str, Any]:
    module, expr = CHECKS[name]
    page.set_default_timeout(CHECK_MS)
    answer: dict[str, Any] = page.evaluate(
        "([files, code]) => window.runInWorker(files, code)",
        [files or {}, CHECK.format(module=module, expr=expr, name=name)],
    )
    assert "error" not in answer, answer["error"][-3000:]
    result: dict[str, Any] = json.loads(answer["result"])
    return result


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_the_js_backend_reproduces_the_vector_in_chromium(worker_page: Any, name: str) -> None:
    result = run_check(worker_page, name)
    assert result["backend"] == "js"
    differs = f"{result['made']!r} != {result['want']!r}"
    assert result["same"], f"{name} differs at {result['at']}: {differs}"


def test_a_vector_that_differs_is_seen(worker_page: Any) -> None:
    """The comparison can fail: a copy of deck_v2.json with one hex digit changed."""
    text = (SPEC / "vectors" / "deck_v2.json").read_text()
    hexa = re.search(r'"([0-9a-f]{64,})"', text)
    assert hexa is not None
    at = hexa.start(1) + 10
    digit = "1" if text[at] != "1" else "2"
    result = run_check(
        worker_page,
        "deck_v2.json",
        {"/spec/vectors/deck_v2.json": text[:at] + digit + text[at + 1 :]},
    )
    # the real file back for any later check
    worker_page.evaluate(
        "files => window.runInWorker(files, '1')", {"/spec/vectors/deck_v2.json": text}
    )
    assert not result["same"] and result["at"] == at, result


#: Run in the worker: the page's verifier (js backend) on every case of the negative
#: vectors, answering what it says of each, to be compared with what the file says.
JUDGE = """
import json
from truc_p2p import crypto
from truc_p2p.protocol import verify_transcript
assert crypto.backend() == "js", crypto.backend()
def load(name):
    with open("/spec/vectors/" + name, encoding="utf-8") as f:
        return json.load(f)
base = [bytes.fromhex(e["hex"]) for e in load("wire_v2.json")["envelopes"]]
said = {}
for case in load("wire_v2_negative.json")["cases"]:
    r = verify_transcript([*base[: case["prefix"]], *(bytes.fromhex(h) for h in case["hex"])])
    said[case["tcId"]] = [r.status, r.culprit, r.error_code, r.error_message_no]
json.dumps({"backend": crypto.backend(), "said": said})
"""


def judge_negative(page: Any, files: dict[str, str] | None = None) -> dict[str, Any]:
    page.set_default_timeout(CHECK_MS)
    answer: dict[str, Any] = page.evaluate(
        "([files, code]) => window.runInWorker(files, code)", [files or {}, JUDGE]
    )
    assert "error" not in answer, answer["error"][-3000:]
    result: dict[str, Any] = json.loads(answer["result"])
    return result


def wrong_answers(vector: dict[str, Any], said: dict[str, list[Any]]) -> list[str]:
    wrong = []
    for case in vector["cases"]:
        status, culprit, code, message = said[str(case["tcId"])]
        if case["result"] == "valid":
            # an honest prefix, maybe ended by an abort (wire.md §8): nobody to blame
            ok = status == case["status"] and culprit is None
            ok = ok and code in (None, "incomplete", "aborted")
        else:
            ok = (code, message) == (case["code"], case["message"])
        if not ok:
            wrong.append(f"{case['case']}: {status} {code} at {message}")
    return wrong


def test_the_page_verifier_judges_every_negative_vector(worker_page: Any) -> None:
    """Every case of wire_v2_negative.json (bad signatures, chains, payloads, deck
    proofs) gets, in the page on the js backend, the verdict the file gives."""
    vector = json.loads((SPEC / "vectors" / "wire_v2_negative.json").read_text())
    result = judge_negative(worker_page)
    assert result["backend"] == "js"
    assert len(result["said"]) == vector["numberOfTests"] >= 100
    assert wrong_answers(vector, result["said"]) == []


def test_a_wrong_negative_verdict_is_seen(worker_page: Any) -> None:
    """The comparison can fail: a case whose hex is the honest envelope is judged valid
    (unfinished, incomplete), against the file's invalid."""
    vector = json.loads((SPEC / "vectors" / "wire_v2_negative.json").read_text())
    base = json.loads((SPEC / "vectors" / "wire_v2.json").read_text())["envelopes"]
    case = next(c for c in vector["cases"] if c["result"] == "invalid")
    honest = dict(case, hex=[base[case["prefix"]]["hex"]])
    changed = dict(vector, cases=[honest], numberOfTests=1)
    name = "/spec/vectors/wire_v2_negative.json"
    try:
        result = judge_negative(worker_page, {name: json.dumps(changed)})
    finally:
        worker_page.evaluate(
            "files => window.runInWorker(files, '1')",
            {name: (SPEC / "vectors" / "wire_v2_negative.json").read_text()},
        )
    assert wrong_answers(changed, result["said"]) == [
        f"{case['case']}: unfinished incomplete at None"
    ]
