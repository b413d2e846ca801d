#!/usr/bin/env bash
# Installs the Debian packages nginxtune's tests use, when they are missing:
# nginx-full (real nginx -t and nginx serving on loopback), php-fpm (the php
# profile against a real FastCGI backend), apache2-utils (ab, for load in the
# php-fpm test), wrk (benchmarks), pre-commit (hook test), git, time (GNU
# time: peak memory of the hostile-input runs); for gen's presets served for
# real: wordpress (Debian's WordPress on php-fpm), uwsgi-core and
# uwsgi-plugin-python3 (Django's uwsgi_pass), python3-grpcio (a gRPC server
# and client behind grpc_pass), libnginx-mod-http-brotli-filter and -static
# (brotli where the host's nginx has it); neovim (its built-in LSP client
# drives nginxtune lsp end to end); lintian and man-db (the Debian package
# is checked and installed).
# Runs apt-get update once, and only when something is missing. Without root
# it prints what is missing and leaves the tests to skip those parts.
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
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "deps: missing ${need[*]}; install them (apt-get install ${need[*]}) or the tests that need them skip" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${need[@]}"
