// sw.js: the site's service worker, written by `truc-p2p site build` (do not edit DIR/sw.js).
//
// On install it fetches every file of this build (the files of manifest.json, each
// checked against its SHA-256 by the browser: Subresource Integrity) into a cache
// named after the build, taking them from the HTTP cache where it can; it
// then answers those files from that cache first, so after one visit the site opens
// with no network at all.  On activate it deletes the caches of other builds.  A new
// build changes this file (its name and list are written below), which is how the
// browser learns of it.

const BUILD = "__BUILD__";
const CACHE = `truc-p2p-${BUILD}`;
// path -> "sha256-<base64>" (Subresource Integrity) of every file of the build
const FILES = __FILES__;
const INDEX = "index.html";

const scope = () => new URL(self.registration.scope);

function pathOf(url) {
  const base = scope();
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) {
    return null;
  }
  const path = url.pathname.slice(base.pathname.length);
  return path === "" ? INDEX : decodeURIComponent(path);
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await Promise.all(
        Object.entries(FILES).map(async ([path, integrity]) => {
          const url = new URL(path, scope());
          let response;
          try {
            // what the page is loading right now, or has in its HTTP cache: not twice
            // over the network; the integrity check refuses another build's file
            response = await fetch(url, { cache: "force-cache", integrity });
          } catch {
            response = await fetch(url, { cache: "reload", integrity });
          }
          if (!response.ok) {
            throw new Error(`${path}: HTTP ${response.status}`);
          }
          await cache.put(url, response);
        }),
      );
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("truc-p2p-") && name !== CACHE) {
          await caches.delete(name);
        }
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  if (event.request.method !== "GET") {
    return;
  }
  const path = pathOf(new URL(event.request.url));
  if (path === null || !(path in FILES)) {
    return; // not a file of the site (the relay's /ws, another page): the network's
  }
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      const hit = await cache.match(new URL(path, scope()));
      return hit || fetch(event.request);
    })(),
  );
});
