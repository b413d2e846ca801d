#!/usr/bin/env bash
# Installs the Debian packages nginxtune's tests use, when they are missing:
# nginx-full (real nginx -t), wrk (benchmarks), pre-commit (hook test).
# Runs apt-get update once, and only when something is missing. Without root
# it prints what is missing and leaves the tests to skip those parts.
set -euo pipefail
need=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-full)
command -v wrk >/dev/null 2>&1 || need+=(wrk)
command -v pre-commit >/dev/null 2>&1 || need+=(pre-commit)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "deps: missing ${need[*]}; install them (apt-get install ${need[*]}) or the tests that need them skip" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${need[@]}"
