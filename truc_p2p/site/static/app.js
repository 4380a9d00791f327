// app.js: the site's main thread.  The game runs in worker.js (Python in a Web Worker);
// this file only shows screens and passes messages: the home screen (play the computer,
// host, join, verify a file, your identity), and the table, which is table.js, the same
// file as `--web`, attached to the worker instead of a WebSocket.
//
// Every text comes from the worker, in the player's language; nothing received is
// ever put in as HTML (textContent only).
const $ = (id) => document.getElementById(id);
const app = {
  texts: {}, screen: "loading", level: "medium", levels: [], variants: new Set(), transcript: null,
  fingerprint: null, verdict: null, ready: false, failed: null, lobby: null,
};
window.trucApp = app;  // read by the tests

const worker = new Worker("worker.js", { type: "module" });
const toWorker = (message, data) => {
  if (data) worker.postMessage({ kind: "page", message, data }, [data.buffer]);
  else worker.postMessage({ kind: "page", message });
};

// -- screens ---------------------------------------------------------------------------
function show(screen) {
  app.screen = screen;
  for (const name of ["loading", "home", "table"]) {
    $(`app-${name}`).hidden = name !== screen;
    document.body.classList.toggle(`screen-${name}`, name === screen);
  }
  if (screen === "home") window.scrollTo(0, 0);
}

function text(id, key) {
  const value = app.texts[key];
  if (value) $(id).textContent = value;
}
function applyTexts() {
  const t = app.texts;
  text("t-title", "title");
  text("t-tagline", "tagline");
  text("t-play-bot", "play_bot");
  text("app-bot-go", "play_bot");
  text("t-host", "host");
  text("t-host-text", "host_text");
  text("app-host-go", "host");
  text("t-relay", "relay");
  for (const option of $("app-match").options) {  // a single game, or a match of N (4.1)
    const said = option.value === "1" ? t.single_game : t["match_" + option.value];
    if (said) option.textContent = said;
  }
  text("t-join", "join");
  text("t-join-text", "join_text");
  text("app-join-go", "join_button");
  text("t-invite-label", "invite_placeholder");
  if (t.invite_placeholder) $("app-invite").placeholder = t.invite_placeholder;
  text("t-lobby", "lobby");
  text("app-lobby-go", "lobby_refresh");
  if (app.lobby && !app.lobby.error && !app.lobby.games.length) text("app-lobby-note", "lobby_empty");
  text("t-verify", "verify");
  text("t-verify-text", "verify_text");
  text("t-choose-file", "choose_file");
  text("t-report", "verifier_report");
  text("t-identity", "identity");
  text("t-identity-text", "identity_text");
  text("t-fingerprint", "fingerprint");
  text("t-name", "name");
  text("app-key-export", "export_key");
  text("t-import-key", "import_key");
  text("app-download", "download");
  text("app-final-download", "download");
  text("app-home-btn", "home");
  text("app-final-home", "home");
  text("app-share", "share_link");
  if (t.loading && !app.ready) $("app-progress").textContent = t.loading;
  if (t.title) document.title = t.title;
}

// the levels and the languages come with the table's texts (ui page_texts)
function tableTexts(m) {
  if (Array.isArray(m.levels)) {
    app.levels = m.levels;
    const box = $("app-levels");
    box.replaceChildren();
    for (const level of m.levels) {
      const label = document.createElement("label");
      label.className = "app-level";
      const input = document.createElement("input");
      input.type = "radio";
      input.name = "app-level";
      input.value = level.code;
      input.checked = level.code === app.level;
      input.addEventListener("change", () => { app.level = level.code; });
      const name = document.createElement("strong");
      name.textContent = level.name;
      const about = document.createElement("span");
      about.textContent = level.text;
      label.append(input, name, about);
      box.append(label);
    }
  }
  // the rule variants of a longer game (issue 42), as the --web start panel's: unticked
  // at first, each with the line of what it changes; kept ticked across a language change
  if (Array.isArray(m.variants)) {
    const box = $("app-variants");
    if (m.longer) $("t-longer").textContent = m.longer;
    box.replaceChildren(box.firstElementChild);
    for (const v of m.variants) {
      const label = document.createElement("label");
      label.className = "app-level app-variant";
      label.dataset.variant = v.code;
      const input = document.createElement("input");
      input.type = "checkbox";
      input.name = "app-variant";
      input.value = v.code;
      input.checked = app.variants.has(v.code);
      input.addEventListener("change", () => {
        if (input.checked) app.variants.add(v.code); else app.variants.delete(v.code);
      });
      const name = document.createElement("strong");
      name.textContent = v.name;
      const about = document.createElement("span");
      about.textContent = v.text;
      label.append(input, name, about);
      box.append(label);
    }
    box.hidden = m.variants.length === 0;
  }
  if (Array.isArray(m.languages)) {
    const menu = $("app-lang");
    menu.replaceChildren();
    for (const lang of m.languages) {
      const option = document.createElement("option");
      option.value = lang.code;
      option.textContent = lang.name;
      option.selected = lang.code === m.lang;
      menu.append(option);
    }
    if (m.language) menu.setAttribute("aria-label", m.language);
    if (m.lang) document.documentElement.lang = m.lang;
  }
}

function error(message) {
  const box = $("app-error");
  box.textContent = message || "";
  box.hidden = !message;
}

// -- messages from the worker ------------------------------------------------------------
const appHandlers = {
  app_texts(m) { app.texts = m; applyTexts(); },
  app(m) {
    if (m.transcript !== undefined) {
      app.transcript = m.transcript;
      $("app-download").hidden = !m.transcript;
    }
    if (m.screen) {
      if (m.screen === "home") { app.transcript = null; $("app-download").hidden = true; }
      show(m.screen);
    }
  },
  identity(m) {
    app.fingerprint = m.fingerprint;
    $("app-fingerprint").textContent = m.fingerprint;
    if (document.activeElement !== $("app-name")) $("app-name").value = m.name || "";
  },
  verdict(m) {
    app.verdict = m;
    $("app-verdict").hidden = false;
    const headline = $("app-verdict-headline");
    headline.textContent = m.headline || m.status;
    headline.className = `app-verdict-headline ${m.status}`;
    $("app-verdict-summary").textContent = m.summary || "";
    // on a phone the verdict lands under the file button, often below the fold
    $("app-verdict").scrollIntoView({ block: "nearest" });
  },
  // the relay's open games (connect.md 2.2): every peer-given text by textContent only
  lobby(m) {
    app.lobby = { error: m.error || null, games: m.games || [] };
    const list = $("app-lobby");
    list.replaceChildren();
    for (const game of app.lobby.games) {
      const item = document.createElement("li");
      item.className = "app-lobby-game";
      const about = document.createElement("div");
      const name = document.createElement("strong");
      name.textContent = game.name;
      const line = document.createElement("span");
      line.textContent = `${game.settings} · ${game.waiting}`;
      about.append(name, line);
      const join = document.createElement("button");
      join.type = "button";
      join.textContent = app.texts.join_button || "join";
      join.addEventListener("click", () => { error(""); toWorker({ type: "join", invite: game.invite }); });
      item.append(about, join);
      list.append(item);
    }
    const note = $("app-lobby-note");
    note.textContent = m.error || (app.lobby.games.length ? "" : app.texts.lobby_empty || "no open games");
    note.hidden = !note.textContent;
  },
  app_error(m) { error(m.text); if (app.screen !== "home") show("home"); },
};

function fromWorker(message) {
  const handler = appHandlers[message.type];
  if (handler) { handler(message); return; }
  if (message.type === "texts") tableTexts(message);
  if (message.type === "invite") $("app-share").hidden = !navigator.share;
  if (window.trucTable) window.trucTable.handle(message);
}

function save(name, data) {
  const url = URL.createObjectURL(new Blob([data], { type: "application/octet-stream" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

worker.addEventListener("message", ({ data }) => {
  if (!data) return;
  if (data.kind === "progress") {
    if (!app.ready) $("app-progress").textContent = app.texts.loading || data.text;
  } else if (data.kind === "ready") {
    app.ready = true;
    app.readyAt = performance.now();  // read by benchmarks/site_game.py
    if (app.screen === "loading") show("home");  // a resumed game shows its table
    askLobby();
    joinFromLink();
  } else if (data.kind === "page") {
    fromWorker(data.message);
  } else if (data.kind === "download") {
    save(data.name, data.data);
  } else if (data.kind === "failed") {
    app.failed = data.text;
    if (!app.ready) $("app-progress").textContent = data.text;
    else error(data.text);
  }
});
worker.addEventListener("error", (event) => {
  app.failed = event.message || "the worker failed";
  $("app-progress").textContent = app.failed;
});

// -- the home screen's actions -----------------------------------------------------------
function relayDefault() {
  const port = location.port || (location.protocol === "https:" ? "443" : "80");
  return `${location.hostname}:${port}`;
}
function siteBase() { return `${location.origin}${location.pathname}`; }

// an invite link (<site>#join=<invite>) opens here: the invite never reaches a server
function joinFromLink() {
  const hash = location.hash;
  if (!hash.startsWith("#join=")) return;
  history.replaceState(null, "", location.pathname + location.search);
  error("");
  toWorker({ type: "join", invite: hash });
}
window.addEventListener("hashchange", () => { if (app.ready) joinFromLink(); });

function askLobby() { toWorker({ type: "lobby", relay: $("app-relay").value.trim() }); }

function readFile(input, then) {
  const file = input.files && input.files[0];
  input.value = "";
  if (!file) return;
  file.arrayBuffer().then((buffer) => then(file.name, new Uint8Array(buffer)));
}
function verifyFile(name, bytes) {
  $("app-verdict").hidden = true;
  toWorker({ type: "verify", name }, bytes);
}

function wire() {
  $("app-bot-go").addEventListener("click", () => { error(""); toWorker({ type: "bot", level: app.level, variants: [...app.variants] }); });
  $("app-relay").value = relayDefault();
  $("app-host-go").addEventListener("click", () => {
    error("");
    toWorker({
      type: "host", relay: $("app-relay").value.trim(), site: siteBase(),
      match: Number($("app-match").value),
    });
  });
  $("app-join-go").addEventListener("click", () => {
    error("");
    toWorker({ type: "join", invite: $("app-invite").value });
  });
  $("app-invite").addEventListener("keydown", (e) => { if (e.key === "Enter") $("app-join-go").click(); });
  $("app-lobby-go").addEventListener("click", askLobby);
  $("app-verify-file").addEventListener("change", (e) => readFile(e.target, verifyFile));
  const drop = $("app-drop");
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const file = e.dataTransfer && e.dataTransfer.files[0];
    if (file) file.arrayBuffer().then((buffer) => verifyFile(file.name, new Uint8Array(buffer)));
  });
  $("app-name").addEventListener("change", (e) => toWorker({ type: "name", name: e.target.value }));
  $("app-key-export").addEventListener("click", () => toWorker({ type: "identity_export" }));
  $("app-key-file").addEventListener("change", (e) => readFile(e.target, (_name, bytes) => {
    toWorker({ type: "identity_import" }, bytes);
  }));
  $("app-lang").addEventListener("change", (e) => toWorker({ type: "lang", lang: e.target.value }));
  const download = () => toWorker({ type: "download" });
  $("app-download").addEventListener("click", download);
  $("app-final-download").addEventListener("click", download);
  const home = () => {
    const ui = window.truc;  // table.js's state
    const playing = ui && ui.state && ui.state.started && !ui.final;
    const ask = ui && ui.state && ui.state.texts && ui.state.texts.leave_confirm;
    if (playing && !window.confirm(ask || "Leave the game?")) return;
    $("final").hidden = true;
    toWorker({ type: "home" });
  };
  $("app-home-btn").addEventListener("click", home);
  $("app-final-home").addEventListener("click", home);
  $("app-share").addEventListener("click", () => {
    const link = $("invite-text").textContent;
    if (navigator.share && link) navigator.share({ url: link }).catch(() => {});
  });
  if (window.trucTable) window.trucTable.attach((message) => toWorker(message));
  worker.postMessage({
    kind: "start", lang: navigator.language || "en", site: siteBase(), relay: relayDefault(),
  });
}

// table.js (a deferred script before this module) has run by now; DOMContentLoaded waits
// for both either way.
if (document.readyState === "complete") wire();
else document.addEventListener("DOMContentLoaded", wire);
