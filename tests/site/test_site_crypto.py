"""The page's crypto (truc_p2p/site/static/crypto.js on @noble/secp256k1 and
@noble/ed25519) gives byte for byte what the native backend gives, on inputs taken from
protocol_spec/vectors/: run under node (skipped when node is not installed).

``test_deck_and_wire_vectors_in_pyodide`` goes further: the package itself runs in
Pyodide under node on the ``js`` backend and reproduces the deck v2 and wire v2 vectors.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers.site import ROOT, TESTS, crypto_site, node

from truc_p2p import crypto

VECTORS = ROOT / "protocol_spec" / "vectors"
NODE = node()
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

P = 2**256 - 2**32 - 977
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141

#: Encodings every decoder must refuse: x = p, x > p, x = 0, x off the curve (x = 5:
#: 5**3 + 7 is no square mod p), wrong prefixes, wrong lengths, infinity's hash form.
BAD_POINTS = [
    "02" + f"{P:064x}",
    "03" + f"{P + 1:064x}",
    "02" + "00" * 32,
    "02" + f"{5:064x}",
    "04" + "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",
    "00" + "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",
    "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f817",
    "00" * 33,
    "",
]


def _hex_strings(value: object, size: int) -> list[str]:
    """Every hex string of ``size`` bytes (or a multiple of it, cut up) in a JSON value."""
    if isinstance(value, dict):
        return [h for v in value.values() for h in _hex_strings(v, size)]
    if isinstance(value, list):
        return [h for v in value for h in _hex_strings(v, size)]
    hexa = isinstance(value, str) and re.fullmatch(r"(?:[0-9a-f]{2})+", value) is not None
    if hexa and isinstance(value, str) and len(value) % (2 * size) == 0:
        return [value[i : i + 2 * size] for i in range(0, len(value), 2 * size)]
    return []


# -- Ed25519 by hand, for signatures no honest signer makes (mixed-order keys and R) -----

Q = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, Q - 2, Q) % Q
Ed = tuple[int, int]


def _ed_add(p: Ed, q: Ed) -> Ed:
    (x1, y1), (x2, y2) = p, q
    t = D * x1 * x2 * y1 * y2 % Q
    x = (x1 * y2 + x2 * y1) * pow(1 + t, Q - 2, Q) % Q
    return x, (y1 * y2 + x1 * x2) * pow(1 - t, Q - 2, Q) % Q


def _ed_mul(k: int, p: Ed) -> Ed:
    out: Ed = (0, 1)
    while k:
        if k & 1:
            out = _ed_add(out, p)
        p, k = _ed_add(p, p), k >> 1
    return out


def _ed_bytes(p: Ed) -> bytes:
    return (p[1] | (p[0] & 1) << 255).to_bytes(32, "little")


_BY = 4 * pow(5, Q - 2, Q) % Q
_BX = pow((_BY * _BY - 1) * pow(D * _BY * _BY + 1, Q - 2, Q), (Q + 3) // 8, Q)
if (_BX * _BX - (_BY * _BY - 1) * pow(D * _BY * _BY + 1, Q - 2, Q)) % Q:
    _BX = _BX * pow(2, (Q - 1) // 4, Q) % Q
B: Ed = (Q - _BX if _BX & 1 else _BX, _BY)
#: A point of order 8 (the torsion a malicious key or R may carry).
T8: Ed = (
    0x1FD5B9A006394A28E933993238DE4ABB5C193C7013E5E238DEA14646C545D14A,
    0x05FC536D880238B13933C6D305ACDFD5F098EFF289F4C345B027B2C28F95E826,
)


def _h(*parts: bytes) -> int:
    return int.from_bytes(hashlib.sha512(b"".join(parts)).digest(), "little") % L


def mixed_order_signatures(msg: bytes) -> list[list[str]]:
    """(public key, signature, message) with an order-8 part in the key or in R: OpenSSL
    (cofactorless, R compared by bytes) refuses them unless the hash is a multiple of 8;
    a cofactored verifier (noble's own verify) accepts them."""
    out = []
    a, r = 0x1234567 % L, 0x7654321 % L
    for key_t, r_t in ((T8, (0, 1)), ((0, 1), T8)):
        pub = _ed_bytes(_ed_add(_ed_mul(a, B), key_t))
        big_r = _ed_bytes(_ed_add(_ed_mul(r, B), r_t))
        s = (r + _h(big_r, pub, msg) * a) % L
        out.append([pub.hex(), (big_r + s.to_bytes(32, "little")).hex(), msg.hex()])
    return out


def cases() -> list[tuple[str, list[Any]]]:
    """Operations on inputs from the vectors: every point of deck_v2.json decoded and
    negated, its secrets as scalars (mul, gmul), sums (one cancelling), bad encodings;
    Ed25519 keys, signatures and verifications of every wire_v2.json envelope."""
    deck = json.loads((VECTORS / "deck_v2.json").read_text())
    points = sorted(
        {h for h in _hex_strings(deck, 33) if h[:2] in ("02", "03")}
        | {c["point"] for c in deck["cards"]}
    )
    valid = [h for h in points if _native("decode", [h]) is not None]
    scalars = [
        k
        for k in sorted(
            set(_hex_strings([c[r] for c in deck["cases"] for r in ("dealer", "nondealer")], 32))
        )
        if 0 < int(k, 16) < N
    ][:24]
    out: list[tuple[str, list[Any]]] = [("decode", [h]) for h in points + BAD_POINTS]
    out += [("neg", [h]) for h in valid[:40]]
    out += [("gmul", [k]) for k in [*scalars, f"{1:064x}", f"{N - 1:064x}"]]
    out += [("mul", [valid[i % len(valid)], k]) for i, k in enumerate(scalars)]
    out += [("add", [valid[i : i + n]]) for i, n in enumerate([2, 3, 5, 8, 13, 32] * 2)]
    out.append(("add", [[valid[0], _native("neg", [valid[0]])]]))
    out.append(("add", [[valid[1], valid[2], _native("neg", [valid[2]])]]))

    wire = json.loads((VECTORS / "wire_v2.json").read_text())
    seeds, publics = wire["identities"], wire["public_keys"]
    out += [("edPublic", [s]) for s in seeds]
    for env in wire["envelopes"]:
        raw = bytes.fromhex(env["hex"])
        body, sig = raw[:-64].hex(), raw[-64:].hex()
        sender = _native("sender", [env["hex"]])
        out.append(("edSign", [seeds[sender], body]))
        out.append(("edVerify", [publics[sender], sig, body]))
        out.append(("edVerify", [publics[1 - sender], sig, body]))
        flipped = bytearray(raw[-64:])
        flipped[5] ^= 1
        out.append(("edVerify", [publics[sender], flipped.hex(), body]))
    msg = raw[:-64].hex()
    out.append(("edVerify", ["ff" * 32, sig, msg]))  # not a point
    out.append(("edVerify", ["00" * 32, "00" * 64, msg]))  # small order
    out += [("edVerify", case) for case in mixed_order_signatures(b"mixed order")]
    s_plus_l = (
        int.from_bytes(bytes.fromhex(sig[64:]), "little")
        + 2**252
        + 27742317777372353535851937790883648493
    )
    if s_plus_l < 2**256:  # a non-canonical S: refused by both
        out.append(
            ("edVerify", [publics[sender], sig[:64] + s_plus_l.to_bytes(32, "little").hex(), msg])
        )
    return out


def _native(op: str, args: list[Any]) -> Any:
    """What the native backend says (as crypto_vectors.mjs writes it)."""
    if op == "sender":
        from truc_p2p.protocol import decode_envelope

        return decode_envelope(bytes.fromhex(args[0])).sender
    if op == "decode":
        try:
            return crypto.encode(crypto.decode(bytes.fromhex(args[0]))).hex()
        except ValueError:
            return None
    if op == "edPublic":
        return crypto.SigningKey.from_bytes(bytes.fromhex(args[0])).public_key().to_bytes().hex()
    if op == "edSign":
        return (
            crypto.SigningKey.from_bytes(bytes.fromhex(args[0])).sign(bytes.fromhex(args[1])).hex()
        )
    if op == "edVerify":
        key = crypto.VerifyKey.from_bytes(bytes.fromhex(args[0]))
        try:
            key.verify(bytes.fromhex(args[1]), bytes.fromhex(args[2]))
        except crypto.BadSignatureError:
            return False
        return True
    point = {"neg": crypto.neg, "mul": crypto.mul}
    if op == "gmul":
        result = crypto.gmul(int(args[0], 16))
    elif op == "add":
        result = crypto.add([crypto.decode(bytes.fromhex(h)) for h in args[0]])
    else:
        p = crypto.decode(bytes.fromhex(args[0]))
        result = crypto.neg(p) if op == "neg" else point[op](p, int(args[1], 16))  # type: ignore[operator]
    return None if result is None else crypto.encode(result).hex()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return crypto_site(tmp_path_factory.mktemp("site"))


def _run_js(site: Path, ops: list[tuple[str, list[Any]]], tmp_path: Path) -> list[Any]:
    assert NODE is not None
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(ops))
    done = subprocess.run(
        [NODE, str(TESTS / "crypto_vectors.mjs"), str(site), str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    results: list[Any] = json.loads(done.stdout)
    return results


def test_crypto_js_matches_the_native_backend_on_the_vectors(site: Path, tmp_path: Path) -> None:
    assert crypto.backend() == "native"
    ops = cases()
    js = _run_js(site, ops, tmp_path)
    native = [_native(op, args) for op, args in ops]
    differ = [(op, args, n, j) for (op, args), n, j in zip(ops, native, js, strict=True) if n != j]
    assert differ == []
    # the cases cover what they claim: refusals, cancelling sums, both verify verdicts
    refused = [
        args[0] for (op, args), n in zip(ops, native, strict=True) if op == "decode" and n is None
    ]
    assert refused == BAD_POINTS
    assert native.count(None) == len(BAD_POINTS) + 1  # and the one sum that cancels
    assert True in native and False in native and len(ops) > 300
    assert _ed_bytes(_ed_mul(8, T8)) == _ed_bytes((0, 1)) != _ed_bytes(_ed_mul(4, T8))
    mixed = [_native("edVerify", case) for case in mixed_order_signatures(b"mixed order")]
    assert mixed == [False, False]  # OpenSSL's verdict, which crypto.js gave above


def test_the_comparison_catches_a_wrong_result(site: Path, tmp_path: Path) -> None:
    """A crypto.js whose decoding negates is caught (the check can fail)."""
    broken = tmp_path / "broken"
    shutil.copytree(site, broken)
    js = (broken / "crypto.js").read_text()
    (broken / "crypto.js").write_text(
        js.replace("ok ? bytes.slice() : undefined;", "ok ? pointNeg(bytes) : undefined;")
    )
    deck = json.loads((VECTORS / "deck_v2.json").read_text())
    ops: list[tuple[str, list[Any]]] = [("decode", [c["point"]]) for c in deck["cards"][:5]]
    js_out = _run_js(broken, ops, tmp_path)
    assert js_out != [_native(op, args) for op, args in ops]


PYODIDE_SCRIPT = r"""
import json, sys
from pathlib import Path
from truc_p2p import crypto
assert crypto.backend() == "js", crypto.backend()
out = {"backend": crypto.backend()}
spec = Path("/repo/protocol_spec")
sys.path.insert(0, str(spec))
import deck_v2_vectors
out["deck_v2"] = deck_v2_vectors.render() == (spec / "vectors" / "deck_v2.json").read_text()
import generate
wire = json.loads((spec / "vectors" / "wire_v2.json").read_text())
out["wire_v2"] = generate.wire_vector("v2") == wire
from truc_p2p.protocol import verify_transcript
envelopes = [bytes.fromhex(e["hex"]) for e in wire["envelopes"]]
report = verify_transcript(envelopes)
out["wire_v2_verifies"] = report.valid
tampered = list(envelopes)
raw = bytearray(tampered[4]); raw[-10] ^= 1; tampered[4] = bytes(raw)
out["tampered_refused_at"] = verify_transcript(tampered).error_message_no
json.dumps(out)
"""


@pytest.mark.slow
def test_deck_and_wire_vectors_in_pyodide(tmp_path: Path) -> None:
    """The package in Pyodide (node), on the js backend, reproduces deck_v2.json and
    wire_v2.json byte for byte and verifies the wire vector (a tampered copy fails)."""
    assert NODE is not None
    site = crypto_site(tmp_path / "site", pyodide=True)
    pylibs = tmp_path / "pylibs" / "msgpack"
    import msgpack

    shutil.copytree(
        Path(msgpack.__file__).parent, pylibs, ignore=shutil.ignore_patterns("*.so", "__pycache__")
    )
    done = subprocess.run(
        [NODE, str(TESTS / "pyodide_run.mjs"), str(site), str(ROOT), str(pylibs.parent)],
        input=PYODIDE_SCRIPT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {
        "backend": "js",
        "deck_v2": True,
        "wire_v2": True,
        "wire_v2_verifies": True,
        "tampered_refused_at": 4,
    }
