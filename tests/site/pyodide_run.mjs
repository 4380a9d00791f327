// Runs Python read from stdin in Pyodide (node), with the package on the js crypto backend:
//   node pyodide_run.mjs SITE_DIR REPO_ROOT PYLIBS_DIR < script.py
// SITE_DIR has crypto.js and vendor/{pyodide,noble-*}/ (tests/helpers/site.py lays it out);
// REPO_ROOT is mounted at /repo (truc_p2p and protocol_spec), PYLIBS_DIR at /pylibs
// (msgpack's pure-Python files).  Prints the value of the script's last expression.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join, resolve } from "node:path";

const [siteDir, repoRoot, pylibs] = process.argv.slice(2).map((p) => resolve(p));
const code = readFileSync(0, "utf8");
const { loadPyodide } = await import(pathToFileURL(join(siteDir, "vendor/pyodide/pyodide.mjs")).href);
globalThis.trucCrypto = await import(pathToFileURL(join(siteDir, "crypto.js")).href);
const py = await loadPyodide({ indexURL: join(siteDir, "vendor/pyodide") + "/" });
for (const [host, at] of [[repoRoot, "/repo"], [pylibs, "/pylibs"]]) {
  py.FS.mkdirTree(at);
  py.FS.mount(py.FS.filesystems.NODEFS, { root: host }, at);
}
py.runPython("import sys; sys.path[:0] = ['/repo', '/pylibs']; sys.dont_write_bytecode = True");
const result = py.runPython(code);
process.stdout.write(String(result) + "\n");
