#!/usr/bin/env bash
# Benchmarks real nginx on loopback: the configuration `nginxtune gen` writes
# for this host against the ones users would pick instead (Debian's stock
# configuration, the hand-tuned one of the published benchmark in
# docs/measurements.md, and, when given, nginxconfig.io's and h5bp's), with
# copies of the generated one that drop one deliberate choice each; then
# nginx's instructions per request under callgrind, what a TLS handshake
# costs nginx, and a reverse proxy with proxy_pass straight to the backend's
# address against `gen --profile proxy`.
#
#   bench/nginx/run.sh            # writes docs/benchmarks.md and prints it
#
# The other generators, from their public sources (nothing here fetches
# them; docs/benchmarks.md was made with the commits named):
#   H5BP_DIR=DIR         a checkout of github.com/h5bp/server-configs-nginx
#                        (663057006870d0a9802d6dd02f3e09c98b11b04a), as shipped
#   NGINXCONFIG_DIR=DIR  the files nginxconfig.io writes for its default
#                        settings (the archive its page downloads, unpacked:
#                        nginx.conf, sites-available/, nginxconfig.io/; its
#                        generator at github.com/digitalocean/nginxconfig.io
#                        dd290c0b706b8a8c2f86cfbffaae9c17715b431d)
#   H5BP_COMMIT, NGINXCONFIG_COMMIT  the commits to name in the report
#
# Every load run is bounded in time (DURATION seconds, LONG for the long proxy
# run) and sends traffic to 127.0.0.1 only. Every configuration is loaded once
# per round, in an order rotated from round to round, and the tables show
# medians of RUNS rounds. PARTS (default "static instr tls proxy") picks the
# parts; CASES (a regular expression), ONLY and EXTRA narrow or widen the
# static part for trying a change (see below).
# Needs root (nginx workers run as www-data, as on a server); installs nginx,
# wrk, h2load, valgrind and curl from Debian when missing.
set -euo pipefail

DURATION=${DURATION:-3}
LONG=${LONG:-30}
RUNS=${RUNS:-5}
CONNS=${CONNS:-50}
OUT=${OUT:-docs/benchmarks.md}

cd "$(dirname "$0")/../.."
top=$(pwd)
[ "$(id -u)" = 0 ] || { echo "run.sh: needs root (nginx starts as root and drops to www-data)" >&2; exit 2; }

need=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-full)
command -v wrk >/dev/null || need+=(wrk)
command -v h2load >/dev/null || need+=(nghttp2-client)
command -v valgrind >/dev/null || need+=(valgrind)
command -v curl >/dev/null || need+=(curl)
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
# 100 KB of English text (the licences every Debian system ships): what gzip
# meets on a real page, unlike the random base64 of the two files above
{ echo "<!DOCTYPE html><html><body><pre>"; cat /usr/share/common-licenses/GPL-3 /usr/share/common-licenses/GPL-2 /usr/share/common-licenses/Apache-2.0 /usr/share/common-licenses/LGPL-2.1 /usr/share/common-licenses/GFDL-1.3; } | head -c 102400 > "$docroot/text.html"
chmod -R a+rX "$docroot"

# With 4 or more CPUs the server and the client get separate halves.
PIN_SERVER=() PIN_CLIENT=()
if [ "$(nproc)" -ge 4 ]; then
  half=$(( $(nproc) / 2 ))
  PIN_SERVER=(taskset -c "0-$((half - 1))")
  PIN_CLIENT=(taskset -c "$half-$(( $(nproc) - 1 ))")
fi

PROXY_MAX=400 # the most client connections a proxy case uses; gen sizes its pool for it
PORT_HTTP=${PORT_HTTP:-18080}
PORT_TLS=${PORT_TLS:-18443}
PORT_BACKEND=${PORT_BACKEND:-18090}

# prefix NAME: a directory with a self-signed certificate and the stock data files
prefix() {
  local p="$work/$1"
  mkdir -p "$p/logs" "$p/conf.d" "$p/sites-enabled" "$p/modules-enabled"
  cp /etc/nginx/mime.types /etc/nginx/fastcgi_params "$p/"
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

# --- the static configurations -----------------------------------------------
stock=$(prefix stock)
cp /etc/nginx/nginx.conf "$stock/nginx.conf"
localize "$stock/nginx.conf" "$stock"
cat > "$stock/sites-enabled/bench" <<EOF
server {
    listen 127.0.0.1:$PORT_HTTP;
    listen 127.0.0.1:$PORT_TLS ssl http2;
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
sed -i -E "s#root /usr/share/nginx/html;#root $docroot;\n        listen 127.0.0.1:$PORT_TLS ssl http2;\n        ssl_certificate $tuned/cert.pem;\n        ssl_certificate_key $tuned/key.pem;#" "$tuned/nginx.conf"
sed -i -E "s#^worker_rlimit_nofile [0-9]+;#worker_rlimit_nofile 100000;#" "$tuned/nginx.conf"

# only_first_server FILE: keep the first server block of FILE (drops the
# redirects a generator writes beside the site)
only_first_server() {
  awk '{print} /^\}/ {exit}' "$1" > "$1.tmp" && mv "$1.tmp" "$1"
}

# nginxconfig.io: its output for its default settings (one PHP site,
# example.com, Let's Encrypt), as the generator writes it
others=()
if [ -n "${NGINXCONFIG_DIR:-}" ]; then
  nc=$(prefix nginxconfig)
  cp "$NGINXCONFIG_DIR/nginx.conf" "$nc/"
  cp -r "$NGINXCONFIG_DIR/nginxconfig.io" "$nc/"
  cp "$NGINXCONFIG_DIR"/sites-available/*.conf "$nc/sites-enabled/"
  openssl genpkey -genparam -algorithm DH -pkeyopt group:ffdhe2048 -out "$nc/dhparam.pem" 2>/dev/null
  site=$(ls "$nc"/sites-enabled/*.conf | head -1)
  only_first_server "$site"
  mkdir -p "$work/nginxconfig-base" && ln -s "$docroot" "$work/nginxconfig-base/public"
  sed -i -E \
    -e "s#/etc/letsencrypt/live/[^/]+/(fullchain|chain)\.pem#$nc/cert.pem#" \
    -e "s#/etc/letsencrypt/live/[^/]+/privkey\.pem#$nc/key.pem#" \
    -e "s#set( +)\\\$base [^;]*;#set\1\$base $work/nginxconfig-base;#" \
    -e "s#^( *)listen +#\1listen #" \
    -e "s#^( *)listen 443 ssl#\1listen 127.0.0.1:$PORT_HTTP;\n\1listen 443 ssl#" \
    "$site"
  for f in "$nc/nginx.conf" "$site" "$nc"/nginxconfig.io/*.conf; do localize "$f" "$nc"; done
  others+=(nginxconfig)
fi
# h5bp's server-configs-nginx as shipped, its example.com template enabled
# the way its README says (copied into conf.d/), without the no-TLS default
# server that answers every other name with 444
if [ -n "${H5BP_DIR:-}" ]; then
  h5=$(prefix h5bp)
  cp -r "$H5BP_DIR/nginx.conf" "$H5BP_DIR/mime.types" "$H5BP_DIR/h5bp" "$h5/"
  mkdir -p "$h5/certs" "$h5/custom.d"
  cp "$h5/cert.pem" "$h5/certs/default.crt" && cp "$h5/key.pem" "$h5/certs/default.key"
  # the template's second server is the site (the first redirects www.)
  awk 'BEGIN{n=0} /^server \{/ {n++} n==2' "$H5BP_DIR/conf.d/templates/example.com.conf" > "$h5/conf.d/example.com.conf"
  sed -i -E \
    -e "s#root /var/www/[^;]*;#root $docroot;#" \
    -e "s#^( *)listen 443 ssl#\1listen 127.0.0.1:$PORT_HTTP;\n\1listen 443 ssl#" \
    "$h5/conf.d/example.com.conf"
  for f in "$h5/nginx.conf" "$h5/conf.d/example.com.conf" "$h5"/h5bp/tls/*.conf; do localize "$f" "$h5"; done
  others+=(h5bp)
fi

for p in "$stock" "$gen" "$tuned" "${others[@]/#/$work/}"; do
  "$NGINX" -t -q -p "$p/" -c "$p/nginx.conf" -e stderr -g "pid $p/nginx.pid;" 2>"$p/logs/t.log" || { cat "$p/logs/t.log" >&2; echo "run.sh: $p/nginx.conf fails nginx -t" >&2; exit 1; }
done

# What each deliberate choice of the generated configuration costs: copies of
# it without one choice each, and without all six, measured in the same
# rounds as everything else
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
variant gen-nohdr 's#^ *add_header .*##' sites/default.conf
variant gen-gzip1 's#^( *)gzip_comp_level .*#\1gzip_comp_level 1;#' nginx.conf
variant gen-none 's#^( *)access_log [^;]*;#\1access_log off;#; s#^worker_processes .*#worker_processes 1;#; s#^( *)ssl_protocols .*#\1ssl_protocols TLSv1.2;#; s#^ *try_files .*##; s#^( *)gzip_comp_level .*#\1gzip_comp_level 1;#; s#^ *add_header .*##' nginx.conf sites/default.conf
DELIBERATE=(gen-nolog gen-notry gen-1worker gen-tls12 gen-gzip1 gen-nohdr)
ABLATION=("${DELIBERATE[@]}" gen-none)
# EXTRA="NAME:SED-EXPRESSION;;NAME:SED-EXPRESSION" adds variants of the
# generated configuration (nginx.conf and the site) to every round, for
# trying a change
if [ -n "${EXTRA:-}" ]; then
  while IFS= read -r x; do
    [ -z "$x" ] && continue
    variant "${x%%:*}" "${x#*:}" nginx.conf sites/default.conf
    ABLATION+=("${x%%:*}")
  done < <(sed 's/;;/\n/g' <<<"$EXTRA")
fi

# --- measuring ---------------------------------------------------------------
# proc_sum PREFIX FILE AWK-EXPRESSION: a figure of /proc/PID/FILE summed over
# the nginx processes of a prefix (master and workers)
proc_sum() {
  local master total=0
  master=$(cat "$1/nginx.pid")
  for pid in "$master" $(pgrep -P "$master"); do
    total=$((total + $(awk "{print $3}" "/proc/$pid/$2" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
# cpu_ticks PREFIX: user+system clock ticks of the nginx processes of a prefix
cpu_ticks() { proc_sum "$1" stat '$14 + $15'; }
HZ=$(getconf CLK_TCK)

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print 0; else print a[int((NR+1)/2)]}'; }

# The configurations listen on the same ports: each load run starts its
# nginx, measures it, and stops it again.
# load PREFIX URL SECONDS TOOL ARGS... -> "rps errors p50 p99 cpu_us_per_request"
# TOOL is wrk (HTTP/1.1) or h2load (HTTP/2, 10 streams per connection)
load() {
  local p=$1 url=$2 secs=$3 tool=$4; shift 4
  local before after out rps errs p50 p99 reqs
  start "$p"
  before=$(cpu_ticks "$p")
  if [ "$tool" = h2load ]; then
    # a number of requests, not a duration: nginx ends an HTTP/2
    # connection after keepalive_requests streams (1,000 by default) and
    # h2load does not open another, so a timed run would stop early at
    # CONNS x 1,000 requests; the case gives -n below that
    out=$(timeout $((secs + 120)) "${PIN_CLIENT[@]}" h2load -c"$CONNS" -m10 "$@" "$url" 2>&1 || true)
  else
    out=$(timeout $((secs + 30)) "${PIN_CLIENT[@]}" wrk -t1 -c"$CONNS" -d"${secs}s" --latency "$@" "$url" 2>&1 || true)
  fi
  after=$(cpu_ticks "$p")
  stop "$p"
  if [ "$tool" = h2load ]; then
    rps=$(awk '/^finished in/ {gsub(",", ""); print $4}' <<<"$out")
    reqs=$(awk '/^requests:/ {print $8}' <<<"$out")
    errs=$(awk '/^requests:/ {print $10 + $12} /^status codes:/ {gsub(",", ""); print $5 + $7 + $9 > "/dev/stderr"}' <<<"$out" 2>/dev/null | head -1)
    local non2xx
    non2xx=$(awk '/^status codes:/ {gsub(",", ""); print $5 + $7 + $9}' <<<"$out")
    errs=$(( ${errs:-0} + ${non2xx:-0} ))
    p50=- p99=-
  else
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    reqs=$(awk '/requests in/ {print $1}' <<<"$out")
    errs=$(awk '/Socket errors/ {gsub(",", ""); s=$4+$6+$8+$10} /Non-2xx/ {n=$5} END {print s+n+0}' <<<"$out")
    p50=$(awk '$1=="50%" {print $2}' <<<"$out")
    p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  fi
  echo "${rps:-0} ${errs:-0} ${p50:--} ${p99:--} $(awk -v t=$((after - before)) -v hz="$HZ" -v r="${reqs:-0}" 'BEGIN{ if (r>0) printf "%.0f", t/hz*1e6/r; else print "-" }')"
}

# Every static case measures every configuration and variant: RUNS rounds,
# each starting and loading all of them once, in an order rotated from round
# to round (a run inherits the TIME-WAIT sockets of the one before it).
CONFIGS=(stock generated "${others[@]}" tuned)
ALL=("${CONFIGS[@]}" "${ABLATION[@]}")
# ONLY="generated gen-x ..." measures those alone (for trying a change)
[ -n "${ONLY:-}" ] && read -r -a ALL <<<"$ONLY"
label() {
  case $1 in
    stock) echo stock ;; generated) echo generated ;; nginxconfig) echo nginxconfig.io ;; h5bp) echo h5bp ;; tuned) echo hand-tuned ;;
    gen-nolog) echo "no access log" ;; gen-notry) echo "no try_files" ;; gen-1worker) echo "one worker" ;; gen-tls12) echo "TLS 1.2 only" ;; gen-gzip1) echo "gzip level 1" ;; gen-nohdr) echo "no security headers" ;; gen-none) echo "none of the six" ;;
    *) echo "$1" ;;
  esac
}
declare -A RPS CPU ERRS
static_case() { # NAME URL TOOL ARGS...
  local name=$1 url=$2; shift 2
  [ -n "${CASES:-}" ] && ! grep -qE "$CASES" <<<"$name" && return 0
  local n=${#ALL[@]} r i v
  for r in $(seq "$RUNS"); do
    for i in $(seq 0 $((n - 1))); do
      v=${ALL[$(( (i + r - 1) % n ))]}
      read -r x e _ _ c < <(load "$work/$v" "$url" "$DURATION" "$@")
      RPS[$name/$v]+="$x "; CPU[$name/$v]+="$c "; ERRS[$name/$v]=$(( ${ERRS[$name/$v]:-0} + e ))
    done
  done
  CASE_NAMES+=("$name")
  echo "$name: $(for v in "${ALL[@]}"; do printf '%s %s (%s); ' "$v" "$(stat_of RPS "$name/$v" median)" "${RPS[$name/$v]% }"; done)" >&2
}
CASE_NAMES=()
# stat_of ARRAY KEY median|min|max
stat_of() {
  local -n a=$1
  local vals
  vals=$(tr ' ' '\n' <<<"${a[$2]:-}" | grep -v -e '^$' -e '^-$' || true)
  [ -z "$vals" ] && { echo -; return; }
  case $3 in
    median) median <<<"$vals" ;;
    min) sort -g <<<"$vals" | head -1 ;;
    max) sort -g <<<"$vals" | tail -1 ;;
  esac
}

echo "static: ${RUNS} rounds of ${DURATION}s per case, ${CONNS} connections, ${#ALL[@]} configurations: ${ALL[*]}" >&2
# the cases: HTTP/1.1 with wrk (no Accept-Encoding: the files go out as they
# are), then gzip and HTTP/2 with clients that ask for them
if [[ " ${PARTS:-static instr tls proxy} " == *" static "* ]]; then
static_case "1 KB, HTTP, keep-alive" "http://127.0.0.1:$PORT_HTTP/1k.html" wrk
static_case "1 KB, HTTP, new connection per request" "http://127.0.0.1:$PORT_HTTP/1k.html" wrk -H "Connection: close"
static_case "100 KB, HTTP, keep-alive" "http://127.0.0.1:$PORT_HTTP/100k.html" wrk
static_case "100 KB, HTTP, new connection per request" "http://127.0.0.1:$PORT_HTTP/100k.html" wrk -H "Connection: close"
static_case "1 KB, HTTPS, keep-alive" "https://127.0.0.1:$PORT_TLS/1k.html" wrk
static_case "1 KB, HTTPS, new connection per request" "https://127.0.0.1:$PORT_TLS/1k.html" wrk -H "Connection: close"
static_case "100 KB, HTTPS, keep-alive" "https://127.0.0.1:$PORT_TLS/100k.html" wrk
static_case "100 KB, HTTPS, new connection per request" "https://127.0.0.1:$PORT_TLS/100k.html" wrk -H "Connection: close"
static_case "100 KB text, HTTP, keep-alive, gzip" "http://127.0.0.1:$PORT_HTTP/text.html" wrk -H "Accept-Encoding: gzip"
static_case "1 KB, HTTPS, HTTP/2" "https://127.0.0.1:$PORT_TLS/1k.html" h2load -n $((CONNS * 900))
static_case "100 KB text, HTTPS, HTTP/2, gzip" "https://127.0.0.1:$PORT_TLS/text.html" h2load -n $((CONNS * 30)) -H "Accept-Encoding: gzip"
# what gzip's CPU buys: the bytes each configuration sends for the text file
declare -A GZSIZE
for v in "${CONFIGS[@]}" gen-gzip1; do
  start "$work/$v"
  GZSIZE[$v]=$(curl -s -H "Accept-Encoding: gzip" -o /dev/null -w '%{size_download}' "http://127.0.0.1:$PORT_HTTP/text.html" || echo -)
  stop "$work/$v"
done
fi

# row NAME: the comparison row of a case
# A configuration ties the best when its median is within 5 % of the best
# one's (rounds of one configuration on this shared machine differ by more
# than that, so a smaller gap is not told apart from noise).
ties() { # A_MEDIAN B_MEDIAN: whether A ties or beats B
  awk -v am="$1" -v bm="$2" 'BEGIN { exit !(am >= bm * 0.95) }'
}
row() {
  local name=$1 v best="" bestm=0 s line cpus="" m
  s=$(stat_of RPS "$name/stock" median)
  line="| $name"
  for v in "${CONFIGS[@]}"; do
    m=$(stat_of RPS "$name/$v" median)
    if [ "$v" = stock ]; then line+=" | $(printf '%.0f' "$m")"; else line+=" | $(awk -v a="$m" -v b="$s" 'BEGIN{printf "%.0f (%.2fx)", a, a/b}')"; fi
    cpus+="${cpus:+ / }$(stat_of CPU "$name/$v" median)"
    if awk -v a="$m" -v b="$bestm" 'BEGIN{exit !(a > b)}'; then best=$v bestm=$m; fi
  done
  local gm verdict
  gm=$(stat_of RPS "$name/generated" median)
  if [ "$best" = generated ]; then
    verdict="generated"
  elif ties "$gm" "$bestm"; then
    verdict="generated ties $(label "$best") ($(awk -v a="$gm" -v b="$bestm" 'BEGIN{printf "%.2fx", a/b}'))"
  else
    verdict="$(label "$best") ($(awk -v a="$gm" -v b="$bestm" 'BEGIN{printf "generated %.2fx", a/b}')): $(reason "$name" "$best")"
  fi
  local errs=""
  for v in "${CONFIGS[@]}"; do errs+="${errs:+ / }${ERRS[$name/$v]:--}"; done
  echo "$line | $cpus | $verdict | $errs |"
}
# reason NAME BEST: which deliberate choices of the generated configuration
# the best configuration's lead comes from: the variants without one choice
# the case exercises that tie or beat it, with what the choice costs
# (generated against the variant); else all six together; else the part
# nothing explains
# exercised NAME: the deliberate choices a case exercises; one it never
# reaches cannot explain it (a copy that differs only there measures the
# rounds' noise)
exercised() {
  local v
  for v in "${DELIBERATE[@]}"; do
    case $v in
      gen-tls12) [[ $1 == *HTTPS* ]] || continue ;;
      gen-gzip1) [[ $1 == *gzip* ]] || continue ;;
    esac
    echo "$v"
  done
}
reason() {
  local name=$1 best=$2 bm v vm out=""
  bm=$(stat_of RPS "$name/$best" median)
  local gm
  gm=$(stat_of RPS "$name/generated" median)
  for v in $(exercised "$name"); do
    vm=$(stat_of RPS "$name/$v" median)
    [ "$vm" = - ] && continue
    if ties "$vm" "$bm"; then
      out+="${out:+; }$(label "$v") ties it ($(awk -v a="$gm" -v b="$vm" 'BEGIN{printf "the choice costs %.0f %%", (1 - a/b) * 100}'))"
    fi
  done
  if [ -z "$out" ]; then
    vm=$(stat_of RPS "$name/gen-none" median)
    if ties "$vm" "$bm"; then
      out="the six choices together ($(awk -v a="$gm" -v b="$vm" 'BEGIN{printf "they cost %.0f %%", (1 - a/b) * 100}'))"
    else
      # the closest single choice, and what is left without all six
      local cv="" cm=0
      for v in $(exercised "$name"); do
        vm=$(stat_of RPS "$name/$v" median)
        if [ "$vm" != - ] && awk -v a="$vm" -v b="$cm" 'BEGIN{exit !(a > b)}'; then cv=$v cm=$vm; fi
      done
      out="not closed by the six choices: without all six $(awk -v a="$(stat_of RPS "$name/gen-none" median)" -v b="$bm" 'BEGIN{printf "%.2fx", a/b}') of it; closest alone $(label "$cv") ($(awk -v a="$cm" -v b="$bm" 'BEGIN{printf "%.2fx", a/b}'))"
    fi
  fi
  echo "$out"
}

# --- instructions per request ------------------------------------------------
# The rounds above run on a shared machine and move with its load. This part
# does not: nginx runs as one process under valgrind's callgrind, which counts
# the instructions it executes in user space (nginx, OpenSSL, zlib, libc; not
# the kernel's share), while h2load sends N requests over two HTTP/1.1
# keep-alive connections, fewer than the 1,000 nginx serves on one by default.
# Two runs, of N1 and N2 requests, cancel start and stop: (I(N2) - I(N1)) /
# (N2 - N1) is the count per request.
instr_run() { # PREFIX URL N H2LOAD-ARGS... -> instructions of nginx's whole run
  local p=$1 url=$2 n=$3 out="$work/cg.out" i vp; shift 3
  rm -f "$out"
  timeout 600 valgrind --tool=callgrind --callgrind-out-file="$out" "$NGINX" -p "$p/" -c "$p/nginx.conf" -e "$p/logs/error.log" \
    -g "pid $p/nginx.pid; daemon off; master_process off;" 2>"$p/logs/valgrind.log" &
  vp=$!
  for i in $(seq 300); do curl -sk -o /dev/null "$url" && break; sleep 0.1; done
  timeout 600 h2load --h1 -c 2 -n "$n" "$@" "$url" >/dev/null 2>&1 || true
  kill -QUIT "$vp" 2>/dev/null || true
  wait "$vp" 2>/dev/null || true
  awk '/^(summary|totals):/ {print $2; exit}' "$out"
}
INSTR_VARIANTS=("${CONFIGS[@]}" gen-nolog gen-notry gen-nohdr gen-gzip1)
declare -A INSTR INSTR_N
INSTR_CASES=()
instr_case() { # NAME N1 N2 URL H2LOAD-ARGS...
  local name=$1 n1=$2 n2=$3 url=$4 v a b; shift 4
  [ -n "${CASES:-}" ] && ! grep -qE "$CASES" <<<"$name" && return 0
  for v in "${INSTR_VARIANTS[@]}"; do
    a=$(instr_run "$work/$v" "$url" "$n1" "$@")
    b=$(instr_run "$work/$v" "$url" "$n2" "$@")
    INSTR[$name/$v]=$(awk -v a="${a:-0}" -v b="${b:-0}" -v n1="$n1" -v n2="$n2" 'BEGIN { if (a > 0 && b > a) printf "%.0f", (b - a) / (n2 - n1); else print "-" }')
  done
  INSTR_CASES+=("$name")
  INSTR_N[$name]="$n1 and $n2"
  echo "instructions, $name: $(for v in "${INSTR_VARIANTS[@]}"; do printf '%s %s; ' "$v" "${INSTR[$name/$v]}"; done)" >&2
}
if [[ " ${PARTS:-static instr tls proxy} " == *" instr "* ]]; then
  instr_case "1 KB, HTTP, keep-alive" 300 1300 "http://127.0.0.1:$PORT_HTTP/1k.html"
  instr_case "1 KB, HTTPS, keep-alive" 300 1300 "https://127.0.0.1:$PORT_TLS/1k.html"
  instr_case "100 KB, HTTP, keep-alive" 300 1300 "http://127.0.0.1:$PORT_HTTP/100k.html"
  # compression dominates: fewer requests give the same precision
  instr_case "100 KB text, HTTP, keep-alive, gzip" 20 70 "http://127.0.0.1:$PORT_HTTP/text.html" -H "Accept-Encoding: gzip"
fi

# --- TLS handshakes ----------------------------------------------------------
# What a handshake costs nginx, by kind: openssl s_time makes connections one
# after another for DURATION seconds (one GET each), new ones or resuming the
# session of its first, and nginx's own CPU time is read from
# /proc/PID/schedstat (nanoseconds) before and after.
cpu_ns() { proc_sum "$1" schedstat '$1'; } # PREFIX: nanoseconds on CPU
# handshakes PREFIX S_TIME-ARGS... -> "µs_per_handshake handshakes_per_second"
handshakes() {
  local p=$1; shift
  local before after out n
  start "$p"
  before=$(cpu_ns "$p")
  out=$(timeout $((DURATION + 30)) "${PIN_CLIENT[@]}" openssl s_time -connect "127.0.0.1:$PORT_TLS" -www /1k.html -time "$DURATION" "$@" 2>&1 || true)
  after=$(cpu_ns "$p")
  stop "$p"
  n=$(awk '/connections in/ && !/user sec/ {print $1; exit}' <<<"$out")
  [ -z "$n" ] && n=$(awk '/connections in/ {print $1; exit}' <<<"$out")
  awk -v d=$((after - before)) -v n="${n:-0}" -v t="$DURATION" 'BEGIN{ if (n > 0) printf "%.0f %.0f\n", d/n/1000, n/t; else print "- 0" }'
}
variant gen-tickets 's#^( *)ssl_session_tickets off;#\1ssl_session_tickets on;#' nginx.conf
variant gen-nodhe 's#^( *)ssl_session_tickets off;#\1ssl_session_tickets off;\n\1ssl_conf_command Options AllowNoDHEKEX;#' nginx.conf
hsrows=()
hs_case() { # NAME PREFIX S_TIME-ARGS...
  local name=$1 v=$2; shift 2
  local us=() rate=() r x y
  for r in $(seq "$RUNS"); do
    read -r x y < <(handshakes "$work/$v" "$@")
    us+=("$x"); rate+=("$y")
  done
  hsrows+=("| $name | $(printf '%s\n' "${us[@]}" | median) | $(printf '%s\n' "${us[@]}" | sort -g | head -1)-$(printf '%s\n' "${us[@]}" | sort -g | tail -1) | $(printf '%s\n' "${rate[@]}" | median) |")
  echo "${hsrows[-1]}" >&2
}
# psk_ke_answer PREFIX: the key exchange mode a TLS 1.3 resumption gets when
# the client offers both modes (openssl s_client -allow_no_dhe_kex): a
# key_share in the ServerHello means psk_dhe_ke
psk_ke_answer() {
  local p=$1 s="$work/sess.pem" out
  start "$p"
  printf 'GET /1k.html HTTP/1.0\r\n\r\n' | timeout 10 openssl s_client -connect "127.0.0.1:$PORT_TLS" -tls1_3 -allow_no_dhe_kex -ign_eof -sess_out "$s" >/dev/null 2>&1 || true
  out=$(printf 'GET /1k.html HTTP/1.0\r\n\r\n' | timeout 10 openssl s_client -connect "127.0.0.1:$PORT_TLS" -tls1_3 -allow_no_dhe_kex -ign_eof -sess_in "$s" -trace 2>&1 || true)
  stop "$p"
  awk '/ServerHello/ {sh=1} sh && /extension_type=key_share/ {ks=1} /^Reused,/ {r=1} END {
    if (!r) print "not resumed"; else if (ks) print "psk_dhe_ke (the ServerHello carries a key_share)"; else print "psk_ke (no key_share)" }' <<<"$out"
}
if [[ " ${PARTS:-static instr tls proxy} " == *" tls "* ]]; then
  echo "TLS handshakes: ${RUNS} rounds of ${DURATION}s per kind" >&2
  hs_case "TLS 1.3, new session" generated -tls1_3 -new
  hs_case "TLS 1.3, resumed (session cache, as generated)" generated -tls1_3 -reuse
  hs_case "TLS 1.3, resumed (session tickets on)" gen-tickets -tls1_3 -reuse
  hs_case "TLS 1.2, new session" generated -tls1_2 -new
  hs_case "TLS 1.2, resumed (session cache, as generated)" generated -tls1_2 -reuse
  hs_case "TLS 1.2, resumed (session tickets on)" gen-tickets -tls1_2 -reuse
  PSK_KE=$(psk_ke_answer "$work/gen-nodhe")
  X25519=$(openssl speed -seconds 1 ecdhx25519 2>/dev/null | awk '/X25519/ {printf "%.0f", 1e6/$NF}')
  echo "psk_ke offered beside psk_dhe_ke, server with AllowNoDHEKEX: $PSK_KE; one X25519 derivation: $X25519 µs" >&2
fi

prows=()
if [[ " ${PARTS:-static instr tls proxy} " == *" proxy "* ]]; then
# --- reverse proxy -----------------------------------------------------------
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
mkdir -p "$gproxy/sites" && cp "$gproxy/out/sites/"*.conf "$gproxy/sites/"
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
      read -r x e p50 p99 cpu < <(CONNS=$c load "$work/$v" "http://127.0.0.1:$fport/" "$secs" wrk)
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

fi

# --- report ------------------------------------------------------------------
section() { # HEADING TEXT: a heading and its first paragraph
  printf '%s\n\n%s\n\n' "$1" "$2"
}
header() { # COLUMN...: a table's first two rows
  local c line="|" sep="|"
  for c in "$@"; do line+=" $c |"; sep+="---|"; done
  printf '%s\n%s\n' "$line" "$sep"
}
PROXY_POOL=${PROXY_POOL:-}
if [ -n "${gproxy:-}" ] && [ -f "$gproxy/default.orig" ]; then
  PROXY_POOL=$(grep -oE 'keepalive [0-9]+' "$gproxy/default.orig" | head -1)
fi
# DATA=FILE keeps every figure measured; LOAD_DATA=FILE with PARTS=none
# writes the report again from such a file without measuring anything
if [ -n "${LOAD_DATA:-}" ]; then
  # shellcheck disable=SC1090
  source "$LOAD_DATA"
fi
if [ -n "${DATA:-}" ]; then
  { declare -p RPS CPU ERRS CASE_NAMES GZSIZE INSTR INSTR_CASES hsrows prows PSK_KE X25519 PROXY_POOL RUNS DURATION CONNS INSTR_N 2>/dev/null || true; } > "$DATA"
fi
{
  echo "# Benchmarks"
  echo
  echo "<!-- Written by bench/nginx/run.sh on $(date -u +%Y-%m-%d). Do not edit by hand: run it again. -->"
  echo
  echo "Machine: $(nproc) CPUs ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), Linux $(uname -r), nginx ${NGINX_VERSION} (Debian's nginx-full), $(openssl version | awk '{print $1, $2}'), wrk $(wrk -v 2>&1 | awk 'NR==1 {print $2}'), h2load $(h2load --version 2>&1 | awk '{print $NF; exit}')."
  echo "Client and server share the machine$( [ "$(nproc)" -ge 4 ] || echo "; with fewer than 4 CPUs they are not pinned to separate cores"). Loopback only."
  echo
  echo "Reproduce: \`sudo bench/nginx/run.sh\` (DURATION, RUNS, CONNS, HS, LONG override the defaults; NGINXCONFIG_DIR and H5BP_DIR add the two other generators, below)."
  echo
  if [ ${#CASE_NAMES[@]} -gt 0 ]; then
  echo "## Static files: generated against the configurations users would pick instead"
  echo
  echo "- **stock**: Debian's /etc/nginx/nginx.conf with a server for the files (TLS and HTTP/2 on the second port)."
  echo "- **generated**: \`nginxtune gen --profile static\` for this host (worker_rlimit_nofile ${limit}), one server for both ports (the HTTP-to-HTTPS redirect dropped)."
  [ -n "${NGINXCONFIG_DIR:-}" ] && echo "- **nginxconfig.io**: what nginxconfig.io writes for its default settings (one site, example.com; its generator at commit ${NGINXCONFIG_COMMIT:-unknown} of github.com/digitalocean/nginxconfig.io), the main server given the HTTP port and the redirects dropped, certificates and \`\$base\` pointed at the benchmark's."
  [ -n "${H5BP_DIR:-}" ] && echo "- **h5bp**: github.com/h5bp/server-configs-nginx as shipped (commit ${H5BP_COMMIT:-unknown}), its conf.d/templates/example.com.conf site copied into conf.d/ as its README says (TLS policy \"balanced\": TLS 1.2 only), given the HTTP port."
  echo "- **hand-tuned**: the published tuned configuration (docs/measurements.md: worker_processes 1, access_log off, open_file_cache max=200000, ...), TLS and HTTP/2 added."
  echo
  echo "Each case: ${RUNS} rounds of ${DURATION} s with ${CONNS} connections; a round starts and loads every configuration once (those below and the variants of the next table), in an order that rotates from round to round; medians. HTTP/1.1 with wrk (one thread; no Accept-Encoding unless the case says gzip), HTTP/2 with h2load (10 streams per connection, a fixed number of requests below the 1,000 streams nginx allows a connection by default: 900 per connection for 1 KB, 30 for the gzip case). The files: 1 KB and 100 KB of random base64 (.html), and 100 KB of English text (Debian's licence files, .html) for gzip. CPU is nginx's own (master and workers, from /proc) per request."
  echo
  echo "A configuration ties the best when its median is within 5 % of the best one's (rounds of one configuration on this shared machine differ by more than that). Where another configuration wins, the last column names the generated configuration's deliberate choice that costs the row, from the next table: the copy of the generated configuration without that choice ties the winner, and the choice's cost is the generated configuration's rps against that copy's. Only choices the case exercises count (TLS 1.2 only for HTTPS, gzip level for gzip): a copy that differs where the case never goes shows the rounds' noise, which on this machine reaches 10 % and more (compare its column with \"generated\" in the next table), so a single attribution is a hint and the instruction counts below are the steadier comparison."
  echo
  cols=(case)
  for v in "${CONFIGS[@]}"; do cols+=("$(label "$v") rps"); done
  cols+=("CPU µs/request ($(for v in "${CONFIGS[@]}"; do printf '%s, ' "$(label "$v")"; done | sed 's/, $//'))" winner errors)
  header "${cols[@]}"
  for c in "${CASE_NAMES[@]}"; do row "$c"; done
  echo
  for c in "${CASE_NAMES[@]}"; do
    if [ -z "${CPU[$c/generated]:-}" ]; then
      echo "A \"-\" for CPU and errors: figures that run did not keep (a case measured again from the rounds' rps alone, LOAD_DATA)."
      echo
      break
    fi
  done
  echo "### The generated configuration's deliberate choices, and what they cost"
  echo
  echo "Copies of the generated configuration without one choice each, and without all six, in the same rounds as the table above (rps / CPU µs per request, medians): \"no access log\" writes access_log off instead of the buffered log; \"no try_files\" serves / without it; \"one worker\" sets worker_processes 1 (on a machine that also runs the client it leaves wrk a core; on a server whose clients are elsewhere one worker per CPU wins, docs/measurements.md); \"TLS 1.2 only\" drops TLS 1.3 (every TLS 1.3 resumption makes a fresh ECDHE exchange, see the handshake table; a seventh choice shows in the same rows: before nginx 1.23.2, which never rotates ticket keys, the generated configuration resumes sessions from its shared cache with tickets off, where the hand-tuned one keeps nginx's default, tickets on, which the handshake table finds cheaper); \"gzip level 1\" compresses at level 1 instead of 5 (fewer CPU cycles, more bytes: the sizes below); \"no security headers\" drops the six add_header lines (HSTS, nosniff, frame, referrer and permissions policies, and Cache-Control for HTML: about 330 bytes an answer)."
  echo
  echo "Bytes sent for the 100 KB text file ($(stat -c %s "$docroot/text.html") bytes) to a client that accepts gzip: $(for v in "${CONFIGS[@]}" gen-gzip1; do printf '%s %s, ' "$(label "$v")" "${GZSIZE[$v]:--}"; done | sed 's/, $//') (gzip_comp_level: $(for v in "${CONFIGS[@]}" gen-gzip1; do printf '%s %s, ' "$(label "$v")" "$(grep -rhoE '^[^#]*gzip_comp_level +[0-9]+' "$work/$v" --exclude-dir=out --include='*.conf' --include=nginx.conf 2>/dev/null | grep -oE '[0-9]+$' | head -1 | sed 's/^$//' || true)"; done | sed -E 's/ ,/ 1 (the default),/g; s/, $//'))."
  echo
  cols=(case generated)
  for v in "${ABLATION[@]}"; do cols+=("$(label "$v")"); done
  header "${cols[@]}"
  for c in "${CASE_NAMES[@]}"; do
    line="| $c"
    for v in generated "${ABLATION[@]}"; do line+=" | $(stat_of RPS "$c/$v" median | awk '{printf "%.0f", $1}') / $(stat_of CPU "$c/$v" median)"; done
    echo "$line |"
  done
  echo
  fi
  if [ ${#INSTR_CASES[@]} -gt 0 ]; then
  section "## Instructions per request: the same comparison without the machine's noise" \
    "nginx as one process under valgrind's callgrind, which counts the instructions nginx executes in user space (nginx, OpenSSL, zlib, libc; the kernel's share, such as sendfile and TCP, is not counted), h2load sending the requests over two HTTP/1.1 keep-alive connections (fewer requests on each than the 1,000 nginx allows by default, so no configuration's keepalive_requests shows); two runs per cell, of N1 and N2 requests, the difference divided by N2 - N1 (start and stop cancel out). The count is the same from run to run whatever else the machine does; fewer is better."
  cols=("case (N1 and N2 requests)")
  for v in "${INSTR_VARIANTS[@]}"; do cols+=("$(label "$v")"); done
  header "${cols[@]}" "fewest of the configurations"
  for c in "${INSTR_CASES[@]}"; do
    line="| $c (${INSTR_N[$c]:-})" best="" bm=0
    for v in "${INSTR_VARIANTS[@]}"; do
      line+=" | ${INSTR[$c/$v]}"
      if [[ " ${CONFIGS[*]} " == *" $v "* ]] && [ "${INSTR[$c/$v]}" != - ] && { [ -z "$best" ] || [ "${INSTR[$c/$v]}" -lt "$bm" ]; }; then best=$v bm=${INSTR[$c/$v]}; fi
    done
    echo "$line | $(label "$best") |"
  done
  echo
  fi
  if [ ${#hsrows[@]} -gt 0 ]; then
  section "## TLS handshakes: what a new connection costs nginx" \
    "openssl s_time connects one connection after another for ${DURATION} s (one GET each), with a new session every time or resuming the session of its first connection, against the generated configuration or a copy with session tickets on; nginx's CPU time per connection from /proc/PID/schedstat, ${RUNS} rounds (median and range). Connections one at a time find nginx idle between them, so these figures run higher than the CPU per request of the loaded runs above; compare them with each other. The certificate is ECDSA P-256, the key exchange X25519 (one X25519 derivation: ${X25519} µs by \`openssl speed\`; a TLS 1.3 resumption makes a key pair and one derivation)."
  echo "| connection | µs of nginx CPU (median) | range | connections/s |"
  echo "|---|---|---|---|"
  printf '%s\n' "${hsrows[@]}"
  echo
  echo "A TLS 1.3 resumption still runs an ECDHE exchange: psk_dhe_ke is the mode browsers and OpenSSL's clients offer. A server can skip the exchange only with psk_ke, which a client must offer: asked with \`openssl s_client -allow_no_dhe_kex\` (both modes offered) against the generated configuration plus \`ssl_conf_command Options AllowNoDHEKEX\`, this nginx answered with ${PSK_KE}. So no setting of nginx removes the exchange for these clients, and a psk_ke resumption would give up forward secrecy. The generated configuration keeps TLS 1.3 (Mozilla's intermediate guideline: a new session in one round trip instead of two, downgrade protection); the static table's \"TLS 1.2 only\" column is what that costs on this machine."
  echo
  fi
  if [ ${#prows[@]} -gt 0 ]; then
  echo "## Reverse proxy"
  echo
  echo "A backend nginx on 127.0.0.1:${PORT_BACKEND} answers 1 KB. \"straight\" is Debian's stock configuration with \`proxy_pass http://127.0.0.1:${PORT_BACKEND};\` (HTTP/1.0, a new backend connection per request); \"gen-proxy\" is \`nginxtune gen --profile proxy --upstream 127.0.0.1:${PORT_BACKEND}\` (upstream with keepalive, pool sized by \`--concurrency ${PROXY_MAX}\`: ${PROXY_POOL} per worker). Every run listens and reaches the backend on ports of its own (the backend listens on 64), so TIME-WAIT counts the sockets in that state with the run's ports after it: the ones that run left, client and backend sides together. net.ipv4.tcp_tw_reuse is $(cat /proc/sys/net/ipv4/tcp_tw_reuse), the local port range $(tr '\t' '-' < /proc/sys/net/ipv4/ip_local_port_range)."
  echo
  echo "| run | config | rps | vs straight | errors | latency p50 / p99 | CPU µs/request | TIME-WAIT |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${prows[@]}"
  fi
} > "$OUT"
cat "$OUT"
