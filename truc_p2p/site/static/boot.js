// boot.js: starts this package's Python in the page (SITE.md, "boot.js contract").
//
// A module worker does:
//   import { bootPython } from "./boot.js";
//   const py = await bootPython({ onProgress: (text) => ... });
// and gets the Pyodide instance with globalThis.trucCrypto set (./crypto.js) and this
// package and msgpack importable.  Everything comes from this site (./vendor/pyodide/,
// ./py/, listed in ./site.json with their SHA-256): nothing from a CDN.

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

/**
 * Load Pyodide, the crypto module and the site's Python archives.
 * @param {{onProgress?: (text: string) => void}} [options]
 * @returns {Promise<any>} the pyodide instance
 */
export async function bootPython({ onProgress = () => {} } = {}) {
  const started = performance.now();
  const say = (text) => onProgress(text);
  mark("start");
  say("reading site.json");
  const listing = await fetch(here("site.json"), { cache: "no-cache" });
  if (!listing.ok) {
    throw new Error(`site.json: HTTP ${listing.status}`);
  }
  const site = await listing.json();
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
  say("starting Python");
  const pyodide = await loadPyodide({
    indexURL: here(site.pyodide),
    packages: [],
    stdout: (line) => console.log(line),
    stderr: (line) => console.warn(line),
    // called once the WebAssembly is instantiated, before the interpreter starts
    fsInit: async () => mark("wasm"),
  });
  mark("python");
  const pyodideMs = performance.now() - started;
  await cryptoLoaded;
  const sitePackages = pyodide.runPython(
    "import sysconfig; sysconfig.get_path('purelib')",
  );
  for (const pending of archives) {
    const [archive, buffer] = await pending;
    say(`unpacking ${archive.path}`);
    pyodide.unpackArchive(buffer, archive.format, { extractDir: sitePackages });
    mark(`unpacked ${archive.path}`);
  }
  pyodide.runPython("import importlib; importlib.invalidate_caches()");
  mark("archives");
  const total = performance.now() - started;
  say(
    `Python ready in ${Math.round(total)} ms ` +
      `(Pyodide ${Math.round(pyodideMs)} ms, the archives ${Math.round(total - pyodideMs)} ms)`,
  );
  return pyodide;
}
