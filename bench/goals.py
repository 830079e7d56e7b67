"""The issue's speed goals, callgrind instruction counts and the ratio chart for make bench.

Times on this machine are noisy; instruction counts (callgrind) are deterministic, so start-up
is judged by both. Each goal is printed with its figure and whether it is met.
"""
import os, re, subprocess, threading, time

goals = []   # (goal, figure, target, met)
ratios = []  # (label, imgcache speed relative to the peer: > 1 means imgcache is faster)


def goal(name, figure, target, met):
    goals.append((name, figure, target, "met" if met else "**not met**"))


def instructions(cmd, env, work):
    """Instructions executed by `cmd` (callgrind, all threads), or None without valgrind."""
    out = os.path.join(work, "callgrind.out")
    try:
        result = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd],
                                env=env, capture_output=True, text=True)
    except FileNotFoundError:
        return None
    found = re.search(r"Collected : (\d+)", result.stderr)
    return int(found.group(1)) if found else None


def coprocess_rate(binary, env, urls, lines, command=None):
    """Hits per second through one `fetch -i -`, driven one line at a time (write a line, flush,
    read the answer: subprocess with buffered pipes, as a script would); with `command` (cat),
    the driver's own ceiling on this machine."""
    process = subprocess.Popen(command or [binary, "fetch", "-i", "-"], env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE)
    writer, reader = process.stdin, process.stdout
    start = time.perf_counter()
    for i in range(lines):
        writer.write((urls[i % len(urls)] + "\n").encode())
        writer.flush()
        if not reader.readline().strip():
            raise SystemExit("bench: fetch -i gave an empty line on a cached URL")
    wall = time.perf_counter() - start
    writer.close()
    process.wait(timeout=30)
    return lines / wall


def lockstep_rates(binary, env, urls, lines, work, cpus):
    """Round trips per second through `bench/lockstep.c` (a C driver: write a line, read the
    answer), against `cat` and against `fetch -i -`, both on `cpus` (taskset): the median of
    three runs each, interleaved. Returns (cat, imgcache), or None without a C compiler."""
    driver = os.path.join(work, "lockstep")
    if not os.path.exists(driver):
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lockstep.c")
        for compiler in ("cc", "clang", "/opt/swift/usr/bin/clang"):
            try:
                subprocess.run([compiler, "-O2", "-o", driver, source], check=True)
                break
            except (FileNotFoundError, subprocess.CalledProcessError):
                continue
        else:
            return None
    listing = os.path.join(work, "lockstep-urls.txt")
    with open(listing, "w") as f:
        f.write("".join(url + "\n" for url in urls))
    rates = {"cat": [], "imgcache": []}
    for _ in range(3):
        for name, command in (("cat", ["cat"]), ("imgcache", [binary, "fetch", "-i", "-"])):
            out = subprocess.run(["taskset", "-c", cpus, driver, listing, str(lines), "1000", *command],
                                 env=env, capture_output=True, text=True, check=True)
            rates[name].append(float(out.stdout))
    return sorted(rates["cat"])[1], sorted(rates["imgcache"])[1]


def streamed_rate(binary, env, urls, lines):
    """Hits per second through one `fetch -i -` fed by a thread while the answers are read:
    the engine's own rate, without a pipe round trip per line."""
    process = subprocess.Popen([binary, "fetch", "-i", "-"], env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE)
    text = "".join(urls[i % len(urls)] + "\n" for i in range(lines)).encode()

    def feed():
        process.stdin.write(text)
        process.stdin.close()
    start = time.perf_counter()
    feeder = threading.Thread(target=feed)
    feeder.start()
    answered = sum(1 for line in process.stdout if line.strip())
    wall = time.perf_counter() - start
    feeder.join()
    process.wait(timeout=30)
    if answered != lines:
        raise SystemExit(f"bench: fetch -i answered {answered} of {lines} cached URLs")
    return lines / wall


def startup(binary, floor, env, url, work, walls):
    """Start-up goals: query/fetch hit and size within 2.5x the floor, in time and instructions.
    `walls` holds the measured wall times (seconds) by name, with "floor"."""
    counts = {"floor": instructions([floor], env, work)}
    for name, cmd in (("--version", ["--version"]), ("size", ["size"]), ("query hit", ["query", url]),
                      ("fetch hit", ["fetch", url])):
        counts[name] = instructions([binary, *cmd], env, work)
    rows = []
    for name in ("query hit", "fetch hit", "size", "--version"):
        count, floor_count = counts[name], counts["floor"]
        instr = f"{count / 1e6:.1f} M instr ({count / floor_count:.1f} x)" if count and floor_count else "n/a"
        if name in walls:
            ratio = walls[name] / walls["floor"]
            goal(f"{name}: start to exit", f"{walls[name] * 1000:.1f} ms ({ratio:.2f} x floor); {instr}",
                 "<= 2.5 x floor", ratio <= 2.5 and count is not None and count <= 2.5 * floor_count)
            ratios.append((f"{name} vs Swift floor", walls["floor"] / walls[name]))
        rows.append((name, instr))
    return counts


def chart(path, title):
    """Draws `ratios` as horizontal bars (log scale, 1 = parity) into an SVG file."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench: matplotlib missing, no chart (apt-get install python3-matplotlib)")
        return False
    labels = [label for label, _ in ratios][::-1]
    values = [value for _, value in ratios][::-1]
    figure, axis = plt.subplots(figsize=(9, 0.38 * len(values) + 1.4))
    colors = ["#2a7ab0" if v >= 1 else "#d9822b" for v in values]
    axis.barh(labels, values, color=colors)
    axis.set_xscale("log")
    axis.axvline(1.0, color="black", linewidth=0.8)
    for y, value in enumerate(values):
        axis.text(value, y, f" {value:.2f}x", va="center", fontsize=8)
    axis.set_xlabel("imgcache speed relative to the peer (log scale; right of 1 = imgcache faster)")
    axis.set_title(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, format="svg", metadata={"Date": None})
    plt.close(figure)
    return True
