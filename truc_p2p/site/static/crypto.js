// The page's side of truc_p2p.crypto (its "js" backend): every secp256k1 and Ed25519
// operation the Python core makes in Pyodide, called synchronously as
// globalThis.trucCrypto.<name>(...).  boot.js sets it:
//   globalThis.trucCrypto = await import("./crypto.js");
// Bytes are Uint8Array; a scalar in [1, n-1] is 32 big-endian bytes, a Number or a
// BigInt; a point is its
// 33-byte compressed encoding (a Uint8Array Python holds as it is).  A bad point
// encoding gives undefined (Python None; never an exception across the bridge, and not
// null, which Pyodide hands over as jsnull); a sum of points that cancel is undefined too.
//
// secp256k1: libsecp256k1 itself, compiled to WebAssembly by tiny-secp256k1 2.2.4
// (vendor/tiny-secp256k1/lib/secp256k1.wasm, driven here directly: its JS wrapper needs a
// bundler).  Chosen by measurement (benchmarks/crypto_backends.py): a variable-base
// multiplication, most of a hand's deck work, costs about 12x native there against about
// 120x with @noble/secp256k1; and it is the very library the native backend runs, so
// both parse and refuse the same encodings.  Ed25519: @noble/ed25519 3.2.0 with sha512
// from @noble/hashes 2.4.0 (signing 10-17x native, a few per message).
// Everything is unpacked as-is under ./vendor/ by the site build.

import * as ed from "./vendor/noble-ed25519/index.js";
import { sha512 } from "./vendor/noble-hashes/sha2.js";

ed.hashes.sha512 = sha512;
const EdPoint = ed.Point;
const L = EdPoint.CURVE().n; // the order of the Ed25519 base point

// ---------------------------------------------------------------- secp256k1 (WASM)

const WASM_URL = new URL("./vendor/tiny-secp256k1/lib/secp256k1.wasm", import.meta.url);

async function wasmBytes() {
  if (WASM_URL.protocol === "file:") {
    const { readFile } = await import("node:fs/promises"); // node (the tests)
    return readFile(WASM_URL);
  }
  const response = await fetch(WASM_URL);
  if (!response.ok) throw new Error(`crypto.js: ${WASM_URL} gave ${response.status}`);
  return response.arrayBuffer();
}

const randomInt32 = () => crypto.getRandomValues(new Int32Array(1))[0];
const { instance } = await WebAssembly.instantiate(await wasmBytes(), {
  "./rand.js": { generateInt32: randomInt32 },
  "./validate_error.js": {
    throwError: (code) => {
      throw new TypeError(`secp256k1 error ${code}`);
    },
  },
});
const wasm = instance.exports;
wasm.initializeContext();
const memory = () => new Uint8Array(wasm.memory.buffer);
const at = (global, size) => memory().subarray(global.value, global.value + size);
const SCALAR = () => at(wasm.PRIVATE_INPUT, 32);
const TWEAK = () => at(wasm.TWEAK_INPUT, 32);
const POINT = () => at(wasm.PUBLIC_KEY_INPUT, 65);
const POINT2 = () => at(wasm.PUBLIC_KEY_INPUT2, 65);

// A scalar: 32 big-endian bytes (what Python sends: converting a large Python int to a
// BigInt costs more than the multiplication), or a Number or a BigInt.
const scalarBytes = (k) => {
  if (k instanceof Uint8Array) return k;
  const out = new Uint8Array(32);
  let n = BigInt(k);
  for (let i = 31; i >= 0; i--, n >>= 8n) out[i] = Number(n & 0xffn);
  return out;
};

/** The point of a 33-byte compressed SEC1 encoding (02/03, x < p, on the curve), or undefined. */
export function pointDecode(bytes) {
  if (!(bytes instanceof Uint8Array) || bytes.length !== 33) return undefined;
  if (bytes[0] !== 2 && bytes[0] !== 3) return undefined;
  const input = POINT();
  input.set(bytes);
  const ok = wasm.isPoint(33) === 1;
  input.fill(0);
  return ok ? bytes.slice() : undefined;
}

/** The 33-byte compressed encoding of a point (never infinity). */
export function pointEncode(point) {
  return point;
}

/** k * point (libsecp256k1's constant-time multiplication: k may be a deck secret). */
export function pointMul(point, k) {
  const input = POINT();
  const tweak = TWEAK();
  input.set(point);
  tweak.set(scalarBytes(k));
  const ok = wasm.pointMultiply(33, 33) === 1;
  const out = ok ? input.slice(0, 33) : undefined;
  input.fill(0);
  tweak.fill(0);
  return out;
}

/** k * G. */
export function pointGmul(k) {
  const scalar = SCALAR();
  scalar.set(scalarBytes(k));
  const ok = wasm.pointFromScalar(33) === 1;
  const out = ok ? POINT().slice(0, 33) : undefined;
  scalar.fill(0);
  POINT().fill(0);
  return out;
}

/** The sum of points, given as an array or as one Uint8Array of n * 33 bytes (one
 * conversion from Python for any number of terms); undefined when it is infinity. */
export function pointAdd(points) {
  if (points instanceof Uint8Array) {
    const list = [];
    for (let i = 0; i + 33 <= points.length; i += 33) list.push(points.subarray(i, i + 33));
    points = list;
  }
  let sum;
  for (const point of points) {
    if (sum === undefined) {
      sum = point;
      continue;
    }
    const a = POINT();
    a.set(sum);
    POINT2().set(point);
    sum = wasm.pointAdd(33, 33, 33) === 1 ? a.slice(0, 33) : undefined; // undefined: they cancel
  }
  POINT().fill(0);
  POINT2().fill(0);
  return sum;
}

/** -point: the same x, the other y. */
export function pointNeg(point) {
  const out = point.slice();
  out[0] ^= 1;
  return out;
}

// ---------------------------------------------------------------- Ed25519

/** The 32-byte public key of a 32-byte seed. */
export function edPublic(seed) {
  return ed.getPublicKey(seed);
}

/** The 64-byte signature of msg by the key of seed (deterministic, RFC 8032). */
export function edSign(seed, msg) {
  return ed.sign(msg, seed);
}

const littleEndian = (bytes) => {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]);
  return n;
};

/**
 * Whether sig signs msg under the 32-byte public key (false for a bad key or signature).
 *
 * The check OpenSSL makes (what the desktop program runs), so both give one verdict on
 * every input, crafted ones included: S < L; A decoded as ref10 decodes it (y taken mod p,
 * x = 0 with the sign bit set allowed, small-order keys allowed); then the cofactorless
 * equation, R compared byte for byte with the encoding of [S]B - [k]A.  noble's own
 * ed.verify differs on crafted inputs: its default (ZIP-215) and strict modes are both
 * cofactored, and strict mode refuses small-order keys.
 */
export function edVerify(pub, sig, msg) {
  if (!(pub instanceof Uint8Array) || pub.length !== 32) return false;
  if (!(sig instanceof Uint8Array) || sig.length !== 64) return false;
  const r = sig.subarray(0, 32);
  const s = littleEndian(sig.subarray(32));
  if (s >= L) return false;
  let A;
  try {
    A = EdPoint.fromBytes(pub, true);
  } catch {
    return false;
  }
  const hashed = new Uint8Array(64 + msg.length);
  hashed.set(r, 0);
  hashed.set(pub, 32);
  hashed.set(msg, 64);
  const k = littleEndian(sha512(hashed)) % L;
  const check = EdPoint.BASE.multiply(s, false).subtract(A.multiply(k, false)).toBytes();
  for (let i = 0; i < 32; i++) if (check[i] !== r[i]) return false;
  return true;
}
