package templates

import (
	"fmt"
	"strings"
)

// The data files nginx's packages ship beside nginx.conf, which a tree of
// gen's own (the prefix layout) includes by relative name: mime.types,
// and fastcgi_params or uwsgi_params for the sites that pass requests on.
// gen writes its own, made here from the tables below, so that the tree
// loads where it stands; one that is there already (the package's, in
// /etc/nginx) is kept (File.Stock).

// mimeTypes are the types nginx names in Content-Type by a file's
// extension: the files web sites serve, each under its registered type
// (JavaScript's text/javascript by RFC 9239, XML's application/xml by
// RFC 7303, fonts' font/* by RFC 8081). An extension appears once.
var mimeTypes = []struct {
	typ  string
	exts []string
}{
	{"text/html", []string{"html", "htm"}},
	{"text/css", []string{"css"}},
	{"text/javascript", []string{"js", "mjs"}},
	{"text/plain", []string{"txt"}},
	{"text/csv", []string{"csv"}},
	{"text/markdown", []string{"md"}},
	{"text/calendar", []string{"ics"}},
	{"text/vtt", []string{"vtt"}},
	{"application/json", []string{"json", "map"}},
	{"application/ld+json", []string{"jsonld"}},
	{"application/manifest+json", []string{"webmanifest"}},
	{"application/xml", []string{"xml", "xsl"}},
	{"application/xhtml+xml", []string{"xhtml"}},
	{"application/rss+xml", []string{"rss"}},
	{"application/atom+xml", []string{"atom"}},
	{"application/wasm", []string{"wasm"}},
	{"application/pdf", []string{"pdf"}},
	{"application/zip", []string{"zip"}},
	{"application/gzip", []string{"gz", "tgz"}},
	{"application/x-tar", []string{"tar"}},
	{"application/x-xz", []string{"xz"}},
	{"application/zstd", []string{"zst"}},
	{"application/x-7z-compressed", []string{"7z"}},
	{"application/epub+zip", []string{"epub"}},
	{"application/rtf", []string{"rtf"}},
	{"application/msword", []string{"doc"}},
	{"application/vnd.ms-excel", []string{"xls"}},
	{"application/vnd.ms-powerpoint", []string{"ppt"}},
	{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", []string{"docx"}},
	{"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", []string{"xlsx"}},
	{"application/vnd.openxmlformats-officedocument.presentationml.presentation", []string{"pptx"}},
	{"application/vnd.oasis.opendocument.text", []string{"odt"}},
	{"application/vnd.oasis.opendocument.spreadsheet", []string{"ods"}},
	{"application/vnd.oasis.opendocument.presentation", []string{"odp"}},
	{"application/vnd.ms-fontobject", []string{"eot"}},
	{"application/octet-stream", []string{"bin", "exe", "dll", "deb", "rpm", "dmg", "iso", "img", "msi"}},
	{"image/png", []string{"png"}},
	{"image/jpeg", []string{"jpg", "jpeg"}},
	{"image/gif", []string{"gif"}},
	{"image/webp", []string{"webp"}},
	{"image/avif", []string{"avif"}},
	{"image/svg+xml", []string{"svg", "svgz"}},
	{"image/x-icon", []string{"ico"}},
	{"image/bmp", []string{"bmp"}},
	{"image/tiff", []string{"tif", "tiff"}},
	{"font/woff", []string{"woff"}},
	{"font/woff2", []string{"woff2"}},
	{"font/ttf", []string{"ttf"}},
	{"font/otf", []string{"otf"}},
	{"audio/mpeg", []string{"mp3"}},
	{"audio/mp4", []string{"m4a"}},
	{"audio/ogg", []string{"ogg", "oga", "opus"}},
	{"audio/wav", []string{"wav"}},
	{"audio/flac", []string{"flac"}},
	{"audio/webm", []string{"weba"}},
	{"video/mp4", []string{"mp4", "m4v"}},
	{"video/webm", []string{"webm"}},
	{"video/ogg", []string{"ogv"}},
	{"video/quicktime", []string{"mov"}},
	{"video/mp2t", []string{"ts"}},
	{"application/vnd.apple.mpegurl", []string{"m3u8"}},
	{"application/dash+xml", []string{"mpd"}},
}

// gatewayParams are what a FastCGI (PHP) or uwsgi (WSGI) application is
// given of a request: the meta-variables of CGI/1.1 (RFC 3875, section
// 4.1) from nginx's variables, and the ones PHP and WSGI read beside them.
// proto says which protocol a parameter is for: "fastcgi", "uwsgi" or
// both ("").
var gatewayParams = []struct{ name, value, proto, why string }{
	{"QUERY_STRING", "$query_string", "", ""},
	{"REQUEST_METHOD", "$request_method", "", ""},
	{"CONTENT_TYPE", "$content_type", "", ""},
	{"CONTENT_LENGTH", "$content_length", "", ""},
	{"SCRIPT_NAME", "$fastcgi_script_name", "fastcgi", ""},
	{"PATH_INFO", "$document_uri", "uwsgi", "WSGI routes on the path, the whole of it below the mount point"},
	{"REQUEST_URI", "$request_uri", "", ""},
	{"DOCUMENT_URI", "$document_uri", "fastcgi", ""},
	{"DOCUMENT_ROOT", "$document_root", "", ""},
	{"SERVER_PROTOCOL", "$server_protocol", "", ""},
	{"REQUEST_SCHEME", "$scheme", "", ""},
	{"HTTPS", "$https if_not_empty", "", ""},
	{"GATEWAY_INTERFACE", "CGI/1.1", "fastcgi", ""},
	{"SERVER_SOFTWARE", "nginx", "fastcgi", "no version: server_tokens is off"},
	{"REMOTE_ADDR", "$remote_addr", "", ""},
	{"REMOTE_PORT", "$remote_port", "", ""},
	{"SERVER_ADDR", "$server_addr", "fastcgi", ""},
	{"SERVER_PORT", "$server_port", "", ""},
	{"SERVER_NAME", "$server_name", "", ""},
	{"HTTP_HOST", "$host", "", "the name nginx chose the server by, not a Host header that an absolute request line (GET http://a/ with Host: b) contradicts; it replaces the header's HTTP_HOST"},
	{"REDIRECT_STATUS", "200", "fastcgi", "php-cgi's cgi.force_redirect runs a script only when this is set"},
}

// stockHeader starts each file gen writes in place of a package's.
const stockHeader = "# %s: %s.\n# nginxtune's own (templates/stock.go), written for the tree to load\n# where it stands; where nginx's package has installed one already,\n# that one is used and this is not written.\n"

// stockMimeTypes is the text of mime.types.
func stockMimeTypes() string {
	var b strings.Builder
	fmt.Fprintf(&b, stockHeader, "mime.types", "the types of files by their names' extensions")
	b.WriteString("types {\n")
	for _, m := range mimeTypes {
		fmt.Fprintf(&b, "    %s %s;\n", m.typ, strings.Join(m.exts, " "))
	}
	b.WriteString("}\n")
	return b.String()
}

// stockParams is the text of fastcgi_params or uwsgi_params.
func stockParams(proto string) string {
	var b strings.Builder
	fmt.Fprintf(&b, stockHeader, proto+"_params", "what the application is told of a request")
	for _, p := range gatewayParams {
		if p.proto != "" && p.proto != proto {
			continue
		}
		if p.why != "" {
			fmt.Fprintf(&b, "# %s\n", p.why)
		}
		fmt.Fprintf(&b, "%s_param %s %s;\n", proto, p.name, p.value)
	}
	return b.String()
}

// stockFiles are the data files a tree of the layout includes by a name
// relative to nginx.conf's directory: only the prefix layout's, whose
// tree stands on its own (the distributions' trees are installed into
// /etc/nginx, beside the package's files, and name them there).
func stockFiles(p *Profile, lay *Layout) []File {
	if lay.MimeTypes != "mime.types" {
		return nil
	}
	files := []File{{Path: "mime.types", Content: stockMimeTypes(), Mode: 0o644, Stock: true}}
	switch p.Kind {
	case PHP:
		files = append(files, File{Path: "fastcgi_params", Content: stockParams("fastcgi"), Mode: 0o644, Stock: true})
	case UWSGI:
		files = append(files, File{Path: "uwsgi_params", Content: stockParams("uwsgi"), Mode: 0o644, Stock: true})
	}
	return files
}
