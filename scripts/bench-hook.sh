#!/usr/bin/env bash
# make bench-hook: what the pre-commit hook costs on this machine's live
# tree: "nginxtune lint --changed FILE" (version detection and host facts
# included) against "nginx -t" on the same /etc/nginx, RUNS (default 20)
# runs each, alternating. Prints the medians and their ratio. Both run in
# DIR (default /etc/nginx), as pre-commit runs a hook at the top of the
# repository that holds the tree: the hook then finds nginx.conf above the
# changed file and lints the whole tree, as nginx -t reads it.
set -euo pipefail
RUNS=${RUNS:-20}
FILE=${FILE:-/etc/nginx/sites-enabled/default}
DIR=${DIR:-/etc/nginx}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
[ -e "$FILE" ] || { echo "bench-hook: $FILE does not exist (Debian's nginx package installs it)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/nginxtune" ./cmd/nginxtune
"$work/nginxtune" lint --changed "$FILE" >/dev/null 2>&1 || true # the first run fills the nginx -V cache
# the machine's own start-up floor: a static Go program that does nothing,
# so that a reader can tell a slow machine from a slow nginxtune
printf 'package main\n\nfunc main() {}\n' >"$work/hello.go"
CGO_ENABLED=0 go build -o "$work/hello" "$work/hello.go"
# bash's $EPOCHREALTIME: microseconds, and no process started to read the clock
elapsed() { # FILE COMMAND...: appends the command's wall time in seconds to FILE
	local out=$1 t0 t1
	shift
	t0=$EPOCHREALTIME
	"$@" >/dev/null 2>&1 || true
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$out"
}
cd "$DIR"
for _ in $(seq "$RUNS"); do
	elapsed "$work/nginx" "$NGINX" -t -q
	elapsed "$work/lint" "$work/nginxtune" lint --changed "$FILE"
	elapsed "$work/version" "$work/nginxtune" --version
	elapsed "$work/t-hello" "$work/hello"
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
n=$(median <"$work/nginx")
l=$(median <"$work/lint")
v=$(median <"$work/version")
h=$(median <"$work/t-hello")
awk -v n="$n" -v l="$l" -v v="$v" -v h="$h" -v runs="$RUNS" -v file="$FILE" 'BEGIN {
	printf "%d runs each, alternating, on %s\n", runs, file
	printf "%-28s %6.2f ms\n", "nginx -t", n * 1000
	printf "%-28s %6.2f ms\n", "nginxtune lint --changed", l * 1000
	printf "%-28s %6.2f ms\n", "nginxtune --version", v * 1000
	printf "%-28s %6.2f ms (the start-up floor of this machine)\n", "a static Go hello", h * 1000
	printf "ratio %.2f (goal <= 0.5)\n", l / n
}'
