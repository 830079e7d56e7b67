"""BENCH_ONLY=scale: what each operation costs as the cache and the list grow (100,000 to
1,000,000 entries by default; BENCH_SCALE=100000,1000000,10000000 for more), beside the
Unix tools that answer the same question on the same files and list.

The origin is nginx serving one small PNG for every URL (`/one.png?n=N`: N distinct keys), so
the cache is filled by a real cold prefetch. Each figure is one run (a run at a million entries
takes minutes); the ratio column compares each figure with the same figure at the first size.
Writes the rows to the report, and the chart of cost against N to docs/scale.svg.
"""
import json, os, shutil, sqlite3, struct, subprocess, sys, time, zlib


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

    def record(operation, n, measured, peer=None):
        figures.setdefault(operation, {})[n] = measured
        first = figures[operation][sizes[0]]
        wall, rss = measured
        growth = f"{wall / first[0]:.1f} x time, {rss / first[1]:.2f} x memory of {sizes[0]:,}" \
            if n != sizes[0] else "(base)"
        if peer:
            growth += f"; {wall / peer[1]:.2f} x {peer[0]} ({peer[1]:.2f} s)"
        bench.rows.append((f"scale: {n:,} entries", operation, f"{wall:.2f} s", f"{rss / 1024:.1f} MiB", growth))

    try:
        for n in sizes:
            cache = bench.unused_directory()
            env = dict(bench.ENV, IMGCACHE_DIR=os.path.join(cache, "cache"))
            data = os.path.join(cache, "cache", "data")
            # Freed inodes cost the next files' allocation for 5-30 s on this VM's ext4 (see
            # bench.unused_directory): the last size's removals settle first.
            time.sleep(30)
            urls = os.path.join(bench.WORK, f"scale-{n}.txt")
            with open(urls, "w") as f:
                f.writelines(f"http://127.0.0.1:{port}/one.png?n={i}\n" for i in range(n))
            cold = bench.timed([bench.BIN, "prefetch", "-q", "-j", "16", "-i", urls], env=env)
            record("cold prefetch -j 16", n, cold)
            bench.rows.append((f"scale: {n:,} entries", "cold prefetch rate", f"{n / cold[0]:,.0f} URLs/s", "",
                               f"{n / cold[0] / (sizes[0] / figures['cold prefetch -j 16'][sizes[0]][0]):.2f}"
                               f" x the rate at {sizes[0]:,}"))
            total, count = index_bytes(os.path.join(cache, "cache"))
            bench.rows.append((f"scale: {n:,} entries", "index bytes an entry", f"{total / count:.0f} B",
                               "", f"{total / 1e6:,.0f} MB for {count:,}"))
            sort_u = bench.timed(["sort", "-u", "-o", os.path.join(bench.WORK, "sorted.txt"), urls])
            record("warm prefetch --offline", n,
                   bench.timed([bench.BIN, "prefetch", "-q", "--offline", "-i", urls], env=env),
                   ("sort -u of the list", sort_u[0]))
            find = bench.timed(["find", data, "-type", "f", "-printf", "%A@ %s %p\n"])
            record("list --urls", n, bench.timed([bench.BIN, "list", "--urls"], env=env),
                   ("find -printf", find[0]))
            record("verify", n, bench.timed([bench.BIN, "verify"], env=env), ("find -printf", find[0]))
            du = bench.timed(["du", "-sb", data])
            record("size", n, bench.timed([bench.BIN, "size"], env=env), ("du -sb", du[0]))
            record("stats", n, bench.timed([bench.BIN, "stats"], env=env), ("du -sb", du[0]))
            record("query (hit)", n, bench.timed([bench.BIN, "query", f"http://127.0.0.1:{port}/one.png?n={n // 2}"],
                                                 env=env))
            # The peers work on a copy of the same files.
            copy = os.path.join(bench.unused_directory(), "copy")
            subprocess.run(["cp", "-a", os.path.join(cache, "cache"), copy], check=True)
            subprocess.run(["sync"])
            allocated = json.loads(subprocess.run([bench.BIN, "size", "--json"], env=env, capture_output=True,
                                                  check=True).stdout)["disk_size"]
            half = (f"find {copy}/data -type f -printf '%A@ %p\\n' | sort -n | head -n {n // 2} "
                    f"| cut -d' ' -f2- | xargs -d '\\n' rm -f")
            peer = bench.timed(["bash", "-c", half])
            record("clean (to half)", n, bench.timed(
                [bench.BIN, "clean", "-q", "--max-age", "never", "--max-size", str(allocated - 1)], env=env),
                ("find|sort|rm", peer[0]))
            rm = bench.timed(["rm", "-rf", copy])
            record("clear (the half left)", n, bench.timed([bench.BIN, "clear", "-q"], env=env), ("rm -rf", rm[0]))
            shutil.rmtree(cache, ignore_errors=True)
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
            cost.plot(ns, [by_n[n][0] / n * 1e6 for n in ns], marker="o", label=f"{operation} (us an entry)")
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
