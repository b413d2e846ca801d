#!/bin/sh
# Moves the test kits (nginxtest, gentree, nginxserve) below internal/testkit and points
# every import at the new paths. Idempotent: run it again after merging code
# written against the old paths.
set -e
cd "$(dirname "$0")/../.."
mkdir -p internal/testkit
for k in nginxtest gentree nginxserve; do
	if [ -d "internal/$k" ]; then
		git mv "internal/$k" "internal/testkit/$k"
	fi
done
files=$(grep -rlE --include='*.go' '"github.com/nginxtune/nginxtune/internal/(nginxtest|gentree|nginxserve)"' . || true)
if [ -n "$files" ]; then
	sed -i -E 's#"github.com/nginxtune/nginxtune/internal/(nginxtest|gentree|nginxserve)"#"github.com/nginxtune/nginxtune/internal/testkit/\1"#' $files
	gofmt -w $files
fi
