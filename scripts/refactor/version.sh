#!/usr/bin/env bash
# rules.Version, an alias of knowledge.Version, goes: an nginx version has
# one name, knowledge.Version. Rewrites the callers (and rules' own uses of
# the alias), then goimports.
# Idempotent: run it again after a merge, from anywhere in the repository:
#   bash scripts/refactor/version.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"

rewrite() {
	local f=$1
	sed -i -E 's/\brules\.Version\b/knowledge.Version/g' "$f"
	case "$f" in
	rules/*.go)
		# the alias's uses as a type inside package rules
		sed -i -E \
			-e 's/\b(v|w) Version\b/\1 knowledge.Version/g' \
			-e 's/(^|[^.A-Za-z0-9_])Version\{\}/\1knowledge.Version{}/g' \
			-e 's/map\[Version\]/map[knowledge.Version]/g' \
			-e 's/\[\]Version\{/[]knowledge.Version{/g' \
			"$f"
		# the alias itself
		perl -0pi -e 's#// Version is an nginx version \(knowledge\.Version\):.*?\ntype Version = knowledge\.Version\n\n##s' "$f" ;;
	esac
}

rewrite_go '^knowledge/' rewrite
