"""BENCH_ONLY=polite: politeness against an origin that limits each host (issue 37's row).

Eight hosts (eight ports of one origin on 127.0.0.1, so every tool can address them without a
name to pin), 200 URLs each. Each host admits 20 requests a second (a token bucket of one
second's burst); beyond it answers 429 with `Retry-After: 1`. The bound is 8 x 20 = 160
requests/s. Rows: imgcache with `--rate-per-host 20/s` (goal: no 429, >= 0.95x the bound),
imgcache without it (every URL stored, at most one 429 per host per Retry-After window once
the first has come back: those already sent then cannot be recalled), and
curl --parallel --retry 5, aria2c and wget2 beside it, with their 429s and failures. Each
tool gets a fresh cache or directory; the origin's counters are reset between tools.
"""
import json, os, shutil, subprocess, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOSTS, PER_HOST, RATE = 8, 200, 20.0
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


class Origin:
    """Eight listening ports; a token bucket per port; counts of 200s and 429s, and the
    largest number of 429s any port gave within one Retry-After window."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()
        self.servers = []
        for _ in range(HOSTS):
            server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, daemon=True).start()
            self.servers.append(server)
        self.ports = [s.server_address[1] for s in self.servers]

    def reset(self):
        with self.lock:
            self.tokens = {}
            self.ok = 0
            self.limited = 0
            self.windows = {}  # port -> list of 429 times
            self.first = self.last = None

    def handler(self):
        origin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                port = self.server.server_address[1]
                now = time.monotonic()
                with origin.lock:
                    tokens, at = origin.tokens.get(port, (RATE, now))
                    tokens = min(RATE, tokens + (now - at) * RATE)
                    allowed = tokens >= 1
                    origin.tokens[port] = (tokens - 1 if allowed else tokens, now)
                    origin.first = origin.first or now
                    origin.last = now
                    if allowed:
                        origin.ok += 1
                    else:
                        origin.limited += 1
                        origin.windows.setdefault(port, []).append(now)
                if allowed:
                    self.send_response(200)
                    self.send_header("Content-Type", "image/png")
                    self.send_header("Content-Length", str(len(PNG)))
                    self.end_headers()
                    self.wfile.write(PNG)
                else:
                    body = b"slow down"
                    self.send_response(429)
                    self.send_header("Retry-After", "1")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

        return Handler

    def worst_window(self, after_first=False):
        """The most 429s one host gave within any one second (one Retry-After window); with
        `after_first`, leaving out each host's first window (the requests already sent when
        its first 429 came, which no client can take back)."""
        worst = 0
        for times in self.windows.values():
            times = sorted(times)
            if after_first and times:
                times = [t for t in times if t >= times[0] + 1]
            for i, t in enumerate(times):
                worst = max(worst, sum(1 for u in times[i:] if u < t + 1))
        return worst


def polite_bench(bench):
    origin = Origin()
    urls = [f"http://127.0.0.1:{port}/img/{n}.png" for n in range(PER_HOST) for port in origin.ports]
    work = bench.WORK
    listing = os.path.join(work, "polite.txt")
    with open(listing, "w") as f:
        f.write("\n".join(urls) + "\n")
    total = len(urls)
    bound = HOSTS * RATE

    def imgcache(extra):
        env = dict(bench.ENV, IMGCACHE_DIR=os.path.join(bench.unused_directory(), "cache"))
        return [bench.BIN, "prefetch", "-q", "-j", "16", "-i", listing] + extra, env, None

    def curl():
        config = os.path.join(work, "polite.curl")
        with open(config, "w") as f:
            for n, url in enumerate(urls):
                f.write(f'url = "{url}"\noutput = "{work}/curl-out/{n}.png"\n')
        shutil.rmtree(os.path.join(work, "curl-out"), ignore_errors=True)
        os.makedirs(os.path.join(work, "curl-out"))
        return ["curl", "-s", "--parallel", "--parallel-max", "16", "--retry", "5", "-f", "-K", config], None, None

    def aria2c():
        out = os.path.join(bench.unused_directory(), "aria2")
        return ["aria2c", "-q", "-j", "16", "-x", "1", "--max-tries=6", "--retry-wait=1",
                "--allow-overwrite=true", "-d", out, "-i", listing], None, None

    def wget2():
        out = os.path.join(bench.unused_directory(), "wget2")
        return ["wget2", "-q", "--max-threads=16", "--tries=6", "--waitretry=1",
                "-P", out, "-i", listing], None, None

    tools = [("imgcache --rate-per-host 20/s", lambda: imgcache(["--rate-per-host", "20/s"])),
             ("imgcache (no rate)", lambda: imgcache([])),
             ("curl --parallel --retry 5", curl), ("aria2c -j 16", aria2c)]
    if shutil.which("wget2"):
        tools.append(("wget2 --max-threads=16", wget2))
    for label, make in tools:
        cmd, env, _ = make()
        origin.reset()
        started = time.monotonic()
        result = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        elapsed = time.monotonic() - started
        with origin.lock:
            ok, limited = origin.ok, origin.limited
            span = (origin.last - origin.first) if origin.first else elapsed
        worst, later = origin.worst_window(), origin.worst_window(after_first=True)
        rate = ok / span if span > 0 else 0
        bench.rows.append((f"politeness: {HOSTS} hosts x {PER_HOST}, 20 req/s each (bound {bound:.0f}/s)",
                           label, f"{rate:,.0f} stored req/s in {elapsed:.1f} s", "",
                           f"{ok}/{total} stored, {limited} x 429 (at most {worst} per host-second, {later} after "
                           f"each host's first), "
                           f"{rate / bound:.2f}x the bound, exit {result.returncode}"))
    for server in origin.servers:
        server.shutdown()
