#!/usr/bin/env bash
# make bench-hook: what the pre-commit hook costs on this machine's live
# tree: "nginxtune lint --changed FILE" (version detection and host facts
# included) against "nginx -t" on the same /etc/nginx, RUNS (default 20)
# runs each, alternating. Prints the medians and their ratio. Both run in
# DIR (default /etc/nginx), as pre-commit runs a hook at the top of the
# repository that holds the tree: the hook then finds nginx.conf above the
# changed file and lints the whole tree, as nginx -t reads it. BASE=BINARY
# adds another nginxtune build (an earlier commit's) to the alternation.
# With valgrind installed it also counts each command's instructions, which
# the machine's load does not move.
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
	if [ -n "${BASE:-}" ]; then
		elapsed "$work/base" "$BASE" lint --changed "$FILE"
	fi
	elapsed "$work/version" "$work/nginxtune" --version
	elapsed "$work/t-hello" "$work/hello"
done
# page faults (minor: pages of the binary and of memory touched for the first
# time), the other half of start-up: GNU time's %R, median of 5 runs
faults() {
	local i
	for i in 1 2 3 4 5; do
		/usr/bin/time -f "%R" -o "$work/f" "$@" >/dev/null 2>&1 || true
		tail -n 1 "$work/f"
	done | sort -n | sed -n 3p
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
n=$(median <"$work/nginx")
l=$(median <"$work/lint")
v=$(median <"$work/version")
h=$(median <"$work/t-hello")
fn=- fl=- fv=- fh=-
if [ -x /usr/bin/time ]; then
	fn=$(faults "$NGINX" -t -q)
	fl=$(faults "$work/nginxtune" lint --changed "$FILE")
	fv=$(faults "$work/nginxtune" --version)
	fh=$(faults "$work/hello")
fi
awk -v n="$n" -v l="$l" -v v="$v" -v h="$h" -v runs="$RUNS" -v file="$FILE" -v fn="$fn" -v fl="$fl" -v fv="$fv" -v fh="$fh" 'BEGIN {
	printf "%d runs each, alternating, on %s (page faults: median of 5 more runs)\n", runs, file
	printf "%-28s %6.2f ms %6s faults\n", "nginx -t", n * 1000, fn
	printf "%-28s %6.2f ms %6s faults\n", "nginxtune lint --changed", l * 1000, fl
	printf "%-28s %6.2f ms %6s faults\n", "nginxtune --version", v * 1000, fv
	printf "%-28s %6.2f ms %6s faults (the start-up floor of this machine)\n", "a static Go hello", h * 1000, fh
	printf "ratio %.2f (goal <= 0.5)\n", l / n
}'
if [ -n "${BASE:-}" ]; then
	b=$(median <"$work/base")
	awk -v b="$b" -v n="$n" 'BEGIN { printf "%-28s %6.2f ms (ratio %.2f)\n", "base build: lint --changed", b * 1000, b / n }'
fi
# instructions, counted rather than timed (valgrind's callgrind, user space
# only): on a shared machine the times above move with its load, these do
# not (a Go program's count moves 1-2 % between runs: the median of three).
# Go's asynchronous preemption is off under valgrind, which does not deliver
# its signals the way the program expects.
if command -v valgrind >/dev/null; then
	instr() {
		local i
		for i in 1 2 3; do
			GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
				sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
		done | sort -n | sed -n 2p
	}
	in=$(instr "$NGINX" -t -q)
	il=$(instr "$work/nginxtune" lint --changed "$FILE")
	iv=$(instr "$work/nginxtune" --version)
	ih=$(instr "$work/hello")
	awk -v n="$in" -v l="$il" -v v="$iv" -v h="$ih" 'BEGIN {
		printf "instructions (callgrind, median of 3): nginx -t %.2fM, lint --changed %.2fM (%.2f), --version %.2fM, hello %.2fM\n", n / 1e6, l / 1e6, l / n, v / 1e6, h / 1e6
	}'
	if [ -n "${BASE:-}" ]; then
		ib=$(instr "$BASE" lint --changed "$FILE")
		awk -v b="$ib" -v n="$in" 'BEGIN { printf "instructions, base build: lint --changed %.2fM (%.2f)\n", b / 1e6, b / n }'
	fi
else
	echo "instructions: install valgrind to count them (apt-get install valgrind)"
fi
