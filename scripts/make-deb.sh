#!/usr/bin/env bash
# make deb: a Debian package of the release binary (the fast build: static Swift stdlib), the
# man page and the completions; Depends from dpkg-shlibdeps plus libcurl4 and libvips42, which the binary
# loads with dlopen on first use (so no tool can see them); checked by lintian.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=$root/.build/release/imgcache
version=$("$binary" --version)
arch=$(dpkg --print-architecture)
name=imgcache_${version}_${arch}
work=$root/.build/deb
stage=$work/$name
rm -rf "$work" && mkdir -p "$stage/DEBIAN"

install -D -m 755 "$binary" "$stage/usr/bin/imgcache"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/imgcache"
install -d "$stage/usr/share/man/man1"
gzip -9n < "$root/man/imgcache.1" > "$stage/usr/share/man/man1/imgcache.1.gz"
install -d "$stage/usr/share/bash-completion/completions"
# A completion file is sourced, not run: no #! line (lintian's bash-completion-with-hashbang).
sed '1{/^#!/d}' "$root/completions/imgcache.bash" > "$stage/usr/share/bash-completion/completions/imgcache"
install -D -m 644 "$root/completions/_imgcache" "$stage/usr/share/zsh/vendor-completions/_imgcache"
install -D -m 644 "$root/completions/imgcache.fish" "$stage/usr/share/fish/vendor_completions.d/imgcache.fish"
install -D -m 644 "$root/packaging/lintian-overrides" "$stage/usr/share/lintian/overrides/imgcache"
doc=$stage/usr/share/doc/imgcache
install -D -m 644 "$root/packaging/copyright" "$doc/copyright"
date=$(date -R -d "@$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)")
printf 'imgcache (%s) unstable; urgency=medium\n\n  * Release %s; see /usr/share/doc/imgcache/CHANGELOG.md.gz.\n\n -- imgcache developers <imgcache@example.org>  %s\n' \
  "$version" "$version" "$date" | gzip -9n > "$doc/changelog.gz"
gzip -9n < "$root/CHANGELOG.md" > "$doc/CHANGELOG.md.gz"

# Depends: what the loader needs (dpkg-shlibdeps wants a debian/control beside it) + libcurl4,
# libvips42, libjpeg62-turbo and libyuv0, all opened at run time.
mkdir -p "$work/shlibs/debian"
printf 'Source: imgcache\n\nPackage: imgcache\nArchitecture: any\n' > "$work/shlibs/debian/control"
shlibs=$(cd "$work/shlibs" && dpkg-shlibdeps -O "$stage/usr/bin/imgcache" 2>/dev/null \
  | sed -n 's/^shlibs:Depends=//p')
# Packed relative relocations (Package.swift) need glibc 2.36: the binary asks for
# GLIBC_ABI_DT_RELR, which an older loader refuses ("version not found"), and dpkg-shlibdeps
# does not see.
if readelf -d "$stage/usr/bin/imgcache" | grep -q '(RELR)'; then
  libc=$(printf '%s' "$shlibs" | sed -n -E 's/.*libc6 \(>= ([^)]*)\).*/\1/p')
  if [ -z "$libc" ]; then
    shlibs="$shlibs, libc6 (>= 2.36)"
  elif dpkg --compare-versions "$libc" lt 2.36; then
    shlibs=$(printf '%s' "$shlibs" | sed -E 's/libc6 \(>= [^)]*\)/libc6 (>= 2.36)/')
  fi
fi
curl_version=$(dpkg-query -W -f '${Version}' libcurl4 | sed 's/-.*//')
# libvips is loaded with dlopen too, on the first variant (Variants/VipsLibrary.swift).
vips_version=$(dpkg-query -W -f '${Version}' libvips42 2>/dev/null | sed 's/-.*//')
# libjpeg-turbo and libyuv too, for the direct JPEG path (Variants/JPEGLibrary.swift).
depends="$shlibs, libcurl4 (>= $curl_version), libvips42${vips_version:+ (>= $vips_version)}"
depends="$depends, libjpeg62-turbo, libyuv0"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" \
  -e "s/@SIZE@/$size/" "$root/packaging/control" > "$stage/DEBIAN/control"
(cd "$stage" && find usr -type f -exec md5sum {} + | sort -k2) > "$stage/DEBIAN/md5sums"
chmod 644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"
find "$stage" -type d -exec chmod 755 {} +

dpkg-deb --root-owner-group -Zxz --build "$stage" "$root/.build/$name.deb" >/dev/null
echo "make: built .build/$name.deb"
echo "Depends: $depends"
lintian --fail-on error,warning "$root/.build/$name.deb"
echo "make: lintian found no errors or warnings"
