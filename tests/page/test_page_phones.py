"""The browser contexts the page's browser tests share (helpers.page.Phone): a phone
that takes a context an earlier phone gave back starts as a new player would (no
identity key, no stored game, no cookie, local storage, service worker or cache),
except that the page's Python starts from the memory snapshot the origin kept, which
boot.js still reads and checks."""

from __future__ import annotations

from typing import Any

import pytest
from helpers.page import Phone

#: a browser and the relay's site: out of the fast loop
pytestmark = pytest.mark.slow

#: In the page: leave a mark in each kind of storage a visit keeps.
_MARK_JS = """async () => {
  localStorage.setItem("pool-mark", "1");
  document.cookie = "pool-mark=1; max-age=3600";
  await new Promise((done, failed) => {
    const request = indexedDB.open("pool-mark", 1);
    request.onupgradeneeded = () => request.result.createObjectStore("kv");
    request.onsuccess = () => { request.result.close(); done(); };
    request.onerror = () => failed(request.error);
  });
  await (await caches.open("pool-mark")).put("/pool-mark", new Response("1"));
}"""

#: In the page: the marks found, and what else the origin keeps.
_FOUND_JS = """async () => ({
  local: localStorage.getItem("pool-mark"),
  cookie: document.cookie.includes("pool-mark"),
  databases: (await indexedDB.databases()).map((d) => d.name).sort(),
  caches: (await caches.keys()).includes("pool-mark"),
})"""


def test_a_phone_from_the_pool_is_a_new_player_with_a_warm_snapshot(
    browser: Any, relay: int
) -> None:
    url = f"http://127.0.0.1:{relay}/"
    first = Phone(browser, "pool-first")
    try:
        first.open(url)
        assert first.snapshot() in ("made", "restored")
        first.page.evaluate(_MARK_JS)
        mine = first.page.evaluate("window.trucApp.fingerprint")
        # the identity key is kept by the browser: a reload is the same player
        first.page.reload()
        first.open(url)
        assert first.page.evaluate("window.trucApp.fingerprint") == mine
        found = first.page.evaluate(_FOUND_JS)
        assert found["local"] == "1" and found["cookie"] and found["caches"], found
        assert {"pool-mark", "truc-p2p"} <= set(found["databases"]), found
    finally:
        first.close()
    second = Phone(browser, "pool-second")
    try:
        assert second.context is first.context  # the context came back to the pool
        second.open(url)
        assert second.snapshot() == "restored"
        assert second.page.evaluate("window.trucApp.fingerprint") != mine
        found = second.page.evaluate(_FOUND_JS)
        assert found == {"local": None, "cookie": False, "databases": ["truc-p2p"],
                         "caches": False}, found  # fmt: skip
    finally:
        second.close()


def test_a_fresh_phone_makes_the_snapshot_of_a_first_visit(browser: Any, relay: int) -> None:
    phone = Phone(browser, "pool-fresh", fresh=True)
    try:
        phone.open(f"http://127.0.0.1:{relay}/")
        assert phone.snapshot() == "made"
    finally:
        phone.close()
