package knowledge

import (
	"strings"
	"testing"
)

func TestContextKey(t *testing.T) {
	for stack, want := range map[string]string{
		"main":                                   "main",
		"main http":                              "http",
		"main http server":                       "server",
		"main http server location":              "location",
		"main http server if":                    "if-server",
		"main http server location if":           "if-location",
		"main http server location limit_except": "limit_except",
		"main http upstream":                     "upstream",
		"main events":                            "events",
		"main stream server":                     "stream-server",
		"main stream upstream":                   "stream-upstream",
		"main mail server":                       "mail-server",
		"main rtmp server application":           "rtmp-application",
		"main http server foo":                   "",
		"":                                       "",
	} {
		if got := ContextKey(strings.Fields(stack)); got != want {
			t.Errorf("ContextKey(%s) = %q, want %q", stack, got, want)
		}
		if want != "" && want != "main" && ContextBit(want) == 0 {
			t.Errorf("%s is no context key of the table", want)
		}
	}
}

func TestPlusContexts(t *testing.T) {
	keys, ok := PlusContexts("auth_jwt")
	if !ok || len(keys) == 0 {
		t.Fatal("auth_jwt's contexts are not known")
	}
	for _, k := range keys {
		if ContextBit(k) == 0 {
			t.Errorf("auth_jwt's context %s is no context key of the table", k)
		}
	}
	if Has("auth_jwt") {
		t.Error("the table now holds auth_jwt: its contexts come from there, PlusContexts can drop it")
	}
	if _, ok := PlusContexts("proxy_pass"); ok {
		t.Error("proxy_pass is open source: the table has its contexts")
	}
}
