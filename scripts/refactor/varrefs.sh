#!/bin/sh
# The rules read a value's variables with knowledge.VarRefs (nginx's script
# compiler's reading, in one place) where they had their own varsIn/varRef:
# this rewrites the callers and deletes the local copy. Idempotent; run from
# the repository's root.
set -eu
files=$(grep -l 'varsIn(\|varRef\b' rules/*.go rules/*/*.go 2>/dev/null || true)
[ -n "$files" ] || exit 0
for f in $files; do
	# the local reader: its type and function, with their comments
	perl -0pi -e 's#// varRef is one variable in a value: .*?\n\}\n\n##s; s#// varsIn lists the variables a value uses, as nginx.s script compiler reads\n.*?\n\}\n\n##s' "$f"
	perl -pi -e '
		s/len\(r\.name\) == 1 && r\.name\[0\] >= .1. && r\.name\[0\] <= .9./r.Kind == knowledge.Capture/g;
		s/r\.end-r\.start != 2 \|\| r\.name\[0\] < .1. \|\| r\.name\[0\] > .9./r.Kind != knowledge.Capture/g;
		s/\bvarsIn\(/knowledge.VarRefs(/g;
		s/\br varRef\b/r knowledge.VarRef/g;
		s/\b(r|vs\[0\])\.name\b/$1.Name/g;
		s/\b(r|vs\[0\])\.start\b/$1.Start/g;
		s/\b(r|vs\[0\])\.end\b/$1.End/g;
	' "$f"
done
go tool goimports -w -local github.com/nginxtune/nginxtune $files
