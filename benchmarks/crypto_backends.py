"""The crypto seam's backends, per operation: native (coincurve, cryptography) against the
page's crypto.js under node (libsecp256k1 compiled to WASM by tiny-secp256k1 for the
points, @noble/ed25519 for signatures), and @noble/secp256k1, the pure-JS alternative
crypto.js was measured against, for the point operations.

    python benchmarks/crypto_backends.py [--runs N] [--json] [--pyodide]

The same inputs go to every backend (points and scalars drawn once, Ed25519 over a
300-byte body, about an envelope).  Each figure is the median over ``N`` rounds of the
mean time of one operation in a batch, in microseconds; the ratio is against native in
the same run.  ``--pyodide`` adds the whole deck: the CPU time of one deck v2 hand
(``protocol_spec/deck_v2_vectors.py``: both sides' proofs, every verification) in
Pyodide under node on the ``js`` backend, against native in the same run.  Needs
``node``; the npm tarballs are the site build's pins (``truc_p2p/site/pins.json``),
fetched through its cache and checked.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from truc_p2p import crypto
from truc_p2p.site import fetch, load_pins
from truc_p2p.site._archives import npm_files

ROOT = Path(__file__).resolve().parents[1]
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
BATCH = {"mul": 200, "gmul": 400, "add": 2000, "decode": 2000, "sign": 400, "verify": 400}

NODE_SCRIPT = r"""
import { readFileSync } from "node:fs";
const [dir, inputsPath, rounds] = process.argv.slice(2);
const c = await import(dir + "/crypto.js");
const noble = await import(dir + "/vendor/noble-secp256k1/index.js");
const inp = JSON.parse(readFileSync(inputsPath, "utf8"));
const b = (h) => new Uint8Array(Buffer.from(h, "hex"));
const pts = inp.points.map(b);
const ks = inp.scalars.map((k) => BigInt("0x" + k));
const P = pts.map((p) => c.pointDecode(p));
const NP = pts.map((p) => noble.Point.fromBytes(p));
const seed = b(inp.seed), body = b(inp.body), pub = c.edPublic(seed), sig = c.edSign(seed, body);
const batch = inp.batch;
const time = (n, f) => {
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) f(i);
  return Number(process.hrtime.bigint() - t) / 1e3 / n;
};
const k = (i) => ks[i % ks.length];
const ops = {
  "crypto.js mul": [batch.mul, (i) => c.pointMul(P[i % P.length], k(i))],
  "crypto.js gmul": [batch.gmul, (i) => c.pointGmul(k(i))],
  "crypto.js add": [batch.add, (i) => c.pointAdd([P[i % P.length], P[(i + 1) % P.length]])],
  "crypto.js decode": [batch.decode, (i) => c.pointDecode(pts[i % pts.length])],
  "crypto.js sign": [batch.sign, () => c.edSign(seed, body)],
  "crypto.js verify": [batch.verify, () => c.edVerify(pub, sig, body)],
  "noble mul": [Math.max(4, batch.mul >> 4), (i) => NP[i % NP.length].multiply(k(i))],
  "noble gmul": [batch.gmul, (i) => noble.Point.BASE.multiply(k(i))],
  "noble add": [batch.add, (i) => NP[i % NP.length].add(NP[(i + 1) % NP.length]).toBytes()],
  "noble decode": [batch.decode, (i) => noble.Point.fromBytes(pts[i % pts.length])],
};
for (const [, [n, f]] of Object.entries(ops)) time(Math.max(1, n >> 3), f); // warm up (JIT)
const out = {};
for (const [name, [n, f]] of Object.entries(ops)) {
  const runs = [];
  for (let r = 0; r < Number(rounds); r++) runs.push(time(n, f));
  runs.sort((x, y) => x - y);
  out[name] = runs[runs.length >> 1];
}
console.log(JSON.stringify(out));
"""


def _vendor(root: Path, *names: str) -> None:
    """The pinned npm packages ``names`` under ``root`` as the site build lays them out."""
    pins = load_pins()
    for name in names:
        for path, data in npm_files(fetch(pins[name]), pins[name]).items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(data)


def _median_us(rounds: int, n: int, f: Callable[[int], object]) -> float:
    f(0)
    runs = []
    for _ in range(rounds):
        t = time.perf_counter()
        for i in range(n):
            f(i)
        runs.append((time.perf_counter() - t) / n * 1e6)
    return statistics.median(runs)


def native(inputs: dict[str, Any], rounds: int) -> dict[str, float]:
    pts = [bytes.fromhex(h) for h in inputs["points"]]
    points = [crypto.decode(p) for p in pts]
    ks = [int(k, 16) for k in inputs["scalars"]]
    key = crypto.SigningKey.from_bytes(bytes.fromhex(inputs["seed"]))
    body = bytes.fromhex(inputs["body"])
    public, sig = key.public_key(), key.sign(body)
    np, nk = len(points), len(ks)
    return {
        "mul": _median_us(rounds, BATCH["mul"], lambda i: crypto.mul(points[i % np], ks[i % nk])),
        "gmul": _median_us(rounds, BATCH["gmul"], lambda i: crypto.gmul(ks[i % nk])),
        "add": _median_us(
            rounds, BATCH["add"], lambda i: crypto.add([points[i % np], points[(i + 1) % np]])
        ),
        "decode": _median_us(rounds, BATCH["decode"], lambda i: crypto.decode(pts[i % np])),
        "sign": _median_us(rounds, BATCH["sign"], lambda i: key.sign(body)),
        "verify": _median_us(rounds, BATCH["verify"], lambda i: public.verify(sig, body)),
    }


def js(inputs: dict[str, Any], rounds: int, node: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="crypto-bench-") as tmp:
        root = Path(tmp)
        shutil.copy(ROOT / "truc_p2p" / "site" / "static" / "crypto.js", root / "crypto.js")
        _vendor(root, "tiny-secp256k1", "noble-ed25519", "noble-hashes", "noble-secp256k1")
        (root / "bench.mjs").write_text(NODE_SCRIPT)
        (root / "inputs.json").write_text(json.dumps({**inputs, "batch": BATCH}))
        done = subprocess.run(
            [node, str(root / "bench.mjs"), root.as_uri(), str(root / "inputs.json"), str(rounds)],
            capture_output=True,
            text=True,
            check=True,
            timeout=1800,
        )
        if done.stderr.strip():
            print(done.stderr.strip(), file=sys.stderr)
        figures: dict[str, float] = json.loads(done.stdout)
        return figures


PYODIDE_SCRIPT = r"""
import sys, time
sys.path.insert(0, "/repo/protocol_spec")
import deck_v2_vectors
from truc_p2p import crypto
assert crypto.backend() == "js"
deck_v2_vectors.build()  # warm: card points, generators, JIT
t = time.process_time()
deck_v2_vectors.build()
(time.process_time() - t) / 2
"""

PYODIDE_RUNNER = r"""
import { readFileSync } from "node:fs";
const [dir, repo, pylibs] = process.argv.slice(2);
const { loadPyodide } = await import(dir + "/vendor/pyodide/pyodide.mjs");
globalThis.trucCrypto = await import(dir + "/crypto.js");
const py = await loadPyodide({ indexURL: new URL(dir + "/vendor/pyodide/").pathname });
for (const [host, at] of [[repo, "/repo"], [pylibs, "/pylibs"]]) {
  py.FS.mkdirTree(at);
  py.FS.mount(py.FS.filesystems.NODEFS, { root: host }, at);
}
py.runPython("import sys; sys.path[:0] = ['/repo', '/pylibs']; sys.dont_write_bytecode = True");
console.log(String(py.runPython(readFileSync(0, "utf8"))));
"""


def deck_hand(node: str) -> tuple[float, float]:
    """Seconds of CPU for one deck v2 hand (two peers and the verifier): native, Pyodide."""
    import importlib.util

    import msgpack

    spec = importlib.util.spec_from_file_location(
        "deck_v2_vectors", ROOT / "protocol_spec" / "deck_v2_vectors.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.build()
    t = time.process_time()
    module.build()
    here = (time.process_time() - t) / 2
    with tempfile.TemporaryDirectory(prefix="crypto-bench-") as tmp:
        root = Path(tmp)
        shutil.copy(ROOT / "truc_p2p" / "site" / "static" / "crypto.js", root / "crypto.js")
        _vendor(root, "tiny-secp256k1", "noble-ed25519", "noble-hashes", "pyodide")
        shutil.copytree(
            Path(msgpack.__file__).parent,
            root / "pylibs" / "msgpack",
            ignore=shutil.ignore_patterns("*.so", "__pycache__"),
        )
        (root / "run.mjs").write_text(PYODIDE_RUNNER)
        done = subprocess.run(
            [node, str(root / "run.mjs"), root.as_uri(), str(ROOT), str(root / "pylibs")],
            input=PYODIDE_SCRIPT,
            capture_output=True,
            text=True,
            check=True,
            timeout=3600,
        )
    return here, float(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="rounds per operation (median)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--pyodide", action="store_true", help="also one deck v2 hand in Pyodide")
    args = parser.parse_args()
    node = shutil.which("node")
    if node is None:
        print("crypto_backends: node is not installed", file=sys.stderr)
        return 2
    scalars = [secrets.randbelow(N - 1) + 1 for _ in range(16)]
    inputs = {
        "points": [crypto.encode(crypto.gmul(k)).hex() for k in scalars],
        "scalars": [f"{secrets.randbelow(N - 1) + 1:064x}" for _ in range(16)],
        "seed": os.urandom(32).hex(),
        "body": os.urandom(300).hex(),
    }
    mine = native(inputs, args.runs)
    theirs = js(inputs, args.runs, node)
    node_version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    rows = []
    for op, us in mine.items():
        row: dict[str, Any] = {"op": op, "native_us": round(us, 2)}
        for lib in ("crypto.js", "noble"):
            if f"{lib} {op}" in theirs:
                row[f"{lib}_us"] = round(theirs[f"{lib} {op}"], 2)
                row[f"{lib}_ratio"] = round(theirs[f"{lib} {op}"] / us, 1)
        rows.append(row)
    hand = deck_hand(node) if args.pyodide else None
    if args.json:
        out: dict[str, Any] = {"node": node_version.strip(), "runs": args.runs, "ops": rows}
        if hand is not None:
            out["deck_v2_hand_s"] = {"native": hand[0], "pyodide": hand[1]}
        print(json.dumps(out))
        return 0
    print(f"per operation, microseconds (median of {args.runs}); node {node_version.strip()}")
    print(f"{'op':8} {'native':>9} {'crypto.js':>10} {'x':>6} {'noble-secp':>11} {'x':>6}")
    nan = float("nan")
    for row in rows:
        print(
            f"{row['op']:8} {row['native_us']:9.1f} {row['crypto.js_us']:10.1f} "
            f"{row['crypto.js_ratio']:6.1f} {row.get('noble_us', nan):11.1f} "
            f"{row.get('noble_ratio', nan):6.1f}"
        )
    if hand is not None:
        print(
            f"deck v2 hand (both peers and the verifier), CPU: native {hand[0] * 1e3:.0f} ms, "
            f"Pyodide + crypto.js {hand[1] * 1e3:.0f} ms ({hand[1] / hand[0]:.1f}x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
