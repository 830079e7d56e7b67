#!/bin/sh
# Makes one real image of each format the sniffer knows, with Debian's tools, into $1.
# Prints "file format width height" per image (width/height "-" when the format has none).
set -eu
out=$1
mkdir -p "$out"
cd "$out"
convert -size 37x21 gradient:red-blue base.png
convert -size 40x30 xc:none -fill '#c00' -draw 'circle 20,15 20,3' alpha.png
convert base.png -quality 85 base.jpg
convert base.png -interlace JPEG progressive.jpg
convert base.png base.gif
convert base.png -compress none base.tiff
convert base.png -define tiff:endian=msb -compress none base-be.tiff
convert base.png base.bmp
convert base.png -define bmp:format=bmp2 base-v2.bmp
convert base.png -define icon:auto-resize=16,32 base.ico
cwebp -quiet base.png -o lossy.webp
cwebp -quiet -lossless base.png -o lossless.webp
cwebp -quiet alpha.png -o extended.webp
heif-enc -q 50 base.png -o base.heic >/dev/null 2>&1
# A HEIF whose only brands are the generic mif1/miaf (no HEVC brand), from the real HEIC file.
python3 -c 'import sys; d=bytearray(open("base.heic","rb").read()); n=int.from_bytes(d[0:4],"big"); d[8:12]=b"mif1"; d[16:n]=d[16:n].replace(b"heic",b"miaf"); open("base.heif","wb").write(d)'
avifenc base.png base.avif >/dev/null 2>&1
cjxl base.png base.jxl >/dev/null 2>&1
cjxl base.jpg container.jxl >/dev/null 2>&1
cat > base.svg <<'SVG'
<?xml version="1.0" encoding="UTF-8"?>
<!-- a comment -->
<svg xmlns="http://www.w3.org/2000/svg" width="120px" height="80" viewBox="0 0 12 8"><rect width="12" height="8"/></svg>
SVG
cat > viewbox.svg <<'SVG'
<svg viewBox="0 0 64 48" xmlns="http://www.w3.org/2000/svg"><circle cx="32" cy="24" r="20"/></svg>
SVG
printf '%%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 37 21] >> endobj\ntrailer << /Root 1 0 R >>\n%%%%EOF\n' > base.pdf
cat <<'LIST'
base.jpg jpeg 37 21
progressive.jpg jpeg 37 21
base.png png 37 21
alpha.png png 40 30
base.gif gif 37 21
base.tiff tiff 37 21
base-be.tiff tiff 37 21
base.bmp bmp 37 21
base-v2.bmp bmp 37 21
base.ico ico 32 32
lossy.webp webp 37 21
lossless.webp webp 37 21
extended.webp webp 40 30
base.heic heic 37 21
base.heif heif 37 21
base.avif avif 37 21
base.jxl jxl 37 21
container.jxl jxl 37 21
base.svg svg 120 80
viewbox.svg svg 64 48
base.pdf pdf - -
LIST
