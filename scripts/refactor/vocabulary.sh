#!/usr/bin/env bash
# parser.Known, the vocabulary of directive names (the generated table and
# gonginx's list), is a fact about nginx and moves to knowledge as
# knowledge.IsDirective, with gonginx-directives.txt and the tests that keep
# it (TestGonginxVocabulary, TestDirectiveTableAgainstGonginx; gonginx's
# list is no longer exported). This rewrites the callers outside parser,
# then goimports.
# Idempotent: run it again after a merge, from anywhere in the repository:
#   bash scripts/refactor/vocabulary.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"

rewrite() {
	sed -i -E 's/\bparser\.Known\b/knowledge.IsDirective/g' "$1"
}

rewrite_go '^(parser|knowledge)/' rewrite
