#!/bin/sh
# Moves callers of package rules onto the names rules no longer has.
#   - the finding types and severities rules re-exported (rules.Diagnostic,
#     rules.Severity, rules.Error, ...) and rules.ParseSeverity: finding's;
#   - the engine's names (rules.Config, rules.MaxFindings, rules.Categories,
#     rules.Override, rules.GlobMatcher, rules.FixSet, rules.ApplyEdits,
#     rules.SelectFixes, rules.Category*): package rules/engine's.
# rules.Run, RunCounted, All, ByID, Select, NginxRefuses, LoaderRule,
# DocsMarkdown, ContextKey, Available, Assumed, Version, FixSession,
# ErrFixBroke and MaxFixPasses stay in rules.
# Idempotent: a second run changes nothing. Run from anywhere in the repo.
set -eu
cd "$(git rev-parse --show-toplevel)"
fnames='Diagnostic|Severity|Info|Warning|Error|Edit|Fix|Related|ParseSeverity'
enames='Config|MaxFindings|Categories|Category[A-Za-z]*|Override|GlobMatcher|FixSet|SelectFixes|ApplyEdits'
files=$(grep -rlE "\brules\.($fnames|$enames)\b" --include='*.go' . | grep -v '^\./rules/' || true)
for f in $files; do
	sed -i -E "s/\brules\.($fnames)\b/finding.\1/g; s/\brules\.($enames)\b/engine.\1/g" "$f"
	if grep -q '\bengine\.' "$f" && ! grep -q '"github.com/nginxtune/nginxtune/rules/engine"' "$f"; then
		# goimports cannot tell which package "engine" is: name it, beside
		# the rules import (or first)
		if grep -q '^	"github.com/nginxtune/nginxtune/rules"$' "$f"; then
			sed -i 's|^	"github.com/nginxtune/nginxtune/rules"$|&\n	"github.com/nginxtune/nginxtune/rules/engine"|' "$f"
		else
			sed -i '0,/^import (/s//import (\n\t"github.com\/nginxtune\/nginxtune\/rules\/engine"/' "$f"
		fi
	fi
	# goimports adds the finding import and drops rules' when unused
	go tool goimports -w -local github.com/nginxtune/nginxtune "$f"
done
