#!/usr/bin/env bash
# Prints the version a build calls itself: VERSION when the commit is tagged
# vVERSION, else VERSION~dev+gCOMMIT (with .dirty for uncommitted changes),
# which sorts before the release in Debian's version order.
set -euo pipefail
cd "$(dirname "$0")/.."
v=$(tr -d '[:space:]' < VERSION)
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "$v"; exit 0
fi
if git describe --tags --exact-match --match "v$v" >/dev/null 2>&1 && git diff --quiet HEAD 2>/dev/null; then
  echo "$v"; exit 0
fi
suffix="~dev+g$(git rev-parse --short=12 HEAD)"
git diff --quiet HEAD 2>/dev/null || suffix="$suffix.dirty"
echo "$v$suffix"
