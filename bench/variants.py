"""Image variants for make bench: 320-pixel thumbnails (320x320^ and 320x320) of the large and
small sets, cold (the original cached, the variant not) and warm (the variant cached), with peak
RSS, against vipsthumbnail (the same library, file to file, one process per format) and
ImageMagick's mogrify -thumbnail (one process for the set).

Goals (issue 23): cold >= 0.9 x vipsthumbnail and >= 5 x convert; a warm variant hit costs what
an original hit costs; peak RSS <= 2 x vipsthumbnail's on the large set.
"""
import os, shutil, subprocess


def variants_bench(bench, sets):
    """`bench` is the bench module (BIN, WORK, ENV, timed, median_run, rows, fresh); `sets` is
    [(name, url list, count, corpus directory)]."""
    from goals import goal, ratios
    for name, full_list, count, directory in sets:
        # The first `limit` files of the set (issue 23: the 40 large and 1,000 small).
        limit = 1000 if name == "small" else count
        urls = open(full_list).read().split()[:limit]
        count = len(urls)
        lst = os.path.join(bench.WORK, f"variants-{name}.txt")
        with open(lst, "w") as f:
            f.write("\n".join(urls) + "\n")
        files = [os.path.join(directory, u.rsplit("/", 1)[1]) for u in urls]
        template = os.path.join(bench.WORK, f"variants-{name}")
        bench.fresh(template)
        env = dict(bench.ENV, IMGCACHE_DIR=template)
        bench.timed([bench.BIN, "prefetch", "-q", "-i", lst], env=env)  # the originals
        cache = os.path.join(bench.WORK, f"variants-{name}-run")
        env = dict(bench.ENV, IMGCACHE_DIR=cache)

        def restore():
            shutil.rmtree(cache, ignore_errors=True)
            subprocess.run(["cp", "-a", template, cache], check=True)

        restore()
        original_hits, _ = bench.median_run(lambda: None, [bench.BIN, "prefetch", "-q", "-i", lst], env=env)
        for geometry in ("320x320^", "320x320"):
            label = f"variants {name} {geometry} ({count} files)"
            command = [bench.BIN, "prefetch", "-q", "--resize", geometry, "-i", lst]
            cold, cold_rss = bench.median_run(restore, command, env=env)
            warm, warm_rss = bench.median_run(lambda: None, command, env=env)
            vips, vips_rss = bench.median_run(lambda: None, vipsthumbnail(bench, files, geometry))
            magick, magick_rss = bench.median_run(lambda: None, mogrify(bench, files, geometry), runs=1)
            bench.rows.append((label + " cold", "imgcache prefetch --resize", f"{count / cold:,.1f} files/s",
                               f"{cold_rss / 1024:.1f} MiB",
                               f"{vips / cold:.2f} x vipsthumbnail ({count / vips:,.1f}/s, "
                               f"{vips_rss / 1024:.1f} MiB), {magick / cold:.1f} x mogrify "
                               f"({count / magick:,.1f}/s, {magick_rss / 1024:.1f} MiB)"))
            bench.rows.append((label + " warm", "imgcache prefetch --resize", f"{count / warm:,.0f} files/s",
                               f"{warm_rss / 1024:.1f} MiB",
                               f"{warm / original_hits:.2f} x the time of original hits"))
            ratios.append((f"variant {name} {geometry} vs vipsthumbnail", vips / cold))
            goal(f"variant cold {name} {geometry}", f"{vips / cold:.2f} x vipsthumbnail, "
                 f"{magick / cold:.1f} x mogrify", ">= 0.9 x vipsthumbnail, >= 5 x convert",
                 vips / cold >= 0.9 and magick / cold >= 5)
            goal(f"variant warm {name} {geometry}", f"{warm / original_hits:.2f} x original hits",
                 "<= 1.1 x an original hit", warm / original_hits <= 1.1)
            if name == "large":
                goal(f"variant peak RSS {name} {geometry}", f"{cold_rss / max(vips_rss, 1):.2f} x vipsthumbnail",
                     "<= 2 x vipsthumbnail", cold_rss <= 2 * vips_rss)


def outputs(bench, tag):
    path = os.path.join(bench.WORK, "variant-out", tag)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def vipsthumbnail(bench, files, geometry):
    """One vipsthumbnail per input format (it writes the format its -o names), in one shell."""
    out = outputs(bench, "vips")
    # Shrink only, as imgcache without --enlarge (vipsthumbnail enlarges by default).
    size = f"'{geometry.rstrip('^')}>'" if not geometry.endswith("^") else geometry.rstrip("^")
    crop = ["--smartcrop", "centre"] if geometry.endswith("^") else []
    groups = {}
    for f in files:
        groups.setdefault(os.path.splitext(f)[1].lower().lstrip("."), []).append(f)
    commands = []
    for ext, group in sorted(groups.items()):
        listing = os.path.join(bench.WORK, f"vips-{ext}.list")
        with open(listing, "w") as f:
            f.write("\n".join(group) + "\n")
        commands.append(" ".join(["xargs", "-a", listing, "-d", "'\\n'", "vipsthumbnail", "-s", size,
                                  *crop, "-o", f"'{out}/%s.{ext}[strip]'"]))
    return ["bash", "-c", " && ".join(commands)]


def mogrify(bench, files, geometry):
    """mogrify over the set (xargs splits a list too long for one command line)."""
    out = outputs(bench, "magick")
    crop = f"-gravity center -extent {geometry.rstrip('^')}" if geometry.endswith("^") else ""
    listing = os.path.join(bench.WORK, "magick.list")
    with open(listing, "w") as f:
        f.write("\n".join(files) + "\n")
    return ["bash", "-c", f"xargs -a {listing} -d '\\n' mogrify -path {out} -thumbnail '{geometry}' {crop}"]
