package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/templates"
)

// GenFiles writes the files gen made, each under a header naming it (gen
// without --out or --into prints them on standard output).
func GenFiles(w io.Writer, files []templates.File) {
	for i, file := range files {
		if i > 0 {
			fmt.Fprintln(w)
		}
		// what gen prints holds text from flags and profile files: written
		// as every output (a CI log runs no workflow command from it)
		if file.Link != "" {
			fmt.Fprintf(w, "# ==> %s -> %s (symbolic link) <==\n", untrusted.Escape(file.Path), untrusted.Escape(file.Link))
			continue
		}
		if file.Stock {
			fmt.Fprintf(w, "# ==> %s: nginxtune's own (%d lines), written with --out where the tree has none <==\n", untrusted.Escape(file.Path), strings.Count(file.Content, "\n"))
			continue
		}
		fmt.Fprintf(w, "# ==> %s <==\n%s", untrusted.Escape(file.Path), untrusted.EscapeLines(file.Content))
	}
}
