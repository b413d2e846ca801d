// The nginxtune playground: the page's side. Every answer (findings,
// fixes, routes, formatting, generated files) comes from nginxtune compiled
// to WebAssembly (nginxtune.wasm, cmd/nginxtune-wasm); this file only
// edits, shows and shares. Text from the configuration is put into the page
// as text (textContent), never as markup.
"use strict";

const state = {
  files: [{ name: "nginx.conf", text: "" }],
  active: 0,
  version: "",
  url: "http://example.com/",
};
let findings = [];
const $ = (id) => document.getElementById(id);
const timings = (window.nginxtuneTimings = { start: performance.now() });
// the files as edited, for tests and the console
window.nginxtuneState = () => state.files;

const EXAMPLE = `events {}
http {
    server {
        listen 80;
        server_name example.com;
        root /var/www/html;
        location / {
            try_files $uri $uri/ =404;
        }
        location /api/ {
            proxy_pass http://127.0.0.1:8080;
        }
    }
}
`;

// call runs one of nginxtune's functions: its argument and answer are JSON.
function call(name, arg) {
  const res = JSON.parse(globalThis.nginxtune[name](JSON.stringify(arg)));
  if (res.error !== undefined) throw new Error(res.error);
  return res.ok;
}

// ---- the shared state: the URL fragment ----

function b64url(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
function unb64url(s) {
  const b = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
  return Uint8Array.from(b, (c) => c.charCodeAt(0));
}
// MAX_STATE bounds what a link may unpack to: the configuration nginxtune
// reads (playground.MaxBytes, 8 MiB) and room for the JSON around it. A
// link of 2 MB could otherwise inflate to gigabytes.
const MAX_STATE = 9 << 20;
// MAX_FILES is the most files nginxtune reads (playground.MaxFiles): a
// link or a directory of more is refused before a tab is made for each.
const MAX_FILES = 256;
// MAX_SHOWN bounds the findings listed (all are marked in the line
// numbers): a configuration of 50,000 findings would otherwise hold the
// page for a minute building their elements at every change.
const MAX_SHOWN = 500;
// pipe runs bytes through a compression stream, refusing to produce more
// than MAX_STATE bytes.
async function pipe(bytes, stream) {
  const reader = new Blob([bytes]).stream().pipeThrough(stream).getReader();
  const chunks = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > MAX_STATE) {
      reader.cancel();
      throw new Error(`larger than ${MAX_STATE >> 20} MiB`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
// encodeState gives the fragment of the page's state: "s=" and the state's
// JSON, deflate-raw compressed, in base64url.
async function encodeState() {
  const json = JSON.stringify({ files: state.files, active: state.active, version: state.version, url: state.url });
  return "s=" + b64url(await pipe(new TextEncoder().encode(json), new CompressionStream("deflate-raw")));
}
// decodeFragment reads "#s=..." (encodeState's) or "#config=BASE64URL" (one
// file's bytes, uncompressed, for tools to link to).
async function decodeFragment(frag) {
  const p = new URLSearchParams(frag.replace(/^#/, ""));
  if (p.has("config")) {
    const text = new TextDecoder().decode(unb64url(p.get("config")));
    return { files: [{ name: p.get("name") || "nginx.conf", text }], active: 0 };
  }
  if (p.has("s")) {
    const json = new TextDecoder().decode(await pipe(unb64url(p.get("s")), new DecompressionStream("deflate-raw")));
    const s = JSON.parse(json);
    if (!Array.isArray(s.files) || s.files.length === 0) throw new Error("no files in the link");
    if (s.files.length > MAX_FILES) throw new Error(`${s.files.length} files: at most ${MAX_FILES}`);
    return {
      files: s.files.map((f) => ({ name: String(f.name), text: String(f.text) })),
      active: Math.min(Math.max(0, s.active | 0), s.files.length - 1),
      version: typeof s.version === "string" ? s.version : "",
      url: typeof s.url === "string" ? s.url : state.url,
    };
  }
  return null;
}
let saveTimer;
function saveSoon() {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(async () => {
    history.replaceState(null, "", "#" + (await encodeState()));
  }, 300);
}

// ---- the editor ----

function renderTabs() {
  const tabs = $("tabs");
  tabs.replaceChildren();
  state.files.forEach((f, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.setAttribute("role", "tab");
    b.id = "tab-" + i;
    b.className = "tab";
    b.textContent = f.name + (i === 0 ? " (main)" : "");
    b.dataset.file = f.name;
    b.setAttribute("aria-selected", i === state.active ? "true" : "false");
    b.setAttribute("aria-controls", "editor-panel");
    b.tabIndex = i === state.active ? 0 : -1;
    b.addEventListener("click", () => selectTab(i));
    b.addEventListener("keydown", (e) => {
      const n = state.files.length;
      if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
        const j = (i + (e.key === "ArrowRight" ? 1 : n - 1)) % n;
        selectTab(j);
        $("tab-" + j).focus();
        e.preventDefault();
      }
    });
    tabs.append(b);
  });
  $("editor-panel").setAttribute("aria-labelledby", "tab-" + state.active);
  $("text").setAttribute("aria-label", "Contents of " + state.files[state.active].name);
  $("remove").disabled = state.active === 0;
}
function selectTab(i) {
  state.active = i;
  $("text").value = state.files[i].text;
  renderTabs();
  renderGutter();
  $("gutter").scrollTop = $("text").scrollTop;
  saveSoon();
}
function renderGutter() {
  const text = $("text").value;
  const lines = text.split("\n").length;
  const marked = new Map();
  const name = state.files[state.active].name;
  for (const f of findings) {
    if (f.file === name && f.line > 0) marked.set(f.line, (marked.has(f.line) ? marked.get(f.line) + "; " : "") + f.rule);
  }
  const g = $("gutter");
  // the numbers as text, a span only for a marked line; rebuilt only when
  // the lines or the marks change
  const key = lines + "|" + [...marked].join("|");
  if (g.dataset.key !== key) {
    g.dataset.key = key;
    const out = document.createDocumentFragment();
    let run = "";
    for (let n = 1; n <= lines; n++) {
      if (!marked.has(n)) {
        run += n + "\n";
        continue;
      }
      if (run) out.append(run);
      run = "\n";
      const s = document.createElement("span");
      s.className = "marked";
      s.title = marked.get(n);
      s.textContent = n;
      out.append(s);
    }
    if (run) out.append(run);
    g.replaceChildren(out);
  }
}
function goTo(file, line) {
  const i = state.files.findIndex((f) => f.name === file);
  if (i < 0) return;
  if (i !== state.active) selectTab(i);
  const ta = $("text");
  const lines = ta.value.split("\n");
  let at = 0;
  for (let n = 1; n < line && n <= lines.length; n++) at += lines[n - 1].length + 1;
  ta.focus();
  ta.setSelectionRange(at, at + (lines[line - 1] || "").length);
  const lh = parseFloat(getComputedStyle(ta).lineHeight) || 18;
  ta.scrollTop = Math.max(0, (line - 5) * lh);
}

// ---- lint ----

let lintTimer;
function lintSoon() {
  clearTimeout(lintTimer);
  lintTimer = setTimeout(lint, 150);
}
function lint() {
  if (!globalThis.nginxtune) return;
  const t0 = performance.now();
  let res;
  try {
    res = call("lint", { files: state.files, version: state.version });
  } catch (e) {
    findings = [];
    $("findings").replaceChildren();
    $("findings-summary").textContent = e.message;
    renderGutter();
    return;
  }
  const ms = performance.now() - t0;
  timings.lastLint = ms;
  if (timings.firstLint === undefined) timings.firstLint = ms;
  findings = res.findings;
  renderFindings(res, ms);
  renderGutter();
}
// lint now, for tests and the console: how long the answer took, and
// until the findings were on the screen (the next frame after them)
window.nginxtuneLint = () =>
  new Promise((done) => {
    const t0 = performance.now();
    lint();
    requestAnimationFrame(() => setTimeout(() => done({ lint: timings.lastLint, shown: performance.now() - t0 })));
  });
function renderFindings(res, ms) {
  const list = document.createDocumentFragment();
  findings.slice(0, MAX_SHOWN).forEach((f, i) => {
    const li = document.createElement("li");
    li.className = "finding " + f.severity;
    li.dataset.rule = f.rule;
    li.dataset.line = f.line;
    li.dataset.file = f.file;
    li.dataset.severity = f.severity;
    const go = document.createElement("button");
    go.type = "button";
    go.className = "where";
    go.textContent = `${f.file}:${f.line}`;
    go.setAttribute("aria-label", `${f.severity} at ${f.file} line ${f.line}: go to the line`);
    go.addEventListener("click", () => goTo(f.file, f.line));
    const sev = document.createElement("span");
    sev.className = "sev";
    sev.textContent = f.severity;
    const msg = document.createElement("span");
    msg.className = "message";
    msg.textContent = f.message;
    const rule = document.createElement("code");
    rule.className = "rule";
    rule.textContent = f.rule;
    li.append(go, " ", sev, " ", msg, " ", rule);
    const doc = res.docs[f.rule];
    if (doc) {
      const d = document.createElement("details");
      const s = document.createElement("summary");
      s.textContent = "Why: " + doc.title;
      d.append(s);
      // the explanation is filled in when it is first opened
      d.addEventListener("toggle", () => {
        if (d.childElementCount > 1) return;
        const why = document.createElement("p");
        why.textContent = doc.why;
        const fix = document.createElement("p");
        fix.textContent = "Fix: " + doc.fix;
        d.append(why, fix);
      });
      li.append(d);
    }
    if (f.fixTitle) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "apply";
      b.textContent = "Apply fix: " + f.fixTitle;
      b.addEventListener("click", () => applyFix(i));
      li.append(b);
    }
    list.append(li);
  });
  $("findings").replaceChildren(list);
  const n = findings.length;
  $("findings-summary").textContent =
    (n === 0 ? "No findings" : n === 1 ? "1 finding" : `${n} findings`) +
    (n > MAX_SHOWN ? ` (the first ${MAX_SHOWN} listed)` : "") +
    (res.notShown ? ` (${res.notShown} more not shown)` : "") +
    ` for ${res.assumed}. Linted in ${ms.toFixed(1)} ms.`;
}
function applyFix(i) {
  try {
    state.files = call("fix", { files: state.files, version: state.version, index: i });
  } catch (e) {
    status(e.message);
    return;
  }
  $("text").value = state.files[state.active].text;
  status("Fix applied.");
  changed();
  // the list is rebuilt now, and the keyboard's focus, which was on the
  // button just removed, goes to the finding that took its place (or the
  // summary when none is left) instead of the start of the page
  clearTimeout(lintTimer);
  lint();
  const places = $("findings").querySelectorAll(".where");
  (places[Math.min(i, places.length - 1)] || $("findings-summary")).focus();
}
function changed() {
  saveSoon();
  lintSoon();
  renderGutter();
}
function status(s) {
  $("status").textContent = s;
}

// ---- route, fmt, gen ----

function routeNow() {
  state.url = $("url").value;
  saveSoon();
  let out;
  try {
    out = call("route", { files: state.files, url: state.url, all: $("route-all").checked });
  } catch (e) {
    out = e.message;
  }
  $("route-out").textContent = out;
}
function fmtNow() {
  const f = state.files[state.active];
  try {
    f.text = call("fmt", { files: [f] });
  } catch (e) {
    status(e.message);
    return;
  }
  $("text").value = f.text;
  status(`${f.name} formatted.`);
  changed();
}
function download(name, text) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  a.download = name.replace(/\//g, "_");
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
function genNow() {
  const words = (s) => s.split(/[\s,]+/).filter(Boolean);
  const opts = {
    profile: $("gen-profile").value,
    serverNames: words($("gen-names").value),
    cpus: parseInt($("gen-cpus").value, 10) || 0,
    memory: $("gen-memory").value.trim(),
    tls: $("gen-tls").value.trim(),
    upstreams: words($("gen-upstream").value),
    nginxVersion: state.version,
  };
  const out = $("gen-out");
  out.replaceChildren();
  let res;
  try {
    res = call("gen", { gen: opts });
  } catch (e) {
    const p = document.createElement("p");
    p.className = "error";
    p.textContent = e.message;
    out.append(p);
    status("gen: " + e.message);
    return;
  }
  const h = document.createElement("h3");
  h.textContent = `Files for nginx ${res.version}`;
  status(`Generated ${res.files.length} files for nginx ${res.version}.`);
  const ul = document.createElement("ul");
  ul.className = "explain";
  ul.setAttribute("aria-label", "Why each number");
  for (const line of res.explain) {
    const li = document.createElement("li");
    li.textContent = line;
    ul.append(li);
  }
  out.append(h, ul);
  const all = document.createElement("button");
  all.type = "button";
  all.textContent = "Download all (one text file)";
  all.addEventListener("click", () =>
    download("nginxtune-gen.txt", res.files.map((f) => `# ==> ${f.path} <==\n${f.link ? "-> " + f.link + "\n" : f.content}`).join("\n")),
  );
  out.append(all);
  for (const f of res.files) {
    const d = document.createElement("details");
    d.className = "gen-file";
    d.dataset.path = f.path;
    d.open = !f.link;
    const s = document.createElement("summary");
    s.textContent = f.link ? `${f.path} → ${f.link} (symbolic link)` : f.path;
    d.append(s);
    if (!f.link) {
      const pre = document.createElement("pre");
      pre.tabIndex = 0;
      pre.textContent = f.content;
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = "Download " + f.path;
      b.addEventListener("click", () => download(f.path, f.content));
      const open = document.createElement("button");
      open.type = "button";
      open.textContent = "Open in the editor";
      open.addEventListener("click", () => openFile(f.path, f.content));
      d.append(b, " ", open, pre);
    }
    out.append(d);
  }
}
function openFile(name, text) {
  const i = state.files.findIndex((f) => f.name === name);
  if (i >= 0) state.files[i].text = text;
  else state.files.push({ name, text });
  selectTab(i >= 0 ? i : state.files.length - 1);
  changed();
}

// ---- opening files: the file pickers, or files and directories dropped ----

// openFiles replaces the configuration with list ({name, text}: names
// relative to the chosen directory); nginx.conf, if there is one nearest
// the top, becomes the main file.
function openFiles(list) {
  if (list.length === 0) return;
  if (list.length > MAX_FILES) {
    status(`${list.length} files: nginxtune reads at most ${MAX_FILES}; open the directory that holds nginx.conf.`);
    return;
  }
  list.sort((a, b) => a.name.split("/").length - b.name.split("/").length || a.name.localeCompare(b.name));
  const main = list.findIndex((f) => f.name.split("/").pop() === "nginx.conf");
  if (main > 0) list.unshift(...list.splice(main, 1));
  state.files = list;
  selectTab(0);
  status(`Opened ${list.length} file${list.length === 1 ? "" : "s"}.`);
  changed();
}
// fromPicker reads the files of a file input; a directory's come with
// their path below it (webkitRelativePath "dir/a/b.conf": "a/b.conf").
async function fromPicker(input) {
  const list = [];
  for (const f of input.files) {
    const rel = f.webkitRelativePath ? f.webkitRelativePath.split("/").slice(1).join("/") : f.name;
    list.push({ name: rel, text: await f.text() });
  }
  input.value = "";
  openFiles(list);
}
// fromDrop reads dropped files and directories (walked below).
async function fromDrop(items) {
  const list = [];
  const walk = async (entry, dir) => {
    if (entry.isFile) {
      const f = await new Promise((ok, bad) => entry.file(ok, bad));
      list.push({ name: dir + entry.name, text: await f.text() });
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((ok, bad) => reader.readEntries(ok, bad));
        if (batch.length === 0) break;
        for (const e of batch) await walk(e, dir + entry.name + "/");
      }
    }
  };
  const entries = [...items].map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean);
  for (const e of entries) await walk(e, "");
  // one directory dropped: names below it
  if (entries.length === 1 && entries[0].isDirectory) {
    for (const f of list) f.name = f.name.slice(entries[0].name.length + 1);
  }
  openFiles(list);
}

// ---- start ----

function wire() {
  const ta = $("text");
  ta.addEventListener("input", () => {
    state.files[state.active].text = ta.value;
    changed();
  });
  ta.addEventListener("scroll", () => ($("gutter").scrollTop = ta.scrollTop));
  ta.addEventListener("keydown", (e) => {
    // Tab indents; Escape then Tab leaves the editor (keyboard users)
    if (e.key === "Tab" && !e.shiftKey && !ta.dataset.escaped) {
      e.preventDefault();
      const a = ta.selectionStart;
      ta.setRangeText("    ", a, ta.selectionEnd, "end");
      ta.dispatchEvent(new Event("input"));
    }
    ta.dataset.escaped = e.key === "Escape" ? "1" : "";
  });
  $("version").addEventListener("change", (e) => {
    state.version = e.target.value;
    changed();
  });
  $("fmt").addEventListener("click", fmtNow);
  $("share").addEventListener("click", async () => {
    const link = location.href.split("#")[0] + "#" + (await encodeState());
    history.replaceState(null, "", link);
    try {
      await navigator.clipboard.writeText(link);
      status("Link copied: it holds the configuration (in the fragment, never sent to a server).");
    } catch {
      status("The address bar holds the link.");
    }
  });
  $("add").addEventListener("click", () => {
    const name = $("newname").value.trim().replace(/^\/+/, "");
    if (!name || state.files.some((f) => f.name === name)) {
      status(name ? `${name} is already open.` : "Give the new file a name.");
      return;
    }
    state.files.push({ name, text: "" });
    $("newname").value = "";
    selectTab(state.files.length - 1);
    changed();
  });
  $("remove").addEventListener("click", () => {
    if (state.active === 0) return;
    state.files.splice(state.active, 1);
    selectTab(0);
    changed();
  });
  $("open").addEventListener("change", (e) => fromPicker(e.target));
  $("open-dir").addEventListener("change", (e) => fromPicker(e.target));
  const panel = $("editor-panel");
  panel.addEventListener("dragover", (e) => e.preventDefault());
  panel.addEventListener("drop", (e) => {
    e.preventDefault();
    fromDrop(e.dataTransfer.items).catch((err) => status(err.message));
  });
  $("route-form").addEventListener("submit", (e) => {
    e.preventDefault();
    routeNow();
  });
  $("gen-form").addEventListener("submit", (e) => {
    e.preventDefault();
    genNow();
  });
  window.addEventListener("hashchange", async () => {
    const s = await decodeFragment(location.hash).catch(() => null);
    if (s) apply(s);
  });
}
function apply(s) {
  Object.assign(state, s);
  $("version").value = state.version;
  $("url").value = state.url;
  selectTab(state.active);
  lint();
}

async function start() {
  wire();
  let s = null;
  let linkError = "";
  try {
    s = await decodeFragment(location.hash);
  } catch (e) {
    linkError = " The link's configuration could not be read: " + e.message + ".";
    status(linkError);
  }
  Object.assign(state, s || { files: [{ name: "nginx.conf", text: EXAMPLE }] });
  $("url").value = state.url;
  selectTab(state.active);
  const go = new Go();
  const ready = new Promise((r) => (globalThis.nginxtuneReady = r));
  const wasm = await WebAssembly.instantiateStreaming(fetch("nginxtune.wasm"), go.importObject);
  go.run(wasm.instance);
  await ready;
  timings.ready = performance.now() - timings.start;
  timings.readyAt = performance.now();
  const info = call("info", {});
  for (const v of [...info.versions].reverse()) $("version").append(new Option(v, v));
  $("version").value = state.version;
  for (const p of info.profiles) $("gen-profile").append(new Option(p, p));
  status(`nginxtune ready (${(timings.ready / 1000).toFixed(2)} s).` + linkError);
  lint();
  // the first findings on the screen: the frame after them
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
  timings.firstShown = performance.now() - timings.readyAt;
  document.body.dataset.ready = "1";
  if ("serviceWorker" in navigator && location.protocol !== "file:") {
    navigator.serviceWorker.register("sw.js").catch(() => {});
  }
}
start().catch((e) => status("nginxtune could not start: " + e.message));
