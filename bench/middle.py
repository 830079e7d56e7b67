"""BENCH_ONLY=middle: the figures a change of the engine's middle must keep, for several builds
side by side in one run (BENCH_BINS="before=/path/imgcache,after=/path/imgcache"; default: this
tree's release build). Rows: cold small prefetch -j 6 (files/s, and callgrind instructions a
file), warm prefetch (URLs/s), the co-process's own time a hit (C driver, one core), and the
instructions of a query hit and a fetch hit. The builds take turns, round by round."""
import os, statistics

from goals import instructions, lockstep_rates


def middle_bench(bench, small, count):
    specs = os.environ.get("BENCH_BINS", f"this={bench.BIN}")
    builds = [tuple(part.split("=", 1)) for part in specs.split(",")]
    env_of = {name: dict(bench.ENV, IMGCACHE_DIR=os.path.join(bench.WORK, f"warm-{name}")) for name, _ in builds}
    cold, warm = {name: [] for name, _ in builds}, {name: [] for name, _ in builds}
    for name, binary in builds:  # the warm caches, filled once
        bench.fresh(env_of[name]["IMGCACHE_DIR"])
        bench.timed([binary, "prefetch", "-q", "-i", small], env=env_of[name])
    for _ in range(bench.RUNS):
        for name, binary in builds:
            env = dict(bench.ENV, IMGCACHE_DIR=os.path.join(bench.unused_directory(), "cache"))
            cold[name].append(bench.timed([binary, "prefetch", "-q", "-j", "6", "-i", small], env=env)[0])
            warm[name].append(bench.timed([binary, "prefetch", "-q", "-i", small], env=env_of[name])[0])
    url = open(small).readline().strip()
    urls = [line.strip() for line in open(small)]
    for name, binary in builds:
        env = dict(bench.ENV, IMGCACHE_DIR=os.path.join(bench.unused_directory(), "cache"))
        per_file = instructions([binary, "prefetch", "-q", "-j", "6", "-i", small], env, bench.WORK)
        hits = {cmd: instructions([binary, cmd, url], env_of[name], bench.WORK) for cmd in ("query", "fetch")}
        measured = lockstep_rates(binary, env_of[name], urls, 20_000, bench.WORK, "0")
        rows = bench.rows
        rows.append(("cold small prefetch -j 6", name, f"{count / statistics.median(cold[name]):,.0f} files/s",
                     "", f"{per_file / count / 1e3:,.0f} k instructions a file" if per_file else ""))
        rows.append(("warm prefetch (all cached)", name, f"{count / statistics.median(warm[name]):,.0f} URLs/s",
                     "", ""))
        if measured:
            cat_rate, rate = measured
            rows.append(("co-process fetch -i - (C driver, one core)", name, f"{rate:,.0f} hits/s", "",
                         f"own time {1e6 / rate - 1e6 / cat_rate:.1f} us a hit"))
        for cmd, value in hits.items():
            if value:
                rows.append((f"{cmd} hit (callgrind)", name, f"{value / 1e6:.2f} M instructions", "", ""))
