// The web table: draws the state the local peer pushes and sends back clicks.
// Everything shown comes from the server's messages; unknown types are ignored.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
// Page state: the last "state" message, the log, the banners and the end screen.
// window.truc is read by the tests.
const ui = { state: null, log: [], disconnect: null, final: null, connected: false,
             received: 0, deadline: null };
window.truc = ui;
let ws = null;

const $ = (id) => document.getElementById(id);
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}
function clock(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
function secondsTo(deadline) { return (deadline - performance.now()) / 1000; }

// -- messages from the peer ------------------------------------------------------
const handlers = {
  state(m) {
    ui.state = m;
    ui.deadline = m.seconds_left == null ? null : performance.now() + m.seconds_left * 1000;
  },
  log(m) { ui.log.push(m); if (ui.log.length > 40) ui.log.shift(); },
  notice(m) { toast(m.text); },
  peer_disconnected(m) { ui.disconnect = performance.now() + m.seconds_left * 1000; },
  peer_reconnected() { ui.disconnect = null; },
  final(m) { ui.final = m; ui.disconnect = null; },
};

function handle(message) {
  ui.received += 1;
  const handler = message && handlers[message.type];
  if (handler) handler(message);
  render();
}

function connect() {
  ws = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`);
  ws.onopen = () => { ui.connected = true; ui.log = []; render(); };
  ws.onmessage = (e) => { try { handle(JSON.parse(e.data)); } catch (err) { console.error(err); } };
  ws.onclose = () => {
    ui.connected = false;
    render();
    if (!ui.final) setTimeout(connect, 1500);
  };
}

function send(message) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
}
function act(action) {
  const t = ui.state && ui.state.table;
  if (!t || t.turn == null) return;
  send({ type: "act", turn: t.turn, action });
  t.turn = null;  // no double clicks; the next state message redraws
  render();
}
function leave() {
  if (ui.final) return;
  const t = ui.state && ui.state.table;
  if (confirm("Leave the game? The opponent is told, and the game ends unfinished.")) {
    send({ type: "quit", turn: t && t.turn != null ? t.turn : null });
  }
}

let toastTimer = null;
function toast(text) {
  const box = $("notice");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 2500);
}

// -- drawing ---------------------------------------------------------------------
function card(c, opts = {}) {
  const node = el(opts.action ? "button" : "div", "card" + (c.red ? " red" : ""));
  node.dataset.card = c.card;
  node.setAttribute("aria-label", `${c.rank}${c.symbol}`);
  node.append(el("span", "corner", `${c.rank}${c.symbol}`), el("span", "pip", c.symbol));
  if (opts.by) node.classList.add(opts.by);
  if (opts.action) {
    node.type = "button";
    node.classList.add("playable");
    node.dataset.action = opts.action;
    node.addEventListener("click", () => act(opts.action));
    if (opts.key) node.append(el("span", "key", opts.key));
  }
  return node;
}
function back() { return el("div", "card back"); }

function render() {
  const s = ui.state;
  const t = s && s.table;
  const started = s && s.started;
  document.body.classList.toggle("my-turn", !!(t && t.turn != null));
  if (started) {
    $("me-name").textContent = started.me;
    $("opp-name").textContent = started.opp;
    $("me-label").textContent = `${started.me} (you)`;
    $("opp-label").textContent = started.opp;
    $("opp-fp").textContent = `key ${started.opp_fingerprint.slice(0, 16)}…`;
    $("opp-fp").title = started.opp_fingerprint;
    $("target").textContent = `first to ${started.target}`;
  }
  $("banner-conn").hidden = ui.connected || !!ui.final;
  $("banner-conn").textContent = "lost the connection to the game program; retrying…";
  renderTable(t, s);
  renderLog();
  renderDisconnect();
  renderFinal();
  tick();
}

function renderTable(t, s) {
  const hand = $("my-hand"), opp = $("opp-hand"), table = $("table"), tricks = $("tricks");
  const buttons = $("buttons");
  hand.replaceChildren(); opp.replaceChildren(); table.replaceChildren();
  tricks.replaceChildren(); buttons.replaceChildren();
  if (!t) { $("status").textContent = ui.connected ? "waiting for the game to start…" : "connecting…"; return; }
  $("me-score").textContent = t.scores.me;
  $("opp-score").textContent = t.scores.opp;
  $("worth").textContent = `hand ${t.hand_no} · worth ${t.round_value}` + (t.rest_answered ? " · my rest!" : "");
  $("me-dealer").hidden = t.dealer !== "me";
  $("opp-dealer").hidden = t.dealer !== "opp";
  for (const c of t.hand) hand.append(card(c, { action: t.turn != null ? c.action : null, key: c.key }));
  for (let i = 0; i < t.opp_cards; i++) opp.append(back());
  const last = s.last_round;
  const shown = t.tricks.length || t.table.length || !last ? t.tricks : last.tricks;
  const oppName = s.started ? s.started.opp : "opponent";
  const who = (by) => (by === "me" ? "you" : oppName);
  // the table, or else the trick just finished (faded), so the answer to a lead is seen
  const done = !t.table.length && shown.length ? shown[shown.length - 1] : null;
  for (const c of done ? done.cards : t.table) {
    const node = card(c, { by: c.by });
    node.append(el("span", "by", who(c.by)));
    if (done) node.classList.add("done");
    table.append(node);
  }
  for (let i = 0; i < 3; i++) {
    const trick = shown[i];
    const pip = el("span", "trick", trick ? (trick.winner === "me" ? "won" : trick.winner === "opp" ? "lost" : "spoiled") : `trick ${i + 1}`);
    pip.classList.add(trick ? (trick.winner || "none") : "todo");
    tricks.append(pip);
  }
  $("last-round").hidden = !(last && !t.table.length && !t.tricks.length);
  $("last-round").textContent = last ? last.text : "";
  const lead = t.leader === "me" ? "you lead" : `${oppName} leads`;
  const doneText = done ? `trick ${shown.length}: ${done.winner ? `won by ${who(done.winner)}` : "spoiled"} · ` : "";
  $("lead").textContent = t.table.length ? "" : doneText + lead;
  const p = t.pending;
  const pend = $("pending");
  pend.hidden = !p;
  if (p) {
    const what = p.kind === "raise" ? `“2 more?” (to ${p.to})` : p.kind === "rest" ? "“my rest”" : "a redeal";
    pend.textContent = p.by === "opp" ? `${oppName} asks ${what} — your answer?` : `you asked ${what}; waiting for the answer`;
  }
  for (const b of t.buttons) {
    const node = el("button", `act ${b.kind}`);
    node.type = "button";
    node.dataset.action = b.action;
    node.append(el("span", "label", b.label), el("kbd", "", b.key));
    node.addEventListener("click", () => act(b.action));
    buttons.append(node);
  }
}

function renderLog() {
  const log = $("log");
  log.replaceChildren();
  for (const line of ui.log.slice(-8).reverse()) log.append(el("li", line.who, line.text));
}

function renderDisconnect() {
  const b = $("banner-disconnect");
  b.hidden = ui.disconnect == null;
}

function renderFinal() {
  const f = ui.final;
  $("final").hidden = !f;
  if (!f) return;
  $("final-headline").textContent = f.headline;
  $("final").classList.toggle("won", !!f.won);
  $("final-score").textContent = f.score ? `${f.score.me} – ${f.score.opp}` : "";
  $("final-message").textContent = f.message;
  $("final-cosigned").textContent = f.cosigned ? "✔ result co-signed by both players" : "✘ no co-signed result";
  const v = f.verdict;
  $("final-verdict-line").textContent = v ? (v.valid ? "✔ verified: the transcript replays as a fair, complete game" : "✘ the verifier does not accept this transcript as a complete game") : "no transcript was written";
  $("final-verdict-line").className = v && v.valid ? "ok" : "bad";
  $("final-verdict").textContent = v ? v.summary : "";
  $("final-transcript").textContent = f.transcript || "none";
  $("final-closed").hidden = ui.connected;
}

// The move clock and the reconnect countdown tick without server messages.
function tick() {
  const t = ui.state && ui.state.table;
  const status = $("status");
  if (t && !ui.final) {
    const left = ui.deadline == null ? "" : ` · ${clock(secondsTo(ui.deadline))} left`;
    const oppName = ui.state.started ? ui.state.started.opp : "opponent";
    if (t.turn != null) status.textContent = `your move${left}`;
    else if (t.to_act === "opp") status.textContent = `waiting for ${oppName}${left}`;
    else status.textContent = t.phase === "over" ? "game over: checking the deck…" : "dealing…";
  } else if (ui.final) {
    status.textContent = "game over";
  }
  if (ui.disconnect != null) {
    $("banner-disconnect").textContent =
      `opponent disconnected — waiting ${clock(secondsTo(ui.disconnect))} for them to come back`;
  }
}
setInterval(tick, 250);

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const key = e.key.toLowerCase();
  if (key === "escape") { $("help").hidden = true; return; }
  if (key === "?" || key === "h") { $("help").hidden = !$("help").hidden; return; }
  if (key === "q") { leave(); return; }
  const t = ui.state && ui.state.table;
  if (!t || t.turn == null) return;
  const c = t.hand.find((x) => x.key === key && x.action);
  const b = t.buttons.find((x) => x.key === key);
  if (c) act(c.action);
  else if (b) act(b.action);
});
$("help-btn").addEventListener("click", () => { $("help").hidden = false; });
$("help-close").addEventListener("click", () => { $("help").hidden = true; });
$("quit-btn").addEventListener("click", leave);
connect();
render();
