// The history page: the games of a folder, each with a link to its replay.
// Every text comes from the server (already translated); this only places it.
"use strict";
(function () {
  const token = new URLSearchParams(location.search).get("token") || "";
  const $ = (id) => document.getElementById(id);

  const { el, drawMenu } = window.TrucPages;

  function show(m) {
    $("title").textContent = m.labels.title;
    $("columns").replaceChildren(...m.columns.map((c) => el("th", null, c)), el("th"));
    $("rows").replaceChildren(...m.games.flatMap((g) => {
      // a match: its heading above its games, as `truc-p2p games` prints it
      const heading = [];
      if (g.match) {
        const head = el("tr", "match");
        const cell = el("th", null, g.match);
        cell.colSpan = m.columns.length + 1;
        cell.scope = "rowgroup";
        head.appendChild(cell);
        heading.push(head);
      }
      // verified, checked so far (a game that stopped), or broken
      const row = el("tr", g.ok ? "ok" : g.checked === "so far" ? "so-far" : "bad");
      if (g.in_match) row.classList.add("in-match");
      row.dataset.game = String(g.game);
      g.cells.forEach((c) => row.appendChild(el("td", null, c)));
      const link = el("a", "replay", m.labels.replay);
      link.href = "replay.html?token=" + encodeURIComponent(token) + "&game=" + g.game;
      link.title = g.file;
      const cell = el("td");
      cell.appendChild(link);
      row.appendChild(cell);
      return [...heading, row];
    }));
    $("none").hidden = m.games.length > 0;
    $("none").textContent = m.labels.none;
    $("records-title").textContent = m.records.length ? m.records_title : "";
    $("records").replaceChildren(...m.records.map((r) => el("li", null, r)));
    $("status").textContent = "";
    document.body.dataset.ready = "1";
  }

  const ws = new WebSocket("ws://" + location.host + "/ws?token=" + encodeURIComponent(token));
  ws.addEventListener("message", (e) => {
    const m = JSON.parse(e.data);
    if (m.type === "games") { show(m); drawMenu(m.menu, ws); }
  });
  ws.addEventListener("close", () => { $("status").textContent = "disconnected"; });
})();
