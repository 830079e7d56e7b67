#!/usr/bin/env python3
"""The rules docs/architecture.md states, checked on the tracked files (make test runs this).

1. A citation of `docs/NAME.md` names a file that exists; one of `docs/NAME.md, Section` names
   a section of it (a `##` or `###` heading the cited text begins with).
2. Each outside library is imported by its one place only (docs/architecture.md, Layers); the
   full Foundation by none of the sources (FoundationEssentials and Glibc instead).
3. `Sources/imgcache/main.swift` is one line of code.
4. No Swift file reaches 300 lines.
5. Each `@unchecked Sendable` of the sources carries its reason beside it: a `// @unchecked:`
   comment on the lines right above (or the one below).
6. A lock is a `Mutex` (docs/architecture.md, The lock rule): no `NSLock`, `NSRecursiveLock`,
   `NSCondition` or `pthread_mutex` in the sources.

Prints one line a broken rule (file:line: what) and exits 1 when any is broken.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Where each outside module may be imported (a path prefix under the repository).
IMPORTS = {
    "GRDB": ["Sources/imgcache-stress/", "Tests/"],
    "GRDBSQLite": ["Tests/"],
    "CSQLite": ["Sources/ImgCacheKit/Index/"],
    "CCurl": ["Sources/ImgCacheKit/Transport/"],
    "CVips": ["Sources/ImgCacheKit/Variants/", "Tests/"],
    "CJpeg": ["Sources/ImgCacheKit/Variants/"],
    "CHiredis": ["Sources/ImgCacheKit/Redis/RedisConnection"],
    "COpenSSL": ["Sources/ImgCacheKit/Support/Digest.swift"],
    "Atomics": ["Sources/ImgCacheKit/Transport/SharedHosts"],
    "CSharedMemory": ["Sources/ImgCacheKit/Transport/SharedHosts", "Sources/ImgCacheKit/Transport/SharedMapping.swift"],
    "ArgumentParser": ["Sources/ImgCacheCLI/", "Tests/ImgCacheCLITests/"],
    # The sources build on FoundationEssentials and Glibc: the full Foundation links ICU
    # (docs/architecture.md, Start-up). Tests may use it.
    "Foundation": ["Tests/"],
    "FoundationInternationalization": ["Tests/"],
    "FoundationNetworking": ["Tests/"],
}
MAX_LINES = 300


def tracked():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [path for path in out.splitlines() if os.path.isfile(os.path.join(ROOT, path))]


def headings(path):
    """The `##`/`###` headings of a Markdown file (not inside code blocks), backticks removed."""
    found, fenced = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced and re.match(r"^#{2,3}\s", line):
                found.append(re.sub(r"^#+\s*", "", line).strip().replace("`", ""))
    return found


def joined(text):
    """The text with line breaks inside comments joined: a citation may wrap."""
    return re.sub(r"\n[ \t]*(?:///?|#|\*|>)?[ \t]*", " ", text)


def check_citations(path, text, problems):
    flat = joined(text)
    for match in re.finditer(r"docs/([a-z0-9_-]+\.md)(,\s+\"?([A-Z][^)\n;\"]*))?", flat):
        doc = os.path.join(ROOT, "docs", match.group(1))
        where = f"{path}: docs/{match.group(1)}"
        if not os.path.isfile(doc):
            problems.append(f"{where}: cited, but docs/{match.group(1)} does not exist")
            continue
        cited = (match.group(3) or "").replace("`", "").strip()
        if cited and not any(cited.startswith(heading) for heading in headings(doc)):
            problems.append(f"{where}, {cited[:40]!r}: no such section in docs/{match.group(1)}")


def main():
    problems = []
    for path in tracked():
        full = os.path.join(ROOT, path)
        if path.startswith(("man/", "completions/", "bench/results/")) or path == "CHANGELOG.md":
            continue  # generated, or history: what was true then
        if not path.endswith((".swift", ".md", ".py", ".sh", ".c", ".h", "Makefile", ".conf")):
            continue
        with open(full, encoding="utf-8", errors="replace") as f:
            text = f.read()
        check_citations(path, text, problems)
        if not path.endswith(".swift"):
            continue
        lines = text.splitlines()
        if len(lines) >= MAX_LINES:
            problems.append(f"{path}: {len(lines)} lines (files stay under {MAX_LINES})")
        for number, line in enumerate(lines, start=1):
            imported = re.match(r"\s*(?:@\w+\s+)*(?:(?:public|package|internal)\s+)?import\s+"
                                r"(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?(\w+)", line)
            if imported and imported.group(1) in IMPORTS:
                if not any(path.startswith(prefix) for prefix in IMPORTS[imported.group(1)]):
                    problems.append(f"{path}:{number}: imports {imported.group(1)}, which only "
                                    f"{' or '.join(IMPORTS[imported.group(1)])} may import")
            lock = re.search(r"\b(NSLock|NSRecursiveLock|NSCondition\w*|pthread_mutex_\w+|os_unfair_lock\w*)\b", line)
            if lock and path.startswith("Sources/") and "//" not in line[:lock.start()]:
                problems.append(f"{path}:{number}: {lock.group(1)}: a lock is a Mutex")
            if "@unchecked Sendable" in line and not line.lstrip().startswith("//") \
                    and path.startswith("Sources/"):
                beside = " ".join(lines[max(0, number - 4):number + 1])
                if "// @unchecked:" not in beside:
                    problems.append(f"{path}:{number}: @unchecked Sendable without its reason "
                                    "('// @unchecked: why' on the lines right above)")
    main_swift = os.path.join(ROOT, "Sources/imgcache/main.swift")
    code = [line for line in open(main_swift)
            if line.strip() and not line.strip().startswith(("//", "import "))]
    if len(code) != 1:
        problems.append(f"Sources/imgcache/main.swift: {len(code)} lines of code (one)")
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-rules: {len(problems)} broken (docs/architecture.md states the rules)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
