"""BENCH_ONLY=scale: what each operation costs as the cache and the list grow (100,000 to
1,000,000 entries by default; BENCH_SCALE=100000,1000000,10000000 for more), beside the
Unix tools that answer the same question on the same files and list.

The origin is nginx serving one small PNG for every URL (`/one.png?n=N`: N distinct keys). A
cache of N entries is one entry stored by `imgcache fetch`, copied N - 1 times by
`imgcache-stress copies` (its row by SQLite, its file by two threads: a million entries in about
a minute), with real bodies when the disk holds two copies of the cache (the peers work on the
second), else empty files. The cold prefetch rows fetch 50,000 new URLs (BENCH_SCALE_COLD)
into the cache of N entries and into an empty one, alternately, three times: the rate a stored URL
costs as the index and the shards' folders grow. Each figure is one run; the ratio column
compares each figure with the same figure at the first size. Writes the rows to the report, and
the chart of cost against N to docs/scale.svg.
"""
import json, os, shutil, sqlite3, struct, subprocess, sys, time, zlib

COLD = int(os.environ.get("BENCH_SCALE_COLD", "50000"))  # new URLs of the cold prefetch rows


def tiny_png(path):
    """A 37x21 RGB gradient PNG (about 300 bytes), written without an imaging library."""
    width, height = 37, 21
    raw = b"".join(b"\0" + bytes(v for x in range(width) for v in (x * 7 % 256, y * 12 % 256, 128))
                   for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def index_bytes(cache):
    """Bytes of the entry table and its indexes, and the number of entries."""
    db = sqlite3.connect(os.path.join(cache, "index.sqlite"))
    try:
        total = db.execute("SELECT SUM(pgsize) FROM dbstat WHERE name = 'entry' OR name IN "
                           "(SELECT name FROM sqlite_schema WHERE tbl_name = 'entry')").fetchone()[0]
        count = db.execute("SELECT COUNT(*) FROM entry").fetchone()[0]
    finally:
        db.close()
    return total, count


def scale_bench(bench):
    sizes = [int(n) for n in os.environ.get("BENCH_SCALE", "100000,1000000").split(",")]
    root = os.path.join(bench.WORK, "scale-origin")
    os.makedirs(root)
    os.chmod(bench.WORK, 0o755)  # nginx's workers (nobody) read the origin's file under it
    tiny_png(os.path.join(root, "one.png"))
    servers = subprocess.Popen(
        [sys.executable, os.path.join(bench.ROOT, "Tests/Fixtures/servers.py"), "--root", root,
         "--work", os.path.join(bench.WORK, "scale-servers"), "--lifetime", "14400"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    port = json.loads(servers.stdout.readline())["http"]
    figures = {}  # operation -> {N: (seconds, peak KiB)}

    def record(operation, n, measured, peer, group):
        figures.setdefault(operation, {})[n] = measured
        first = figures[operation][sizes[0]]
        wall, rss = measured
        growth = f"{wall / first[0]:.1f} x time, {rss / first[1]:.2f} x memory of {sizes[0]:,}" \
            if n != sizes[0] else "(base)"
        if peer:
            growth += f"; {wall / peer[1]:.2f} x {peer[0]} ({peer[1]:.2f} s)"
        bench.rows.append((group, operation, f"{wall:.2f} s", f"{rss / 1024:.1f} MiB", growth))

    def settled_cache():
        """A never-used cache directory, once the last size's removals have settled: freed inodes
        cost the next files' allocation for 5-30 s on this VM's ext4 (see bench.unused_directory)."""
        time.sleep(30)
        return os.path.join(bench.unused_directory(), "cache")

    # The cold prefetch: COLD new URLs into a cache of N entries, each run beside the same number
    # into an empty cache (the rate a stored URL costs as the index and the shards' folders
    # grow). This VM's kernel time for creating files varies two- to four-fold from one run to
    # the next, so the two alternate, three times, and the medians are compared.
    def cold_list(run):
        path = os.path.join(bench.WORK, f"scale-cold-{run}.txt")
        with open(path, "w") as f:
            f.writelines(f"http://127.0.0.1:{port}/one.png?m={run}-{i}\n" for i in range(COLD))
        return path

    def cold(cache, run):
        env = dict(bench.ENV, IMGCACHE_DIR=cache)
        return bench.timed([bench.BIN, "prefetch", "-q", "-j", "16", "-i", cold_list(run)], env=env)

    def median(runs):
        return sorted(runs)[len(runs) // 2][0], max(rss for _, rss in runs)

    try:
        for n in sizes:
            cache = settled_cache()
            env = dict(bench.ENV, IMGCACHE_DIR=cache)
            data = os.path.join(cache, "data")
            disk = shutil.disk_usage(bench.WORK)
            inodes = os.statvfs(bench.WORK).f_favail
            # Real bodies (4 KiB of disk each) when the disk holds the cache and the peers' copy;
            # else empty files (the index at full size, every file there). The peers' copy when
            # the inodes allow it.
            bodies = disk.free > 2.5 * n * 4096
            peers = inodes > 2.2 * n + 8 * COLD
            group = f"scale: {n:,} entries" + ("" if bodies else " (empty files)")
            template = f"http://127.0.0.1:{port}/one.png?n=0"
            subprocess.run([bench.BIN, "fetch", "-q", template], env=env, check=True, stdout=subprocess.DEVNULL)
            fill = bench.timed([bench.STRESS, "copies", cache, str(n), "0" if bodies else "1"])
            bench.rows.append((group, "fill (imgcache-stress copies)", f"{fill[0]:.2f} s", f"{fill[1] / 1024:.1f} MiB",
                               f"{n / fill[0]:,.0f} entries/s"))
            total, count = index_bytes(cache)
            bench.rows.append((group, "index bytes an entry", f"{total / count:.0f} B",
                               "", f"{total / 1e6:,.0f} MB for {count:,}"))
            urls = os.path.join(bench.WORK, f"scale-{n}.txt")
            with open(urls, "w") as f:
                f.write(template + "\n")
                f.writelines(f"{template}&n={i}\n" for i in range(1, n))
            sort_u = bench.timed(["sort", "-u", "-o", os.path.join(bench.WORK, "sorted.txt"), urls])
            record("warm prefetch --offline", n,
                   bench.timed([bench.BIN, "prefetch", "-q", "--offline", "-i", urls], env=env),
                   ("sort -u of the list", sort_u[0]), group)
            os.remove(urls)
            find = bench.timed(["find", data, "-type", "f", "-printf", "%A@ %s %p\n"])
            record("list --urls", n, bench.timed([bench.BIN, "list", "--urls"], env=env),
                   ("find -printf", find[0]), group)
            record("verify", n, bench.timed([bench.BIN, "verify"], env=env), ("find -printf", find[0]), group)
            du = bench.timed(["du", "-sb", data])
            record("size", n, bench.timed([bench.BIN, "size"], env=env), ("du -sb", du[0]), group)
            record("stats", n, bench.timed([bench.BIN, "stats"], env=env), ("du -sb", du[0]), group)
            # A scrape: the metrics against the JSON they carry (both read the counters and the
            # running totals only).
            as_json = bench.median_run(lambda: None, [bench.BIN, "stats", "--json"], runs=10, env=env)
            scrape = bench.median_run(
                lambda: None, [bench.BIN, "stats", "--format", "openmetrics"], runs=10, env=env)
            bench.rows.append((group, "stats --format openmetrics (median of 10)",
                               f"{scrape[0] * 1000:.1f} ms", f"{scrape[1] / 1024:.1f} MiB",
                               f"{scrape[0] / as_json[0]:.2f} x stats --json ({as_json[0] * 1000:.1f} ms)"))
            record("query (hit)", n, bench.timed([bench.BIN, "query", f"{template}&n={n // 2}"], env=env),
                   None, group)
            empty_runs, into_runs = [], []
            for run in range(3):
                empty_runs.append(cold(os.path.join(bench.unused_directory(), "cache"), run))
                into_runs.append(cold(cache, run))
            empty, into = median(empty_runs), median(into_runs)
            record(f"cold prefetch -j 16 of {COLD:,} new URLs (x3)", n, into, None, group)
            bench.rows.append((group, "cold prefetch rate", f"{COLD / into[0]:,.0f} URLs/s", "",
                               f"{empty[0] / into[0]:.2f} x the rate into an empty cache "
                               f"({COLD / empty[0]:,.0f} URLs/s; {empty[1] / 1024:.1f} MiB)"))
            if peers:  # the peers work on a copy of the same files
                copy = os.path.join(bench.unused_directory(), "copy")
                subprocess.run(["cp", "-a", cache, copy], check=True)
                subprocess.run(["sync"])
                half = (f"find {copy}/data -type f -printf '%A@ %p\\n' | sort -n | head -n {(n + 3 * COLD) // 2} "
                        f"| cut -d' ' -f2- | xargs -d '\\n' rm -f")
                peer = ("find|sort|rm", bench.timed(["bash", "-c", half])[0])
            record("clean (to half)", n, bench.timed(
                [bench.BIN, "clean", "-q", "--max-age", "never", "--max-entries", str(n + 3 * COLD - 1)], env=env),
                peer if peers else None, group)
            if peers:
                peer = ("rm -rf", bench.timed(["rm", "-rf", copy])[0])
            record("clear (the half left)", n, bench.timed([bench.BIN, "clear", "-q"], env=env),
                   peer if peers else None, group)
            shutil.rmtree(os.path.dirname(cache), ignore_errors=True)
    finally:
        servers.stdin.close()
        servers.wait(timeout=10)
    chart(figures, sizes, os.path.join(bench.ROOT, "docs", "scale.svg"))


def chart(figures, sizes, path):
    """Two panels against N (log scale): microseconds an entry (flat: linear time) and peak
    RSS (flat: flat memory)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench: matplotlib missing, no scale chart (apt-get install python3-matplotlib)")
        return
    plt.rcParams["svg.hashsalt"] = "imgcache"  # stable ids: the file changes only with the figures
    fig, (cost, memory) = plt.subplots(1, 2, figsize=(11, 4.2))
    for operation, by_n in figures.items():
        ns = [n for n in sizes if n in by_n]
        if operation in ("size", "stats", "query (hit)"):
            cost.plot(ns, [by_n[n][0] * 1000 for n in ns], marker="o", linestyle="--",
                      label=f"{operation} (ms, whole run)")
        else:
            per = COLD if operation.startswith("cold") else None  # a new URL's cost, not an entry's
            cost.plot(ns, [by_n[n][0] / (per or n) * 1e6 for n in ns], marker="o",
                      label=f"{operation} (us {'a new URL' if per else 'an entry'})")
        memory.plot(ns, [by_n[n][1] / 1024 for n in ns], marker="o", label=operation)
    for axis, title in ((cost, "cost: flat = linear time"), (memory, "peak RSS (MiB): flat = flat memory")):
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("entries in the cache (URLs in the list)")
        axis.set_title(title)
        axis.grid(True, which="both", alpha=0.3)
    cost.legend(fontsize=7)
    memory.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    print(f"bench: chart of cost against N in {path}")
