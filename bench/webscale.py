"""BENCH_ONLY=webscale: thousands of transfers at once (issue 37's second row). 50,000 URLs
over 1,000 host names (`--resolve`, all pinned to 127.0.0.1), an origin that answers each
request after 100 ms (bench/latency.py's asyncio origin, keep-alive), at -j 256 and -j 2000:
the bound is j / 100 ms (2,560 and 20,000 requests/s) unless a core runs out first, which the
row shows (the origin is one Python process on the same two cores). Peak RSS, and RSS a
transfer slot, from GNU time. curl --parallel-max beside it at the same concurrency, with
the same --resolve pins (from a config file); aria2c has no --resolve, so it is not run.
"""
import os, shutil, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from latency import LatencyOrigin  # noqa: E402
from scale import tiny_png  # noqa: E402

URLS = int(os.environ.get("BENCH_WEB_URLS", "50000"))
NAMES = 1_000


def webscale_bench(bench):
    root = os.path.join(bench.WORK, "web-root")
    os.makedirs(root, exist_ok=True)
    tiny_png(os.path.join(root, "one.png"))
    origin = LatencyOrigin(root, os.path.join(bench.WORK, "web-origin"), delay=0.1)
    try:
        port = origin.http_port
        names = [f"h{n}.webscale.test" for n in range(NAMES)]
        urls = [f"http://{names[n % NAMES]}:{port}/one.png?n={n}" for n in range(URLS)]
        listing = os.path.join(bench.WORK, "web.txt")
        with open(listing, "w") as f:
            f.write("\n".join(urls) + "\n")
        pins = [arg for name in names for arg in ("--resolve", f"{name}:{port}:127.0.0.1")]
        for jobs in (256, 2000):
            env = dict(bench.ENV, IMGCACHE_DIR=os.path.join(bench.unused_directory(), "cache"))
            wall, rss = bench.timed([bench.BIN, "prefetch", "-q", "-j", str(jobs), "-i", listing] + pins,
                                    env=env)
            bound = jobs / 0.1
            rate = URLS / wall
            bench.rows.append((f"web scale: {URLS:,} URLs, {NAMES:,} names, 100 ms origin",
                               f"imgcache prefetch -j {jobs}", f"{rate:,.0f} URLs/s in {wall:.1f} s",
                               f"{rss / 1024:.1f} MiB",
                               f"{rate / bound:.2f}x the bound ({bound:,.0f}/s), "
                               f"{rss / jobs:.0f} KiB a slot"))
            config = os.path.join(bench.WORK, "web.curl")
            out = os.path.join(bench.WORK, "web-curl")
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            with open(config, "w") as f:
                for name in names:
                    f.write(f'resolve = "{name}:{port}:127.0.0.1"\n')
                for n, url in enumerate(urls):
                    f.write(f'url = "{url}"\noutput = "{out}/{n}.png"\n')
            wall, rss = bench.timed(["curl", "-s", "--parallel", "--parallel-max", str(min(jobs, 300)),
                                     "-K", config])
            rate = URLS / wall
            bench.rows.append((f"web scale: {URLS:,} URLs, {NAMES:,} names, 100 ms origin",
                               f"curl --parallel-max {min(jobs, 300)}", f"{rate:,.0f} URLs/s in {wall:.1f} s",
                               f"{rss / 1024:.1f} MiB",
                               f"{rate / (min(jobs, 300) / 0.1):.2f}x its bound (curl stops at 300)"))
    finally:
        origin.stop()
