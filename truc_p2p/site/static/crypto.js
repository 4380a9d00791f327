// The page's side of truc_p2p.crypto (its "js" backend): every secp256k1 and Ed25519
// operation the Python core makes in Pyodide, called synchronously as
// globalThis.trucCrypto.<name>(...).  boot.js sets it:
//   globalThis.trucCrypto = await import("./crypto.js");
// Bytes are Uint8Array; scalars are a Number or a BigInt in [1, n-1]; points are noble
// Point objects that Python holds without re-encoding them.  A bad point encoding gives
// undefined (Python None; never an exception across the bridge, and not null, which
// Pyodide hands over as jsnull); the sum of points that cancel is undefined too.
// Libraries: @noble/secp256k1 3.2.0, @noble/ed25519 3.2.0, @noble/hashes 2.4.0 (sha512
// for the synchronous Ed25519 calls), unpacked as-is under ./vendor/ by the site build.

import * as secp from "./vendor/noble-secp256k1/index.js";
import * as ed from "./vendor/noble-ed25519/index.js";
import { sha512 } from "./vendor/noble-hashes/sha2.js";

ed.hashes.sha512 = sha512;

const Point = secp.Point;
const G = Point.BASE;
const EdPoint = ed.Point;
const L = EdPoint.CURVE().n; // the order of the Ed25519 base point

// ---------------------------------------------------------------- secp256k1

/** The point of a 33-byte compressed SEC1 encoding (02/03, x < p, on the curve), or undefined. */
export function pointDecode(bytes) {
  if (!(bytes instanceof Uint8Array) || bytes.length !== 33) return undefined;
  if (bytes[0] !== 2 && bytes[0] !== 3) return undefined;
  try {
    return Point.fromBytes(bytes);
  } catch {
    return undefined;
  }
}

/** The 33-byte compressed encoding of a point (never infinity). */
export function pointEncode(point) {
  return point.toBytes(true);
}

/** k * point, constant-time ladder (k may be a deck secret). */
export function pointMul(point, k) {
  return point.multiply(BigInt(k));
}

/** k * G (precomputed windows). */
export function pointGmul(k) {
  return G.multiply(BigInt(k));
}

/** The sum of an array of points; undefined when it is infinity. */
export function pointAdd(points) {
  let sum = points[0];
  for (let i = 1; i < points.length; i++) sum = sum.add(points[i]);
  return sum.is0() ? undefined : sum;
}

/** -point. */
export function pointNeg(point) {
  return point.negate();
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
