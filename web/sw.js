// The playground's service worker: it keeps the page's few files (all
// relative URLs of this directory) so that the page opens offline once it
// has been loaded. Network first, so a new build is taken when online;
// the cache answers when the network does not.
"use strict";
const CACHE = "nginxtune-playground";
const FILES = ["./", "index.html", "app.js", "style.css", "wasm_exec.js", "nginxtune.wasm"];

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (e) => {
  if (e.request.method !== "GET" || new URL(e.request.url).origin !== location.origin) return;
  e.respondWith(
    fetch(e.request)
      .then((r) => {
        if (r.ok) {
          const copy = r.clone();
          caches.open(CACHE).then((c) => c.put(e.request, copy));
        }
        return r;
      })
      .catch(() => caches.match(e.request, { ignoreSearch: true })),
  );
});
