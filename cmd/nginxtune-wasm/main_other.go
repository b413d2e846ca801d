//go:build !(js && wasm)

// Command nginxtune-wasm is nginxtune for the browser page; it is built
// with GOOS=js GOARCH=wasm (make web). Built for this machine it only says so.
package main

import (
	"fmt"
	"os"

	// the package the WebAssembly build serves, named here too so that the
	// import graph go list reads on this machine shows it
	_ "github.com/nginxtune/nginxtune/playground"
)

func main() {
	fmt.Fprintln(os.Stderr, "nginxtune-wasm: build with GOOS=js GOARCH=wasm (make web)")
	os.Exit(2)
}
