// A browser host at the relay, by hand (connect.md §9): register over a WebSocket,
// attach for the joiner the relay meets us with, answer its probe (§3), then say
// hello through the splice and wait for the answer. The page's real driver is
// truc_p2p/page; this is only the transport, with nothing but the browser's own API.
const text = new TextEncoder();
const MAGIC = text.encode("TRUCRLY1");

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

function message(type, body = new Uint8Array()) {
  return concat(new Uint8Array([type, body.length >> 8, body.length & 255]), body);
}

class Reader {
  constructor(ws) {
    this.buf = new Uint8Array();
    this.waiting = [];
    this.sizes = [];
    ws.onmessage = (event) => {
      const chunk = new Uint8Array(event.data);
      this.sizes.push(chunk.length);
      this.buf = concat(this.buf, chunk);
      const waiting = this.waiting;
      this.waiting = [];
      waiting.forEach((wake) => wake());
    };
  }
  async exactly(n) {
    while (this.buf.length < n) await new Promise((wake) => this.waiting.push(wake));
    const out = this.buf.slice(0, n);
    this.buf = this.buf.slice(n);
    return out;
  }
  async message(want) {
    const head = await this.exactly(3);
    const body = await this.exactly((head[1] << 8) | head[2]);
    if (head[0] !== want) throw new Error(`expected ${want}, got ${head[0]}`);
    return body;
  }
}

function open() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${location.host}/ws`, "truc-p2p.relay.v1");
    ws.binaryType = "arraybuffer";
    const reader = new Reader(ws);
    ws.onopen = () => resolve([ws, reader]);
    ws.onerror = () => reject(new Error("websocket failed"));
  });
}

async function main() {
  const [control, controlReader] = await open();
  control.send(concat(MAGIC, message(0x01, new Uint8Array([0]))));   // REGISTER, no addresses
  const registered = await controlReader.message(0x81);
  document.body.dataset.code = new TextDecoder().decode(registered.slice(1, 1 + registered[0]));
  const meet = await controlReader.message(0x82);
  const session = meet.slice(0, 16);
  const [ws, reader] = await open();
  ws.send(concat(MAGIC, message(0x03, session)));                    // ATTACH
  await reader.message(0x84);                                        // SPLICED
  const probe = await reader.exactly(25);
  ws.send(concat(probe.slice(0, 24), text.encode("A")));
  const commit = await reader.exactly(1);
  if (commit[0] !== 0x43) throw new Error("no commit");
  ws.send(text.encode("hello from chromium"));
  const answer = new TextDecoder().decode(await reader.exactly(5));
  document.body.dataset.done = `${answer}/${ws.protocol}/${ws.extensions || "none"}`;
  ws.close(1000);
  control.close(1000);
}

main().catch((error) => { document.body.dataset.error = String(error); });
