// boot.js: starts this package's Python in the page (docs/site.md, "The boot").
//
// A module worker does:
//   import { bootPython } from "./boot.js";
//   const py = await bootPython({ onProgress: (text) => ..., preload: "import ..." });
// and gets the Pyodide instance with globalThis.trucCrypto set (./crypto.js) and this
// package and msgpack importable.  Everything comes from this site (./vendor/pyodide/,
// ./py/, listed in ./site.json with their SHA-256): nothing from a CDN.
//
// The memory snapshot (docs/site.md, "The boot"): starting Python and importing the package
// is most of a load, so the first boot of a build runs `preload` (the imports the page
// needs), before any secret or key has entered Python, then keeps a copy of Python's
// memory (pyodide.makeMemorySnapshot) in the origin private file system
// ("truc-p2p.snapshot/"), named after this build's site.json, with its own SHA-256.  The
// next boots restore it (loadPyodide's _loadSnapshot), skipping the interpreter's start
// and the imports.  A snapshot whose bytes do not give its SHA-256, or that Pyodide
// refuses, is deleted and the boot goes the slow way (one console line says why),
// making a new one.

import { loadPyodide } from "./vendor/pyodide/pyodide.mjs";

const here = (path) => new URL(path, import.meta.url).href;
// the boot's steps as performance marks ("boot:<step>"), read by benchmarks/site_game.py
const mark = (step) => performance.mark(`boot:${step}`);

function hexToBase64(hex) {
  let binary = "";
  for (let i = 0; i < hex.length; i += 2) {
    binary += String.fromCharCode(parseInt(hex.slice(i, i + 2), 16));
  }
  return btoa(binary);
}

async function fetchChecked(path, sha256) {
  // the browser checks the bytes against the build's hash (Subresource Integrity)
  const options = sha256 ? { integrity: `sha256-${hexToBase64(sha256)}` } : {};
  const response = await fetch(here(path), options);
  if (!response.ok) {
    throw new Error(`${path}: HTTP ${response.status}`);
  }
  return response.arrayBuffer();
}

/** What the last boot did with the memory snapshot (read by the worker and the tests):
 * state is "restored", "made" (and saved), "failed: <why>" or "off" (no origin private
 * file system); saved resolves once a made snapshot is stored. */
export const snapshot = { state: "off", saved: Promise.resolve() };

// The snapshot is a file of the origin private file system (read faster than the Cache
// Storage while the boot fetches and compiles): SNAPSHOT_DIR/<key>, its SHA-256 (32
// bytes) then its packed bytes.
const SNAPSHOT_DIR = "truc-p2p.snapshot";
const ARCHIVES = "/lib/truc-p2p";  // where the site's archives go, whole, on sys.path
const SNAPSHOT_FORMAT = "4";  // bump when what the snapshot holds changes meaning

// (a secure context: https or localhost, as for the service worker)
const canSnapshot = () =>
  globalThis.isSecureContext === true && !!globalThis.crypto && !!crypto.subtle &&
  typeof navigator !== "undefined" && !!navigator.storage &&
  typeof navigator.storage.getDirectory === "function" &&
  typeof FileSystemFileHandle !== "undefined" &&
  "createWritable" in FileSystemFileHandle.prototype;

async function snapshotDir() {
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(SNAPSHOT_DIR, { create: true });
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

const sha256 = async (bytes) => hex(await crypto.subtle.digest("SHA-256", bytes));

// The snapshot's name: this build's site.json (its archives' SHA-256, the version, where
// Pyodide is) and the preload code; Pyodide itself refuses a snapshot of another build.
async function snapshotKey(siteText, preload) {
  return sha256(new TextEncoder().encode(`${SNAPSHOT_FORMAT}\n${siteText}\n${preload}`));
}

// A snapshot is stored without its pages of zeros (most of Python's memory): a little-
// endian u32 length, a u32 count, that many u32 page numbers in increasing order, then
// those pages (4 KiB, the last one of the memory possibly short).
const PAGE = 4096;
function packSnapshot(bytes) {
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const words = new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.length >>> 2);
  const kept = [];
  for (let page = 0; page * PAGE < aligned.length; page += 1) {
    const start = page * PAGE;
    const end = Math.min(aligned.length, start + PAGE);
    let zero = true;
    for (let w = start >>> 2; w < end >>> 2 && zero; w += 1) zero = words[w] === 0;
    for (let b = end & ~3; b < end && zero; b += 1) zero = aligned[b] === 0;
    if (!zero) kept.push(page);
  }
  let size = 8 + 4 * kept.length;
  for (const page of kept) size += Math.min(PAGE, aligned.length - page * PAGE);
  const packed = new Uint8Array(size);
  const head = new DataView(packed.buffer);
  head.setUint32(0, aligned.length, true);
  head.setUint32(4, kept.length, true);
  let at = 8 + 4 * kept.length;
  kept.forEach((page, i) => {
    head.setUint32(8 + 4 * i, page, true);
    const start = page * PAGE;
    const chunk = aligned.subarray(start, Math.min(aligned.length, start + PAGE));
    packed.set(chunk, at);
    at += chunk.length;
  });
  return packed;
}

function unpackSnapshot(packed) {
  const bad = () => new Error("its stored form is malformed");
  if (packed.length < 8) throw bad();
  const head = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const length = head.getUint32(0, true);
  const count = head.getUint32(4, true);
  if (8 + 4 * count > packed.length) throw bad();
  const bytes = new Uint8Array(length);
  let at = 8 + 4 * count;
  let last = -1;
  for (let i = 0; i < count; i += 1) {
    const page = head.getUint32(8 + 4 * i, true);
    const start = page * PAGE;
    const size = Math.min(PAGE, length - start);
    if (page <= last || size <= 0 || at + size > packed.length) throw bad();
    bytes.set(packed.subarray(at, at + size), start);
    at += size;
    last = page;
  }
  if (at !== packed.length) throw bad();
  return bytes;
}

// The stored snapshot: null when there is none, else {bytes}: a promise of its bytes
// checked against its SHA-256 (kept with it), rejected when they are not what was
// stored (hashed while Pyodide's WebAssembly is fetched).
async function storedSnapshot(key) {
  const dir = await snapshotDir();
  let handle;
  try {
    handle = await dir.getFileHandle(key);
  } catch (error) {
    if (error && error.name === "NotFoundError") return null;
    throw error;
  }
  const stored = new Uint8Array(await (await handle.getFile()).arrayBuffer());
  mark("snapshot read");
  const bytes = (async () => {
    const expected = hex(stored.subarray(0, 32));
    const packed = stored.subarray(32);
    const actual = await sha256(packed);
    mark("snapshot checked");
    if (stored.length < 32 || actual !== expected) {
      throw new Error(`its SHA-256 is ${actual.slice(0, 16)}..., not the stored ${expected.slice(0, 16)}...`);
    }
    const memory = unpackSnapshot(packed);
    mark("snapshot unpacked");
    return memory;
  })();
  bytes.catch(() => {});  // reported by the boot, through loadPyodide
  return { bytes };
}

async function dropSnapshots(keep) {
  const dir = await snapshotDir();
  const names = [];
  for await (const name of dir.keys()) names.push(name);
  for (const name of names) {
    if (name !== keep) await dir.removeEntry(name).catch(() => {});
  }
}

async function saveSnapshot(key, memory) {
  const packed = packSnapshot(memory);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", packed));
  const dir = await snapshotDir();
  // a writable stream writes aside and replaces the file whole on close: a boot that
  // stops halfway leaves no half-written snapshot (a synchronous access handle, asked
  // for while Pyodide instantiates, was seen never to come in Chromium: none is used)
  const handle = await dir.getFileHandle(key, { create: true });
  const out = await handle.createWritable();
  await out.write(digest);
  await out.write(packed);
  await out.close();
  await dropSnapshots(key);  // another build's
}

// The archives are not unpacked: each is written whole into Pyodide's file system and
// put on sys.path, and Python imports from it (zipimport) and reads its data files
// (importlib.resources).  A restored snapshot has them on sys.path already, with their
// directories read: the same bytes go back at the same place.
async function installArchives(pyodide, archives) {
  pyodide.FS.mkdirTree(ARCHIVES);
  const paths = [];
  for (const pending of archives) {
    const [archive, buffer] = await pending;
    const name = archive.path.split("/").pop();
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
      throw new Error(`site.json: ${archive.path} is not an archive name`);
    }
    pyodide.FS.writeFile(`${ARCHIVES}/${name}`, new Uint8Array(buffer));
    paths.push(`${ARCHIVES}/${name}`);
  }
  pyodide.runPython(`import importlib, sys
for path in reversed(${JSON.stringify(paths)}):
    if path not in sys.path:
        sys.path.insert(0, path)
importlib.invalidate_caches()`);
}

/**
 * Load Pyodide, the crypto module and the site's Python archives.
 * @param {{onProgress?: (text: string) => void, preload?: string}} [options]
 *   preload: Python run once the archives are in, before the memory snapshot is taken
 *   (the imports the page needs: no secret, no key, no JS object but globalThis's)
 * @returns {Promise<any>} the pyodide instance
 */
export async function bootPython({ onProgress = () => {}, preload = "" } = {}) {
  const started = performance.now();
  const say = (text) => onProgress(text);
  mark("start");
  say("reading site.json");
  const listing = await fetch(here("site.json"), { cache: "no-cache" });
  if (!listing.ok) {
    throw new Error(`site.json: HTTP ${listing.status}`);
  }
  const siteText = await listing.text();
  const site = JSON.parse(siteText);
  mark("site.json");
  say("loading the crypto module");
  const cryptoLoaded = import("./crypto.js").then((module) => {
    globalThis.trucCrypto = module;
    mark("crypto");
  });
  const archives = site.archives.map((archive) =>
    fetchChecked(archive.path, archive.sha256).then((buffer) => {
      mark(`fetched ${archive.path}`);
      return [archive, buffer];
    }),
  );
  // awaited below, in order: a failure is thrown there, not reported as unhandled
  for (const pending of [cryptoLoaded, ...archives]) {
    pending.catch(() => {});
  }
  const options = {
    indexURL: here(site.pyodide),
    packages: [],
    stdout: (line) => console.log(line),
    stderr: (line) => console.warn(line),
    // called once the WebAssembly is instantiated, before the interpreter starts
    fsInit: async () => mark("wasm"),
  };
  say("starting Python");
  const key = canSnapshot() ? await snapshotKey(siteText, preload).catch(() => null) : null;
  let pyodide = null;
  let stored = null;
  try {
    stored = key && (await storedSnapshot(key));
  } catch (error) {
    console.warn(`boot.js: the memory snapshot could not be read (${error}): starting Python the slow way`);
  }
  if (stored) {
    // the snapshot's Python holds js.trucCrypto by its path: it must be there first
    const bytes = Promise.all([stored.bytes, cryptoLoaded]).then(([buffer]) => buffer);
    try {
      pyodide = await loadPyodide({ ...options, _loadSnapshot: bytes });
      pyodide.runPython("import random; random.seed()");  // not the snapshot's state
      snapshot.state = "restored";
    } catch (error) {
      const why = String(error && error.message ? error.message : error).split("\n")[0];
      console.warn(`boot.js: the memory snapshot is refused (${why}): starting Python the slow way`);
      snapshot.state = `failed: ${why}`;
      await snapshotDir().then((dir) => dir.removeEntry(key)).catch(() => {});
      pyodide = null;
    }
  }
  const making = pyodide === null && key !== null;
  if (pyodide === null) {
    pyodide = await loadPyodide({ ...options, _makeSnapshot: making });
  }
  mark("python");
  const pyodideMs = performance.now() - started;
  await cryptoLoaded;
  await installArchives(pyodide, archives);
  mark("archives");
  if (making) {
    let memory = null;
    try {
      if (preload) pyodide.runPython(preload);
      memory = pyodide.makeMemorySnapshot();
      mark("snapshot made");
      snapshot.state = "saving";
      snapshot.saved = saveSnapshot(key, memory).then(
        () => { snapshot.state = "made"; },
        (error) => { snapshot.state = `failed: not saved (${error})`; },
      );
    } catch (error) {
      console.warn(`boot.js: no memory snapshot (${error})`);
      snapshot.state = `failed: not made (${error})`;
    }
    if (memory !== null) {
      // The Python that made the snapshot sees the JS world through a recorder (every
      // object it reaches, by its path, for the snapshot), under which a host object's
      // method loses its `this`: the page gets a fresh Python, restored from the
      // snapshot just made, exactly as the next visits will.
      try {
        const fresh = await loadPyodide({ ...options, _loadSnapshot: memory });
        await installArchives(fresh, archives);
        fresh.runPython("import random; random.seed()");
        pyodide = fresh;
        mark("restored");
      } catch (error) {
        console.warn(`boot.js: the memory snapshot just made is refused (${error}): Python goes on as it started`);
      }
    }
  }
  const total = performance.now() - started;
  say(
    `Python ready in ${Math.round(total)} ms ` +
      `(Pyodide ${Math.round(pyodideMs)} ms, the archives ${Math.round(total - pyodideMs)} ms; ` +
      `memory snapshot: ${snapshot.state})`,
  );
  return pyodide;
}
