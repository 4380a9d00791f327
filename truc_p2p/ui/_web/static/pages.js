// What the history, replay and lobby pages share: building elements and the
// language menu.  Loaded before each page's own script; it defines `TrucPages`.
"use strict";
window.TrucPages = (function () {
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  // The language menu, as on the table: the server sends the languages and the one in
  // use with its message, and answers {"type": "lang"} with the texts in that language.
  function drawMenu(menu, ws) {
    const select = document.getElementById("lang-menu");
    if (!menu) return;
    document.documentElement.lang = menu.lang;
    select.setAttribute("aria-label", menu.label);
    if (select.options.length !== menu.languages.length) {
      select.replaceChildren(...menu.languages.map((l) => {
        const o = el("option", null, l.name);
        o.value = l.code;
        return o;
      }));
      select.addEventListener("change", () => ws.send(JSON.stringify({ type: "lang", lang: select.value })));
    }
    select.value = menu.lang;
    select.hidden = false;
  }

  return { el, drawMenu };
})();
