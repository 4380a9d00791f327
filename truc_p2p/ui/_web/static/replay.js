// The replay page: gets every step of the game at once and steps through them.
// Every text comes from the server (already translated); this only places it.
"use strict";
(function () {
  const params = new URLSearchParams(location.search);
  const token = params.get("token") || "";
  // From the history page: ask the server for this game's replay.
  const wanted = params.has("game") ? Number(params.get("game")) : null;
  const $ = (id) => document.getElementById(id);
  let replay = null;
  let index = 0;

  const { el, drawMenu } = window.TrucPages;

  // a card as the table draws it (table.js): its corner, its pip, its suit's colour
  function card(c, who) {
    const e = el("div", "card" + (c.red ? " red" : "") + " suit-" + c.suit);
    e.dataset.card = c.card;
    // a screen reader says the card's name, and on the felt who played it
    const name = c.name || c.rank + c.symbol;
    e.setAttribute("role", "img");
    e.setAttribute("aria-label", who ? name + ", " + who : name);
    e.appendChild(el("span", "corner", c.rank + c.symbol));
    e.appendChild(el("span", "pip", c.symbol));
    if (c.by) e.classList.add(c.by);
    if (who) {
      const by = el("span", "by", who);
      by.setAttribute("aria-hidden", "true");
      e.appendChild(by);
    }
    return e;
  }

  function backs(n) {
    const box = document.createDocumentFragment();
    for (let i = 0; i < n; i++) {
      const b = el("div", "card back");
      b.setAttribute("aria-hidden", "true");
      box.appendChild(b);
    }
    return box;
  }

  // the owner's own hand: the cards the step holds face up (its whole hand when its
  // secret and key rebuilt the game, else those it played later in this deal), the
  // rest face down; a spectator's replay shows only backs
  function ownHand(s) {
    const box = document.createDocumentFragment();
    const mine = s.mine || [];
    mine.forEach((c) => box.appendChild(card(c, null)));
    box.appendChild(backs(Math.max(0, s.held.me - mine.length)));
    return box;
  }

  function starts() {
    const found = {};
    replay.steps.forEach((s, i) => { if (!(s.hand in found)) found[s.hand] = i; });
    return found;
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  }

  function render() {
    const s = replay.steps[index];
    const L = replay.labels;
    $("me-name").textContent = s.me_name;
    $("opp-name").textContent = s.opp_name;
    $("score-line").textContent = s.score_line;
    $("worth").textContent = s.worth;
    $("worth").classList.toggle("rest", !!s.rest_on);
    $("rest-banner").hidden = !s.rest_on;
    $("rest-banner").textContent = s.worth;
    $("tricks-line").textContent = s.tricks_line || "";
    $("me-dealer").textContent = L.dealer || "dealer";
    $("opp-dealer").textContent = L.dealer || "dealer";
    $("hand-of").textContent = fill(L.hand_of, { hand: s.hand, hands: replay.hands });
    $("me-dealer").hidden = s.dealer !== "me";
    $("opp-dealer").hidden = s.dealer !== "opp";
    $("me-hand").replaceChildren(ownHand(s));
    $("me-hand").classList.toggle("small", !(s.mine && s.mine.length));
    $("opp-hand").replaceChildren(backs(s.held.opp));
    // under a played card: "you" in the replay of your own transcript, as on the table
    const names = { me: replay.own ? (L.you || s.me_name) : s.me_name, opp: s.opp_name };
    const table = $("table");
    table.replaceChildren();
    let caption = "";
    if (s.table.length) {
      s.table.forEach((c) => table.appendChild(card(c, names[c.by])));
      caption = L.table;
    } else if (s.kind === "move" && s.last_trick) {
      const w = s.last_trick.winner;  // the trick just finished, marked as on the table
      s.last_trick.cards.forEach((c) => {
        const node = card(c, names[c.by]);
        node.classList.add(w == null ? "spoiled" : w === c.by ? "won" : "beaten");
        table.appendChild(node);
      });
      caption = s.last_trick.text;
    }
    $("trick-caption").textContent = caption;
    $("lines").replaceChildren(...s.lines.map((t) => el("p", null, t)));
    $("proof").textContent = s.proof || "";
    $("proof").classList.toggle("bad", s.kind === "end" && !replay.valid);
    $("step-of").textContent = fill(L.step, { i: index + 1, n: replay.steps.length });
    $("prev").disabled = index === 0;
    $("next").disabled = index === replay.steps.length - 1;
    const st = starts();
    $("prev-hand").disabled = index === 0;
    $("next-hand").disabled = !((s.hand + 1) in st);
    Array.from($("hands").children).forEach((b) => {
      b.classList.toggle("current", Number(b.dataset.hand) === s.hand);
    });
    document.body.dataset.step = String(index);
  }

  function go(i) {
    index = Math.max(0, Math.min(replay.steps.length - 1, i));
    render();
  }

  function hand(h) {
    const st = starts();
    if (h in st) go(st[h]);
  }

  // the review (truc-p2p review, made by the server): the biggest costs first, then
  // every judged decision; each goes to the step of its move
  function decision(d) {
    const item = el("li");
    item.dataset.cost = String(d.cost);
    const at = replay.steps.findIndex((s) => d.message != null && s.message === d.message);
    if (at < 0) { item.textContent = d.line; return item; }
    const b = el("button", null, d.line);
    b.type = "button";
    b.addEventListener("click", () => go(at));
    item.appendChild(b);
    return item;
  }
  function drawReview() {
    const r = replay.review;
    $("review").hidden = !r;
    if (!r) return;
    $("review-summary").textContent = r.summary;
    $("review-title").textContent = r.title;
    $("review-title").hidden = !r.top.length;
    $("review-top").replaceChildren(...r.top.map(decision));
    $("review-none").hidden = !r.none;
    $("review-none").textContent = r.none || "";
    $("review-every").textContent = r.every;
    $("review-all-box").hidden = !r.decisions.length;
    $("review-all").replaceChildren(...r.decisions.map(decision));
  }

  function setup(message) {
    replay = message;
    const L = replay.labels;
    $("header").replaceChildren(...replay.header.map((t) => el("li", null, t)));
    $("prev").textContent = L.previous;
    $("next").textContent = L.next;
    $("prev-hand").textContent = L.previous_hand;
    $("next-hand").textContent = L.next_hand;
    const nav = $("hands");
    nav.setAttribute("aria-label", L.hands || "hands");
    nav.replaceChildren();
    for (let h = 1; h <= replay.hands; h++) {
      const b = el("button", null, L.hand + " " + h);
      b.type = "button";
      b.dataset.hand = String(h);
      b.addEventListener("click", () => hand(h));
      nav.appendChild(b);
    }
    drawReview();
    $("status").textContent = "";
    if (replay.steps.length) go(0);
  }

  $("next").addEventListener("click", () => go(index + 1));
  $("prev").addEventListener("click", () => go(index - 1));
  $("next-hand").addEventListener("click", () => hand(replay.steps[index].hand + 1));
  $("prev-hand").addEventListener("click", () => {
    const s = replay.steps[index];
    const st = starts();
    hand(index === st[s.hand] ? s.hand - 1 : s.hand);
  });
  document.addEventListener("keydown", (e) => {
    if (!replay) return;
    if (e.key === "ArrowRight" || e.key === "Enter" || e.key === " ") go(index + 1);
    else if (e.key === "ArrowLeft") go(index - 1);
    else if (e.key === "n") hand(replay.steps[index].hand + 1);
    else if (e.key === "p") $("prev-hand").click();
    else if (/^[1-9]$/.test(e.key)) hand(Number(e.key));
  });

  const ws = new WebSocket("ws://" + location.host + "/ws?token=" + encodeURIComponent(token));
  ws.addEventListener("open", () => {
    if (wanted !== null) ws.send(JSON.stringify({ type: "open", game: wanted }));
  });
  ws.addEventListener("message", (e) => {
    const m = JSON.parse(e.data);
    if (m.type === "replay" && (wanted === null || m.game === wanted)) {
      if (!replay) setup(m);
      else if (m.menu && replay.menu && m.menu.lang !== replay.menu.lang) {
        const at = index;  // the same game in another language: stay on this step
        setup(m);
        go(at);
      }
      drawMenu(m.menu, ws);
    }
    if (m.type === "games" && wanted !== null) {
      const back = $("back");
      back.href = "games.html?token=" + encodeURIComponent(token);
      back.textContent = m.labels.title;
      back.hidden = false;
    }
  });
  ws.addEventListener("close", () => { if (!replay) $("status").textContent = "disconnected"; });
})();
