package lsp

import "github.com/nginxtune/nginxtune/internal/untrusted"

// escape makes text the configuration or the editor contributes safe to
// show in a terminal or a log. Every escape of the server's goes through
// it.
func escape(s string) string {
	return untrusted.Escape(s)
}
