#!/usr/bin/env bash
# Installs the Debian packages nginxtune's tests use, when they are missing:
# nginx-full (real nginx -t and nginx serving on loopback), php-fpm (the php
# profile against a real FastCGI backend), apache2-utils (ab, for load in the
# php-fpm test), wrk (benchmarks), pre-commit (hook test), git, time (GNU
# time: peak memory of the hostile-input runs); for gen's presets served for
# real: wordpress (Debian's WordPress on php-fpm), uwsgi-core and
# uwsgi-plugin-python3 (Django's uwsgi_pass), python3-grpcio (a gRPC server
# and client behind grpc_pass), libnginx-mod-http-brotli-filter and -static
# (the brotli modules, which the tests load by their path); neovim (its
# built-in LSP client drives nginxtune lsp end to end); lintian and man-db
# (the Debian package is checked and installed); chromium, g++, and nodejs
# with npm when node is missing, for the VS Code extension's test (code-server in
# headless Chromium), whose node modules scripts/deps-vscode.sh installs
# from npm's registry into editors/vscode/node_modules once the packages are
# in (node 20 or later; without root, when node is there).
#
# What it changes on the machine, and what it does not:
# - It runs apt-get update once, and only when something is missing.
# - It installs only what is missing, and upgrades nothing that is installed:
#   when apt would upgrade an installed package to satisfy one of these, the
#   script names the packages and stops (DEPS_ALLOW_UPGRADE=1 lets apt do it;
#   .ci/run sets it on its fresh machine).
# - The machine's own nginx configuration is left as it was: the brotli
#   module packages add links to /etc/nginx/modules-enabled/ on install
#   (the next reload of the machine's nginx would load them); the links this
#   run's install added there are removed again. The tests never read
#   /etc/nginx/modules-enabled: they load modules from their own prefix.
#   Installing nginx-full where there was no nginx installs Debian's stock
#   configuration with it, as the package does.
# - Without root it prints what is missing and leaves the tests to skip
#   those parts (CI=1 makes them fail instead).
set -euo pipefail
need=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-full)
ls /usr/sbin/php-fpm* >/dev/null 2>&1 || need+=(php-fpm)
command -v ab >/dev/null 2>&1 || need+=(apache2-utils)
command -v wrk >/dev/null 2>&1 || need+=(wrk)
command -v pre-commit >/dev/null 2>&1 || need+=(pre-commit)
command -v git >/dev/null 2>&1 || need+=(git)
[ -x /usr/bin/time ] || need+=(time)
[ -f /usr/share/wordpress/wp-login.php ] || need+=(wordpress)
command -v uwsgi >/dev/null 2>&1 || need+=(uwsgi-core)
[ -f /usr/lib/uwsgi/plugins/python3_plugin.so ] || need+=(uwsgi-plugin-python3)
/usr/bin/python3 -c 'import grpc' >/dev/null 2>&1 || need+=(python3-grpcio)
[ -f /usr/share/nginx/modules/ngx_http_brotli_filter_module.so ] || need+=(libnginx-mod-http-brotli-filter)
[ -f /usr/share/nginx/modules/ngx_http_brotli_static_module.so ] || need+=(libnginx-mod-http-brotli-static)
command -v nvim >/dev/null 2>&1 || need+=(neovim)
command -v lintian >/dev/null 2>&1 || need+=(lintian)
command -v man >/dev/null 2>&1 || need+=(man-db)
# headless Chromium: the VS Code extension's test (code-server) and the
# browser playground's (playground/browser_test.go, over the DevTools protocol)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v node >/dev/null 2>&1 || need+=(nodejs npm)
# (code-server's native modules are built against the installed node)
command -v g++ >/dev/null 2>&1 || need+=(g++)
# the VS Code extension's modules, once the packages are in
vscode() {
  if ! command -v npm >/dev/null 2>&1 || ! node -e 'process.exit(+process.versions.node.split(".")[0] < 20 ? 1 : 0)'; then
    echo "deps: the VS Code extension's test needs node 20 or later and npm; its test skips" >&2
    return 0
  fi
  # (offline, the test skips; in CI it fails, as each test without its tools)
  bash "$(dirname "$0")/deps-vscode.sh" ||
    echo "deps: the VS Code extension's node modules are not installed; its test skips" >&2
}
packages() {
  [ ${#need[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "deps: missing ${need[*]}; install them (apt-get install ${need[*]}) or the tests that need them skip" >&2
    return 0
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  # upgrades of installed packages that the install would make (apt-get -s
  # prints "Inst NAME [OLD] (NEW ...)" for an upgrade)
  upgrades=$(apt-get -s install --no-install-recommends "${need[@]}" | awk '/^Inst [^ ]+ \[/ {print $2}' | tr '\n' ' ')
  if [ -n "$upgrades" ] && [ "${DEPS_ALLOW_UPGRADE:-}" != 1 ]; then
    echo "deps: installing ${need[*]} would upgrade installed packages: $upgrades" >&2
    echo "deps: nothing installed; DEPS_ALLOW_UPGRADE=1 make test lets apt upgrade them, or install by hand" >&2
    return 1
  fi
  # nginx first, alone: its own module links are the package's; what the
  # other packages add to modules-enabled after it is not left there
  install() { apt-get install -y -q --no-install-recommends "$@"; }
  rest=()
  for p in "${need[@]}"; do
    if [ "$p" = nginx-full ]; then install nginx-full; else rest+=("$p"); fi
  done
  [ ${#rest[@]} -eq 0 ] && return 0
  enabled=/etc/nginx/modules-enabled
  before=$(ls -A "$enabled" 2>/dev/null || true)
  install "${rest[@]}"
  for l in "$enabled"/*; do
    [ -L "$l" ] || continue
    name=$(basename "$l")
    if ! printf '%s\n' "$before" | grep -qxF "$name"; then
      rm -f "$l"
      echo "deps: removed $l (added by the install; the tests load modules by path)"
    fi
  done
}
packages
vscode
