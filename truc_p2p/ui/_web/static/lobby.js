// The lobby page: the open games of a relay, refreshed by the program, each with
// a join button. Every text comes from the server (already translated).
"use strict";
(function () {
  const token = new URLSearchParams(location.search).get("token") || "";
  const $ = (id) => document.getElementById(id);
  let ws = null;
  let joining = false;

  const { el, drawMenu } = window.TrucPages;

  function show(m) {
    $("title").textContent = m.labels.title;
    // one card per game: name, rules, how long the host waits, key; join beside
    $("rows").replaceChildren(...m.games.map((g) => {
      const row = el("li", "ok");
      row.dataset.code = g.code;
      const who = el("div", "who");
      const [name, rules, waited, key] = g.cells;
      who.appendChild(el("div", "name", name));
      who.appendChild(el("div", "rules", rules));
      who.appendChild(el("div", "waited", waited));
      who.appendChild(el("div", "key", key));
      row.appendChild(who);
      const button = el("button", "join", m.labels.join);
      button.disabled = joining;
      button.title = g.fingerprint;
      button.setAttribute("aria-label", m.labels.join + " " + name);
      button.addEventListener("click", () => {
        joining = true;
        ws.send(JSON.stringify({ type: "join", code: g.code }));
        document.querySelectorAll("button.join").forEach((b) => { b.disabled = true; });
      });
      row.appendChild(button);
      return row;
    }));
    $("none").hidden = m.games.length > 0;
    $("none").textContent = m.labels.none;
    $("notes").replaceChildren(...m.notes.map((n) => el("li", null, n)));
    $("status").textContent = m.status;
    document.body.dataset.ready = "1";
  }

  ws = new WebSocket("ws://" + location.host + "/ws?token=" + encodeURIComponent(token));
  ws.addEventListener("message", (e) => {
    const m = JSON.parse(e.data);
    if (m.type === "lobby") { show(m); drawMenu(m.menu, ws); }
    if (m.type === "joining") { joining = true; $("status").textContent = m.text; }
  });
  ws.addEventListener("close", () => { if (!joining) $("status").textContent = "disconnected"; });
})();
