"""BENCH_ONLY=startup: what one process costs a shell loop (issue 48's rows).

One cached URL (a 1x1 PNG from a loopback origin). Rows, interleaved over 30 rounds (wall
medians) and counted once by callgrind (instructions, exact):
- a static Swift program printing a line (the floor) and `sqlite3 index.sqlite` reading one row
  of the same index (the reference a hit is held to);
- `imgcache fetch URL`, `query URL` and `--version`, for this build and, with
  BENCH_BEFORE=/path/to/imgcache, an earlier one measured in the same sitting;
- a bash `for` loop of 1,000 `fetch` hits against the same loop of `sqlite3` queries;
- `fetch -i -` as a co-process, one line at a time from a C driver on one core (own time a hit);
- the stripped binary's size.
Binaries are measured stripped, as the .deb ships them (valgrind cannot read the debug
information of the unstripped static binary).
"""
import os, shutil, statistics, subprocess, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")
ROUNDS = 30


def origin():
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(PNG)))
            self.end_headers()
            self.wfile.write(PNG)

        def log_message(self, *args):
            pass
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def stripped(path, work, name):
    copy = os.path.join(work, name)
    subprocess.run(["strip", "-o", copy, path], check=True)
    return copy


def wall(cmd, env):
    start = time.perf_counter()
    result = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if result.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd[:3])} exited {result.returncode}: {result.stderr[-300:]!r}")
    return time.perf_counter() - start


def loop_rate(command, env, count=1000):
    """Calls a second from a bash `for` loop that captures each answer, as a script does."""
    script = f'for i in $(seq {count}); do out=$({command}); done'
    return count / wall(["bash", "-c", script], env)


def startup_bench(bench):
    from goals import goal, instructions, lockstep_rates
    work = bench.WORK
    server = origin()
    url = f"http://127.0.0.1:{server.server_address[1]}/a.png"
    cache = os.path.join(work, "cache")
    env = dict(bench.ENV, IMGCACHE_DIR=cache)
    floor = os.path.join(work, "floor")
    subprocess.run(["swiftc", "-O", "-static-stdlib", os.path.join(bench.ROOT, "bench/floor.swift"),
                    "-o", floor], check=True)
    subprocess.run(["strip", floor], check=True)
    binaries = {"": stripped(bench.BIN, work, "imgcache")}
    if os.environ.get("BENCH_BEFORE"):
        binaries[" (before)"] = stripped(os.environ["BENCH_BEFORE"], work, "imgcache-before")
    wall([binaries[""], "fetch", url], env)
    index = os.path.join(cache, "index.sqlite")
    sqlite = ["sqlite3", index, "SELECT rowid, size FROM entry WHERE rowid = 1"]
    commands = {"floor (static Swift, print a line)": [floor], "sqlite3 (one row of the index)": sqlite}
    for suffix, binary in binaries.items():
        for name, args in (("fetch hit", ["fetch", url]), ("query hit", ["query", url]),
                           ("--version", ["--version"])):
            commands[f"imgcache {name}{suffix}"] = [binary, *args]
    walls = {name: [] for name in commands}
    for _ in range(ROUNDS):
        for name, cmd in commands.items():
            walls[name].append(wall(cmd, env))
    medians = {name: statistics.median(values) for name, values in walls.items()}
    counts = {name: instructions(cmd, env, work) for name, cmd in commands.items()}
    floor_name, sqlite_name = list(commands)[:2]
    for name in commands:
        count = counts[name]
        text = f"{count / 1e6:.2f} M instr" if count else "n/a"
        rows_ratio = (f"{medians[name] / medians[floor_name]:.2f} x floor, "
                      f"{medians[name] / medians[sqlite_name]:.2f} x sqlite3")
        bench.rows.append(("start to exit", name, f"{medians[name] * 1000:.1f} ms", text, rows_ratio))
    for suffix, binary in binaries.items():
        size = os.path.getsize(binary)
        bench.rows.append(("binary (stripped)", f"imgcache{suffix}", f"{size / 1e6:.1f} MB", "", ""))
        loop = loop_rate(f'{binary} fetch "{url}"', env)
        bench.rows.append(("bash loop, 1,000 calls", f"imgcache fetch{suffix}", f"{loop:,.0f} calls/s", "", ""))
        lockstep = lockstep_rates(binary, env, [url], 20_000, work, "0")
        if lockstep:
            cat_rate, rate = lockstep
            own = 1e6 / rate - 1e6 / cat_rate
            bench.rows.append(("co-process, one core", f"imgcache fetch -i -{suffix}", f"{rate:,.0f} hits/s",
                               "", f"own time {own:.1f} us a hit (cat: {cat_rate:,.0f} lines/s)"))
            if not suffix:
                goal("co-process fetch -i -: own time a hit", f"{own:.1f} us", "<= 20 us", own <= 20)
    sqlite_loop = loop_rate(f'sqlite3 {index} "SELECT rowid FROM entry WHERE rowid = 1"', env)
    bench.rows.append(("bash loop, 1,000 calls", "sqlite3", f"{sqlite_loop:,.0f} calls/s", "", ""))
    loop = loop_rate(f'{binaries[""]} fetch "{url}"', env)
    goal("bash loop of fetch hits against the same loop of sqlite3", f"{loop / sqlite_loop:.2f} x",
         ">= 0.7 x", loop / sqlite_loop >= 0.7)
    for name in ("fetch hit", "query hit"):
        key = f"imgcache {name}"
        count = counts[key] or float("inf")
        goal(f"{name}: start to exit", f"{medians[key] / medians[sqlite_name]:.2f} x sqlite3, "
             f"{medians[key] / medians[floor_name]:.2f} x floor, {count / 1e6:.1f} M instr",
             "<= 1.5 x sqlite3, <= 2.0 x floor, <= 8 M instr",
             medians[key] <= 1.5 * medians[sqlite_name] and medians[key] <= 2 * medians[floor_name]
             and count <= 8e6)
    version = medians["imgcache --version"] / medians[floor_name]
    goal("--version: start to exit", f"{version:.2f} x floor", "<= 1.3 x floor", version <= 1.3)
    size = os.path.getsize(binaries[""])
    goal("binary, stripped", f"{size / 1e6:.1f} MB", "<= 20 MB", size <= 20e6)
    server.shutdown()
    shutil.rmtree(cache, ignore_errors=True)
