// Runs the page's crypto.js (truc_p2p/site/static/crypto.js) on a list of operations and
// prints their results as JSON, for tests/site/test_site_crypto.py to compare with the
// native backend:   node crypto_vectors.mjs SITE_DIR CASES.json
// SITE_DIR holds crypto.js and vendor/{noble-secp256k1,noble-ed25519,noble-hashes}/.
// Bytes travel as hex; a point as its compressed hex; null for infinity or a bad encoding.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join, resolve } from "node:path";

const [siteDir, casesPath] = process.argv.slice(2);
const c = await import(pathToFileURL(join(resolve(siteDir), "crypto.js")).href);

const hex = (u8) => Buffer.from(u8).toString("hex");
const bytes = (h) => new Uint8Array(Buffer.from(h, "hex"));
const point = (h) => {
  const p = c.pointDecode(bytes(h));
  if (p == null) throw new Error(`not a point: ${h}`);
  return p;
};
const out = (p) => (p == null ? null : hex(c.pointEncode(p)));
const scalar = (h) => BigInt("0x" + h);

const ops = {
  decode: ([h]) => out(c.pointDecode(bytes(h))),
  neg: ([h]) => out(c.pointNeg(point(h))),
  mul: ([h, k]) => out(c.pointMul(point(h), scalar(k))),
  gmul: ([k]) => out(c.pointGmul(scalar(k))),
  add: ([hs]) => out(c.pointAdd(hs.map(point))),
  edPublic: ([seed]) => hex(c.edPublic(bytes(seed))),
  edSign: ([seed, msg]) => hex(c.edSign(bytes(seed), bytes(msg))),
  edVerify: ([pub, sig, msg]) => c.edVerify(bytes(pub), bytes(sig), bytes(msg)),
};

const cases = JSON.parse(readFileSync(casesPath, "utf8"));
const results = cases.map(([op, args]) => {
  try {
    return ops[op](args);
  } catch (error) {
    return `error: ${error.message}`;
  }
});
process.stdout.write(JSON.stringify(results));
