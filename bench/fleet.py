"""BENCH_ONLY=fleet: a fleet on one machine (issue 38's rows). One redis-server holds the job
queues; a 20 ms origin (bench/latency.py) answers a tiny PNG per URL. Rows:

- one worker at -j 16 against four at -j 16 (caches of their own, no remote tier), each over
  its own job of the same size: the bound is j / 20 ms = 800 URLs/s a worker, 3,200 for four,
  unless the two cores run out first (the origin, Redis and the workers share them; the row
  gives the CPU seconds used, from /proc, to show which);
- Redis commands a URL, from INFO commandstats around the four-worker run;
- a 429 (`Retry-After: 3`) heard by one of four workers: the requests the host still gets
  from 50 ms on, before the 3 s end (goal: none);
- `job submit` of 1,000,000 URLs: wall time, peak RSS, and the bytes Redis holds for it.
"""
import os, shutil, socket, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from latency import LatencyOrigin  # noqa: E402
from scale import tiny_png  # noqa: E402

URLS = int(os.environ.get("BENCH_FLEET_URLS", "16000"))
SUBMIT = int(os.environ.get("BENCH_FLEET_SUBMIT", "1000000"))
GROUP = "fleet: job work, 20 ms origin"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def redis_info(port, section):
    text = subprocess.run(["redis-cli", "-p", str(port), "INFO", section], capture_output=True,
                          text=True, check=True).stdout
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def commands(port, only=None):
    """Commands Redis ran so far (`only`: of one name; "eval" counts EVAL and EVALSHA, a
    script by its SHA-1), those a script ran counted too: a script is one round trip,
    whatever it calls inside."""
    names = {"eval": ["cmdstat_eval", "cmdstat_evalsha"]}.get(only, [f"cmdstat_{only}"])
    total = 0
    for name, value in redis_info(port, "commandstats").items():
        wanted = name in names if only else name not in ("cmdstat_info", "cmdstat_client|list")
        if name.startswith("cmdstat_") and wanted:
            total += int(value.split("calls=")[1].split(",")[0])
    return total


def cpu_seconds():
    """User and system CPU of every process so far (from /proc/stat), in seconds."""
    fields = open("/proc/stat").readline().split()[1:]
    return (int(fields[0]) + int(fields[1]) + int(fields[2])) / os.sysconf("SC_CLK_TCK")


class PausingOrigin:
    """One host that answers its first request 429 with `Retry-After: 3` and every later one
    a tiny PNG after 50 ms, noting when (monotonic) each request arrived."""

    def __init__(self, png):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        import threading
        self.lock, self.arrivals, body = threading.Lock(), [], open(png, "rb").read()
        origin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                with origin.lock:
                    first = not origin.arrivals
                    origin.arrivals.append(time.monotonic())
                if first:
                    self.send_response(429)
                    self.send_header("Retry-After", "3")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                time.sleep(0.05)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.port = self.server.server_address[1]

    def stop(self):
        self.server.shutdown()


def pause_propagation(bench, work, queue, png):
    """Requests a host receives from a 4-worker fleet after its 429, before its Retry-After
    ends (goal: none from 50 ms on)."""
    origin = PausingOrigin(png)
    try:
        listing = os.path.join(work, "paused.txt")
        with open(listing, "w") as f:
            for n in range(400):
                f.write(f"http://127.0.0.1:{origin.port}/one.png?paused={n}\n")
        subprocess.run([bench.BIN, "job", "submit", "paused", "-q", "-i", listing, "--queue", queue,
                        "--shard-size", "100", "-j", "2", "--retry", "3"], check=True, env=bench.ENV)
        running = [subprocess.Popen([bench.BIN, "job", "work", "paused", "-q", "--queue", queue],
                                    env=dict(bench.ENV, IMGCACHE_DIR=os.path.join(work, f"paused-{k}")))
                   for k in range(4)]
        for process in running:
            process.wait()
        with origin.lock:
            arrivals = list(origin.arrivals)
        first = arrivals[0]
        late = [t - first for t in arrivals[1:] if first + 0.05 < t < first + 3]
        early = [t - first for t in arrivals[1:] if first < t <= first + 0.05]
        bench.rows.append(("fleet: a 429 (Retry-After: 3) heard by one of 4 workers x -j 2, 50 ms answers",
                           "imgcache job work", f"{len(late)} requests from 50 ms to 3 s after the 429",
                           "-", f"{len(early)} in its first 50 ms (already sent); "
                           f"{len(arrivals)} requests for 400 URLs; goal: 0 from 50 ms on"))
    finally:
        origin.stop()


def fleet_bench(bench):
    work = os.path.join(bench.WORK, "fleet")
    root = os.path.join(work, "root")
    os.makedirs(root)
    tiny_png(os.path.join(root, "one.png"))
    port = free_port()
    redis = subprocess.Popen(["redis-server", "--port", str(port), "--save", "", "--appendonly", "no",
                              "--dir", work], stdout=subprocess.DEVNULL)
    origin = LatencyOrigin(root, os.path.join(work, "origin"), delay=0.02)
    queue = f"redis://127.0.0.1:{port}"
    try:
        time.sleep(0.5)
        rates = {}
        # Four workers over the same list as one, then over four times as much (each does what
        # the one did: a worker's start, its cache's creation, weighs the same in both).
        # Last, four workers sharing the queue's Redis as their remote tier too: every stored
        # URL written back, every download under the fleet's lock on its key.
        for workers, urls, remote in ((1, URLS, False), (4, URLS, False), (4, 4 * URLS, False),
                                      (4, URLS, True)):
            name = f"w{workers}-{urls}" + ("-remote" if remote else "")
            listing = os.path.join(work, name + ".txt")
            with open(listing, "w") as f:
                for n in range(urls):
                    f.write(f"http://127.0.0.1:{origin.http_port}/one.png?{name}={n}\n")
            subprocess.run([bench.BIN, "job", "submit", name, "-i", listing, "--queue", queue,
                            "--shard-size", "500", "-j", "16"], check=True, env=bench.ENV)
            before, cpu = (commands(port, "eval"), commands(port)), cpu_seconds()
            start = time.perf_counter()
            tier = ["--remote", queue] if remote else []
            running = [subprocess.Popen([bench.BIN, "job", "work", name, "-q", "--queue", queue] + tier,
                                        env=dict(bench.ENV, IMGCACHE_DIR=os.path.join(work, f"{name}-{k}")))
                       for k in range(workers)]
            for process in running:
                if process.wait() != 0:
                    sys.exit(f"bench: a worker of {name} exited {process.returncode}")
            wall = time.perf_counter() - start
            used = cpu_seconds() - cpu
            rate = urls / wall
            rates.setdefault(workers, rate)
            label = f"{workers} x -j 16, {urls:,} URLs" + (", Redis remote tier" if remote else "")
            bound = 800 * workers
            ratio = (f"{rate / bound:.2f}x the bound ({bound:,}/s)"
                     + (f"; {rate / rates[1]:.2f}x one worker" if workers == 4 else ""))
            bench.rows.append((GROUP, f"imgcache job work, {label}",
                               f"{rate:,.0f} URLs/s in {wall:.1f} s",
                               f"{used / wall:.2f} of 2 cores busy", ratio))
            evals, calls = commands(port, "eval") - before[0], commands(port) - before[1]
            bench.rows.append((GROUP, f"Redis, {label}",
                               f"{(calls - evals) / urls:.3f} commands + {evals / urls:.3f} scripts a URL",
                               "-", f"{calls:,} commands counted (inside scripts too) for "
                               f"{urls // 500} shards"))
        # A fleet-wide rate: four workers, one host, 100 starts a second between them.
        rated = 2_000
        listing = os.path.join(work, "rated.txt")
        with open(listing, "w") as f:
            for n in range(rated):
                f.write(f"http://127.0.0.1:{origin.http_port}/one.png?rated={n}\n")
        subprocess.run([bench.BIN, "job", "submit", "rated", "-q", "-i", listing, "--queue", queue,
                        "--shard-size", "250", "-j", "16", "--rate-per-host", "100/s"], check=True,
                       env=bench.ENV)
        before = commands(port, "eval")
        start = time.perf_counter()
        running = [subprocess.Popen([bench.BIN, "job", "work", "rated", "-q", "--queue", queue],
                                    env=dict(bench.ENV, IMGCACHE_DIR=os.path.join(work, f"rated-{k}")))
                   for k in range(4)]
        for process in running:
            process.wait()
        wall = time.perf_counter() - start
        scripts = commands(port, "eval") - before
        bench.rows.append(("fleet: --rate-per-host 100/s over 4 workers x -j 16, one host",
                           "imgcache job work", f"{rated / wall:.1f} URLs/s in {wall:.1f} s", "-",
                           f"{rated / wall / 100:.3f}x the rate; {scripts / rated:.2f} Redis scripts a URL"))
        pause_propagation(bench, work, queue, os.path.join(root, "one.png"))
        listing = os.path.join(work, "submit.txt")
        with open(listing, "w") as f:
            for n in range(SUBMIT):
                f.write(f"https://images.example.org/photos/{n:08d}/original.jpg\n")
        memory = int(redis_info(port, "memory")["used_memory"])
        wall, rss = bench.timed([bench.BIN, "job", "submit", "big", "-q", "-i", listing, "--queue", queue])
        held = int(redis_info(port, "memory")["used_memory"]) - memory
        size = os.path.getsize(listing)
        bench.rows.append(("fleet: job submit", f"imgcache job submit, {SUBMIT:,} URLs",
                           f"{SUBMIT / wall:,.0f} URLs/s in {wall:.1f} s", f"{rss / 1024:.1f} MiB",
                           f"Redis holds {held / SUBMIT:.1f} bytes a URL ({held / size:.2f}x the list's "
                           f"{size / SUBMIT:.0f})"))
    finally:
        origin.stop()
        redis.terminate()
        redis.wait(timeout=10)
