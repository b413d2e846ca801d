#!/usr/bin/env bash
# What reading a configuration finds is a finding.Diagnostic, the one type
# of a finding, where it was a parser.Diagnostic: its kind is in Rule (the id
# of the rule that reports it; it was Kind), named by constants where it was
# compared as a string (parser.Syntax, loader.IncludeMissing, IncludeCycle,
# IncludeOutsideTree), and the line nginx -t names is EndLine (it was
# NginxLine). parser's severity alias and constants give way to finding's.
# Rewrites the callers outside parser and loader, then goimports.
# Idempotent: run it again after a merge, from anywhere in the repository:
#   bash scripts/refactor/findings.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"

rewrite() {
	local f=$1
	sed -i -E \
		-e 's/\bparser\.Diagnostic\b/finding.Diagnostic/g' \
		-e 's/\bparser\.Severity\b/finding.Severity/g' \
		-e 's/\bparser\.SevError\b/finding.Error/g' \
		-e 's/\bparser\.SevWarning\b/finding.Warning/g' \
		-e 's/\bparser\.SevInfo\b/finding.Info/g' \
		-e 's/\b([A-Za-z_][A-Za-z0-9_]*)\.Kind (==|!=) "syntax"/\1.Rule \2 parser.Syntax/g' \
		-e 's/\b([A-Za-z_][A-Za-z0-9_]*)\.Kind (==|!=) "include-missing"/\1.Rule \2 loader.IncludeMissing/g' \
		-e 's/\b([A-Za-z_][A-Za-z0-9_]*)\.Kind (==|!=) "include-cycle"/\1.Rule \2 loader.IncludeCycle/g' \
		-e 's/\b([A-Za-z_][A-Za-z0-9_]*)\.Kind (==|!=) "include-outside-tree"/\1.Rule \2 loader.IncludeOutsideTree/g' \
		"$f"
	case "$f" in
	rules/loading.go)
		# the loader's findings, reported by the rule of their kind
		sed -i -E -e 's/\bd\.Kind != kind\b/d.Rule != kind/' -e 's/\bd\.NginxLine\b/d.EndLine/g' "$f" ;;
	cmd/nginxtune/parse.go)
		# parse names each finding's kind after it
		sed -i -E -e 's/untrusted\.Escape\(d\.Message\), d\.Kind\)/untrusted.Escape(d.Message), d.Rule)/' "$f" ;;
	format/format.go)
		# a refusal reads as a loader's finding did: FILE:LINE:COL: MESSAGE
		sed -i -E \
			-e 's/finding\.Diagnostic\{Kind: "syntax",/finding.Diagnostic{Rule: parser.Syntax,/' \
			-e 's/return e\.Diagnostic\.Error\(\) \+ " \(not formatted\)"/return fmt.Sprintf("%s:%d:%d: %s (not formatted)", e.File, e.Line, e.Col, e.Message)/' \
			"$f" ;;
	esac
}

rewrite_go '^(loader|parser)/' rewrite
