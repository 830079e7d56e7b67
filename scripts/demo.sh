#!/usr/bin/env bash
# make demo: a local origin (nginx on 127.0.0.1) serving sample images, and imgcache's main
# jobs end to end against it. Everything lives in a temporary directory removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/debug/imgcache
work=$(mktemp -d /tmp/imgcache-demo.XXXXXX)
trap 'exec 3>&-; sleep 0.5; rm -rf "$work"' EXIT

say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { say "$*"; "$@" || echo "(exit status $?)"; }

# Sample images: ImageMagick's built-in pictures plus one of each format from the test fixtures.
chmod 755 "$work"
mkdir -p "$work/site"
sh Tests/Fixtures/make-images.sh "$work/site" >/dev/null
for sample in rose logo wizard granite netscape; do convert "$sample:" "$work/site/$sample.png"; done
convert rose: "$work/site/rose.jpg"

# The origin: nginx (and the fault server) until this script ends.
mkfifo "$work/stop"
python3 Tests/Fixtures/servers.py --root "$work/site" --work "$work/servers" --lifetime 600 \
  < "$work/stop" > "$work/ports.json" &
exec 3>"$work/stop"
for _ in $(seq 100); do [ -s "$work/ports.json" ] && break; sleep 0.1; done
port=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["http"])' "$work/ports.json")
fault=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["fault"])' "$work/ports.json")
origin="http://127.0.0.1:$port"
echo "origin: $origin (nginx), cache: $work/cache"
export IMGCACHE_DIR="$work/cache"

run $bin fetch "$origin/rose.jpg"
run $bin fetch --json "$origin/rose.jpg"
say "img=\$($bin fetch $origin/logo.png) && identify \"\$img\""
img=$($bin fetch "$origin/logo.png") && identify "$img"
# A variant: a 32x32 WebP thumbnail derived once from the cached original.
say "thumb=\$($bin fetch --resize '32x32^' --format webp $origin/rose.jpg) && identify \"\$thumb\""
thumb=$($bin fetch --resize '32x32^' --format webp "$origin/rose.jpg") && identify "$thumb"
run $bin list --variants
printf '%s\n' "# a list of URLs" "$origin/wizard.png" "$origin/granite.png" "$origin/netscape.png" \
  "$origin/lossy.webp" "$origin/base.avif" "$origin/base.heic" "$origin/base.jxl" "$origin/wizard.png" \
  "$origin/missing.png" "http://127.0.0.1:$fault/html" > "$work/urls.txt"
run cat "$work/urls.txt"
run $bin prefetch -j 4 -i "$work/urls.txt" --save-failed "$work/failed.txt"
run cat "$work/failed.txt"
run $bin prefetch -i "$work/urls.txt"
run $bin query "$origin/wizard.png" "$origin/not-fetched.png"
run $bin fetch --offline "$origin/not-fetched.png"
run $bin fetch "$origin/missing.png"
run $bin size
run $bin size --json
run $bin size --by format
run $bin list
run $bin list --sort size --reverse --limit 3 --urls
run $bin list --failed
run $bin stats
run $bin verify
run $bin config set max_size 2M
run $bin config
run $bin config path
run $bin remove "$origin/rose.jpg"
run $bin clean --dry-run --max-size 100K
run $bin clean -v --max-size 100K
run $bin size
run $bin clear
run $bin size
say "done: every command above ran against $origin"
