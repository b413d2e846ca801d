package knowledge

import "strings"

// MIME types and compression: what gzip is worth running on.

// compressedTypes are MIME types whose bodies are already compressed.
var compressedTypes = map[string]bool{
	"image/jpeg": true, "image/jpg": true, "image/pjpeg": true, "image/png": true, "image/gif": true,
	"image/webp": true, "image/avif": true, "image/heic": true, "image/heif": true, "image/jxl": true,
	"application/zip": true, "application/gzip": true, "application/x-gzip": true,
	"application/x-bzip2": true, "application/x-7z-compressed": true, "application/x-rar-compressed": true,
	"application/vnd.rar": true, "application/x-xz": true, "application/zstd": true, "application/x-zstd": true,
	"application/x-compress": true, "application/x-brotli": true,
	"font/woff": true, "font/woff2": true, "application/font-woff": true, "application/font-woff2": true,
	"application/x-font-woff": true, "application/ogg": true,
}

// uncompressedAudio are audio types that are not compressed.
var uncompressedAudio = map[string]bool{"audio/wav": true, "audio/x-wav": true, "audio/wave": true, "audio/midi": true, "audio/x-midi": true}

// IsCompressedType reports whether bodies of a MIME type are compressed
// already (gzip would spend CPU on them for nothing).
func IsCompressedType(t string) bool {
	t = strings.ToLower(t)
	switch {
	case compressedTypes[t]:
		return true
	case strings.HasPrefix(t, "video/"):
		return true
	case strings.HasPrefix(t, "audio/"):
		return !uncompressedAudio[t]
	}
	return false
}

// GzipTypes is what gen and the fix write: text that compresses well.
const GzipTypes = "text/plain text/css text/javascript application/javascript application/json application/xml image/svg+xml"
