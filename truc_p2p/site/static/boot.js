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
  say("reading site.json");
  const listing = await fetch(here("site.json"), { cache: "no-cache" });
  if (!listing.ok) {
    throw new Error(`site.json: HTTP ${listing.status}`);
  }
  const site = await listing.json();
  say("loading the crypto module");
  const cryptoLoaded = import("./crypto.js").then((module) => {
    globalThis.trucCrypto = module;
  });
  const archives = site.archives.map((archive) =>
    fetchChecked(archive.path, archive.sha256).then((buffer) => [archive, buffer]),
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
  });
  const pyodideMs = performance.now() - started;
  await cryptoLoaded;
  const sitePackages = pyodide.runPython(
    "import sysconfig; sysconfig.get_path('purelib')",
  );
  for (const pending of archives) {
    const [archive, buffer] = await pending;
    say(`unpacking ${archive.path}`);
    pyodide.unpackArchive(buffer, archive.format, { extractDir: sitePackages });
  }
  const bytecode = await loadBytecode(pyodide, site, sitePackages);
  pyodide.runPython("import importlib; importlib.invalidate_caches()");
  const total = performance.now() - started;
  say(
    `Python ready in ${Math.round(total)} ms ` +
      `(Pyodide ${Math.round(pyodideMs)} ms, the archives ${Math.round(total - pyodideMs)} ms` +
      `${bytecode ? ", cached bytecode" : ""})`,
  );
  return pyodide;
}

// -- the compiled bytecode of this build's modules, kept between visits -----------------
// Pyodide unpacks the archives afresh on every load and compiles every module it
// imports (about a second on a phone-class CPU); saveBytecode() keeps the compiled
// modules in Cache Storage, loadBytecode() puts them back before the first import.
// They are unchecked-hash .pyc files (Python ignores the sources' dates, which
// unpacking does not keep), keyed by every archive's SHA-256 and Pyodide's version:
// another build never reads them.
const BYTECODE_CACHE = "truc-p2p-bytecode";

function bytecodeKey(pyodide, site) {
  const archives = site.archives.map((archive) => archive.sha256 || archive.path).join(",");
  return here(`py/bytecode.zip?pyodide=${pyodide.version}&archives=${archives}`);
}

let keptKey = null;  // this boot's key, for saveBytecode

async function loadBytecode(pyodide, site, sitePackages) {
  try {
    keptKey = bytecodeKey(pyodide, site);
    if (!globalThis.caches) return false;
    const cache = await caches.open(BYTECODE_CACHE);
    const hit = await cache.match(keptKey);
    if (!hit) return false;
    pyodide.unpackArchive(await hit.arrayBuffer(), "zip", { extractDir: sitePackages });
    return true;
  } catch (error) {
    console.warn(error);  // a cache the browser refuses costs speed, never the game
    return false;
  }
}

const COMPILE = `
import importlib.util, io, os, py_compile, sys, sysconfig, zipfile

def _bytecode():
    root = "/" + sysconfig.get_path("purelib").lstrip("/")  # Pyodide's starts with "//"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for module in list(sys.modules.values()):
            source = getattr(module, "__file__", None)
            if not isinstance(source, str) or not source.startswith(root + "/"):
                continue
            if not source.endswith(".py"):
                continue
            compiled = importlib.util.cache_from_source(source)
            py_compile.compile(
                source, compiled, doraise=True,
                invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
            )
            archive.write(compiled, os.path.relpath(compiled, root))
    return out.getvalue()

_bytecode()
`;

/**
 * Compile the modules imported so far and keep them for the next visit (once per
 * build: a no-op when this build's bytecode is kept already).
 * @param {any} pyodide the instance bootPython returned
 */
export async function saveBytecode(pyodide) {
  try {
    if (!globalThis.caches) return;
    const key = keptKey;
    if (!key) return;
    const cache = await caches.open(BYTECODE_CACHE);
    if (await cache.match(key)) return;
    const proxy = pyodide.runPython(COMPILE);
    const data = proxy.toJs();
    proxy.destroy();
    for (const old of await cache.keys()) await cache.delete(old);
    await cache.put(key, new Response(data, { headers: { "Content-Type": "application/zip" } }));
  } catch (error) {
    console.warn(error);
  }
}
