//go:build js && wasm

// Command nginxtune-wasm is nginxtune for the browser page (web/, built by
// make web): it registers the calls of package playground as JavaScript
// functions under globalThis.nginxtune and waits. Each function takes and
// returns JSON text: {"ok": RESULT} or {"error": "one line"}.
package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"syscall/js"

	"github.com/nginxtune/nginxtune/playground"
)

func main() {
	// the page's heap only holds one tree and its findings at a time: fewer
	// collections, which are slow in WebAssembly's single thread
	debug.SetGCPercent(400)
	// the first lint pays for what is set up on first use (the directive
	// table's indexes, regular expressions): paid here, while the page
	// loads, not on the first keystroke
	playground.Lint([]playground.File{{Name: "nginx.conf", Text: warmUp}}, "")
	api := js.Global().Get("Object").New()
	register(api, "lint", func(a request) (any, error) { return playground.Lint(a.Files, a.Version) })
	register(api, "fix", func(a request) (any, error) { return playground.ApplyFix(a.Files, a.Version, a.Index) })
	register(api, "route", func(a request) (any, error) { return playground.Route(a.Files, a.URL, a.All) })
	register(api, "fmt", func(a request) (any, error) {
		if len(a.Files) != 1 {
			return nil, fmt.Errorf("fmt formats one file")
		}
		return playground.Fmt(a.Files[0])
	})
	register(api, "gen", func(a request) (any, error) { return playground.Gen(a.Gen) })
	register(api, "info", func(request) (any, error) {
		return map[string]any{"versions": playground.Versions(), "profiles": playground.Profiles()}, nil
	})
	js.Global().Set("nginxtune", api)
	if ready := js.Global().Get("nginxtuneReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

// warmUp is a configuration that most rules look at.
const warmUp = `events {}
http {
    map $http_upgrade $connection_upgrade { default upgrade; "" close; }
    upstream app { server 127.0.0.1:8080; }
    server {
        listen 80;
        listen 443 ssl;
        server_name example.com *.example.org ~^www\.(.+)$;
        ssl_certificate /etc/ssl/a.crt;
        ssl_certificate_key /etc/ssl/a.key;
        root /var/www;
        location / { try_files $uri $uri/ /index.php?$args; }
        location ~ \.php$ { fastcgi_pass unix:/run/php.sock; include fastcgi_params; }
        location /api/ { proxy_pass http://app; proxy_set_header Host $host; }
        location = /x { return 301 https://$host$request_uri; }
        if ($host = bad) { rewrite ^/(.*)$ /y/$1 last; }
        add_header X-Frame-Options DENY;
    }
}
`

// request is every call's argument; each call reads its own fields.
type request struct {
	Files   []playground.File     `json:"files"`
	Version string                `json:"version"`
	Index   int                   `json:"index"`
	URL     string                `json:"url"`
	All     bool                  `json:"all"`
	Gen     playground.GenOptions `json:"gen"`
}

// register sets api[name] to a function of one JSON argument.
func register(api js.Value, name string, call func(request) (any, error)) {
	api.Set(name, js.FuncOf(func(_ js.Value, args []js.Value) (out any) {
		defer func() {
			if r := recover(); r != nil {
				out = answer(nil, fmt.Errorf("internal error: %v", r))
			}
		}()
		var a request
		if len(args) > 0 {
			if err := json.Unmarshal([]byte(args[0].String()), &a); err != nil {
				return answer(nil, fmt.Errorf("bad request: %v", err))
			}
		}
		return answer(call(a))
	}))
}

func answer(v any, err error) string {
	var m map[string]any
	if err != nil {
		m = map[string]any{"error": err.Error()}
	} else {
		m = map[string]any{"ok": v}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return `{"error":"internal error: result not encodable"}`
	}
	return string(b)
}
