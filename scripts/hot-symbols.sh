#!/usr/bin/env bash
# make hot-symbols: writes link/hot-symbols.txt, the functions a hit runs, which the release
# link places first in .text (lld's --symbol-ordering-file; Package.swift, target imgcache).
# A hit then touches a few contiguous pages of code instead of pages all over a 14 MB .text,
# and takes fewer page faults (docs/architecture.md, Start-up). Run it on a release build
# after a change to the hit's path; a name no longer in the binary is skipped by the linker,
# so a stale list costs faults, never correctness.
set -euo pipefail
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/.build/release/imgcache}
work=$(mktemp -d)
origin=""
trap '[ -n "$origin" ] && kill "$origin" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "hot-symbols: $*" >&2; exit 1; }
command -v valgrind >/dev/null || fail "valgrind is needed"
# valgrind cannot read this toolchain's DWARF 5: symbols only.
strip -g -o "$work/imgcache" "$binary"
# A 1x1 PNG served from loopback on a port the server picks (it prints it on its first line).
mkdir "$work/www"
python3 -c 'import sys; open(sys.argv[1], "wb").write(bytes.fromhex(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
  "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"))' \
  "$work/www/a.png"
python3 -u -c 'import functools, http.server, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args): pass
handler = functools.partial(Quiet, directory=sys.argv[1])
server = http.server.HTTPServer(("127.0.0.1", 0), handler)
print(server.server_address[1], flush=True)
server.serve_forever()' "$work/www" > "$work/port" &
origin=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(head -1 "$work/port")/a.png"
# A cache of its own, no policy of the developer's.
for name in $(env | sed -n 's/^\(IMGCACHE_[A-Z_]*\)=.*/\1/p'); do unset "$name"; done
export IMGCACHE_DIR=$work/cache IMGCACHE_CONFIG=$work/config
install -m 600 /dev/null "$work/config"
"$work/imgcache" fetch -q "$url" >/dev/null || fail "the origin at $url never answered"
run() {
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$1.out" \
    "$work/imgcache" "${@:2}" >/dev/null 2>"$work/$1.err" || fail "$1: $(tail -3 "$work/$1.err")"
}
run version --version
run fetch fetch "$url"
run query query "$url"
printf '%s\n' "$url" "$url" "$url" > "$work/urls"
run stream fetch -i "$work/urls"
# The binary's own functions, each once, sorted: the linker places them together, and the
# order among them (callgrind's varies from run to run) matters little; a sorted list keeps
# its diffs to what changed. Callgrind marks a recursive call with 'N; the loader's and
# libc's functions are not the binary's.
nm --defined-only "$work/imgcache" | awk '$2 ~ /^[tTwW]$/ {print $3}' | sort -u > "$work/defined"
cat "$work"/{version,fetch,query,stream}.out | sed -n -E "s/^c?fn=\([0-9]+\) (.+)$/\1/p" \
  | sed -E "s/'[0-9]+$//" | sort -u > "$work/named"
{
  echo "# The functions a hit runs, placed first in .text by the release link (scripts/hot-symbols.sh)."
  awk 'NR == FNR {defined[$0] = 1; next} defined[$0]' "$work/defined" "$work/named"
} > "$root/link/.hot-symbols.txt.new"
mv "$root/link/.hot-symbols.txt.new" "$root/link/hot-symbols.txt"
echo "hot-symbols: $(($(wc -l < "$root/link/hot-symbols.txt") - 1)) functions in link/hot-symbols.txt"
