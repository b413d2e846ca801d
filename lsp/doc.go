// Package lsp is nginxtune's language server: the Language Server Protocol
// over standard input and output, answering from the same reader, rules,
// directive table and formatter as the command line.
//
// The protocol is written here rather than taken from a library: the part
// of it a configuration language needs (about fifteen messages) is small,
// and the Go libraries for it either stopped following the protocol
// (go.lsp.dev/protocol was last released in 2022) or bring a dependency
// tree of their own for logging and transports (github.com/tliron/glsp);
// gopls's protocol package is internal to gopls.
//
// The package's parts: lsp/protocol holds the JSON-RPC framing and the
// protocol's types; server.go reads messages and hands each to its
// handler in the method table (methods.go); documents.go keeps the open
// buffers and schedules their linting, analysis.go lints one inside the
// tree that includes it; each feature has its file (diagnostics, hover,
// completion, definition, references, symbols, codeaction, formatting),
// over spot.go (what the cursor is on), names.go (what the tree defines)
// and text.go (positions). escape.go is the one place untrusted text is
// escaped for the log.
package lsp
