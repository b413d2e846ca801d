#!/bin/sh
# Moves callers of package rules off the names rules no longer has: the
# finding types and severities rules re-exported (rules.Diagnostic,
# rules.Severity, rules.Error, ...) and rules.ParseSeverity are finding's.
# Idempotent: a second run changes nothing. Run from anywhere in the repo.
set -eu
cd "$(git rev-parse --show-toplevel)"
names='Diagnostic|Severity|Info|Warning|Error|Edit|Fix|Related|ParseSeverity'
files=$(grep -rlE "\brules\.($names)\b" --include='*.go' . | grep -v '^\./rules/' || true)
for f in $files; do
	sed -i -E "s/\brules\.($names)\b/finding.\1/g" "$f"
	# goimports adds the finding import and drops rules' when unused
	go tool goimports -w -local github.com/nginxtune/nginxtune "$f"
done
