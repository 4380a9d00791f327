// The web table: draws the state the local peer pushes and sends back clicks.
// Everything shown comes from the server's messages (texts included: the English
// strings here are only fallbacks); unknown message types are ignored.
//
// Beside the last state, the page keeps what a player must get to see even when
// the program has already moved on: each finished trick stays on the felt
// (HOLD_MS, or until the next click), then is swept towards its winner; each
// hand's result stays as a toast (TOAST_MS).
//
// Input guard: for guard_ms (sent with each state, else GUARD_MS) after the hand or the set of
// choices changes, keys, clicks and taps are ignored (counted in ui.guarded), so a key
// meant for the last decision or a double tap never plays a card of a hand the player
// has not seen; the move carries the turn it answers, which the peer checks.  Sounds are synthesized here with
// WebAudio (the project's own, MIT, like the rest of the page); muting is
// remembered in localStorage.
"use strict";

const HOLD_MS = 1500;      // a finished trick stays this long on the felt...
const HOLD_NEXT_MS = 800;  // ...or this long when another one waits behind it
const SWEEP_MS = 420;      // then it is swept to its winner
const TOAST_MS = 4500;     // a hand's result stays this long
const GUARD_MS = 500;      // input ignored this long after the hand or the choices change
const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

const token = new URLSearchParams(location.search).get("token") || "";
// Page state, read by the tests as window.truc.
const ui = {
  state: null, log: [], disconnect: null, final: null, connected: false, received: 0,
  deadline: null, stoppedLeft: null, texts: {}, invite: null,
  held: null, queue: [], seenTricks: new Set(), tricks: [],  // tricks: what was shown, when
  handToast: null, nextToast: null, lastSeq: null, toasts: [],
  muted: false, sounds: [],
  levels: null,  // play: {ask, level}, the start panel's bot levels
  choices: null, guardUntil: 0, guarded: 0,  // the input guard (see above)
  fourColours: false,
  announced: [], toAnnounce: [],  // the live region: whose turn, the opponent's moves
};
// Whether input is ignored now (the hand or the choices changed less than guard_ms ago).
ui.settling = () => performance.now() < ui.guardUntil;
window.truc = ui;
try {
  ui.muted = localStorage.getItem("truc-p2p.muted") === "1";
  ui.fourColours = localStorage.getItem("truc-p2p.four-colours") === "1";
} catch (err) { /* no storage */ }
let ws = null;

const $ = (id) => document.getElementById(id);
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}
function tx(key, fallback, values) {
  let text = ui.texts[key] || fallback;
  for (const [k, v] of Object.entries(values || {})) text = text.split(`{${k}}`).join(String(v));
  return text;
}
function clock(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
function oppName() { return (ui.state && ui.state.started && ui.state.started.opp) || ""; }
function secondsTo(deadline) { return (deadline - performance.now()) / 1000; }
// What the clock leaves the move due (stopped while the link is down), or null.
ui.secondsLeft = () => {
  if (ui.deadline == null) return null;
  return ui.stoppedLeft != null ? ui.stoppedLeft : secondsTo(ui.deadline);
};

// -- messages from the peer ------------------------------------------------------
const handlers = {
  texts(m) { ui.texts = { ...ui.texts, ...m }; applyTexts(); },
  invite(m) { ui.invite = m; },
  levels(m) { ui.levels = m; },
  state(m) {
    const before = ui.state && ui.state.table;
    ui.state = m;
    ui.deadline = m.seconds_left == null ? null : performance.now() + m.seconds_left * 1000;
    ui.stoppedLeft = ui.disconnect != null ? m.seconds_left : null;  // the link is down
    const t = m.table;
    if (!t) return;
    const lt = t.last_trick;
    if (lt) {
      // the trick itself (the hand's number may already be the next one's when the
      // hand ended on a refusal): the same trick is never shown or said twice
      const key = `${lt.no}/${lt.cards.map((c) => c.card).join(",")}`;
      if (!ui.seenTricks.has(key)) {
        ui.seenTricks.clear();
        ui.seenTricks.add(key);
        ui.queue.push({ key, ...lt, hand: t.hand_no });
        announce(lt.text);  // "bob wins trick 1 (K♣ beats 7♠)"
      }
    }
    const hr = t.hand_result;
    if (hr && hr.seq !== ui.lastSeq) {
      const fresh = !!before;  // not the result a reload finds
      ui.lastSeq = hr.seq;
      ui.nextToast = hr;  // shown once the hand's tricks are on the felt (see pump)
      if (fresh) announce(hr.game_over ? hr.text : `${hr.text}. ${t.score_line}`);
    }
    // a new hand: its number and the cards dealt, as the terminal's deal line says it
    if (t.hand.length && (!before || before.hand_no !== t.hand_no || !before.hand.length)) {
      announce(tx("new_hand", "hand {n}; your cards: {cards}",
        { n: t.hand_no, cards: t.hand.map((c) => c.name).join(", ") }));
    }
    // the choices on offer (the hand, its playable cards, the buttons): a change starts the guard
    const choices = `${t.hand_no}|${t.turn}|` + t.hand.map((c) => `${c.card}:${c.action}`).join(",") +
      "|" + t.buttons.map((b) => b.action).join(",");
    if (t.turn != null && choices !== ui.choices) {
      const ms = Number.isFinite(m.guard_ms) ? m.guard_ms : GUARD_MS;
      ui.guardUntil = performance.now() + ms;
      document.body.classList.add("settling");
      setTimeout(() => { if (!ui.settling()) document.body.classList.remove("settling"); }, ms + 20);
    }
    ui.choices = t.turn != null ? choices : null;
    const played = (x) => x.tricks.length * 2 + x.table.length;  // cards played this hand
    if (before && before.hand_no === t.hand_no && played(t) > played(before)) sound("card");
    if (t.turn != null && (!before || before.turn !== t.turn)) {
      sound("turn");
      announce(tx("your_turn", "your move"));
    } else if (t.turn == null && t.to_act === "opp" && before && before.to_act !== "opp") {
      announce(tx("waiting_for", "waiting for {name}", { name: (m.started && m.started.opp) || "" }));
    }
  },
  log(m) {
    ui.log.push(m);
    if (ui.log.length > 40) ui.log.shift();
    // the moves, ours too (what a key did), and the opponent's requests
    if (m.who === "opp" || m.who === "me") announce(m.text);
  },
  log_all(m) { ui.log = (m.lines || []).slice(-40); },  // the log again, in another language
  notice(m) { toast(m.text); },
  // the turn clock stops with the link (wire.md 13.5) and goes on once the game resumes
  peer_disconnected(m) {
    ui.disconnect = performance.now() + m.seconds_left * 1000;
    ui.stoppedLeft = ui.deadline == null ? null : secondsTo(ui.deadline);
  },
  peer_reconnected() { ui.disconnect = null; ui.stoppedLeft = null; },
  final(m) { ui.final = m; ui.disconnect = null; ui.finalAt = null; },
  // learn --web: the game the lesson leads to is served by another table
  goto(m) { if (/^http:\/\/127\.0\.0\.1:\d+\//.test(m.url)) location.assign(m.url); },
  new_game(m) {  // a rematch or the next game of a match: a clean table
    ui.final = null; ui.state = null; ui.invite = null; ui.disconnect = null; ui.finalAt = null;
    ui.held = null; ui.queue.length = 0; ui.seenTricks = new Set(); ui.tricks = [];
    ui.handToast = null; ui.nextToast = null; ui.lastSeq = null; ui.games = (ui.games || 1) + 1;
    ui.matchLine = m.match_line || null;
    $("final").hidden = true;
    // the click that asked for this game is answered: the next end screen offers anew
    // (the page sends a game's whole end at once, "again" with it)
    $("final-again").disabled = false;
  },
};

function handle(message) {
  ui.received += 1;
  const handler = message && handlers[message.type];
  if (handler) handler(message);
  pump();
  render();
  flushAnnounce();
}

// -- the live region: what a screen reader says without the player looking ---------
// Cards are said by name ("seven of hearts", from the texts), not as "7♥".
function spoken(text) {
  const names = ui.texts.card_names || {};
  const keys = Object.keys(names).sort((a, b) => b.length - a.length);
  for (const k of keys) text = text.split(k).join(names[k]);
  return text;
}
function announce(text) { if (text) ui.toAnnounce.push(spoken(text)); }
function flushAnnounce() {
  if (!ui.toAnnounce.length) return;
  const text = ui.toAnnounce.join(" · ");
  ui.toAnnounce = [];
  ui.announced.push(text);
  if (ui.announced.length > 20) ui.announced.shift();
  $("announce").textContent = text;
}

// The transport.  --web: a WebSocket to the local peer.  The site's page runs the game
// in a Web Worker instead: its index.html says so (<html data-transport="page">) and
// app.js attaches its own send (to the worker) and hands the worker's messages to
// window.trucTable.handle; the table itself is the same file either way.
const transport = {
  send(message) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  },
};
function connect() {
  if (document.documentElement.dataset.transport === "page") {
    window.trucTable = {
      handle,
      attach(sendToWorker) { transport.send = sendToWorker; ui.connected = true; render(); },
    };
    return;
  }
  ws = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`);
  ws.onopen = () => { ui.connected = true; ui.log = []; render(); };
  ws.onmessage = (e) => { try { handle(JSON.parse(e.data)); } catch (err) { console.error(err); } };
  ws.onclose = () => {
    ui.connected = false;
    render();
    if (!ui.final) setTimeout(connect, 1500);
  };
}

function send(message) { transport.send(message); }
function act(action) {
  const t = ui.state && ui.state.table;
  if (!t || t.turn == null) return;
  if (ui.settling()) { ui.guarded += 1; return; }  // not seen long enough: ignored
  send({ type: "act", turn: t.turn, action });
  if (ui.disconnect != null) {  // it waits for the opponent: say it went nowhere yet
    const c = t.hand.find((x) => x.action === action);
    const b = t.buttons.find((x) => x.action === action);
    const move = c ? tx("you_play", "you play {card}", { card: `${c.rank}${c.symbol}` }) : (b ? b.label : "");
    const text = tx("sent_when_back", "{move} (sent as soon as {name} is back)", { move, name: oppName() });
    toast(text);  // #notice is a status region: a screen reader says it too
  }
  t.turn = null;  // no double clicks; the next state message redraws
  // The next click ends the wait: the player has moved on, so the trick on show is
  // swept and those queued behind it are dropped (tricks ended by this click still come).
  ui.queue.length = 0;
  if (ui.held && !ui.held.sweeping) sweep();
  flushToast();
  render();
}
function leave() {
  if (ui.final) {  // the end screen: no rematch, the command ends
    if (ui.final.again && !$("final-again").disabled) {
      send({ type: "again", yes: false });
      ui.final.again = false;
      renderFinal();
    }
    return;
  }
  const s = ui.state;
  const t = s && s.table;
  if (s && s.lesson) {  // a lesson costs nothing to leave: no resign question
    send({ type: "quit", turn: t && t.turn != null ? t.turn : null });
    return;
  }
  const text = (s && s.texts && s.texts.leave_confirm) ||
    tx("leave_confirm", "Leave the game? You resign: your opponent wins the game.");
  if (confirm(text)) send({ type: "quit", turn: t && t.turn != null ? t.turn : null });
}
// In a match, a button beside "leave" concedes only this game: the next one is dealt.
// The program says when (texts.concede_button) and asks first (texts.concede_confirm).
function concedeButton() {
  let b = $("concede-btn");
  if (!b) {
    b = el("button", "ghost", "");
    b.id = "concede-btn";
    b.type = "button";
    b.hidden = true;
    b.addEventListener("click", concede);
    $("quit-btn").after(b);
  }
  return b;
}
function concede() {
  const s = ui.state;
  const texts = (s && s.texts) || {};
  if (ui.final || !texts.concede_button) return;
  const t = s.table;
  if (confirm(texts.concede_confirm || texts.concede_button)) {
    send({ type: "quit", concede: true, turn: t && t.turn != null ? t.turn : null });
  }
}
function renderConcede() {
  const s = ui.state;
  const label = s && s.texts && s.texts.concede_button;
  const b = concedeButton();
  b.hidden = !label || !!ui.final;
  if (label) b.textContent = label;
}

let toastTimer = null;
function toast(text) {
  const box = $("notice");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 2500);
}

// -- what stays visible: the finished trick and the hand's result ---------------------
function pump() {
  if (ui.held || !ui.queue.length) { flushToast(); return; }
  const held = ui.queue.shift();
  held.since = performance.now();
  held.sweeping = false;
  ui.held = held;
  ui.tricks.push({ key: held.key, winner: held.winner, text: held.text, shownAt: held.since, sweptAt: null });
  held.timer = setTimeout(sweep, ui.queue.length ? HOLD_NEXT_MS : HOLD_MS);
  flushToast();
}
// The hand's result comes with its last trick on the felt, not before its other tricks.
function flushToast() {
  if (ui.nextToast && !ui.queue.length) {
    const result = ui.nextToast;
    ui.nextToast = null;
    showHandToast(result);
  }
}
function sweep() {
  const held = ui.held;
  if (!held || held.sweeping) return;
  clearTimeout(held.timer);
  held.sweeping = true;
  const record = ui.tricks.find((r) => r.key === held.key);
  if (record) record.sweptAt = performance.now();
  const table = $("table");
  table.classList.add(`sweep-${held.winner || "none"}`);
  for (const node of table.querySelectorAll(".card")) node.classList.add("sweep");
  setTimeout(() => {
    if (ui.held === held) ui.held = null;
    pump();
    render();
  }, reducedMotion() ? 0 : SWEEP_MS);
}
// If a new trick queued up while one is held, do not keep the player waiting long.
setInterval(() => {
  const h = ui.held;
  if (h && !h.sweeping && ui.queue.length && performance.now() - h.since > HOLD_NEXT_MS) sweep();
}, 200);

let handToastTimer = null;
function showHandToast(result) {
  const box = $("hand-toast");
  box.textContent = result.text;
  box.className = `hand-toast ${result.winner || "none"}`;
  box.hidden = false;
  const record = { seq: result.seq, text: result.text, shownAt: performance.now(), hiddenAt: null };
  ui.toasts.push(record);
  ui.handToast = record;
  sound(result.winner === "me" ? "won" : result.winner === "opp" ? "lost" : "card");
  clearTimeout(handToastTimer);
  handToastTimer = setTimeout(() => {
    box.hidden = true;
    record.hiddenAt = performance.now();
    ui.handToast = null;
  }, result.game_over ? TOAST_MS * 2 : TOAST_MS);
}

// -- sounds: synthesized, never downloaded -----------------------------------------
let audio = null;
function wakeAudio() {
  if (ui.muted) return;
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!audio && Ctx) { try { audio = new Ctx(); } catch (err) { audio = null; } }
  if (audio && audio.state === "suspended") audio.resume();
}
// The first AudioContext opens the audio device, which blocks this thread (70-680 ms on
// the test machine: the longest stall of a game, on its first tap).  Made while the
// page is idle and nothing can be tapped yet, it starts suspended (no gesture yet) and
// the first tap only resumes it (wakeAudio).
function prewarmAudio() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (ui.muted || audio || !Ctx) return;
  try { audio = new Ctx(); } catch (err) { audio = null; }
}
function tone(freq, at, length, type = "sine", level = 0.12) {
  const t0 = audio.currentTime + at;
  const osc = audio.createOscillator();
  const gain = audio.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  gain.gain.setValueAtTime(0.0001, t0);
  gain.gain.exponentialRampToValueAtTime(level, t0 + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, t0 + length);
  osc.connect(gain).connect(audio.destination);
  osc.start(t0);
  osc.stop(t0 + length + 0.02);
}
function snap() {  // a card on the felt: a short filtered noise burst
  const length = 0.07;
  const buffer = audio.createBuffer(1, Math.floor(audio.sampleRate * length), audio.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
  const src = audio.createBufferSource();
  const filter = audio.createBiquadFilter();
  const gain = audio.createGain();
  src.buffer = buffer;
  filter.type = "bandpass";
  filter.frequency.value = 1800;
  gain.gain.value = 0.5;
  src.connect(filter).connect(gain).connect(audio.destination);
  src.start();
}
const SOUNDS = {
  card: snap,
  turn() { tone(660, 0, 0.14); tone(880, 0.12, 0.22); },
  won() { tone(523, 0, 0.16, "triangle"); tone(659, 0.12, 0.16, "triangle"); tone(784, 0.24, 0.32, "triangle"); },
  lost() { tone(392, 0, 0.2, "triangle"); tone(311, 0.18, 0.36, "triangle"); },
};
function sound(name) {
  if (ui.muted) return;
  ui.sounds.push(name);
  if (!audio || audio.state !== "running") return;
  try { SOUNDS[name](); } catch (err) { /* never break the table for a sound */ }
}
function toggleSound() {
  ui.muted = !ui.muted;
  try { localStorage.setItem("truc-p2p.muted", ui.muted ? "1" : "0"); } catch (err) { /* ignore */ }
  if (!ui.muted) wakeAudio();
  renderTools();
}

// -- drawing ---------------------------------------------------------------------
function card(c, opts = {}) {
  const node = el(opts.action ? "button" : "div", "card" + (c.red ? " red" : ""));
  node.dataset.card = c.card;
  const name = c.name || `${c.rank}${c.symbol}`;
  // on the felt the card says who played it ("seven of hearts, Bob")
  node.setAttribute("aria-label", opts.who ? tx("card_by", "{card}, {name}", { card: name, name: opts.who }) : name);
  if (!opts.action) node.setAttribute("role", "img");
  node.classList.add(`suit-${c.suit}`);
  node.append(el("span", "corner", `${c.rank}${c.symbol}`), el("span", "pip", c.symbol));
  if (opts.by) node.classList.add(opts.by);
  if (opts.action) {
    node.type = "button";
    node.classList.add("playable");
    node.dataset.action = opts.action;
    node.addEventListener("click", () => act(opts.action));
    if (opts.key) {
      node.setAttribute("aria-keyshortcuts", opts.key);
      const key = el("span", "key", opts.key);
      key.setAttribute("aria-hidden", "true");
      node.append(key);
    }
  }
  return node;
}
function back() {
  const node = el("div", "card back");
  node.setAttribute("aria-hidden", "true");  // the opponent's hand says how many it holds
  return node;
}

function applyTexts() {
  // a touch screen has no keys: "leave", "? rules" (the key hints are hidden there too)
  const touch = window.matchMedia("(hover: none) and (pointer: coarse)").matches;
  $("help-btn").textContent = touch ? tx("help_button_touch", "? rules") : tx("help_button", "? rules & keys");
  $("help-btn").setAttribute("aria-label", tx("rules", "rules and keys"));
  $("quit-btn").textContent = touch ? tx("leave", "leave") : tx("leave_button", "leave (q)");
  $("quit-btn").setAttribute("aria-label", tx("leave", "leave"));
  $("my-hand").setAttribute("aria-label", tx("your_hand", "your hand"));
  $("table").setAttribute("aria-label", tx("on_table", "cards on the table"));
  $("buttons").setAttribute("aria-label", tx("choices", "your choices"));
  $("help").setAttribute("aria-label", tx("rules", "rules and keys"));
  $("help-close").textContent = tx("close", "close");
  if (ui.texts.help) drawHelp(ui.texts.help);
  $("invite-title").textContent = tx("invite_title", "Send this invite to your opponent");
  $("invite-copy").textContent = tx("copy", "copy");
  $("tricks").setAttribute("aria-label", tx("tricks", "tricks this hand"));
  $("log").setAttribute("aria-label", tx("log", "what happened"));
  $("final-report-label").textContent = tx("verifier_report", "verifier report");
  $("final-closed").textContent = tx("close_tab", "You can close this tab.");
  $("final-again").textContent = tx("play_again", "play again");
  $("final-stop").textContent = tx("stop_here", "stop here");
  $("start-title").textContent = tx("choose_level", "Choose your opponent");
  $("start-name-label").textContent = tx("your_name", "your name, shown to your opponent");
  $("start-go").textContent = tx("start", "start");
  if ($("start-longer")) $("start-longer").textContent = tx("longer", "A longer game? (optional)");
  $("final-level-label").textContent = tx("next_level", "next opponent");
  drawLevels();
  drawVariants();
  document.querySelectorAll(".chip").forEach((c) => { c.textContent = tx("dealer", "dealer"); });
  drawLanguages();
  renderTools();
}

// The language menu: the server sends the languages and the one in use with the texts,
// and answers a {"type": "lang"} message with every text again in that language.
function drawLanguages() {
  const menu = $("lang-menu");
  const langs = ui.texts.languages || [];
  if (ui.texts.lang) document.documentElement.lang = ui.texts.lang;
  menu.setAttribute("aria-label", tx("language", "language"));
  menu.hidden = langs.length === 0;
  if (menu.options.length !== langs.length) {
    menu.replaceChildren(...langs.map((l) => { const o = el("option", "", l.name); o.value = l.code; return o; }));
  }
  if (ui.texts.lang) menu.value = ui.texts.lang;
}

// The help is the terminal's (one text to translate): its first line is the title,
// "  * " starts a point, an indented line continues one, the rest is the keys paragraph.
function drawHelp(text) {
  const box = $("help-text");
  box.replaceChildren();
  const [title, ...lines] = text.split("\n");
  const list = el("ul");
  const after = [];
  for (const line of lines) {
    if (/^\s*\* /.test(line)) list.append(el("li", "", line.replace(/^\s*\* /, "")));
    else if (/^\s{3,}\S/.test(line) && list.lastChild && !after.length) list.lastChild.textContent += " " + line.trim();
    else after.push(line.trim());
  }
  box.append(el("h2", "", title), list, el("p", "keys", after.join(" ")),
    el("p", "keys", tx("say_key", "s: hear the score, the cards on the table and your hand")));
}

// Toggles keep their name; aria-pressed (and the look) says whether each is on.
function renderTools() {
  const b = $("sound-btn");
  b.textContent = tx("sound", "sound");
  b.setAttribute("aria-pressed", ui.muted ? "false" : "true");
  const c = $("colours-btn");
  c.textContent = tx("four_colours", "four-colour deck");
  c.setAttribute("aria-pressed", ui.fourColours ? "true" : "false");
  document.body.classList.toggle("four-colours", ui.fourColours);
}
function toggleColours() {
  ui.fourColours = !ui.fourColours;
  try { localStorage.setItem("truc-p2p.four-colours", ui.fourColours ? "1" : "0"); } catch (err) { /* ignore */ }
  renderTools();
}

const drawn = { table: null, hand: null, opp: null };
const seenCards = new Set();  // cards already animated in (hand/trick/card)

function render() {
  const s = ui.state;
  const t = s && s.table;
  const started = s && s.started;
  const myTurn = !!(t && t.turn != null);
  document.body.classList.toggle("my-turn", myTurn);
  document.body.classList.toggle("no-table", !t);
  document.title = (s && s.title) || tx("title", "Le Truc — truc-p2p");
  setFavicon(myTurn);
  renderConcede();
  if (started) {
    // "you (you)" says nothing: a player named "you" (the lesson's learner) is just that
    const you = tx("you_short", "you");
    $("me-name").textContent = started.me === you ? you : tx("you", "{name} (you)", { name: started.me });
    $("opp-name").textContent = started.opp;
    $("opp-name").title = started.opp_fingerprint;
  }
  // "game 1 of 3" from the first game of a match on, then the match score beside it
  // (once a game is over, the score after it, as its end screen says it)
  const score = (ui.final && ui.final.match_line) || (s && s.match_line) || ui.matchLine;
  const matchLine = [s && s.game_line, score]
    .filter(Boolean).join(" — ");
  $("match-line").hidden = !matchLine;
  $("match-line").textContent = matchLine;
  $("banner-conn").hidden = ui.connected || !!ui.final;
  $("banner-conn").textContent = tx("conn_lost", "lost the connection to the game program; retrying…");
  renderInvite(started);
  renderStart();
  renderClockNote(s, t);
  renderLesson(s);
  renderTable(t);
  renderLog();
  renderFinal();
  tick();
}

let favicon = null;
function setFavicon(mine) {
  if (favicon === mine) return;
  favicon = mine;
  const colour = mine ? "%23ffca28" : "%231f6b45";
  const ring = mine ? "%23c62828" : "%230a2c1d";
  $("favicon").href = "data:image/svg+xml," +
    `<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><circle cx='8' cy='8' r='6.5' fill='${colour}' stroke='${ring}' stroke-width='2'/></svg>`;
}

function renderInvite(started) {
  const box = $("invite");
  const inv = ui.invite;
  box.hidden = !inv || !!started;
  if (box.hidden) return;
  $("invite-text").textContent = inv.text;
  $("invite-hint").textContent = inv.hint || "";
  $("invite-hint").hidden = !inv.hint;
}

// play: the bot's level.  The start panel (before the first game, when no --bot was
// given) and the end screen's menu (for a rematch) offer the levels the texts list.
function levelChoice() {
  const picked = document.querySelector("#start-levels input:checked");
  return picked ? picked.value : (ui.levels && ui.levels.level) || "medium";
}
function drawLevels() {
  const levels = ui.texts.levels || [];
  const chosen = $("start-levels").children.length ? levelChoice() : null;
  $("start-levels").replaceChildren(...levels.map((l) => {
    const box = el("label", "level");
    const radio = el("input");
    radio.type = "radio";
    radio.name = "level";
    radio.value = l.code;
    box.dataset.level = l.code;
    const words = el("span");
    words.append(el("span", "level-name", l.name), el("span", "level-text", l.text));
    box.append(radio, words);
    return box;
  }));
  const menu = $("final-level");
  const kept = menu.value;
  // the menu names the levels; the chosen one's words go under it (a phone's narrow
  // select cut "medium — raises on good hands, re…")
  menu.replaceChildren(...levels.map((l) => {
    const o = el("option", "", l.name);
    o.value = l.code;
    return o;
  }));
  if (kept) menu.value = kept;
  describeLevel();
  if (chosen) pickLevel(chosen);
}
// play: the rule variants of a longer game the start panel offers (issue 42), as
// checkboxes under the levels, each with the line saying what it changes; none ticked
// at first (a game to 12, as always)
function drawVariants() {
  const offered = (ui.levels && ui.levels.variants) || [];
  const ticked = new Set(variantChoice());
  const box = $("start-variants");
  if (!box) return;
  box.replaceChildren(box.firstElementChild, ...(ui.texts.variants || [])
    .filter((v) => offered.includes(v.code)).map((v) => {
      const label = el("label", "level variant");
      const tick = el("input");
      tick.type = "checkbox";
      tick.name = "variant";
      tick.value = v.code;
      tick.checked = ticked.has(v.code);
      label.dataset.variant = v.code;
      const words = el("span");
      words.append(el("span", "level-name", v.name), el("span", "level-text", v.text));
      label.append(tick, words);
      return label;
    }));
  box.hidden = offered.length === 0;
}
function variantChoice() {
  return [...document.querySelectorAll("#start-variants input:checked")].map((i) => i.value);
}
function describeLevel() {
  let words = $("final-level-text");
  if (!words) {
    words = el("span", "level-text");
    words.id = "final-level-text";
    $("final-level").after(words);
    $("final-level").setAttribute("aria-describedby", words.id);
  }
  const level = (ui.texts.levels || []).find((l) => l.code === $("final-level").value);
  words.textContent = level ? level.text : "";
}
function pickLevel(code) {
  const radio = document.querySelector(`#start-levels input[value="${code}"]`);
  if (radio) radio.checked = true;
}
// The clock of every move, said before the game and through its first trick (as
// the terminal says it once at the start); the status line then ticks it.
function renderClockNote(s, t) {
  const note = (s && s.clock_note) || "";
  const early = !t || (t.hand_no === 1 && t.tricks.length === 0);
  $("clock-note").hidden = !note || !early || !!ui.final;
  $("clock-note").textContent = note;
  $("start-clock").hidden = !note;
  $("start-clock").textContent = note;
}
// learn --web: the lesson's step as a panel above the hand (what happens, what to do,
// and why the last move was refused), as an online game's tutorial shows it.
function renderLesson(s) {
  const lesson = s && s.lesson;
  $("lesson").hidden = !lesson;
  if (!lesson) return;
  $("lesson-step").textContent = lesson.step;
  $("lesson-text").replaceChildren(...(lesson.texts || []).map((t) => el("p", null, t)));
  $("lesson-hint").hidden = !lesson.hint;
  $("lesson-hint").textContent = lesson.hint || "";
}
function renderStart() {
  const ask = !!(ui.levels && ui.levels.ask);
  const panel = $("start");
  const opening = ask && panel.hidden;
  if (opening) pickLevel(ui.levels.level || "medium");
  panel.hidden = !ask;
  // a first game asks the player's name too (filled with the login name), as the
  // terminal does; with the level chosen on the command line, only the name
  const asksName = ask && ui.levels.name != null;
  const levels = !ask || ui.levels.choose_level !== false;
  $("start-name-box").hidden = !asksName;
  $("start-title").hidden = !levels;
  panel.setAttribute("aria-labelledby", levels ? "start-title" : "start-name-label");
  $("start-levels").hidden = !levels;
  if (opening) drawVariants();
  if (opening) {  // the keyboard starts on the name, else the chosen level
    const name = $("start-name");
    if (asksName) { name.value = ui.levels.name; name.focus(); name.select(); return; }
    const picked = document.querySelector("#start-levels input:checked");
    if (picked) picked.focus();
  }
}
function startGame() {
  if (!ui.levels || !ui.levels.ask) return;
  const asked = ui.levels.name != null;
  const answer = asked ? { type: "level", level: levelChoice(), name: $("start-name").value }
    : { type: "level", level: levelChoice() };
  if (ui.levels.variants) answer.variants = variantChoice();
  send(answer);
  ui.levels = { ...ui.levels, ask: false };
  render();
}

async function copyInvite() {
  const inv = ui.invite;
  if (!inv) return;
  const button = $("invite-copy");
  let ok = false;
  try { await navigator.clipboard.writeText(inv.text); ok = true; } catch (err) { ok = false; }
  if (!ok) {
    const range = document.createRange();
    range.selectNodeContents($("invite-text"));
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    try { ok = document.execCommand("copy"); } catch (err) { ok = false; }
  }
  button.textContent = ok ? tx("copied", "copied") : tx("copy_failed", "select the invite and copy it");
  setTimeout(() => { button.textContent = tx("copy", "copy"); }, 2000);
}

function renderTable(t) {
  const buttons = $("buttons");
  buttons.replaceChildren();
  if (!t) {  // waiting for a game: nothing of the last one stays (its "my rest" chip...)
    $("score-line").textContent = tx("title", "Le Truc — truc-p2p");
    $("target").textContent = "";
    $("worth").textContent = "";
    $("worth").classList.remove("rest");
    $("rest-banner").hidden = true;
    $("me-dealer").hidden = true;
    $("opp-dealer").hidden = true;
    $("pending").hidden = true;
    $("tricks").replaceChildren();
    $("my-hand").replaceChildren();
    $("opp-hand").replaceChildren();
    drawn.hand = null;
    drawn.opp = null;
    drawTable(null);
    return;
  }
  const s = ui.state;
  $("score-line").textContent = t.score_line;
  $("target").textContent = s.started ? tx("target", "first to {n}", { n: s.started.target }) : "";
  $("worth").textContent = t.worth;
  $("worth").classList.toggle("rest", !!t.rest_answered);
  $("rest-banner").hidden = !t.rest_answered;
  $("rest-banner").textContent = t.worth;
  $("me-dealer").hidden = t.dealer !== "me";
  $("opp-dealer").hidden = t.dealer !== "opp";
  drawHands(t);
  drawTable(t);
  const tricks = $("tricks");
  tricks.replaceChildren();
  // said in words: "tricks: won · lost · to play" (a dash is no word to a screen reader)
  if (t.tricks_line) tricks.setAttribute("aria-label", t.tricks_line.split("–").join(tx("trick_todo", "to play")));
  (t.trick_marks || ["–", "–", "–"]).forEach((mark, i) => {
    const trick = t.tricks[i];
    const chip = el("span", "trick", mark);
    chip.classList.add(trick ? (trick.winner || "none") : "todo");
    tricks.append(chip);
  });
  const p = t.pending;
  const pend = $("pending");
  pend.hidden = !p;
  pend.textContent = p ? p.text : "";
  t.buttons.forEach((b, i) => {
    // the name is the move alone ("accept"); the key is a hint (aria-keyshortcuts, as
    // a screen reader says "shortcut a"), what the move costs its description
    const node = el("button", `act ${b.kind}`);
    node.type = "button";
    node.dataset.action = b.action;
    node.setAttribute("aria-label", b.label);
    node.setAttribute("aria-keyshortcuts", b.key);
    const top = el("span", "label", b.label);
    const kbd = el("kbd", "", b.key);
    kbd.setAttribute("aria-hidden", "true");
    top.append(kbd);
    node.append(top);
    if (b.cost) {
      const cost = el("span", "cost", b.cost);
      cost.id = `act-cost-${i}`;
      node.setAttribute("aria-describedby", cost.id);
      node.append(cost);
    }
    node.addEventListener("click", () => act(b.action));
    buttons.append(node);
  });
}

function drawHands(t) {
  const mine = t.turn != null;
  const handSig = `${t.hand_no}|${mine ? t.turn : "-"}|` + t.hand.map((c) => `${c.card}:${mine ? c.action : ""}:${c.name}`).join(",");
  if (drawn.hand !== handSig) {
    drawn.hand = handSig;
    const hand = $("my-hand");
    hand.replaceChildren();
    t.hand.forEach((c, i) => {
      const node = card(c, { action: mine ? c.action : null, key: c.key });
      // a card that may not be played now says why when tapped (a request to answer first)
      if (mine && !c.action) node.addEventListener("click", () => toast(t.pending && t.pending.by === "opp"
        ? tx("answer_first", "answer the request first: accept, refuse or fold")
        : tx("not_this_card", "this card cannot be played now")));
      const id = `hand/${t.hand_no}/${c.card}`;
      if (!seenCards.has(id)) {
        seenCards.add(id);
        node.classList.add("deal");
        node.style.setProperty("--i", String(i));
      }
      hand.append(node);
    });
  }
  const oppSig = `${t.hand_no}|${t.opp_cards}`;
  if (drawn.opp !== oppSig) {
    drawn.opp = oppSig;
    const opp = $("opp-hand");
    const before = opp.children.length;
    opp.replaceChildren();
    const holds = (ui.texts.opp_cards || [])[t.opp_cards] || "{name}: {n}";
    opp.setAttribute("aria-label", holds.split("{name}").join(oppName()).split("{n}").join(String(t.opp_cards)));
    for (let i = 0; i < t.opp_cards; i++) {
      const node = back();
      if (t.opp_cards > before && i >= before) {
        node.classList.add("deal");
        node.style.setProperty("--i", String(i));
      }
      opp.append(node);
    }
  }
}

function drawTable(t) {
  const held = ui.held;
  const table = $("table");
  const caption = $("trick-caption");
  const oppName = ui.state && ui.state.started ? ui.state.started.opp : "";
  const who = (by) => (by === "me" ? tx("you_short", "you") : oppName);
  let sig;
  let cards;
  if (held) {
    sig = `held|${held.key}`;
    cards = held.cards;
    caption.textContent = held.text;
  } else {
    cards = t ? t.table : [];
    sig = `table|${t ? t.hand_no : ""}|` + cards.map((c) => `${c.card}:${c.name}`).join(",");
    caption.textContent = "";
  }
  if (drawn.table === sig) return;
  drawn.table = sig;
  table.className = "";
  table.replaceChildren();
  for (const c of cards) {
    const node = card(c, { by: c.by, who: who(c.by) });
    const by = el("span", "by", who(c.by));
    by.setAttribute("aria-hidden", "true");
    node.append(by);
    if (held) node.classList.add(held.winner == null ? "spoiled" : held.winner === c.by ? "won" : "beaten");
    const id = `table/${held ? held.hand : t.hand_no}/${c.card}`;
    if (!seenCards.has(id)) {
      seenCards.add(id);
      node.classList.add("enter");
    }
    table.append(node);
  }
}

function renderLog() {
  const log = $("log");
  log.replaceChildren();
  // newest first; a game's heading ("game 2") closes its lines off from the last game's
  for (const line of ui.log.slice(-14).reverse()) {
    const item = el("li", line.who, line.text);
    if (line.who === "game") { item.setAttribute("role", "heading"); item.setAttribute("aria-level", "3"); }
    log.append(item);
  }
}

// The end screen waits until the last trick was on the felt and the last hand's
// result was read (a click or a key shows it at once).
function finalReady() {
  if (!ui.final) return false;
  if (ui.finalAt === 0) return true;
  if (ui.held || ui.queue.length) return false;
  if (ui.finalAt == null) {
    const toast = ui.handToast;
    ui.finalAt = toast ? Math.max(performance.now(), toast.shownAt + 2200) : 0;
  }
  return performance.now() >= ui.finalAt;
}
function hurryFinal() {
  if (!ui.final || ui.finalAt === 0) return;
  ui.finalAt = 0;
  ui.queue.length = 0;
  if (ui.held && !ui.held.sweeping) sweep();
  renderFinal();
}

function renderFinal() {
  const f = ui.final;
  const wasHidden = $("final").hidden;
  $("final").hidden = !finalReady();
  if (!f) return;
  if (wasHidden && !$("final").hidden) {  // the end screen opens: said, and focused
    announce([f.headline, f.score_line, f.match_line].filter(Boolean).join(". "));
    flushAnnounce();
    setTimeout(() => {
      const again = $("final-again");
      (again.hidden ? $("final-headline") : again).focus();
    }, 0);
  }
  $("final-headline").textContent = f.headline;
  $("final").classList.toggle("won", !!f.won);
  $("final-score").textContent = f.score_line || (f.score ? `${f.score.me} – ${f.score.opp}` : "");
  $("final-message").textContent = f.message;
  // the lesson's end: nothing signed nor verified, only what comes next
  const lesson = f.kind === "lesson";
  for (const id of ["final-cosigned", "final-verdict-line", "final-transcript"]) $(id).hidden = lesson;
  $("final-verdict").closest("details").hidden = lesson;
  $("final-cosigned").textContent = f.cosigned_line ||
    (f.cosigned ? "✔ result co-signed by both players" : "no co-signed result");
  $("final-cosigned").className = f.cosigned ? "ok" : "neutral";
  const v = f.verdict;
  // complete / unfinished (left, resigned, lost connection) / violation: only a
  // violation is shown as a fault
  const status = v
    ? (v.status || (v.valid ? "complete" : f.outcome === "protocol-error" ? "violation" : "unfinished"))
    : null;
  const line = $("final-verdict-line");
  line.textContent = v ? (v.line || status) : tx("no_transcript", "no transcript was written");
  line.className = status === "complete" ? "ok" : status === "violation" ? "bad" : "neutral";
  line.dataset.status = status || "none";
  $("final-verdict").textContent = v ? v.summary : "";
  $("final-transcript").textContent = f.transcript ? tx("transcript", "Transcript: {path}", { path: f.transcript }) : "";
  $("final-closed").hidden = ui.connected || !!f.again;
  const matchLine = $("final-match");
  matchLine.hidden = !f.match_line;
  matchLine.textContent = f.match_line || "";
  const again = $("final-again");
  const levelBox = $("final-level-box");
  const offerLevel = f.again === true && !!f.level && !again.disabled;
  if (offerLevel && levelBox.hidden) {  // the current level first
    $("final-level").value = f.level;
    describeLevel();
  }
  levelBox.hidden = !offerLevel;
  again.hidden = !f.again;
  $("final-stop").hidden = !f.again || again.disabled;
  if (!f.again) again.disabled = false;
  if (!again.disabled) {
    again.textContent = f.again_label ||
      (f.again === "next" ? tx("next_game", "next game") : tx("play_again", "play again"));
  }
}

function playAgain() {
  const again = $("final-again");
  if (again.disabled) return;
  again.disabled = true;
  again.textContent = tx("again_waiting", "starting the next game…");
  $("final-stop").hidden = true;
  const levelBox = $("final-level-box");
  const level = levelBox.hidden ? null : $("final-level").value;
  levelBox.hidden = true;
  send(level ? { type: "again", yes: true, level } : { type: "again", yes: true });
}

// The move clock and the reconnect countdown tick without server messages.
function tick() {
  const s = ui.state;
  const t = s && s.table;
  const status = $("status");
  if (ui.final) {
    status.textContent = t ? t.status : "";
  } else if (t) {
    const template = s.status_template;
    status.textContent = template && ui.deadline != null
      ? template.split("{time}").join(clock(ui.secondsLeft()))
      : t.status;
  } else if (ui.invite && ui.connected) {
    status.textContent = tx("waiting_joiner", "waiting for your opponent to join…");
  } else {
    status.textContent = ui.connected ? tx("waiting_start", "waiting for the game to start…") : tx("connecting", "connecting…");
  }
  if (ui.final && $("final").hidden) renderFinal();
  const b = $("banner-disconnect");
  b.hidden = ui.disconnect == null;
  if (ui.disconnect != null) {
    b.textContent = tx("disconnected", "opponent disconnected — waiting {time} for them to come back",
      { time: clock(secondsTo(ui.disconnect)) });
  }
}
setInterval(tick, 250);

document.addEventListener("keydown", (e) => {
  wakeAudio();
  hurryFinal();
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const key = e.key.toLowerCase();
  // typing a name: the letters are the name's, not the game's keys
  if (e.target instanceof HTMLInputElement && e.target.type === "text") {
    if (key === "enter" && !$("start").hidden) startGame();
    return;
  }
  if (key === "escape") { $("help").hidden = true; return; }
  if (key === "?" || key === "h") { $("help").hidden = !$("help").hidden; return; }
  if (!$("start").hidden && key === "enter") { startGame(); return; }
  if (ui.final && ui.final.again && (key === "enter" || key === "y") &&
      document.activeElement !== $("final-level")) { playAgain(); return; }
  if (key === "q") { leave(); return; }
  if (key === "s" && !ui.final) { sayTable(); return; }
  const t = ui.state && ui.state.table;
  const notNow = ui.texts.not_now || {};
  const gameKey = key in notNow || /^[1-3]$/.test(key);
  if (!t || ui.final || !gameKey) return;
  // a key that exists but does nothing now says why (never plays into the next turn)
  if (t.turn == null) { toast(tx("not_your_turn", "wait for your turn")); return; }
  const c = t.hand.find((x) => x.key === key && x.action);
  const b = t.buttons.find((x) => x.key === key) || t.buttons.find((x) => x.alt === key);
  if (c) act(c.action);
  else if (b) act(b.action);
  else if (/^[1-3]$/.test(key)) toast(tx("no_card", "no card {key} to play now", { key }));
  else toast(notNow[key]);
});
// "s": the score, whose move and the time, the felt and the hand, said in the live region
function sayTable() {
  const s = ui.state;
  const t = s && s.table;
  if (!t) return;
  const felt = t.table.length
    ? t.table.map((c) => tx("card_by", "{card}, {name}", { card: c.name, name: c.by === "me" ? tx("you_short", "you") : oppName() })).join("; ")
    : tx("empty_table", "no card on the table");
  const hand = t.hand.length
    ? `${tx("your_hand", "your hand")}: ${t.hand.map((c) => c.name).join(", ")}` : "";
  const status = $("status").textContent;
  const pending = t.pending ? t.pending.text : "";
  announce([t.score_line, t.worth, status, pending, felt, hand].filter(Boolean).join(". "));
  flushAnnounce();
}
document.addEventListener("pointerdown", () => { wakeAudio(); hurryFinal(); });
$("help-btn").addEventListener("click", () => { $("help").hidden = false; $("help-close").focus(); });
$("help-close").addEventListener("click", () => { $("help").hidden = true; });
$("quit-btn").addEventListener("click", leave);
$("sound-btn").addEventListener("click", toggleSound);
$("colours-btn").addEventListener("click", toggleColours);
$("lang-menu").addEventListener("change", (e) => { send({ type: "lang", lang: e.target.value }); e.target.blur(); });
$("invite-copy").addEventListener("click", copyInvite);
$("final-again").addEventListener("click", playAgain);
$("final-level").addEventListener("change", describeLevel);
$("start-go").addEventListener("click", startGame);
$("final-stop").addEventListener("click", leave);
applyTexts();
connect();
render();
(window.requestIdleCallback || ((f) => setTimeout(f, 500)))(prewarmAudio);
