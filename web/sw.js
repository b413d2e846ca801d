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
// OURS are the page's files as absolute URLs: the worker answers and keeps
// those alone, not whatever else is served below its directory (another
// application's pages and answers), and keeps each once, whatever query
// or fragment the address carried.
const OURS = new Set(FILES.map((f) => new URL(f, location).href));
self.addEventListener("fetch", (e) => {
  const u = new URL(e.request.url);
  u.search = "";
  u.hash = ""; // a navigation's URL keeps its fragment (the shared state)
  if (e.request.method !== "GET" || !OURS.has(u.href)) return;
  e.respondWith(
    fetch(e.request)
      .then((r) => {
        if (r.ok) {
          const copy = r.clone();
          caches.open(CACHE).then((c) => c.put(u.href, copy));
        }
        return r;
      })
      .catch(() => caches.match(e.request, { ignoreSearch: true })),
  );
});
