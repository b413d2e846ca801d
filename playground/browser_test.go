package playground

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/generate"
)

var screenshot = flag.String("screenshot", "", "write the playground's screenshot to this PNG file (docs/playground.png)")

// The page's example tree for the tests: a main file that includes a
// second one, with a finding that has a fix (upstream-keepalive) and one
// that has none (server-tokens).
var browserTree = []File{
	{Name: "nginx.conf", Text: "events {}\nhttp {\n    include conf.d/*.conf;\n    server {\n        listen 80 default_server;\n        server_name example.com;\n        root /var/www/html;\n        location /api/ {\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n"},
	{Name: "conf.d/app.conf", Text: "server {\n    listen 80;\n    server_name app.example;\n    location / {\n        return 200 ok;\n    }\n}\n"},
}

// TestPlaygroundInBrowser builds the page (nginxtune compiled to
// WebAssembly and web/), serves it on loopback and drives it in a real
// headless Chromium: the findings of a configuration given in the URL's
// fragment, typing, route, a fix, gen against the library's gen, a shared
// link, and the screenshot README shows.
func TestPlaygroundInBrowser(t *testing.T) {
	p, srv := playgroundPage(t)
	c, url := p.c, srv.URL

	// one file in #config=BASE64URL, as tools link to it
	one := browserTree[0]
	p.open(t, url+"/#config="+base64.RawURLEncoding.EncodeToString([]byte(one.Text)))
	want, err := Lint([]File{one}, "")
	if err != nil {
		t.Fatal(err)
	}
	got := p.findings(t)
	if !slices.Equal(got, placesOf(want.Findings)) || !slices.Contains(got, "upstream-keepalive:9") {
		t.Fatalf("findings shown for #config=:\n%v\nlint finds:\n%v", got, placesOf(want.Findings))
	}

	// the second file, added as a tab and typed in; findings follow
	p.js(t, `document.getElementById("newname").value = "conf.d/app.conf"; document.getElementById("add").click()`)
	p.js(t, `document.getElementById("text").focus()`)
	if err := p.call("Input.insertText", map[string]any{"text": browserTree[1].Text}, nil); err != nil {
		t.Fatal(err)
	}
	want, err = Lint(browserTree, "")
	if err != nil {
		t.Fatal(err)
	}
	p.waitFindings(t, placesOf(want.Findings))
	// the nginx version chosen (the newest the page offers): what lint
	// finds for it
	vs := Versions()
	newest := vs[len(vs)-1]
	p.js(t, `const v = document.getElementById("version"); v.value = "`+newest+`"; v.dispatchEvent(new Event("change"))`)
	want, err = Lint(browserTree, newest)
	if err != nil {
		t.Fatal(err)
	}
	p.waitFindings(t, placesOf(want.Findings))

	// route
	p.js(t, `document.getElementById("url").value = "http://app.example/x"; document.querySelector("#route-form button").click()`)
	wantRoute, err := Route(browserTree, "http://app.example/x", false)
	if err != nil {
		t.Fatal(err)
	}
	var route string
	p.evalT(t, `document.getElementById("route-out").textContent`, &route)
	if route != wantRoute || !strings.Contains(route, "server    app.example  conf.d/app.conf:1") {
		t.Fatalf("route shows:\n%s\nroute answers:\n%s", route, wantRoute)
	}

	// a fix applied with its button: the files as the library fixes them
	fixAt := slices.IndexFunc(want.Findings, func(f Finding) bool { return f.Rule == "upstream-keepalive" })
	wantFixed, err := ApplyFix(browserTree, newest, fixAt)
	if err != nil {
		t.Fatal(err)
	}
	// (from the keyboard: Enter on the button; the button goes with the
	// finding, and the focus goes to the finding in its place, not to the
	// start of the page, where Tab would lead back through the editor)
	p.js(t, `document.querySelector('#findings li[data-rule="upstream-keepalive"] button.apply').focus()`)
	for _, typ := range []string{"keyDown", "keyUp"} {
		if err := p.call("Input.dispatchKeyEvent", map[string]any{"type": typ, "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	var files []File
	p.waitFor(t, "the fix applied", `window.nginxtuneState()`, &files, func() bool { return slices.Equal(files, wantFixed) })
	want, _ = Lint(wantFixed, newest)
	p.waitFindings(t, placesOf(want.Findings))
	var focused string
	p.evalT(t, `(document.activeElement.closest("li[data-rule]")?.dataset.rule ?? "") + ":" + (document.activeElement.closest("#lint") ? document.activeElement.className : document.activeElement.tagName)`, &focused)
	if wantFocus := want.Findings[min(fixAt, len(want.Findings)-1)].Rule + ":where"; focused != wantFocus {
		t.Fatalf("after a fix applied from the keyboard the focus is on %q, want %q", focused, wantFocus)
	}

	// a shared link reopens the same state in another tab
	var link string
	p.evalT(t, `(async () => { document.getElementById("share").click(); await new Promise(r => setTimeout(r, 200)); return location.href })()`, &link)
	if !strings.Contains(link, "#s=") {
		t.Fatalf("shared link %q has no state", link)
	}
	p2, err := c.newPage()
	if err != nil {
		t.Fatal(err)
	}
	p2.open(t, link)
	var files2 []File
	p2.evalT(t, `window.nginxtuneState()`, &files2)
	var version string
	p2.evalT(t, `document.getElementById("version").value`, &version)
	if !slices.Equal(files2, wantFixed) || version != newest {
		t.Fatalf("shared link reopens %q for %q, want %q for %s", files2, version, wantFixed, newest)
	}
	p2.waitFindings(t, placesOf(want.Findings))

	// gen: the page's files are the library's gen for the same inputs
	p.js(t, `document.getElementById("gen-profile").value = "proxy";
		document.getElementById("gen-names").value = "shop.example, www.shop.example";
		document.getElementById("gen-upstream").value = "127.0.0.1:3000";
		document.getElementById("gen-cpus").value = "8";
		document.getElementById("gen-memory").value = "16GiB";
		document.getElementById("gen-tls").value = "/etc/ssl/shop.crt,/etc/ssl/shop.key";
		document.querySelector("#gen-form button").click()`)
	var shown []GenFile
	p.evalT(t, `[...document.querySelectorAll("#gen-out details.gen-file")].map(d => ({path: d.dataset.path, content: (d.querySelector("pre") || {}).textContent || ""}))`, &shown)
	lib, err := generate.Run(generate.Options{Profile: "proxy", ServerNames: []string{"shop.example", "www.shop.example"}, Upstreams: []string{"127.0.0.1:3000"},
		CPUs: 8, CPUsSet: true, Memory: "16GiB", TLS: "/etc/ssl/shop.crt,/etc/ssl/shop.key", NginxVersion: newest, Brotli: "off", TLSProfile: "intermediate"})
	if err != nil {
		t.Fatal(err)
	}
	var libFiles []GenFile
	for _, f := range lib {
		if f.Stock {
			continue
		}
		if f.Link != "" {
			f.Content = ""
		}
		libFiles = append(libFiles, GenFile{Path: f.Path, Content: f.Content})
	}
	if len(shown) == 0 || !slices.Equal(shown, libFiles) {
		t.Fatalf("gen in the page shows %d files, nginxtune gen writes %d; first difference:\n%s", len(shown), len(libFiles), firstDiff(shown, libFiles))
	}
	// a generated file downloaded as it is shown
	downloads := t.TempDir()
	if err := c.call("", "Browser.setDownloadBehavior", map[string]any{"behavior": "allow", "downloadPath": downloads}, nil); err != nil {
		t.Fatal(err)
	}
	p.js(t, `document.querySelector('#gen-out details.gen-file[data-path="nginx.conf"] button').click()`)
	var downloaded []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if downloaded, err = os.ReadFile(filepath.Join(downloads, "nginx.conf")); err == nil && len(downloaded) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx.conf was not downloaded: %v", err)
		}
	}
	if i := slices.IndexFunc(libFiles, func(f GenFile) bool { return f.Path == "nginx.conf" }); i < 0 || string(downloaded) != libFiles[i].Content {
		t.Errorf("the downloaded nginx.conf is not gen's")
	}
	var explained int
	p.evalT(t, `document.querySelectorAll("#gen-out ul.explain li").length`, &explained)
	if explained < 3 {
		t.Errorf("gen explains %d numbers", explained)
	}

	if *screenshot != "" {
		p3, err := c.newPage()
		if err != nil {
			t.Fatal(err)
		}
		p3.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 860, "deviceScaleFactor": 1, "mobile": false}, nil)
		p3.open(t, url+"/#config="+base64.RawURLEncoding.EncodeToString([]byte(one.Text)))
		p3.js(t, `document.getElementById("url").value = "http://example.com/api/users"; document.querySelector("#route-form button").click();
			document.querySelector('#findings li[data-rule="upstream-keepalive"] details')?.setAttribute("open", "")`)
		var shot struct {
			Data []byte `json:"data"`
		}
		if err := p3.call("Page.captureScreenshot", map[string]any{"format": "png"}, &shot); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(*screenshot, shot.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// a directory opened with the picker: its files as tabs, nginx.conf
	// the main one, names below the directory
	dir := filepath.Join(t.TempDir(), "etc-nginx")
	tree := []File{{Name: "nginx.conf", Text: "events {}\nhttp {\n    include sites/*.conf;\n}\n"},
		{Name: "sites/a.conf", Text: "server {\n    listen 80;\n    server_name a.example;\n    location / { proxy_pass http://127.0.0.1:9000; }\n}\n"}}
	for _, f := range tree {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, f.Name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, f.Name), []byte(f.Text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var input struct {
		Result struct {
			ObjectID string `json:"objectId"`
		} `json:"result"`
	}
	// a tab in the background may not read the files it is given
	if err := p2.call("Page.bringToFront", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := p2.call("Runtime.evaluate", map[string]any{"expression": `document.getElementById("open-dir")`}, &input); err != nil {
		t.Fatal(err)
	}
	if err := p2.call("DOM.setFileInputFiles", map[string]any{"files": []string{dir}, "objectId": input.Result.ObjectID}, nil); err != nil {
		t.Fatal(err)
	}
	var opened []File
	p2.waitFor(t, "the directory opened", `window.nginxtuneState()`, &opened, func() bool { return slices.Equal(opened, tree) })
	p2.waitFindings(t, placesOf(must(Lint(tree, newest))))

	// every control is named for a screen reader; the findings' summary,
	// the route answer and the status line are live regions (the list of
	// findings is not: a screen reader would read every one at each
	// keystroke)
	var unnamed []string
	p.evalT(t, `[...document.querySelectorAll("input, select, textarea, button")].filter(e => !(e.labels && e.labels.length) && !e.getAttribute("aria-label") && !e.textContent.trim()).map(e => e.id || e.outerHTML)`, &unnamed)
	var live []string
	p.evalT(t, `[...document.querySelectorAll("[aria-live]")].map(e => e.id)`, &live)
	if len(unnamed) > 0 || !slices.Contains(live, "findings-summary") || !slices.Contains(live, "route-out") || !slices.Contains(live, "status") {
		t.Errorf("controls without a name: %v; live regions: %v", unnamed, live)
	}

	// the keyboard: arrows move between the file tabs; Tab indents in the
	// editor, and Escape then Tab leaves it
	if err := p.call("Page.bringToFront", nil, nil); err != nil {
		t.Fatal(err)
	}
	var where string
	p.js(t, `document.getElementById("tab-0").focus()`)
	p.key(t, "ArrowRight", 39)
	p.evalT(t, `document.activeElement.id + " " + document.getElementById("tab-1").getAttribute("aria-selected")`, &where)
	if where != "tab-1 true" {
		t.Errorf("ArrowRight on the first tab: focus and selection %q, want the second tab's", where)
	}
	p.js(t, `const ta = document.getElementById("text"); ta.focus(); ta.setSelectionRange(0, 0)`)
	p.key(t, "Tab", 9)
	p.evalT(t, `document.activeElement.id + " " + JSON.stringify(document.getElementById("text").value.slice(0, 5))`, &where)
	if where != `text "    s"` {
		t.Errorf("Tab in the editor: %s, want it to indent", where)
	}
	p.key(t, "Escape", 27)
	p.key(t, "Tab", 9)
	p.evalT(t, `document.activeElement.id`, &where)
	if where == "text" {
		t.Error("Escape then Tab did not leave the editor")
	}

	// 200 servers: how long the first lint takes after the page loads
	var big strings.Builder
	big.WriteString("events {}\nhttp {\n")
	for i := range 200 {
		fmt.Fprintf(&big, "    server {\n        listen 80;\n        server_name s%d.example;\n        root /srv/s%d;\n        location / { try_files $uri $uri/ =404; }\n        location /api/ { proxy_pass http://127.0.0.1:%d; }\n    }\n", i, i, 8000+i)
	}
	big.WriteString("}\n")
	p4, err := c.newPage()
	if err != nil {
		t.Fatal(err)
	}
	p4.open(t, url+"/#config="+base64.RawURLEncoding.EncodeToString([]byte(big.String())))
	var tm struct{ Ready, FirstLint, FirstShown float64 }
	p4.evalT(t, `window.nginxtuneTimings`, &tm)
	var n int
	p4.evalT(t, `document.querySelectorAll("#findings li").length`, &n)
	// the least of ten, as a machine's load adds to each
	var again struct{ Lint, Shown float64 }
	p4.evalT(t, `(async () => { let best = {lint: 1e9, shown: 1e9}; for (let i = 0; i < 10; i++) { const r = await nginxtuneLint(); best = {lint: Math.min(best.lint, r.lint), shown: Math.min(best.shown, r.shown)} } return best })()`, &again)
	t.Logf("200 servers: lint again, the least of ten: %.1f ms for the answer, %.1f ms until the findings are on the screen", again.Lint, again.Shown)
	var loaded float64
	p4.evalT(t, `window.nginxtuneTimings.readyAt`, &loaded)
	t.Logf("first load over loopback: nginxtune ready %.0f ms after navigation started", loaded)
	t.Logf("200 servers: page ready (wasm loaded and started) %.0f ms after the script ran, first lint %.1f ms, on the screen %.1f ms after nginxtune was ready, %d findings", tm.Ready, tm.FirstLint, tm.FirstShown, n)

	// offline: once loaded, the page opens again with the server gone
	var cached bool
	p4.waitFor(t, "the service worker's cache", `navigator.serviceWorker.ready.then(() => caches.open("nginxtune-playground")).then(c => c.match("nginxtune.wasm")).then(r => !!r)`, &cached, func() bool { return cached })
	p4.js(t, `window.oldDocument = 1`)
	srv.Close()
	if err := p4.call("Page.reload", nil, nil); err != nil {
		t.Fatal(err)
	}
	var reopened bool
	p4.waitFor(t, "the page to open offline", `window.oldDocument === undefined && document.body?.dataset.ready === "1" && document.querySelectorAll("#findings li").length === `+fmt.Sprint(n), &reopened, func() bool { return reopened })
}

// playgroundPage builds the page (what make web builds), serves it on
// loopback and opens a tab of a fresh headless Chromium, all of it undone
// when t ends. It skips under -short and without chromium (outside CI).
func playgroundPage(t *testing.T) (*page, *httptest.Server) {
	t.Helper()
	return playgroundPageWith(t, nil)
}

// playgroundPageWith is playgroundPage with other files served beside the
// page's (other: path to content).
func playgroundPageWith(t *testing.T, other map[string]string) (*page, *httptest.Server) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds WebAssembly and starts a browser")
	}
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed (scripts/deps.sh installs it)")
		}
		t.Skip("chromium is not installed (scripts/deps.sh installs it)")
	}
	site := buildSite(t)
	files := http.FileServer(http.Dir(site))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if body, ok := other[r.URL.Path]; ok {
			w.Write([]byte(body))
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c := startBrowser(t, bin)
	p, err := c.newPage()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 1000, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		t.Fatal(err)
	}
	return p, srv
}

func must(r LintResult, err error) []Finding {
	if err != nil {
		panic(err)
	}
	return r.Findings
}

// placesOf is "rule:line" of each finding, in order.
func placesOf(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s:%d", f.Rule, f.Line))
	}
	return out
}

func firstDiff(a, b []GenFile) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("page %s:\n%s\ngen %s:\n%s", a[i].Path, a[i].Content, b[i].Path, b[i].Content)
		}
	}
	return fmt.Sprintf("%d files against %d", len(a), len(b))
}

// open navigates to u and waits for nginxtune to have started and linted.
func (p *page) open(t *testing.T, u string) {
	t.Helper()
	if err := p.call("Page.navigate", map[string]any{"url": u}, nil); err != nil {
		t.Fatal(err)
	}
	var ready bool
	p.waitFor(t, "the page to start", `document.body && document.body.dataset.ready === "1" && window.nginxtuneTimings.firstLint !== undefined`, &ready, func() bool { return ready })
}

// key presses a key as the keyboard does (trusted: its default action
// happens).
func (p *page) key(t *testing.T, key string, code int) {
	t.Helper()
	for _, typ := range []string{"rawKeyDown", "keyUp"} {
		if err := p.call("Input.dispatchKeyEvent", map[string]any{"type": typ, "key": key, "code": key, "windowsVirtualKeyCode": code}, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// findings reads the findings the page shows: "rule:line" of each.
func (p *page) findings(t *testing.T) []string {
	t.Helper()
	var got []string
	p.evalT(t, `[...document.querySelectorAll("#findings li")].map(li => li.dataset.rule + ":" + li.dataset.line)`, &got)
	return got
}

func (p *page) waitFindings(t *testing.T, want []string) {
	t.Helper()
	var got []string
	p.waitFor(t, fmt.Sprintf("findings %v", want), `[...document.querySelectorAll("#findings li")].map(li => li.dataset.rule + ":" + li.dataset.line)`, &got,
		func() bool { return slices.Equal(got, want) })
}

// waitFor evaluates expr into out until done says so; 30 s catch a hang.
func (p *page) waitFor(t *testing.T, what, expr string, out any, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := p.eval(expr, out)
		if err == nil && done() {
			return
		}
		if time.Now().After(deadline) {
			var status string
			p.eval(`document.getElementById("status").textContent`, &status)
			t.Fatalf("waiting for %s: last %v (err %v); status %q", what, out, err, status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (p *page) evalT(t *testing.T, expr string, out any) {
	t.Helper()
	if err := p.eval(expr, out); err != nil {
		t.Fatal(err)
	}
}

func (p *page) js(t *testing.T, expr string) {
	t.Helper()
	p.evalT(t, "{"+expr+"}", nil)
}

// buildSite builds what make web builds into a temporary directory.
func buildSite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	root, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(root))
	cmd := exec.Command(filepath.Join(goroot, "bin", "go"), "build", "-trimpath", "-ldflags=-s", "-o", filepath.Join(dir, "nginxtune.wasm"), "../cmd/nginxtune-wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the WebAssembly: %v\n%s", err, out)
	}
	for _, f := range []string{"../web/index.html", "../web/app.js", "../web/style.css", "../web/sw.js", filepath.Join(goroot, "lib", "wasm", "wasm_exec.js")} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var devtoolsRe = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// startBrowser starts headless Chromium in its own process group with a
// fresh profile and temporary directory (both removed at the end), and
// connects to it; the group is killed when the test ends.
func startBrowser(t *testing.T, bin string) *cdp {
	t.Helper()
	home := t.TempDir()
	tmp := filepath.Join(home, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--user-data-dir="+filepath.Join(home, "profile"), "--remote-debugging-port=0", "about:blank")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_CACHE_HOME="+home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		// the group's other processes (renderers, the GPU and network
		// services) are gone once signal 0 finds none of them
		for deadline := time.Now().Add(30 * time.Second); syscall.Kill(-cmd.Process.Pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Errorf("chromium's processes (group %d) still run 30 s after they were killed", cmd.Process.Pid)
				break
			}
		}
	})
	found := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			if m := devtoolsRe.FindStringSubmatch(s.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	var ws string
	select {
	case ws = <-found:
	case <-time.After(60 * time.Second):
		t.Fatal("chromium did not start its DevTools endpoint in 60 s")
	}
	c, err := dialCDP(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.ws.c.Close() })
	return c
}

// TestPlaygroundShowsConfigTextAsText opens the page with a configuration
// whose directive names, arguments and file names are markup that would
// run script if the page inserted them as HTML (in findings, the route
// answer and the tabs), and checks that none of it became an element or
// ran: everything a configuration contributes is shown as text.
func TestPlaygroundShowsConfigTextAsText(t *testing.T) {
	p, srv := playgroundPage(t)
	url := srv.URL
	evil := `<img/src=x/onerror=window.pwned=1>`
	conf := "events {}\nhttp {\n    " + evil + ";\n    server {\n        listen 80;\n        server_name \"" + evil + "\";\n        location / { return 200 \"" + evil + "\"; }\n    }\n}\n"
	p.open(t, url+"/#config="+base64.RawURLEncoding.EncodeToString([]byte(conf))+"&name="+evil+".conf")
	p.js(t, `document.getElementById("url").value = "http://x/"; document.querySelector("#route-form button").click()`)
	var shown struct {
		Imgs     int
		Pwned    bool
		Route    string
		Findings string
		Tab      string
	}
	p.evalT(t, `({imgs: document.querySelectorAll("img").length, pwned: window.pwned !== undefined,
		route: document.getElementById("route-out").textContent, findings: document.getElementById("findings").textContent,
		tab: document.getElementById("tab-0").textContent})`, &shown)
	if shown.Imgs != 0 || shown.Pwned {
		t.Fatalf("configuration text became markup: %d img elements, script ran: %v", shown.Imgs, shown.Pwned)
	}
	if !strings.Contains(shown.Findings, "<img") || !strings.Contains(shown.Route, "<img") || !strings.Contains(shown.Tab, "<img") {
		t.Fatalf("the markup is not shown as text: findings %q, route %q, tab %q", shown.Findings, shown.Route, shown.Tab)
	}
}

// TestPlaygroundBoundsSharedLinks opens a link whose state inflates to
// 64 MiB (from a fragment of about 90 KB; one of 2 MB would inflate to
// gigabytes and take the tab down): the page stops unpacking past its
// bound (9 MiB, the 8 MiB of configuration nginxtune reads and the JSON
// around it), says so and opens its example instead.
func TestPlaygroundBoundsSharedLinks(t *testing.T) {
	p, srv := playgroundPage(t)
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	w.Write(make([]byte, 64<<20))
	w.Close()
	p.open(t, srv.URL+"/#s="+base64.RawURLEncoding.EncodeToString(z.Bytes()))
	var got struct{ Status, Text string }
	p.evalT(t, `({status: document.getElementById("status").textContent, text: document.getElementById("text").value})`, &got)
	if !strings.Contains(got.Status, "could not be read: larger than 9 MiB") || !strings.HasPrefix(got.Text, "events {}") {
		t.Fatalf("a link inflating to 64 MiB: status %q, editor %.40q", got.Status, got.Text)
	}
}

// TestPlaygroundBuildsForTheBrowser builds what make web builds, also
// where no browser is installed to drive it: a package the WebAssembly
// links that stops building for GOOS=js (a system call, os.Root, running
// nginx) fails here.
func TestPlaygroundBuildsForTheBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds WebAssembly")
	}
	site := buildSite(t)
	for _, f := range []string{"index.html", "app.js", "style.css", "sw.js", "wasm_exec.js", "nginxtune.wasm"} {
		if st, err := os.Stat(filepath.Join(site, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestPlaygroundBoundsWhatALinkOpens opens links crafted to hold the page:
// one of 5,001 files (a tab each, rebuilt at every click, before nginxtune
// refused more than MaxFiles: 100,000 files held the page 3 s a keystroke),
// and a configuration of 1,500 findings (an element each, rebuilt at every
// change: 50,000 held it for over a minute), and blocks nested 15,000
// deep (the browser's stack ran out: no answer at all). The page refuses
// the first as it refuses a link that inflates too far, lists the first
// 500 findings of the second, saying how many there are, and reports the
// third as a syntax error on its line.
func TestPlaygroundBoundsWhatALinkOpens(t *testing.T) {
	p, srv := playgroundPage(t)
	link := func(files []File) string {
		b, err := json.Marshal(map[string]any{"files": files})
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		w, _ := flate.NewWriter(&z, flate.BestCompression)
		w.Write(b)
		w.Close()
		return srv.URL + "/#s=" + base64.RawURLEncoding.EncodeToString(z.Bytes())
	}
	many := []File{{Name: "nginx.conf", Text: "events {}\n"}}
	for i := range 5000 {
		many = append(many, File{Name: fmt.Sprintf("f%d.conf", i)})
	}
	// not p.open: the old page never linted (nginxtune refused the files)
	if err := p.call("Page.navigate", map[string]any{"url": link(many)}, nil); err != nil {
		t.Fatal(err)
	}
	var ready bool
	p.waitFor(t, "the page to start", `document.body?.dataset.ready === "1"`, &ready, func() bool { return ready })
	var got struct {
		Status, Text string
		Tabs         int
	}
	p.evalT(t, `({status: document.getElementById("status").textContent, text: document.getElementById("text").value,
		tabs: document.querySelectorAll("#tabs [role=tab]").length})`, &got)
	if !strings.Contains(got.Status, "could not be read: 5001 files: at most 256") || got.Tabs != 1 || !strings.HasPrefix(got.Text, "events {}\nhttp {") {
		t.Fatalf("a link of 5,001 files: status %q, %d tabs, editor %.40q", got.Status, got.Tabs, got.Text)
	}

	var conf strings.Builder
	conf.WriteString("events {}\nhttp {\n")
	for i := range 1500 {
		fmt.Fprintf(&conf, "server { listen 80; server_name s%d.example; location ~ ^/(a+)+$ { return 200; } }\n", i)
	}
	conf.WriteString("}\n")
	files := []File{{Name: "nginx.conf", Text: conf.String()}}
	want := must(Lint(files, ""))
	if len(want) < 1500 {
		t.Fatalf("the configuration has %d findings, not the 1,500 or more meant", len(want))
	}
	// a fresh document: a navigation that changes only the fragment keeps it
	if err := p.call("Page.navigate", map[string]any{"url": "about:blank"}, nil); err != nil {
		t.Fatal(err)
	}
	var blank bool
	p.waitFor(t, "a blank page", `location.href === "about:blank"`, &blank, func() bool { return blank })
	p.open(t, link(files))
	var shown struct {
		Items   int
		Summary string
	}
	p.evalT(t, `({items: document.querySelectorAll("#findings li").length, summary: document.getElementById("findings-summary").textContent})`, &shown)
	if shown.Items != 500 || !strings.HasPrefix(shown.Summary, fmt.Sprintf("%d findings (the first 500 listed)", len(want))) {
		t.Fatalf("%d findings: %d listed, summary %q", len(want), shown.Items, shown.Summary)
	}

	// blocks nested 15,000 deep in one file (Chromium's stack ran out
	// from 3,000 to 10,000, as the code was optimised or not): the syntax
	// error nginxtune reports past 1,000 in the browser, on its line
	deep := "events {}\nhttp { server { listen 80;\n" + strings.Repeat("location / { ", 15000) + strings.Repeat("} ", 15000) + "} }\n"
	p.open(t, srv.URL+"/#config="+base64.RawURLEncoding.EncodeToString([]byte(deep)))
	p.waitFindings(t, []string{"syntax:3"})
	var msg string
	p.evalT(t, `document.querySelector("#findings li .message").textContent`, &msg)
	if msg != "blocks nested more than 1000 deep" {
		t.Fatalf("6,000 nested blocks: %q", msg)
	}
}

// TestPlaygroundCachesOnlyItsOwnFiles serves the page beside another
// application's answer (as a site that hosts the page in one of its
// directories does) and asks for that answer and for the page's script
// under a query, from a page the service worker controls: the worker's
// cache holds the page's six files and nothing else, each once.
func TestPlaygroundCachesOnlyItsOwnFiles(t *testing.T) {
	p, srv := playgroundPageWith(t, map[string]string{"/account/token": "secret of another application"})
	p.open(t, srv.URL+"/")
	var controlled bool
	p.waitFor(t, "the service worker to control the page", `navigator.serviceWorker.ready.then(() => !!navigator.serviceWorker.controller)`, &controlled, func() bool { return controlled })
	var keys []string
	p.evalT(t, `(async () => {
		if (await (await fetch("account/token")).text() !== "secret of another application") throw new Error("not served");
		await fetch("app.js?v=2");
		await new Promise((r) => setTimeout(r, 500));
		const c = await caches.open("nginxtune-playground");
		return (await c.keys()).map((k) => k.url.slice(location.origin.length)).sort();
	})()`, &keys)
	want := []string{"/", "/app.js", "/index.html", "/nginxtune.wasm", "/style.css", "/wasm_exec.js"}
	if !slices.Equal(keys, want) {
		t.Fatalf("the service worker keeps %q, want %q", keys, want)
	}
}
