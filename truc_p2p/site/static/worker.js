// worker.js: the game's thread.  Boots this package's Python (boot.js), then runs
// truc_p2p.page (the same rules, deck, session, bots and verifier as the desktop) and
// carries out what it asks: messages for the page, the relay WebSockets, IndexedDB,
// files to save, and its timer.  The main thread only draws (app.js, table.js).
//
// Messages from the main thread: {kind: "start", lang, site, relay}, then
// {kind: "page", message, data?} (data: a file's bytes, for verify and a key import).
// To the main thread: {kind: "progress", text}, {kind: "ready"}, {kind: "page", message},
// {kind: "download", name, data}, {kind: "failed", text}.
import { bootPython, snapshot } from "./boot.js";

const post = (message, transfer) => self.postMessage(message, transfer || []);
const now = () => performance.now() / 1000;

// -- IndexedDB: the identity key, and what a reload needs ------------------------------
const DB_NAME = "truc-p2p";
const STORE = "kv";
function openDb() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}
let dbPromise = null;
function db() {
  if (!dbPromise) dbPromise = openDb().catch((error) => { console.warn(error); return null; });
  return dbPromise;
}
async function dbAll() {
  const database = await db();
  if (!database) return {};
  return new Promise((resolve) => {
    const out = {};
    const tx = database.transaction(STORE, "readonly");
    const request = tx.objectStore(STORE).openCursor();
    request.onsuccess = () => {
      const cursor = request.result;
      if (!cursor) { resolve(out); return; }
      out[cursor.key] = cursor.value;
      cursor.continue();
    };
    request.onerror = () => resolve(out);
  });
}
// resolves once the write is committed (a transcript's envelope is kept before the
// bytes that carry it leave: see carry)
async function dbPut(key, value) {
  const database = await db();
  if (!database) return;
  await new Promise((resolve) => {
    const tx = database.transaction(STORE, "readwrite");
    if (value === undefined) tx.objectStore(STORE).delete(key);
    else tx.objectStore(STORE).put(value, key);
    tx.oncomplete = resolve;
    tx.onerror = resolve;
    tx.onabort = resolve;
  });
}

// -- bytes as the Python side writes them ({b64}) ----------------------------------
function fromB64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
function toB64(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
const unwrap = (value) => (value && typeof value === "object" && "b64" in value ? fromB64(value.b64) : value);

// -- the relay WebSockets --------------------------------------------------------------
const sockets = new Map();  // id -> {ws, queue}
function wsUrl(relay) {
  const secure = self.location.protocol === "https:";
  return `${secure ? "wss" : "ws"}://${relay}/ws`;
}
function openSocket(id, relay) {
  let ws;
  try {
    ws = new WebSocket(wsUrl(relay), "truc-p2p.relay.v1");
  } catch (error) {
    console.warn(error);
    queueMicrotask(() => run(() => glue.closed(id, now())));
    return;
  }
  ws.binaryType = "arraybuffer";
  const entry = { ws, queue: [] };
  sockets.set(id, entry);
  ws.onopen = () => {
    for (const chunk of entry.queue) ws.send(chunk);
    entry.queue = [];
  };
  ws.onmessage = (event) => {
    if (!(event.data instanceof ArrayBuffer)) return;  // the relay stream is binary only
    const data = new Uint8Array(event.data);
    run(() => glue.receive(id, data, now()));
  };
  ws.onclose = () => {
    if (sockets.get(id) !== entry) return;  // closed on purpose
    sockets.delete(id);
    run(() => glue.closed(id, now()));
  };
}
function sendSocket(id, data) {
  const entry = sockets.get(id);
  if (!entry) return;
  if (entry.ws.readyState === WebSocket.OPEN) entry.ws.send(data);
  else entry.queue.push(data);
}
function closeSocket(id) {
  const entry = sockets.get(id);
  if (!entry) return;
  sockets.delete(id);
  const close = () => entry.ws.close(1000);
  if (entry.ws.readyState === WebSocket.CONNECTING) entry.ws.onopen = () => {
    for (const chunk of entry.queue) entry.ws.send(chunk);
    close();
  };
  else close();  // what was sent goes first: a close frame follows the data
}

// -- the Python side's outputs ---------------------------------------------------------
let glue = null;
let timer = null;
// The outputs are carried out in order, every call's after the previous call's: a
// store is committed before anything after it (a send of the envelope it keeps, as
// the desktop syncs its transcript before sending).
let carried = Promise.resolve();
function carry(outputs) {
  carried = carried.then(() => carryInOrder(outputs)).catch((error) => console.error(error));
}
async function carryInOrder(outputs) {
  for (const out of outputs) {
    switch (out.do) {
      case "page": post({ kind: "page", message: out.message }); break;
      case "open": openSocket(out.socket, out.relay); break;
      case "send": sendSocket(out.socket, unwrap(out.data)); break;
      case "close": closeSocket(out.socket); break;
      case "store": await dbPut(out.key, unwrap(out.value)); break;
      case "delete": await dbPut(out.key, undefined); break;
      case "download": {
        const data = unwrap(out.data);
        post({ kind: "download", name: out.name, data }, [data.buffer]);
        break;
      }
      case "timer":
        clearTimeout(timer);
        timer = null;
        if (out.at != null) {
          const ms = Math.max(0, (out.at - now()) * 1000);
          timer = setTimeout(() => run(() => glue.tick(now())), ms);
        }
        break;
      default: break;
    }
  }
}
// One call into Python at a time (the worker is single-threaded; calls are short).
// Each call's start and length (ms) are kept, the last 200, for benchmarks/site_game.py.
const calls = [];
function run(call) {
  if (!glue) return;
  const at = performance.now();
  try {
    const outputs = call();
    calls.push([at, performance.now() - at]);
    if (calls.length > 200) calls.shift();
    carry(JSON.parse(outputs));
  } catch (error) {
    console.error(error);
    post({ kind: "failed", text: String(error && error.message ? error.message : error) });
  }
}

const GLUE = `
import os
from truc_p2p.page import WorkerGlue

def make(stored, site, relay, now):
    return WorkerGlue(stored, randbytes=os.urandom, site=site, relay=relay, now=now)

make
`;

// What the page's Python imports, in the memory snapshot (boot.js): the page's module
// and what a game needs (WorkerGlue.warm), so a load from the snapshot imports nothing.
const PRELOAD = `
from truc_p2p.page import WorkerGlue
WorkerGlue.warm()
`;

// Python starts as the worker loads, not once the page has sent "start" (its DOM work
// and this boot overlap).
const started = performance.now();
const booting = bootPython({
  onProgress: (text) => post({ kind: "progress", text }),
  preload: PRELOAD,
});
booting.catch(() => {});  // reported by start

async function start({ lang, site, relay }) {
  const py = await booting;
  self.trucPython = py;  // for benchmarks/site_game.py (the deck's CPU, the wasm memory)
  self.trucTimes = { boot: performance.now() - started, calls, snapshot: snapshot.state };
  self.trucTimes.saving = true;
  snapshot.saved.then(() => {
    self.trucTimes.saving = false;
    self.trucTimes.snapshot = snapshot.state;
  });
  const stored = await dbAll();
  const plain = {};
  for (const [key, value] of Object.entries(stored)) {
    plain[key] = value instanceof Uint8Array ? { b64: toB64(value) } : value;
  }
  glue = py.runPython(GLUE)(JSON.stringify(plain), site || "", relay || "", now());
  self.trucGlue = glue;  // for truc-p2p interop's browser adapter (truc_p2p.page._autoplay)
  const first = glue.start(JSON.stringify({ type: "hello", lang }), now());
  self.trucTimes.glue = performance.now() - started - self.trucTimes.boot;
  performance.mark("boot:glue");
  carry(JSON.parse(first));
  carried = carried.then(() => post({ kind: "ready" }));
  // what a game needs is imported while the player reads the home screen (a tap that
  // comes first waits for it: the worker has one thread)
  carried = carried.then(() => new Promise((done) => setTimeout(() => {
    const at = performance.now();
    try { glue.warm(); } catch (error) { console.warn(error); }
    self.trucTimes.warm = [at, performance.now() - at];
    done();
  }, 50)));
}

self.addEventListener("message", ({ data }) => {
  if (!data) return;
  if (data.kind === "start") {
    start(data).catch((error) => {
      console.error(error);
      post({ kind: "failed", text: String(error && error.message ? error.message : error) });
    });
  } else if (data.kind === "page") {
    const bytes = data.data instanceof Uint8Array ? data.data : null;
    run(() => glue.handle(JSON.stringify(data.message || {}), bytes, now()));
  }
});
