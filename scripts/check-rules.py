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
7. No function of the sources reaches 60 lines (a `func`, `init`, `deinit`, `subscript` or a
   computed property, from its declaration to its closing brace, nested functions within).
8. Every type a document of docs/ names in backticks (`Name`, `Name.member`) is declared in
   `Sources/` or `Tests/` (a type, a target, a C module), or is one of the outside names below.

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
MAX_FUNCTION_LINES = 60

# Names docs/ may put in backticks that are no type of the project's: the standard library's,
# Foundation's, Dispatch's, Synchronization's and ArgumentParser's types, a compiler feature,
# HTTP header names, and a notation.
OUTSIDE_NAMES = {
    "AsyncChannel", "AsyncParsableCommand", "Atomic", "CocoaError", "Date", "DispatchQueue",
    "DispatchSpecificKey", "Foundation", "GRDBSQLite", "MemberImportVisibility", "Mutex", "NSLock",
    "POSIXError", "Package", "Task", "TaskExecutor", "Thread",
    "Age", "ETag", "Expires", "Range",
    "WxH",
}

# The start of a declaration with a body: a function, initializer, subscript or property.
DECLARATION = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|static|class|"
    r"final|override|mutating|nonmutating|nonisolated|convenience|required|lazy|"
    r"(?:private|fileprivate|package|internal|public)\(set\))\s+)*"
    r"(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit\b|subscript\s*[(<]|var\s+\w+\s*:[^=]*\{\s*$)")


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


def code_only(lines):
    """Each line without its comments and string literals (braces in them are not code)."""
    out, block, multiline = [], False, False
    for line in lines:
        kept, i = [], 0
        while i < len(line):
            if block:
                end = line.find("*/", i)
                if end < 0:
                    break
                block, i = False, end + 2
            elif multiline:
                end = line.find('"""', i)
                if end < 0:
                    break
                multiline, i = False, end + 3
            elif line.startswith("//", i):
                break
            elif line.startswith("/*", i):
                block, i = True, i + 2
            elif line.startswith('"""', i):
                multiline, i = True, i + 3
            elif line[i] == '"':
                i += 1
                while i < len(line) and line[i] != '"':
                    i += 2 if line[i] == "\\" else 1
                i += 1
            else:
                kept.append(line[i])
                i += 1
        out.append("".join(kept))
    return out


def long_functions(lines):
    """(line, name, length) of each declaration whose body reaches MAX_FUNCTION_LINES."""
    code = code_only(lines)
    found = []
    for start, line in enumerate(code):
        declared = DECLARATION.match(line)
        if not declared:
            continue
        depth, opened = 0, False
        for end in range(start, min(len(code), start + 2000)):
            for char in code[end]:
                depth += (char == "{") - (char == "}")
                opened = opened or char == "{"
            if opened and depth <= 0:
                if end - start + 1 >= MAX_FUNCTION_LINES:
                    found.append((start + 1, declared.group(1).split("(")[0].strip(), end - start + 1))
                break
            if not opened and end - start > 20:
                break  # a protocol requirement: no body
    return found


def declared_names():
    """The types declared in Sources/ and Tests/ (new files included), the targets and the
    C modules."""
    names = set()
    for top in ("Sources", "Tests"):
        for folder, dirs, files in os.walk(os.path.join(ROOT, top)):
            names.update(dirs)
            for name in files:
                if not name.endswith(".swift"):
                    continue
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                    names.update(re.findall(
                        r"\b(?:struct|class|enum|protocol|actor|typealias)\s+([A-Z]\w*)", f.read()))
    with open(os.path.join(ROOT, "Package.swift"), encoding="utf-8") as f:
        names.update(re.findall(r'name:\s*"(\w+)"', f.read()))
    return names


def check_doc_types(path, text, declared, problems):
    """Rule 8: the types a document names in backticks exist."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for match in re.finditer(r"`([A-Z][A-Za-z0-9]*)((?:[.(<][^`]*)?)`", text):
        name, rest = match.group(1), match.group(2)
        if not re.search(r"[a-z]", name) or re.search(r"\.(swift|md|h|py)$", rest):
            continue  # an acronym, or a file's name
        if name not in declared and name not in OUTSIDE_NAMES:
            line = text.count("\n", 0, match.start()) + 1
            problems.append(f"{path}:{line}: `{name}` is no type, target or module of the "
                            "sources (renamed? or add it to OUTSIDE_NAMES)")


def main():
    problems = []
    declared = declared_names()
    for path in tracked():
        full = os.path.join(ROOT, path)
        if path.startswith(("man/", "completions/", "bench/results/")) or path == "CHANGELOG.md":
            continue  # generated, or history: what was true then
        if not path.endswith((".swift", ".md", ".py", ".sh", ".c", ".h", "Makefile", ".conf")):
            continue
        with open(full, encoding="utf-8", errors="replace") as f:
            text = f.read()
        check_citations(path, text, problems)
        if path.startswith("docs/") and path.endswith(".md"):
            check_doc_types(path, text, declared, problems)
        if not path.endswith(".swift"):
            continue
        lines = text.splitlines()
        if len(lines) >= MAX_LINES:
            problems.append(f"{path}: {len(lines)} lines (files stay under {MAX_LINES})")
        if path.startswith("Sources/"):
            for number, name, length in long_functions(lines):
                problems.append(f"{path}:{number}: {name} is {length} lines "
                                f"(functions stay under {MAX_FUNCTION_LINES})")
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
