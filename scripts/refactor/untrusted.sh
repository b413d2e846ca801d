#!/usr/bin/env bash
# Moves every caller of the text clipping and escaping to internal/untrusted,
# their one definition: report.Escape, report.EscapeLines, parser.Clip and
# parser.CutAt become untrusted.Escape, untrusted.EscapeLines, untrusted.Clip
# and untrusted.CutAt, and the unqualified calls inside report, parser and
# loader likewise; goimports then adds the import and drops the unused ones.
# Idempotent: run it again after a merge (from the repository's root, or
# anywhere inside it): bash scripts/refactor/untrusted.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"

rewrite() {
	local f=$1
	sed -i -E \
		-e 's/\breport\.EscapeLines\b/untrusted.EscapeLines/g' \
		-e 's/\breport\.Escape\b/untrusted.Escape/g' \
		-e 's/\bparser\.Clip\b/untrusted.Clip/g' \
		-e 's/\bparser\.CutAt\b/untrusted.CutAt/g' \
		"$f"
	case "$f" in
	report/*.go)
		# report's own calls (its JSONWriter stays; the escaping moved)
		sed -i -E -e 's/(^|[^.A-Za-z0-9_])(Escape|EscapeLines)\(/\1untrusted.\2(/g' "$f" ;;
	parser/*.go | loader/*.go)
		sed -i -E -e 's/(^|[^.A-Za-z0-9_])Clip\(/\1untrusted.Clip(/g' \
			-e 's/(^|[^.A-Za-z0-9_])(CutAt|truncate)\(/\1untrusted.CutAt(/g' "$f" ;;
	esac
}

rewrite_go '^internal/untrusted/' rewrite
