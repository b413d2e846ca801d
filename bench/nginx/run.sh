#!/usr/bin/env bash
# Benchmarks real nginx on loopback: Debian's stock configuration against the
# one `nginxtune gen` writes for this host and the hand-tuned configuration of
# the published benchmark (docs/measurements.md), then a reverse proxy with
# proxy_pass straight to the backend's address against `gen --profile proxy`.
#
#   bench/nginx/run.sh            # writes docs/benchmarks.md and prints it
#
# Every load run is bounded in time (DURATION seconds, LONG for the long proxy
# run) and sends traffic to 127.0.0.1 only. Variants alternate within each
# round (A, B, C, A, B, C, ...) and the table shows medians of RUNS rounds.
# Needs root (nginx workers run as www-data, as on a server); installs nginx,
# wrk and ab from Debian when missing.
set -euo pipefail

DURATION=${DURATION:-3}
LONG=${LONG:-30}
RUNS=${RUNS:-3}
CONNS=${CONNS:-50}
OUT=${OUT:-docs/benchmarks.md}

cd "$(dirname "$0")/../.."
top=$(pwd)
[ "$(id -u)" = 0 ] || { echo "run.sh: needs root (nginx starts as root and drops to www-data)" >&2; exit 2; }

need=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-full)
command -v wrk >/dev/null || need+=(wrk)
command -v ab >/dev/null || need+=(apache2-utils)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
NGINX_VERSION=$("$NGINX" -v 2>&1 | sed 's/.*nginx\///')

work=$(mktemp -d /tmp/nginxtune-bench.XXXXXX)
chmod 755 "$work"
cleanup() {
  for p in "$work"/*/nginx.pid; do
    [ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null || true
  done
  sleep 0.3
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/nginxtune" ./cmd/nginxtune

# content: 1 KB and 100 KB files
docroot="$work/www"
mkdir -p "$docroot"
dd if=/dev/urandom bs=768 count=1 2>/dev/null | base64 -w 76 > "$docroot/1k.html"
dd if=/dev/urandom bs=76800 count=1 2>/dev/null | base64 -w 76 > "$docroot/100k.html"
cp "$docroot/1k.html" "$docroot/index.html"
chmod -R a+rX "$docroot"

# With 4 or more CPUs the server and the client get separate halves.
PIN_SERVER=() PIN_CLIENT=()
if [ "$(nproc)" -ge 4 ]; then
  half=$(( $(nproc) / 2 ))
  PIN_SERVER=(taskset -c "0-$((half - 1))")
  PIN_CLIENT=(taskset -c "$half-$(( $(nproc) - 1 ))")
fi

PORT_HTTP=18080
PORT_TLS=18443
PORT_BACKEND=18090

# prefix NAME: a directory with a self-signed certificate and the stock data files
prefix() {
  local p="$work/$1"
  mkdir -p "$p/logs" "$p/conf.d" "$p/sites-enabled" "$p/modules-enabled"
  cp /etc/nginx/mime.types "$p/"
  [ -f "$work/cert.pem" ] || openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$work/key.pem" -out "$work/cert.pem" -days 2 -subj /CN=localhost 2>/dev/null
  cp "$work/cert.pem" "$work/key.pem" "$p/"
  echo "$p"
}

# localize FILE PREFIX: point a configuration at the prefix, loopback ports
# and the benchmark's document root
localize() {
  sed -i -E \
    -e "s#/etc/nginx/#$2/#g" \
    -e "s#/var/log/nginx/#$2/logs/#g" \
    -e "/^[[:space:]]*pid /d" \
    -e "/listen \[::\]/d" \
    -e "s#listen 80( default_server)?( backlog=[0-9]+)?;#listen 127.0.0.1:$PORT_HTTP\2;#" \
    -e "s#listen 443 ssl#listen 127.0.0.1:$PORT_TLS ssl#" \
    -e "s#listen 127.0.0.1:8080;#listen 127.0.0.1:$PORT_HTTP;#" \
    "$1"
}

start() { # start PREFIX
  "${PIN_SERVER[@]}" "$NGINX" -p "$1/" -c "$1/nginx.conf" -e "$1/logs/error.log" -g "pid $1/nginx.pid;" 2>"$1/logs/start.log" || {
    cat "$1/logs/start.log" >&2; exit 1; }
  sleep 0.5
}
stop() { # stop PREFIX
  [ -f "$1/nginx.pid" ] && kill -QUIT "$(cat "$1/nginx.pid")" 2>/dev/null || true
  for _ in $(seq 50); do [ -f "$1/nginx.pid" ] || break; sleep 0.1; done
}

# --- the three static configurations ---------------------------------------
stock=$(prefix stock)
cp /etc/nginx/nginx.conf "$stock/nginx.conf"
localize "$stock/nginx.conf" "$stock"
cat > "$stock/sites-enabled/bench" <<EOF
server {
    listen 127.0.0.1:$PORT_HTTP;
    listen 127.0.0.1:$PORT_TLS ssl;
    ssl_certificate $stock/cert.pem;
    ssl_certificate_key $stock/key.pem;
    root $docroot;
    index index.html;
    location / { try_files \$uri \$uri/ =404; }
}
EOF

gen=$(prefix generated)
"$work/nginxtune" gen --profile static --root "$docroot" --tls "$gen/cert.pem,$gen/key.pem" --out "$gen/out" 2>"$gen/logs/gen.log"
cp "$gen/out/nginx.conf" "$gen/nginx.conf"
mkdir -p "$gen/sites"
# one server for both ports: drop the generated HTTP-to-HTTPS redirect
awk 'BEGIN{skip=0} /^server \{/ && !seen++ {skip=1} skip&&/^\}/ {skip=0; next} !skip' "$gen/out/sites/default.conf" > "$gen/sites/default.conf"
sed -i "s#^    listen 443 ssl#    listen 80;\n    listen 443 ssl#" "$gen/sites/default.conf"
localize "$gen/nginx.conf" "$gen"
localize "$gen/sites/default.conf" "$gen"
sed -i "s#include sites/\*.conf;#include $gen/sites/*.conf;#" "$gen/nginx.conf"
limit=$(grep -oE 'worker_rlimit_nofile [0-9]+' "$gen/nginx.conf" | awk '{print $2}')

tuned=$(prefix tuned)
grep -v '# nginxtune-test' fixtures/mission/static-tuned.conf | sed -E 's/ *# want.*$//' > "$tuned/nginx.conf"
localize "$tuned/nginx.conf" "$tuned"
sed -i -E "s#root /usr/share/nginx/html;#root $docroot;\n        listen 127.0.0.1:$PORT_TLS ssl;\n        ssl_certificate $tuned/cert.pem;\n        ssl_certificate_key $tuned/key.pem;#" "$tuned/nginx.conf"
sed -i -E "s#^worker_rlimit_nofile [0-9]+;#worker_rlimit_nofile 100000;#" "$tuned/nginx.conf"

for p in "$stock" "$gen" "$tuned"; do
  "$NGINX" -t -q -p "$p/" -c "$p/nginx.conf" -e stderr -g "pid $p/nginx.pid;" || { echo "run.sh: $p/nginx.conf fails nginx -t" >&2; exit 1; }
done

# --- measuring ---------------------------------------------------------------
# cpu_ticks PREFIX: user+system clock ticks of the nginx processes of a prefix
cpu_ticks() {
  local master total=0
  master=$(cat "$1/nginx.pid")
  for pid in "$master" $(pgrep -P "$master"); do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
HZ=$(getconf CLK_TCK)

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print 0; else print a[int((NR+1)/2)]}'; }

# winner RPS_STOCK RPS_GEN RPS_TUNED CPU_STOCK CPU_GEN CPU_TUNED: the most
# requests per second, and the least nginx CPU per request
winner() {
  awk -v a="$1" -v b="$2" -v c="$3" -v x="$4" -v y="$5" -v z="$6" 'BEGIN {
    r = "stock"; m = a; if (b > m) { r = "generated"; m = b }; if (c > m) { r = "hand-tuned" }
    u = "stock"; n = x; if (y != "-" && y < n) { u = "generated"; n = y }; if (z != "-" && z < n) { u = "hand-tuned" }
    printf "%s (rps), %s (CPU)", r, u
  }'
}

rows=()
static_case() { # NAME URL WRK-ARGS...
  local name=$1 url=$2; shift 2
  declare -A rps cpu errs
  local variants=(stock generated tuned)
  for r in $(seq "$RUNS"); do
    # rotate the order each round: a run inherits the TIME-WAIT sockets of
    # the one before it, which costs the next client ports on connect()
    for i in 0 1 2; do
      local v=${variants[$(( (i + r - 1) % 3 ))]}
      read -r x e _ _ c < <(load "$work/$v" "$url" "$DURATION" "$@")
      rps[$v]+="$x "; errs[$v]=$(( ${errs[$v]:-0} + e )); cpu[$v]+="$c "
    done
  done
  local s g t
  s=$(tr ' ' '\n' <<<"${rps[stock]}" | grep . | median)
  g=$(tr ' ' '\n' <<<"${rps[generated]}" | grep . | median)
  t=$(tr ' ' '\n' <<<"${rps[tuned]}" | grep . | median)
  local cs cg ct
  cs=$(tr ' ' '\n' <<<"${cpu[stock]}" | grep . | median)
  cg=$(tr ' ' '\n' <<<"${cpu[generated]}" | grep . | median)
  ct=$(tr ' ' '\n' <<<"${cpu[tuned]}" | grep . | median)
  rows+=("$(printf '| %s | %.0f | %.0f (%.2fx) | %.0f (%.2fx) | %s / %s / %s | %s | %s / %s / %s |' "$name" "$s" "$g" "$(awk -v a="$g" -v b="$s" 'BEGIN{print a/b}')" "$t" "$(awk -v a="$t" -v b="$s" 'BEGIN{print a/b}')" \
    "$cs" "$cg" "$ct" "$(winner "$s" "$g" "$t" "$cs" "$cg" "$ct")" \
    "${errs[stock]}" "${errs[generated]}" "${errs[tuned]}")")
  echo "${rows[-1]}" >&2
}

# The configurations listen on the same ports: each load run starts its
# nginx, measures it, and stops it again.
# load PREFIX URL SECONDS WRK-ARGS... -> "rps errors p50 p99 cpu_us_per_request"
load() {
  local p=$1 url=$2 secs=$3; shift 3
  local before after out rps errs p50 p99 reqs
  start "$p"
  before=$(cpu_ticks "$p")
  out=$(timeout $((secs + 30)) "${PIN_CLIENT[@]}" wrk -t1 -c"$CONNS" -d"${secs}s" --latency "$@" "$url" 2>&1 || true)
  after=$(cpu_ticks "$p")
  stop "$p"
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  reqs=$(awk '/requests in/ {print $1}' <<<"$out")
  errs=$(awk '/Socket errors/ {gsub(",", ""); s=$4+$6+$8+$10} /Non-2xx/ {n=$5} END {print s+n+0}' <<<"$out")
  p50=$(awk '$1=="50%" {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  echo "${rps:-0} ${errs:-0} ${p50:--} ${p99:--} $(awk -v t=$((after - before)) -v hz="$HZ" -v r="${reqs:-0}" 'BEGIN{ if (r>0) printf "%.0f", t/hz*1e6/r; else print "-" }')"
}

echo "static: ${RUNS} rounds of ${DURATION}s per case, ${CONNS} connections" >&2
# each_static_case FUNCTION: the eight static cases
each_static_case() {
  "$1" "1 KB, HTTP, keep-alive" "http://127.0.0.1:$PORT_HTTP/1k.html"
  "$1" "1 KB, HTTP, new connection per request" "http://127.0.0.1:$PORT_HTTP/1k.html" -H "Connection: close"
  "$1" "100 KB, HTTP, keep-alive" "http://127.0.0.1:$PORT_HTTP/100k.html"
  "$1" "100 KB, HTTP, new connection per request" "http://127.0.0.1:$PORT_HTTP/100k.html" -H "Connection: close"
  "$1" "1 KB, HTTPS, keep-alive" "https://127.0.0.1:$PORT_TLS/1k.html"
  "$1" "1 KB, HTTPS, new connection per request" "https://127.0.0.1:$PORT_TLS/1k.html" -H "Connection: close"
  "$1" "100 KB, HTTPS, keep-alive" "https://127.0.0.1:$PORT_TLS/100k.html"
  "$1" "100 KB, HTTPS, new connection per request" "https://127.0.0.1:$PORT_TLS/100k.html" -H "Connection: close"
}
each_static_case static_case

# What each deliberate choice of the generated configuration costs: the same
# configuration without it, and without all four, beside the hand-tuned one
# in the same rounds, on every static case
variant() { # NAME SED-EXPRESSION FILE...: a copy of the generated prefix, edited
  local v=$1 expr=$2; shift 2
  rm -rf "$work/$v"
  cp -a "$gen" "$work/$v"
  sed -i "s#$gen/#$work/$v/#g" "$work/$v/nginx.conf" "$work/$v/sites/default.conf"
  for f in "$@"; do sed -i -E "$expr" "$work/$v/$f"; done
  "$NGINX" -t -q -p "$work/$v/" -c "$work/$v/nginx.conf" -e stderr -g "pid $work/$v/nginx.pid;" || { echo "run.sh: variant $v fails nginx -t" >&2; exit 1; }
}
variant gen-nolog 's#^( *)access_log [^;]*;#\1access_log off;#' nginx.conf
variant gen-notry 's#^ *try_files .*##' sites/default.conf
variant gen-1worker 's#^worker_processes .*#worker_processes 1;#' nginx.conf
variant gen-tls12 's#^( *)ssl_protocols .*#\1ssl_protocols TLSv1.2;#' nginx.conf sites/default.conf
variant gen-none 's#^( *)access_log [^;]*;#\1access_log off;#; s#^worker_processes .*#worker_processes 1;#; s#^( *)ssl_protocols .*#\1ssl_protocols TLSv1.2;#; s#^ *try_files .*##' nginx.conf sites/default.conf
arows=()
ablation_case() { # NAME URL WRK-ARGS...
  local name=$1 url=$2; shift 2
  declare -A rps cpu
  local variants=(generated gen-nolog gen-notry gen-1worker gen-tls12 gen-none tuned)
  local n=${#variants[@]}
  for r in $(seq "$RUNS"); do
    for i in $(seq 0 $((n - 1))); do
      local v=${variants[$(( (i + r - 1) % n ))]}
      read -r x _ _ _ c < <(load "$work/$v" "$url" "$DURATION" "$@")
      rps[$v]+="$x "; cpu[$v]+="$c "
    done
  done
  local line="| $name" med
  declare -A mcpu
  for v in "${variants[@]}"; do
    med=$(tr ' ' '\n' <<<"${cpu[$v]}" | grep . | median)
    mcpu[$v]=$med
    line+=" | $(tr ' ' '\n' <<<"${rps[$v]}" | grep . | median | awk '{printf "%.0f", $1}') / $med"
  done
  local nmin tmax
  nmin=$(tr ' ' '\n' <<<"${cpu[gen-none]}" | grep . | sort -g | head -1)
  tmax=$(tr ' ' '\n' <<<"${cpu[tuned]}" | grep . | sort -g | tail -1)
  arows+=("$line | $(verdict "${mcpu[generated]}" "${mcpu[tuned]}" "${mcpu[gen-none]}" "$nmin" "$tmax") |")
  echo "${arows[-1]}" >&2
}
# verdict GEN TUNED NONE NONE_MIN TUNED_MAX (CPU µs per request, medians
# and the extremes of the rounds): whether the hand-tuned configuration's
# lower CPU comes from the four choices. A microsecond is the figures'
# resolution; a difference of medians smaller than the spread between rounds
# (the best round without the four choices at or below the worst hand-tuned
# one) is not told apart from noise.
verdict() {
  awk -v g="$1" -v t="$2" -v n="$3" -v nmin="$4" -v tmax="$5" 'BEGIN {
    if (g == "-" || t == "-" || n == "-") { print "-"; exit }
    if (g <= t + 1) { printf "generated spends no more (%d vs %d)", g, t; exit }
    if (n <= t + 1) { printf "the four choices: without them %d vs %d", n, t; exit }
    if (nmin <= tmax) { printf "the four choices: without them %d vs %d, within the spread of the rounds (%d vs %d at worst)", n, t, nmin, tmax; exit }
    printf "%d µs (%.0f %%) per request not from the four choices", n - t, (n - t) * 100 / t
  }'
}
each_static_case ablation_case

# TLS session resumption: wrk resumes TLS 1.2 sessions but not TLS 1.3 ones,
# openssl s_time -reuse resumes either (one connection at a time: a latency
# figure, the same for all three)
stime_rows=()
for v in stock generated tuned; do
  vals=() cpus=()
  for r in $(seq "$RUNS"); do
    start "$work/$v"
    before=$(cpu_ticks "$work/$v")
    out=$(timeout $((DURATION + 30)) "${PIN_CLIENT[@]}" openssl s_time -connect "127.0.0.1:$PORT_TLS" -www /1k.html -reuse -time "$DURATION" 2>&1 || true)
    after=$(cpu_ticks "$work/$v")
    stop "$work/$v"
    n=$(awk '/connections in/ && !/user sec/ {print $1; exit}' <<<"$out")
    [ -z "$n" ] && n=$(awk '/connections in/ {print $1; exit}' <<<"$out")
    vals+=("$(awk -v n="${n:-0}" -v d="$DURATION" 'BEGIN{printf "%.0f", n/d}')")
    cpus+=("$(awk -v t=$((after - before)) -v hz="$HZ" -v r="${n:-0}" 'BEGIN{ if (r>0) printf "%.0f", t/hz*1e6/r; else print "-" }')")
  done
  stime_rows+=("$(printf '%s\n' "${vals[@]}" | median) $(printf '%s\n' "${cpus[@]}" | median)")
done
echo "s_time -reuse: ${stime_rows[*]}" >&2

# ab cross-check: ApacheBench speaks HTTP/1.0 (so nginx does not gzip for it)
ab_rows=()
for v in stock generated tuned; do
  vals=()
  for r in $(seq "$RUNS"); do
    start "$work/$v"
    vals+=("$(timeout $((DURATION + 30)) "${PIN_CLIENT[@]}" ab -q -k -c "$CONNS" -t "$DURATION" -n 10000000 "http://127.0.0.1:$PORT_HTTP/1k.html" 2>/dev/null | awk '/Requests per second/ {print $4}')")
    stop "$work/$v"
  done
  ab_rows+=("$(printf '%s\n' "${vals[@]}" | grep . | median)")
done
echo "ab 1 KB keep-alive: ${ab_rows[*]}" >&2

# --- reverse proxy -----------------------------------------------------------
PROXY_MAX=400 # the most client connections a proxy case uses; gen sizes its pool for it
backend=$(prefix backend)
cat > "$backend/nginx.conf" <<EOF
worker_processes 1;
worker_rlimit_nofile 65536;
events { worker_connections 16384; }
http {
    access_log off;
    keepalive_requests 100000;
    server {
$(for k in $(seq 0 63); do echo "        listen 127.0.0.1:$((PORT_BACKEND + 100 + k)) backlog=4096;"; done)
        location / { return 200 "$(tr -d '\n' < "$docroot/1k.html" | cut -c1-1000)"; }
    }
}
EOF
straight=$(prefix straight)
cp /etc/nginx/nginx.conf "$straight/nginx.conf"
localize "$straight/nginx.conf" "$straight"
sed -i -E 's/worker_connections [0-9]+;/worker_connections 4096;/' "$straight/nginx.conf"
sed -i -E "s#^(worker_processes .*)#\1\nworker_rlimit_nofile 16384;#" "$straight/nginx.conf"
cat > "$straight/sites-enabled/bench" <<EOF
server {
    listen 127.0.0.1:$PORT_HTTP;
    location / { proxy_pass http://127.0.0.1:$PORT_BACKEND; }
}
EOF
gproxy=$(prefix gen-proxy)
"$work/nginxtune" gen --profile proxy --upstream "127.0.0.1:$PORT_BACKEND" --concurrency "$PROXY_MAX" --out "$gproxy/out" 2>"$gproxy/logs/gen.log"
cp "$gproxy/out/nginx.conf" "$gproxy/nginx.conf"
mkdir -p "$gproxy/sites" && cp "$gproxy/out/sites/default.conf" "$gproxy/sites/"
localize "$gproxy/nginx.conf" "$gproxy"
localize "$gproxy/sites/default.conf" "$gproxy"
sed -i "s#include sites/\*.conf;#include $gproxy/sites/*.conf;#" "$gproxy/nginx.conf"
for p in "$backend" "$straight" "$gproxy"; do
  "$NGINX" -t -q -p "$p/" -c "$p/nginx.conf" -e stderr -g "pid $p/nginx.pid;" || { echo "run.sh: $p/nginx.conf fails nginx -t" >&2; exit 1; }
done
cp "$straight/sites-enabled/bench" "$straight/bench.orig"
cp "$gproxy/sites/default.conf" "$gproxy/default.orig"
# use_ports PREFIX K: the proxy listens on PORT_HTTP+200+K and passes to the
# backend's PORT_BACKEND+100+K, ports no other run uses, so the TIME-WAIT
# sockets counted after a run are that run's own
RUN=0
use_ports() {
  local f=$((PORT_HTTP + 200 + $2)) b=$((PORT_BACKEND + 100 + $2))
  if [ "$1" = "$straight" ]; then
    sed -e "s#127.0.0.1:$PORT_HTTP;#127.0.0.1:$f;#" -e "s#127.0.0.1:$PORT_BACKEND;#127.0.0.1:$b;#" "$straight/bench.orig" > "$straight/sites-enabled/bench"
  else
    sed -e "s#127.0.0.1:$PORT_HTTP;#127.0.0.1:$f;#" -e "s#server 127.0.0.1:$PORT_BACKEND;#server 127.0.0.1:$b;#" "$gproxy/default.orig" > "$gproxy/sites/default.conf"
  fi
  echo "$f $b"
}
start "$backend"
prows=()
proxy_case() { # NAME SECS CONNS
  local name=$1 secs=$2 c=$3
  declare -A res
  local rounds=$RUNS
  [ "$secs" -gt "$DURATION" ] && rounds=1
  local variants=(straight gen-proxy)
  for r in $(seq "$rounds"); do
    for i in 0 1; do
      local v=${variants[$(( (i + r - 1) % 2 ))]}
      local tw fport bport
      read -r fport bport < <(use_ports "$work/$v" "$RUN")
      RUN=$((RUN + 1))
      read -r x e p50 p99 cpu < <(CONNS=$c load "$work/$v" "http://127.0.0.1:$fport/" "$secs")
      tw=$(ss -Htan state time-wait "( sport = :$fport or dport = :$fport or sport = :$bport or dport = :$bport )" | wc -l)
      res[$v]+="$x $e $p50 $p99 $cpu $tw;"
    done
  done
  local sr
  for v in straight gen-proxy; do
    local med errs p50 p99 cpu tw
    med=$(tr ';' '\n' <<<"${res[$v]}" | grep . | awk '{print $1}' | median)
    errs=$(tr ';' '\n' <<<"${res[$v]}" | grep . | awk '{s+=$2} END {print s+0}')
    read -r _ _ p50 p99 cpu tw < <(tr ';' '\n' <<<"${res[$v]}" | grep . | sort -g | awk -v m="$med" '$1==m {print; exit}')
    local vs="-"
    if [ "$v" = straight ]; then sr=$med; else vs=$(awk -v a="$med" -v b="$sr" 'BEGIN{printf "%.2fx", a/b}'); fi
    prows+=("$(printf '| %s | %s | %.0f | %s | %s | %s / %s | %s | %s |' "$name" "$v" "$med" "$vs" "$errs" "$p50" "$p99" "$cpu" "$tw")")
    echo "${prows[-1]}" >&2
  done
}
echo "proxy: ${RUNS} rounds of ${DURATION}s with $CONNS, 100 and $PROXY_MAX connections, then one run of ${LONG}s with 100" >&2
proxy_case "1 KB through the proxy, ${DURATION}s, $CONNS connections" "$DURATION" "$CONNS"
proxy_case "1 KB through the proxy, ${DURATION}s, 100 connections" "$DURATION" 100
proxy_case "1 KB through the proxy, ${DURATION}s, $PROXY_MAX connections" "$DURATION" "$PROXY_MAX"
proxy_case "1 KB through the proxy, ${LONG}s, 100 connections" "$LONG" 100
stop "$backend"

# --- report ------------------------------------------------------------------
{
  echo "# Benchmarks"
  echo
  echo "<!-- Written by bench/nginx/run.sh on $(date -u +%Y-%m-%d). Do not edit by hand: run it again. -->"
  echo
  echo "Machine: $(nproc) CPUs ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), Linux $(uname -r), $("$NGINX" -v 2>&1 | sed 's/.*nginx\///'), wrk $(wrk -v 2>&1 | awk 'NR==1 {print $2}')."
  echo "Client and server share the machine$( [ "$(nproc)" -ge 4 ] || echo "; with fewer than 4 CPUs they are not pinned to separate cores"). Loopback only."
  echo "Each static case: ${RUNS} rounds of ${DURATION} s with ${CONNS} connections (wrk, one thread), the variants alternating within each round and their order rotating from round to round (a run inherits the TIME-WAIT sockets of the one before); medians."
  echo "CPU is nginx's own (master and workers, from /proc) per request."
  echo
  echo "Reproduce: \`sudo bench/nginx/run.sh\` (DURATION, LONG, RUNS, CONNS override the defaults)."
  echo
  echo "## Static files"
  echo
  echo "\"stock\" is Debian's /etc/nginx/nginx.conf with a server for the files; \"generated\" is \`nginxtune gen --profile static\` for this host (worker_rlimit_nofile ${limit}); \"hand-tuned\" is the published tuned configuration (docs/measurements.md: worker_processes 1, open_file_cache max=200000, ...)."
  echo
  echo "Where the hand-tuned configuration spends less CPU per request, it is by choices the generated one does not make on purpose: it logs nothing (access_log off; the generated one keeps a buffered access log), serves / without try_files, runs one worker (which on a machine that also runs the client leaves wrk a core of its own; on a server whose clients are elsewhere one worker per CPU wins, docs/measurements.md: worker_processes 1 at 0.80-0.87x of auto for 40 KB over HTTPS), and, with no ssl_protocols, offers TLS 1.2 at most before nginx 1.23.4. The last one decides the HTTPS rows with a new connection per request: wrk resumes TLS 1.2 sessions (an abbreviated handshake, no key exchange) but not TLS 1.3 ones, so every wrk connection to stock Debian and to the generated configuration (Mozilla intermediate: TLS 1.2 and 1.3) pays a full handshake. The s_time row resumes both: a TLS 1.3 resumption still makes an ECDHE key exchange (forward secrecy, OpenSSL's psk_dhe_ke), so it costs more than a TLS 1.2 one; that is the price of TLS 1.3, which the generated configuration keeps. With nginx before 1.23.2 the generated configuration turns session tickets off (their keys never rotate there) and resumes from the shared session cache instead."
  echo
  echo "Every figure is nginx ${NGINX_VERSION} (Debian's nginx-full), client and server on this machine."
  echo
  echo "| case | stock rps | generated rps (vs stock) | hand-tuned rps (vs stock) | CPU µs/request stock / generated / hand-tuned | winner | errors |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  printf '| 1 KB, HTTP, keep-alive, ab -k (cross-check) | %.0f | %.0f (%.2fx) | %.0f (%.2fx) | - | %s | - |\n' "${ab_rows[0]}" "${ab_rows[1]}" "$(awk -v a="${ab_rows[1]}" -v b="${ab_rows[0]}" 'BEGIN{print a/b}')" "${ab_rows[2]}" "$(awk -v a="${ab_rows[2]}" -v b="${ab_rows[0]}" 'BEGIN{print a/b}')" "$(winner "${ab_rows[0]}" "${ab_rows[1]}" "${ab_rows[2]}" - - - | sed 's/, .*//')"
  read -r s1 c1 <<<"${stime_rows[0]}"; read -r s2 c2 <<<"${stime_rows[1]}"; read -r s3 c3 <<<"${stime_rows[2]}"
  printf '| 1 KB, HTTPS, new connection per request, session resumed (openssl s_time -reuse: TLS 1.3 / 1.3 / 1.2) | %s | %s (%.2fx) | %s (%.2fx) | %s / %s / %s | %s | - |\n' "$s1" "$s2" "$(awk -v a="$s2" -v b="$s1" 'BEGIN{print (b>0)?a/b:0}')" "$s3" "$(awk -v a="$s3" -v b="$s1" 'BEGIN{print (b>0)?a/b:0}')" "$c1" "$c2" "$c3" "$(winner "$s1" "$s2" "$s3" "$c1" "$c2" "$c3")"
  echo
  echo "### What each deliberate choice costs"
  echo
  echo "The generated configuration beside copies of it without one choice each, and without all four (nginx ${NGINX_VERSION}): \"no access log\" writes access_log off instead of the buffered log, \"no try_files\" serves / without it, \"one worker\" sets worker_processes 1, \"TLS 1.2 only\" drops TLS 1.3. Each cell is rps / nginx CPU µs per request, medians of ${RUNS} rounds of ${DURATION} s, all seven alternating within each round (so \"generated\" and \"hand-tuned\" are measured again here, beside the variants; the machine's load differs from the table above). The last column says whether the generated configuration spends more CPU per request than the hand-tuned one in these rounds and, if so, whether dropping the four choices closes the gap: within 1 µs (the figures' resolution), or within the spread between rounds (the best round without the four choices at or below the worst hand-tuned round; on this shared machine rounds of one configuration differ by up to a fifth)."
  echo
  echo "| case | generated | no access log | no try_files | one worker | TLS 1.2 only | none of the four | hand-tuned | where the difference comes from |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${arows[@]}"
  echo
  echo "## Reverse proxy"
  echo
  echo "A backend nginx on 127.0.0.1:${PORT_BACKEND} answers 1 KB. \"straight\" is Debian's stock configuration with \`proxy_pass http://127.0.0.1:${PORT_BACKEND};\` (HTTP/1.0, a new backend connection per request); \"gen-proxy\" is \`nginxtune gen --profile proxy --upstream 127.0.0.1:${PORT_BACKEND}\` (upstream with keepalive, pool sized by \`--concurrency ${PROXY_MAX}\`: $(grep -oE 'keepalive [0-9]+' "$gproxy/default.orig" | head -1) per worker). Every run listens and reaches the backend on ports of its own (the backend listens on 64), so TIME-WAIT counts the sockets in that state with the run's ports after it: the ones that run left, client and backend sides together. net.ipv4.tcp_tw_reuse is $(cat /proc/sys/net/ipv4/tcp_tw_reuse), the local port range $(tr '\t' '-' < /proc/sys/net/ipv4/ip_local_port_range)."
  echo
  echo "| run | config | rps | vs straight | errors | latency p50 / p99 | CPU µs/request | TIME-WAIT |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${prows[@]}"
} > "$OUT"
cat "$OUT"
