#!/usr/bin/env bash
# Builds nginxtune_VERSION_ARCH.deb into OUTDIR (default: dist) with
# dpkg-deb: the binary, a manual page per command, bash/zsh/fish
# completions, the documentation, the changelog and the copyright (with the
# licences of the Go modules linked into the binary).
#
# Reproducible from a commit: every timestamp is the commit's time
# (SOURCE_DATE_EPOCH), owners are root, compression is deterministic, and
# the Go build is -trimpath; two builds of one commit give the same bytes
# (TestDebianPackage checks it).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
GO=${GO:-go}
version=${VERSION:-$(bash scripts/version.sh)}
arch=$(dpkg --print-architecture)
case "$arch" in
  amd64|arm64|riscv64|ppc64el|s390x) goarch=${arch/ppc64el/ppc64le} ;;
  i386) goarch=386 ;;
  armhf) goarch=arm ;;
  *) echo "deb: architecture $arch is not built" >&2; exit 2 ;;
esac
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
fi
export SOURCE_DATE_EPOCH
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkg=$work/pkg
install -d "$pkg/DEBIAN" "$pkg/usr/bin" "$pkg/usr/share/man/man1" \
  "$pkg/usr/share/bash-completion/completions" "$pkg/usr/share/zsh/vendor-completions" \
  "$pkg/usr/share/fish/vendor_completions.d" "$pkg/usr/share/doc/nginxtune/docs"

CGO_ENABLED=0 GOOS=linux GOARCH=$goarch $GO build -trimpath -buildvcs=false \
  -ldflags "-s -w -buildid= -X main.version=$version" -o "$pkg/usr/bin/nginxtune" ./cmd/nginxtune
bin=$pkg/usr/bin/nginxtune

"$bin" man --dir "$work/man"
for page in "$work"/man/*.1; do
  gzip -9nc "$page" > "$pkg/usr/share/man/man1/$(basename "$page").gz"
done
"$bin" completion bash > "$pkg/usr/share/bash-completion/completions/nginxtune"
"$bin" completion zsh > "$pkg/usr/share/zsh/vendor-completions/_nginxtune"
"$bin" completion fish > "$pkg/usr/share/fish/vendor_completions.d/nginxtune.fish"

doc=$pkg/usr/share/doc/nginxtune
cp README.md "$doc/"
cp docs/*.md "$doc/docs/"
gzip -9nc CHANGELOG.md > "$doc/changelog.gz"
date_r=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
{
  echo "nginxtune ($version) unstable; urgency=medium"
  echo
  echo "  * Built from commit $commit."
  echo "  * What each version added is in /usr/share/doc/nginxtune/changelog.gz."
  echo
  echo " -- nginxtune developers <nginxtune@users.noreply.github.com>  $date_r"
} | gzip -9nc > "$doc/changelog.Debian.gz"

{
  echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
  echo "Upstream-Name: nginxtune"
  echo "Source: https://github.com/nginxtune/nginxtune"
  echo
  echo "Files: *"
  echo "Copyright: 2026 the nginxtune authors"
  echo "License: no-licence-yet"
  echo " The nginxtune repository does not name a licence yet; until it does, none is"
  echo " granted beyond what copyright law allows."
  $GO list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}' ./cmd/nginxtune |
    sort -u | while read -r path ver dir; do
      lic=$(ls "$dir" | grep -iE '^(licen[cs]e|copying)' | head -1 || true)
      echo
      echo "Files: usr/bin/nginxtune"
      echo "Comment: the Go module $path $ver, compiled into the binary"
      echo "Copyright: the authors of $path"
      echo "License: $path"
      if [ -n "$lic" ] && grep -q "Apache License" "$dir/$lic" && grep -q "Version 2.0" "$dir/$lic"; then
        echo " Apache-2.0: on Debian systems the full text is in"
        echo " /usr/share/common-licenses/Apache-2.0."
      elif [ -n "$lic" ]; then
        sed -e 's/^[[:space:]]*$/./' -e 's/^/ /' "$dir/$lic"
      else
        echo " (no licence file in the module)"
      fi
    done
} > "$doc/copyright"

# a Go program built without cgo is one static binary by design; and Go's
# linker lays string constants end to end with no separator, so lintian's
# word search in the binary reads "onthe" where a message ending in "on"
# ("turn tcp_nodelay on") is followed by one beginning with "the": no
# message spells it so (TestDebianPackage's lintian run shows any other)
install -d "$pkg/usr/share/lintian/overrides"
printf '%s\n' "nginxtune: statically-linked-binary [usr/bin/nginxtune]" \
    "nginxtune: spelling-error-in-binary onthe on the [usr/bin/nginxtune]" > "$pkg/usr/share/lintian/overrides/nginxtune"
size=$(du -sk --apparent-size "$pkg" | cut -f1)
cat > "$pkg/DEBIAN/control" <<EOF
Package: nginxtune
Version: $version
Architecture: $arch
Maintainer: nginxtune developers <nginxtune@users.noreply.github.com>
Installed-Size: $size
Section: admin
Priority: optional
Homepage: https://github.com/nginxtune/nginxtune
Recommends: bash-completion
Suggests: nginx
Description: linter, generator and language server for nginx configurations
 nginxtune reads a real nginx configuration tree, following include, and
 reports at file:line what nginx -t would refuse, security holes and lost
 speed, checked against the host; generates tuned configurations sized to
 the host; shows which server and location answer a request; formats
 configuration files; and serves editors over the Language Server Protocol.
EOF
(cd "$pkg" && find usr -type f | LC_ALL=C sort | xargs md5sum) > "$pkg/DEBIAN/md5sums"
find "$pkg" -type d -exec chmod 0755 {} +
find "$pkg" -type f -exec chmod 0644 {} +
chmod 0755 "$bin"
find "$pkg" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
deb=$out/nginxtune_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null
echo "$deb"
