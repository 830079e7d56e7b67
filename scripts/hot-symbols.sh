#!/usr/bin/env bash
# make hot-symbols: writes link/hot-symbols.txt, the functions a hit runs, which the release
# link places first in .text (lld's --symbol-ordering-file; Package.swift, target imgcache).
# A hit then touches a few contiguous pages of code instead of pages all over a 14 MB .text,
# and takes fewer page faults (docs/architecture.md, Start-up). Run it on a release build
# after a change to the hit's path; a name no longer in the binary is skipped by the linker,
# so a stale list costs faults, never correctness.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/.build/release/imgcache}
work=$(mktemp -d)
origin=""
trap 'kill $origin 2>/dev/null || true; rm -rf "$work"' EXIT
command -v valgrind >/dev/null || { echo "hot-symbols: valgrind is needed" >&2; exit 1; }
# valgrind cannot read this toolchain's DWARF 5: symbols only.
strip -g -o "$work/imgcache" "$binary"
mkdir "$work/www"
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\1\0\0\0\1\10\6\0\0\0\x1f\x15\xc4\x89\0\0\0\rIDATx\x9cc`\0\0\0\2\0\1T\xa2O]\0\0\0\0IEND\xaeB`\x82' \
  > "$work/www/a.png"
port=$((20000 + RANDOM % 20000))
(cd "$work/www" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
origin=$!
url="http://127.0.0.1:$port/a.png"
export IMGCACHE_DIR=$work/cache
for _ in $(seq 50); do "$work/imgcache" fetch -q "$url" >/dev/null 2>&1 && break; sleep 0.1; done
run() {
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$1.out" \
    "$work/imgcache" "${@:2}" >/dev/null 2>&1
}
run version --version
run fetch fetch "$url"
run query query "$url"
printf '%s\n' "$url" "$url" "$url" > "$work/urls"
run stream fetch -i "$work/urls"
# The functions in the order the profiles name them, each once; addresses without a name
# (the loader's, libc's) are not the binary's.
{
  echo "# The functions a hit runs, placed first in .text by the release link (scripts/hot-symbols.sh)."
  cat "$work"/{version,fetch,query,stream}.out | sed -n -E 's/^c?fn=\([0-9]+\) (.+)$/\1/p' \
    | grep -v -E '^0x|^\(below main\)' | awk '!seen[$0]++'
} > "$root/link/hot-symbols.txt"
echo "hot-symbols: $(($(wc -l < "$root/link/hot-symbols.txt") - 1)) functions in link/hot-symbols.txt"
