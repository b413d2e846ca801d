package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
)

// upstream-keepalive --fix moves literal proxy_pass addresses into upstream
// blocks. The backends must see the same request afterwards, and clients
// the same redirects: a real nginx proxies to backends that echo the Host
// header, a header built from $proxy_host and $proxy_port, and the TLS
// server name they received, and that redirect to their own Host, before
// and after the fix, under every form the Host header and the TLS name can
// be set: unset (nginx sends $proxy_host), $proxy_host in the location or
// inherited from the server, $host, a literal; proxy_ssl_name unset,
// $proxy_host, $host, a literal. Addresses without a port (when the
// machine lets the test listen on port 80 and 443 of a loopback address)
// get an upstream named after them. Before, "proxy_set_header Host
// $proxy_host;" and "proxy_ssl_name $proxy_host;" sent the new upstream's
// name, and the default proxy_redirect no longer matched the backend's
// redirects.
func TestFixKeepsHostHeader(t *testing.T) {
	nginxtest.Require(t)
	dir := t.TempDir()
	nginxtest.WriteSelfSigned(t, dir)
	front, inherit, plain := nginxtest.FreePort(t), nginxtest.FreePort(t), nginxtest.FreePort(t)
	// loopback addresses whose port 80 (443) is free here: addresses
	// without a port, one for HTTP and one for HTTPS (an upstream named
	// after an address serves one scheme)
	const bare, bareTLS = "127.0.40.11", "127.0.40.12"
	bareOK := true
	for _, addr := range []string{bare + ":80", bareTLS + ":443"} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			bareOK = false
			t.Logf("no address without a port: %v", err)
			continue
		}
		l.Close()
	}
	backend := `
        location / { return 200 "host=$http_host xb=$http_x_backend conn=$http_connection\n"; }
        location /redir { return 302 http://$http_host/next; }`
	tlsBackend := `
        ssl_certificate cert.pem;
        ssl_certificate_key key.pem;
        location / { return 200 "host=$http_host sni=$ssl_server_name xb=$http_x_backend\n"; }`
	locations := map[string]string{
		// Host unset: nginx sends $proxy_host
		"/named/": "proxy_pass http://localhost:%[2]d/;",
		"/addr/":  "proxy_pass http://127.0.0.1:%[2]d;",
		"/tls/":   "proxy_ssl_server_name on; proxy_pass https://localhost:%T/;",
		// $proxy_host and $proxy_port set in the location
		"/own/": "proxy_set_header Host $proxy_host; proxy_set_header X-Backend $proxy_host:${proxy_port}; proxy_pass http://localhost:%[2]d/;",
		// $host and a literal Host
		"/hosthdr/": "proxy_set_header Host $host; proxy_pass http://127.0.0.1:%[2]d/;",
		"/literal/": "proxy_set_header Host literal.example; proxy_pass http://127.0.0.1:%[2]d/;",
		// the TLS name: $proxy_host, a literal, $host
		"/tlsname/": "proxy_ssl_server_name on; proxy_ssl_name $proxy_host; proxy_pass https://localhost:%T/;",
		"/tlslit/":  "proxy_ssl_server_name on; proxy_ssl_name tls.example; proxy_set_header Host $host; proxy_pass https://localhost:%T/;",
		"/tlshost/": "proxy_ssl_server_name on; proxy_ssl_name $host; proxy_pass https://localhost:%T/;",
		// the default proxy_redirect, with and without a URI part
		"/r/":     "proxy_pass http://127.0.0.1:%[2]d/;",
		"/rdef/":  "proxy_pass http://localhost:%[2]d/; proxy_redirect default;",
		"/redir":  "proxy_pass http://127.0.0.1:%[2]d;",
		"/rtls/":  "proxy_pass https://localhost:%T/;",
		"/rport/": "proxy_set_header Host $proxy_host; proxy_pass http://127.0.0.1:%[2]d/;",
	}
	if bareOK {
		locations["/bare/"] = "proxy_pass http://" + bare + "/;"
		locations["/bareown/"] = "proxy_set_header Host $proxy_host; proxy_set_header X-Backend $proxy_host:$proxy_port; proxy_pass http://" + bare + "/;"
		locations["/baretls/"] = "proxy_ssl_server_name on; proxy_pass https://" + bareTLS + "/;"
	}
	var names []string
	for loc := range locations {
		names = append(names, loc)
	}
	sort.Strings(names)
	// a TLS backend port for each location: a pool of TLS connections is
	// shared only by proxy_passes that connect alike (the same name)
	tlsPort := map[string]int{}
	tlsListen := ""
	for _, loc := range append(names, "/inhtls/") {
		if strings.Contains(locations[loc], "%T") || loc == "/inhtls/" {
			tlsPort[loc] = nginxtest.FreePort(t)
			tlsListen += fmt.Sprintf("\n        listen 127.0.0.1:%d ssl;", tlsPort[loc])
		}
	}
	var conf strings.Builder
	// no TLS session resumed: a resumed session does not show the name sent
	conf.WriteString("events {}\nhttp {\n    access_log off;\n    proxy_ssl_session_reuse off;\n")
	fmt.Fprintf(&conf, "    server {\n        listen 127.0.0.1:%d;%s\n    }\n", plain, backend)
	fmt.Fprintf(&conf, "    server {%s%s\n    }\n", tlsListen, tlsBackend)
	if bareOK {
		fmt.Fprintf(&conf, "    server {\n        listen %s:80;%s\n    }\n", bare, backend)
		fmt.Fprintf(&conf, "    server {\n        listen %s:443 ssl;%s\n    }\n", bareTLS, tlsBackend)
	}
	fmt.Fprintf(&conf, "    server {\n        listen 127.0.0.1:%d;\n        proxy_set_header X-Seen yes;\n", front)
	for _, loc := range names {
		body := strings.NewReplacer("%[2]d", fmt.Sprint(plain), "%T", fmt.Sprint(tlsPort[loc]), "; ", ";\n            ").Replace(locations[loc])
		fmt.Fprintf(&conf, "        location %s {\n            %s\n        }\n", loc, body)
	}
	conf.WriteString("    }\n")
	// $proxy_host, $proxy_port and the TLS name inherited from the server
	fmt.Fprintf(&conf, `    server {
        listen 127.0.0.1:%[1]d;
        proxy_set_header Host $proxy_host;
        proxy_set_header X-Backend "$proxy_host $proxy_port";
        proxy_ssl_server_name on;
        proxy_ssl_name $proxy_host;
        location /inh/ {
            proxy_pass http://localhost:%[2]d/;
        }
        location /inhtls/ {
            proxy_pass https://localhost:%[3]d/;
        }
    }
}
`, inherit, plain, tlsPort["/inhtls/"])
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	urls := map[string]string{}
	for _, loc := range names {
		u := fmt.Sprintf("http://127.0.0.1:%d%s", front, loc)
		if strings.HasPrefix(loc, "/r") {
			u += "redir"
		}
		urls[loc] = strings.Replace(u, "redirredir", "redir", 1)
	}
	urls["/inh/"] = fmt.Sprintf("http://127.0.0.1:%d/inh/", inherit)
	urls["/inhtls/"] = fmt.Sprintf("http://127.0.0.1:%d/inhtls/", inherit)
	fetch := func() map[string]string {
		t.Helper()
		got := map[string]string{}
		for loc, u := range urls {
			got[loc] = getNoRedirect(t, u)
		}
		return got
	}
	var before map[string]string
	t.Run("before", func(t *testing.T) {
		nginxtest.Serve(t, dir, path, fmt.Sprintf("127.0.0.1:%d", front))
		before = fetch()
	})
	if before == nil {
		t.FailNow()
	}
	for loc, want := range map[string]string{
		"/named/": fmt.Sprintf("host=localhost:%d ", plain), "/tls/": "sni=localhost", "/own/": fmt.Sprintf("xb=localhost:%d:%d ", plain, plain),
		"/r/": "Location: http://127.0.0.1:" + fmt.Sprint(front) + "/r/next", "/tlslit/": "sni=tls.example", "/inh/": fmt.Sprintf("xb=localhost:%d %d ", plain, plain),
	} {
		if !strings.Contains(before[loc], want) {
			t.Fatalf("unexpected backend view before the fix at %s: %q lacks %q", loc, before[loc], want)
		}
	}

	fixed := keepaliveFix(t, path)
	t.Logf("fixed:\n%s", fixed)
	if res := nginxtest.Run(t, nginxtest.Require(t), dir, path); !res.OK {
		t.Fatalf("nginx -t after --fix: %s\n%s", res.Output, fixed)
	}
	// every literal address moved to an upstream with a pool, but the one
	// whose TLS name changes per request ($host): a pooled connection
	// would keep the name of the request it was made for
	out, _, _ := runCLI(t, "", "lint", "--no-config", "--nginx-version", "1.22.1", "--enable", "upstream-keepalive,proxy-keepalive-headers", path)
	left := strings.Split(strings.TrimSpace(out), "\n")
	if len(left) != 2 || !strings.Contains(left[0], fmt.Sprintf("address localhost:%d ", tlsPort["/tlshost/"])) || !strings.Contains(left[0], "changes per request") {
		t.Errorf("findings left after --fix:\n%s\n%s", out, fixed)
	}
	if bareOK && (!strings.Contains(string(fixed), "upstream "+bare+" {") || !strings.Contains(string(fixed), "upstream "+bareTLS+" {")) {
		t.Errorf("no upstream named after the address without a port:\n%s", fixed)
	}
	t.Run("after", func(t *testing.T) {
		nginxtest.Serve(t, dir, path, fmt.Sprintf("127.0.0.1:%d", front))
		after := fetch()
		for loc, want := range before {
			// The fix adds keep-alive: Connection becomes empty, the rest
			// of what the backend and the client see stays.
			want = strings.Replace(want, "conn=close", "conn=", 1)
			if after[loc] != want {
				t.Errorf("%s: the backend or client saw %q before the fix and %q after\n%s", loc, before[loc], after[loc], fixed)
			}
		}
	})
}

// keepaliveFix runs lint --fix with the backend keepalive rules for nginx
// 1.22.1 until it applies nothing more (one run applies a bounded number of
// rounds, rules.MaxFixPasses; the proxy headers of many locations take a
// second), and returns the fixed file.
func keepaliveFix(t *testing.T, path string) []byte {
	t.Helper()
	for run := 1; ; run++ {
		lintOut, errOut, code := runCLI(t, "", "lint", "--no-config", "--nginx-version", "1.22.1", "--fix", "--enable", "upstream-keepalive,proxy-keepalive-headers", path)
		if code == 0 || code == 1 && strings.Contains(errOut, "applied 0 fixes") {
			break
		}
		if run == 3 || code != 1 || !strings.Contains(errOut, "applied") {
			fixed, _ := os.ReadFile(path)
			t.Fatalf("lint --fix: exit %d, %s%s\n%s", code, lintOut, errOut, fixed)
		}
	}
	fixed, _ := os.ReadFile(path)
	return fixed
}

// getNoRedirect returns the status, the Location header and the body of a
// GET, without following a redirect.
func getNoRedirect(t *testing.T, url string) string {
	t.Helper()
	c := &http.Client{
		Timeout:       30 * time.Second, // a hang guard
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d Location: %s %s", resp.StatusCode, resp.Header.Get("Location"), body)
}

// On a websocket location (the Upgrade header passed) the keepalive fixes
// give the Connection header of the map that is "upgrade" for an upgrade
// and empty otherwise: real nginx then upgrades a websocket request and
// reuses backend connections for plain requests. The empty Connection
// header other locations get breaks the upgrade (shown on the same nginx).
// Before, the advice was the empty header and no fix was offered: plain
// requests each opened a backend connection.
func TestFixWebsocketKeepsUpgrade(t *testing.T) {
	nginxtest.Require(t)
	backend, accepted := nginxtest.Backend(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") || !strings.Contains(strings.ToLower(r.Header.Get("Connection")), "upgrade") {
			fmt.Fprint(w, "plain")
			return
		}
		conn, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
		rw.Flush()
		line, _ := rw.ReadString('\n')
		rw.WriteString("echo " + line)
		rw.Flush()
	}))
	dir := t.TempDir()
	front := nginxtest.FreePort(t)
	conf := fmt.Sprintf(`events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:%d;
        location /ws/ {
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_pass http://%s;
        }
        location /empty/ {
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection "";
            proxy_pass http://%[2]s;
        }
    }
}
`, front, backend)
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ := runCLI(t, "", "lint", "--no-config", "--nginx-version", "1.22.1", "--enable", "upstream-keepalive", path)
	if !strings.Contains(out, `"proxy_set_header Connection $connection_upgrade;"`) {
		t.Errorf("the advice for the websocket location is not the map form:\n%s", out)
	}
	fixed := keepaliveFix(t, path)
	addr := fmt.Sprintf("127.0.0.1:%d", front)
	nginxtest.Serve(t, dir, path, addr)
	const requests = 10
	accepted.Store(0)
	for range requests {
		if code, body := nginxtest.Get(t, "http://"+addr+"/ws/"); code != 200 || body != "plain" {
			t.Fatalf("/ws/: %d %q", code, body)
		}
	}
	if n := accepted.Load(); n >= requests {
		t.Errorf("plain requests to the websocket location opened %d backend connections for %d requests: the pool is not used\n%s", n, requests, fixed)
	}
	if got := upgrade(t, addr, "/ws/"); got != "echo hello\n" {
		t.Errorf("the websocket upgrade through the fixed location failed: %q\n%s", got, fixed)
	}
	if got := upgrade(t, addr, "/empty/"); got == "echo hello\n" {
		t.Errorf("an empty Connection header let the upgrade through (%q): the premise is wrong", got)
	}
}

// upgrade asks for a websocket upgrade at path and returns what the
// backend echoes of a line sent after it, or the status line nginx gave.
func upgrade(t *testing.T, addr, path string) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second)) // a hang guard
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", path)
	r := bufio.NewReader(conn)
	status, err := r.ReadString('\n')
	if err != nil || !strings.Contains(status, " 101 ") {
		return status
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "headers: " + err.Error()
		}
		if line == "\r\n" {
			break
		}
	}
	fmt.Fprint(conn, "hello\n")
	echo, _ := r.ReadString('\n')
	return echo
}
