"""BENCH_ONLY=export: a URL table to WebDataset shards (issue 50), imgcache export beside
img2dataset 1.47.0 (PyPI; installed into a venv in the bench's folder when missing). One table
of 20,000 rows with captions over 500 host names, an origin answering each request after
100 ms (bench/latency.py; a 640x480 JPEG), the same concurrency (128: img2dataset's 2
processes of 64 threads), webdataset out, a 256-pixel centre crop. The names resolve to
127.0.0.1 through /etc/hosts, which both tools read (a block added for the run and removed
after). Then each exports the table again at 128 pixels: img2dataset downloads again;
imgcache reads the cache only (--offline), and the origin's request count shows it. Wall
and CPU seconds and peak RSS from GNU time; RSS of a table four times shorter beside it.
"""
import json, os, shutil, subprocess, sys, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from latency import LatencyOrigin  # noqa: E402

ROWS = int(os.environ.get("BENCH_EXPORT_ROWS", "20000"))
NAMES = 500
JOBS = 128
I2D_VERSION = "1.47.0"
HOSTS_MARK = "# imgcache bench export"


def img2dataset(bench):
    """The img2dataset executable: on PATH, else in a venv of the bench's folder."""
    found = shutil.which("img2dataset")
    if found:
        return found
    venv = os.path.join(bench.ROOT, ".build", "img2dataset-venv")
    binary = os.path.join(venv, "bin", "img2dataset")
    if not os.path.exists(binary):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q",
                        f"img2dataset=={I2D_VERSION}"], check=True)
    return binary


def timed(cmd, env, work):
    """Wall seconds, CPU seconds (user + system, children included) and peak RSS (KiB)."""
    stats = os.path.join(work, "time.txt")
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", stats] + cmd, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd[:3])}... exited {result.returncode}: "
                 f"{result.stderr.decode()[-800:]}")
    user, system, rss = open(stats).read().split()[-3:]
    return wall, float(user) + float(system), int(rss)


def successes(folder):
    return sum(json.load(open(os.path.join(folder, f)))["successes"]
               for f in os.listdir(folder) if f.endswith("_stats.json"))


def hosts(names, add):
    lines = [l for l in open("/etc/hosts").read().splitlines() if not l.endswith(HOSTS_MARK)]
    if add:
        lines += [f"127.0.0.1 {name} {HOSTS_MARK}" for name in names]
    with open("/etc/hosts", "w") as f:
        f.write("\n".join(lines) + "\n")


def export_bench(bench):
    work = os.path.join(bench.WORK, "export")
    root = os.path.join(work, "root")
    os.makedirs(root, exist_ok=True)
    subprocess.run(["convert", "-seed", "1", "-size", "640x480", "plasma:", "-quality", "85",
                    os.path.join(root, "photo.jpg")], check=True)
    i2d = img2dataset(bench)
    origin = LatencyOrigin(root, os.path.join(work, "origin"), delay=0.1)
    names = [f"h{n}.export.test" for n in range(NAMES)]
    hosts(names, add=True)
    try:
        port = origin.http_port
        count = lambda: int(urllib.request.urlopen(f"http://127.0.0.1:{port}/_count").read())
        table = os.path.join(work, "table.csv")
        with open(table, "w") as f:
            f.write("url,caption\n")
            for n in range(ROWS):
                f.write(f"http://{names[n % NAMES]}:{port}/photo.jpg?n={n},photo {n}\n")
        run_pair(bench, work, table, i2d, count)
    finally:
        hosts(names, add=False)
        origin.stop()


def run_pair(bench, work, table, i2d, count):
    env = dict(bench.ENV, IMGCACHE_DIR=os.path.join(work, "cache"))
    label = f"export: {ROWS:,} rows, {NAMES} names, 100 ms origin, -j {JOBS}, webdataset"
    figures = {}
    for size, second in ((256, False), (128, True)):
        out = os.path.join(work, f"i2d-{size}")
        i2d_cmd = [i2d, "--url_list", table, "--input_format", "csv", "--url_col", "url",
                   "--caption_col", "caption", "--output_format", "webdataset",
                   "--output_folder", out, "--processes_count", "2", "--thread_count",
                   str(JOBS // 2), "--image_size", str(size), "--resize_mode", "center_crop",
                   "--number_sample_per_shard", "10000", "--distributor", "multiprocessing",
                   "--retries", "0", "--timeout", "20", "--enable_wandb", "False"]
        before = count()
        # No update check over the network (there is none here).
        i2d_env = dict(bench.ENV, NO_ALBUMENTATIONS_UPDATE="1")
        figures[("img2dataset", size)] = timed(i2d_cmd, i2d_env, work) + (
            successes(out), count() - before)
        out = os.path.join(work, f"imgcache-{size}")
        cmd = [bench.BIN, "export", "-q", "-i", table, "--caption-col", "caption", "-o", out,
               "--resize", f"{size}x{size}^", "-j", str(JOBS)] + (["--offline"] if second else [])
        before = count()
        figures[("imgcache", size)] = timed(cmd, env, work) + (successes(out), count() - before)
    for size, what in ((256, "first run"), (128, "again at 128 px")):
        theirs, ours = figures[("img2dataset", size)], figures[("imgcache", size)]
        for tool, (wall, cpu, rss, done, requests) in (("img2dataset", theirs), ("imgcache", ours)):
            bench.rows.append((f"{label}, {what}", tool,
                               f"{done / wall:,.0f} images/s ({done:,} in {wall:.1f} s), "
                               f"{done / cpu:,.0f} a CPU-second, {requests:,} requests",
                               f"{rss / 1024:.0f} MiB",
                               "" if tool == "img2dataset" else
                               f"{(done / wall) / (theirs[3] / theirs[0]):.1f}x images/s, "
                               f"{(done / cpu) / (theirs[3] / theirs[1]):.1f}x a CPU-second"))
    flat(bench, work, table, env)


def flat(bench, work, table, env):
    """Peak RSS of an offline export of the whole table against a quarter of it."""
    quarter = os.path.join(work, "quarter.csv")
    with open(table) as f, open(quarter, "w") as g:
        lines = f.readlines()
        g.writelines(lines[:1 + ROWS // 4])
    rss = []
    for source in (quarter, table):
        out = bench.unused_directory()
        _, _, peak = timed([bench.BIN, "export", "-q", "-i", source, "-o", out, "--offline",
                            "--shard-size", "1000"], env, work)
        rss.append(peak)
    bench.rows.append((f"export --offline, {ROWS // 4:,} rows against {ROWS:,}", "imgcache",
                       "peak RSS", f"{rss[0] / 1024:.0f} / {rss[1] / 1024:.0f} MiB",
                       f"{rss[1] / rss[0]:.2f}x for 4x the rows"))
