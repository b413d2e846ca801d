#!/usr/bin/env bash
# knowledge.Handlers, an exported map any importer could change, becomes the
# function knowledge.Responds: the directives that make a location's
# response without serving its files (the content handlers but flv, mp4
# and hls, and return). Rewrites the callers, then goimports.
# Idempotent: run it again after a merge, from anywhere in the repository:
#   bash scripts/refactor/responders.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"

rewrite() {
	sed -i -E 's/\bknowledge\.Handlers\[([^]]+)\]/knowledge.Responds(\1)/g' "$1"
}

rewrite_go '^knowledge/' rewrite
