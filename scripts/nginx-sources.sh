#!/usr/bin/env bash
# Fetches the sources the directive table is generated from, from Debian:
# nginx of bookworm (1.22), trixie (1.26) and sid (1.30) with their core
# modules, and the third-party modules Debian ships as libnginx-mod-* (the
# newest, from sid). nginx releases and njs that Debian's mirror does not
# serve come from git checkouts when given: NGINX_GIT=DIR (a clone of
# github.com/nginx/nginx: the newest release-1.28.* and release-1.30.* tags)
# and NJS_GIT=DIR (github.com/nginx/njs: its newest tag, as libnginx-mod-js).
# Adds a deb-src entry for the three suites when there is
# none. Usage: scripts/nginx-sources.sh DIR  (default .sources)
# Needs root for the apt source list; apt-get source itself does not.
set -euo pipefail
dir=${1:-.sources}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
list=/etc/apt/sources.list.d/nginxtune-src.sources
if ! apt-cache showsrc nginx 2>/dev/null | grep -q '^Version: 1\.30'; then
  if [ "$(id -u)" != 0 ]; then
    echo "nginx-sources: no deb-src for trixie and sid; run as root once to add $list" >&2
    exit 1
  fi
  cat > "$list" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm trixie sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  apt-get update -q
fi
fetch() { # package release target
  local pkg=$1 rel=$2 target=$3
  [ -d "$dir/$target" ] && return 0
  local tmp
  tmp=$(mktemp -d "$dir/.fetch-XXXXXX")
  # the upstream tarball is what the table needs; a mirror that lags behind
  # the index may lack the newest .dsc or Debian patches (404), which is fine
  (cd "$tmp" && apt-get source -q --download-only "$pkg/$rel" >"$tmp/.log" 2>&1) || true
  if ! ls "$tmp"/*.orig.tar.* >/dev/null 2>&1; then
    echo "nginx-sources: no source tarball for $pkg/$rel:" >&2
    cat "$tmp/.log" >&2
    rm -rf "$tmp"
    return 1
  fi
  mkdir -p "$dir/$target"
  for t in "$tmp"/*.orig.tar.* "$tmp"/*.orig-*.tar.*; do
    [ -e "$t" ] && tar -xf "$t" -C "$dir/$target"
  done
  for t in "$tmp"/*.debian.tar.*; do
    [ -e "$t" ] && tar -xf "$t" -C "$dir/$target"
  done
  ls "$tmp"/*.orig.tar.* | head -1 | xargs -n1 basename > "$dir/$target/.origin"
  rm -rf "$tmp"
}
missing=()
fetch nginx bookworm nginx-1.22 || missing+=(nginx/bookworm)
fetch nginx trixie nginx-1.26 || missing+=(nginx/trixie)
fetch nginx sid nginx-1.30 || missing+=(nginx/sid)
# third-party modules: the newest the mirror serves
for m in http-headers-more-filter http-echo http-geoip2 http-auth-pam http-dav-ext http-subs-filter \
         http-fancyindex http-upstream-fair http-lua http-ndk rtmp js http-brotli http-cache-purge \
         http-memc http-modsecurity http-set-misc http-srcache-filter http-uploadprogress nchan; do
  fetch "libnginx-mod-$m" sid "mod-$m" 2>/dev/null || fetch "libnginx-mod-$m" trixie "mod-$m" 2>/dev/null ||
    fetch "libnginx-mod-$m" bookworm "mod-$m" || missing+=("libnginx-mod-$m")
done
# from git: a release's tree as it was tagged (git archive), no build
from_git() { # repo tag target
  local repo=$1 tag=$2 target=$3 name=$4
  [ -d "$dir/$target" ] && return 0
  mkdir -p "$dir/$target/$name"
  git -C "$repo" archive "$tag" | tar -x -C "$dir/$target/$name"
}
if [ -n "${NGINX_GIT:-}" ]; then
  for series in 1.28 1.30; do
    tag=$(git -C "$NGINX_GIT" tag | grep "^release-$series\." | sort -V | tail -1)
    if [ -n "$tag" ]; then
      from_git "$NGINX_GIT" "$tag" "nginx-$series" "nginx-${tag#release-}"
      missing=("${missing[@]/nginx\/sid/}")
    fi
  done
fi
if [ -n "${NJS_GIT:-}" ] && [ ! -d "$dir/mod-js" ]; then
  tag=$(git -C "$NJS_GIT" tag | grep -E '^[0-9]+\.[0-9]+\.[0-9]+$' | sort -V | tail -1)
  from_git "$NJS_GIT" "$tag" mod-js "njs-$tag"
  echo "njs_$tag.orig.tar.gz" > "$dir/mod-js/.origin"
  missing=("${missing[@]/libnginx-mod-js/}")
fi
missing=(${missing[@]})
[ ${#missing[@]} -gt 0 ] && echo "nginx-sources: not served here: ${missing[*]}" >&2
echo "$dir"
