#!/usr/bin/env bash
# make bench-lint: nginxtune lint against real "nginx -t" on the same
# synthetic tree (the shape of make bench's generator), run alternately so
# that both see the same machine load. Prints the median wall time and peak
# RSS of each and the two ratios. SERVERS (default 20000) and RUNS
# (default 5) change the size and the number of runs. BASE=BINARY adds
# another nginxtune build (an earlier commit's) to the same alternation,
# for before-and-after figures measured side by side.
set -euo pipefail
SERVERS=${SERVERS:-20000}
RUNS=${RUNS:-5}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
[ -x "$NGINX" ] || { echo "bench-lint: no nginx binary (install nginx-full: scripts/deps.sh)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-lint: needs GNU time (/usr/bin/time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/nginxtune" ./cmd/nginxtune
version=$("$NGINX" -v 2>&1 | sed 's/.*nginx\///')
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
measure() { # label command...: appends "seconds kilobytes" to $work/label
	local label=$1
	shift
	/usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null 2>&1 || true
	tail -n 1 "$work/t" >>"$work/$label" # GNU time puts "Command exited with non-zero status" first
}
echo "nginx $version; $(nproc) CPUs; $RUNS runs each, alternating; medians"
printf "%-34s %-6s %8s %8s %8s %8s\n" "tree" "format" "time" "RSS" "x time" "x RSS"
# the shape of make bench's generator; one full of findings (5,000
# upstreams without keepalive proxied to with a header that hides the http
# level's: about 25,000 findings with related places), where the cost of
# output counts; and "sites": every server a finding-heavy site of its own
# in 200 files (an upstream without keepalive, a websocket map's Connection
# header, server-level headers a location loses: about 15,000 findings in
# 465,000 lines)
for upstreams in 0 ${UPSTREAMS:-5000} sites; do
	tree=$work/tree-$upstreams
	if [ "$upstreams" = sites ]; then
		go run ./internal/cmd/gentree -servers "$SERVERS" -files 200 -sites -out "$tree" >/dev/null
	else
		go run ./internal/cmd/gentree -servers "$SERVERS" -upstreams "$upstreams" -out "$tree" >/dev/null
	fi
	cp /etc/nginx/mime.types "$tree/" 2>/dev/null || true
	g="pid $work/nginx.pid; error_log $tree/logs/error.log;"
	rm -f "$work"/nginx-* "$work"/lint-* "$work"/base-*
	for _ in $(seq "$RUNS"); do
		measure "nginx-$upstreams" "$NGINX" -t -p "$tree" -c "$tree/nginx.conf" -g "$g"
		for f in text json sarif; do
			measure "lint-$upstreams-$f" "$work/nginxtune" lint --nginx-version "$version" --format "$f" "$tree/nginx.conf"
			if [ -n "${BASE:-}" ]; then
				measure "base-$upstreams-$f" "$BASE" lint --nginx-version "$version" --format "$f" "$tree/nginx.conf"
			fi
		done
	done
	nt=$(cut -d' ' -f1 "$work/nginx-$upstreams" | median); nm=$(cut -d' ' -f2 "$work/nginx-$upstreams" | median)
	findings=$("$work/nginxtune" lint --nginx-version "$version" --format json "$tree/nginx.conf" 2>/dev/null | grep -c '"rule":' || true)
	label="$SERVERS servers, $upstreams upstreams"
	if [ "$upstreams" = sites ]; then label="$SERVERS sites, 200 files"; fi
	awk -v l="$label" -v nt="$nt" -v nm="$nm" 'BEGIN { printf "%-34s %-6s %7.2fs %6.0fMB\n", l, "nginx", nt, nm / 1024 }'
	for f in text json sarif; do
		for who in lint base; do
			[ -f "$work/$who-$upstreams-$f" ] || continue
			lt=$(cut -d' ' -f1 "$work/$who-$upstreams-$f" | median); lm=$(cut -d' ' -f2 "$work/$who-$upstreams-$f" | median)
			l="($findings findings)"
			if [ "$who" = base ]; then l="  base build"; fi
			awk -v l="$l" -v f="$f" -v lt="$lt" -v lm="$lm" -v nt="$nt" -v nm="$nm" 'BEGIN {
				printf "%-34s %-6s %7.2fs %6.0fMB %8.3f %8.3f\n", l, f, lt, lm / 1024, lt / nt, lm / nm }'
		done
	done
done
echo "goals: time ratio <= 0.10, memory ratio <= 0.25 (docs/lint-speed.md)"
