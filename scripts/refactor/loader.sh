#!/usr/bin/env bash
# Moves the callers of what loading a configuration means from package
# parser to package loader (parser keeps the scanner, the tree of one file
# and walking it): parser.Load, LoadFS, Options, Tree, PathMap and the rest
# of the loader's API become loader.X; a diagnostic's d.NoEvents() becomes
# loader.NoEvents(d); the tree encoders moved to report, so in
# cmd/nginxtune t.WriteJSON(w) becomes report.WriteTreeJSON(w, t) and
# t.Crossplane() report.Crossplane(t). goimports then adds the loader
# import and drops a parser import no longer used.
# Idempotent: run it again after a merge, from anywhere in the repository:
#   bash scripts/refactor/loader.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"

moved='Load|LoadFS|Options|Tree|PathMap|ParsePathMap|MapPath|NearestMain|Templated|EnvPlaceholder|TemplateSuffix|MaxTreeBytes|MaxDirectiveVisits|MaxFileInstances|MaxGlobMatches|ErrNoConfig|ErrNotRegular|ErrOutside|ErrRootOutside|ErrTooLarge'

rewrite() {
	local f=$1
	sed -i -E \
		-e "s/\bparser\.($moved)\b/loader.\1/g" \
		-e 's/\b([A-Za-z_][A-Za-z0-9_]*)\.NoEvents\(\)/loader.NoEvents(\1)/g' \
		"$f"
	case "$f" in
	cmd/nginxtune/*.go)
		sed -i -E \
			-e 's/\b([A-Za-z_][A-Za-z0-9_]*)\.WriteJSON\(([^()]*)\)/report.WriteTreeJSON(\2, \1)/g' \
			-e 's/\b([A-Za-z_][A-Za-z0-9_]*)\.Crossplane\(\)/report.Crossplane(\1)/g' \
			"$f" ;;
	esac
}

rewrite_go '^(loader|parser)/' rewrite
