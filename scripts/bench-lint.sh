#!/usr/bin/env bash
# make bench-lint: nginxtune lint against real "nginx -t" on the same
# synthetic tree (the shape of make bench's generator), run alternately so
# that both see the same machine load. Prints the median wall time and peak
# RSS of each and the two ratios. SERVERS (default 20000) and RUNS
# (default 5) change the size and the number of runs.
set -euo pipefail
SERVERS=${SERVERS:-20000}
RUNS=${RUNS:-5}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
[ -x "$NGINX" ] || { echo "bench-lint: no nginx binary (install nginx-full: scripts/deps.sh)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-lint: needs GNU time (/usr/bin/time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/nginxtune" ./cmd/nginxtune
go run ./internal/cmd/gentree -servers "$SERVERS" -out "$work/tree"
cp /etc/nginx/mime.types "$work/tree/" 2>/dev/null || true
version=$("$NGINX" -v 2>&1 | sed 's/.*nginx\///')
g="pid $work/nginx.pid; error_log $work/tree/logs/error.log;"
measure() { # label command...: appends "seconds kilobytes" to $work/label
	local label=$1
	shift
	/usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null 2>&1 || true
	tail -n 1 "$work/t" >>"$work/$label" # GNU time puts "Command exited with non-zero status" first
}
for _ in $(seq "$RUNS"); do
	measure nginx "$NGINX" -t -p "$work/tree" -c "$work/tree/nginx.conf" -g "$g"
	measure lint "$work/nginxtune" lint --nginx-version "$version" "$work/tree/nginx.conf"
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
nt=$(cut -d' ' -f1 "$work/nginx" | median); nm=$(cut -d' ' -f2 "$work/nginx" | median)
lt=$(cut -d' ' -f1 "$work/lint" | median); lm=$(cut -d' ' -f2 "$work/lint" | median)
echo
echo "$SERVERS servers, $RUNS runs each, alternating; nginx $version; $(nproc) CPUs"
awk -v nt="$nt" -v nm="$nm" -v lt="$lt" -v lm="$lm" 'BEGIN {
	printf "%-16s %6.2f s %6.0f MB\n", "nginx -t", nt, nm / 1024
	printf "%-16s %6.2f s %6.0f MB\n", "nginxtune lint", lt, lm / 1024
	printf "time ratio %.3f (goal <= 0.1), memory ratio %.3f (goal <= 0.25)\n", lt / nt, lm / nm
}'
