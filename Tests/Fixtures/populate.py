"""A cache of COUNT entries made fast, for the tests of flat memory and the benchmark's scale rows.

Usage: populate.py IMGCACHE_STRESS DIR COUNT [--empty] [--template URL]

The template entry is a real one: `imgcache-stress populate DIR 1` (a synthetic body, every
column as a store writes it), or with `--template URL` the entry `imgcache fetch URL` stores (the
origin's own headers; `imgcache` beside the stress tool). This script copies that row COUNT - 1
times, one second of last access apart, each with its own key (`.../populated/N.png`, or the
template URL with `n=N` in its query), digest and file (named as imgcache names them: the MD5 of
the key, the extension of the URL's path), writes each file (the template's body) and sets the
running totals, in one transaction: 100,000 entries in about 15 s. With `--empty` the copies'
files are empty (and their rows say so, SHA-256 included): the index at full size, the disk
spared. The rows are written in the index's stored forms (schema v9, docs/design.md): the URL
NULL (it is the key), the file by its extension (its name is the key's MD5).
"""
import hashlib
import multiprocessing
import os
import posixpath
import sqlite3
import subprocess
import sys
from urllib.parse import urlsplit


def file_name(key):
    """imgcache's name of a key's file, for the keys made here: MD5, then the path's extension."""
    name = hashlib.md5(key.encode()).hexdigest()
    ext = posixpath.splitext(urlsplit(key).path)[1]
    return name, f"{name[:2]}/{name}{ext}", ext[1:]


def keys(template_url, count):
    """The copies' keys, in order: `.../populated/N.png`, or the template URL with `n=N`."""
    separator = "&" if template_url and urlsplit(template_url).query else "?"
    for index in range(1, count):
        yield (f"{template_url}{separator}n={index}" if template_url
               else f"https://bench.example/populated/{index}.png")


def write_files(data, names, contents):
    """Writes `contents` to the file of each key of `names` (os.open: three system calls a file)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
    for key in names:
        descriptor = os.open(os.path.join(data, file_name(key)[1]), flags, 0o644)
        if contents:
            os.write(descriptor, contents)
        os.close(descriptor)


def main():
    stress, directory, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    options = sys.argv[4:]
    empty = "--empty" in options
    template_url = options[options.index("--template") + 1] if "--template" in options else None
    if template_url:
        imgcache = os.path.join(os.path.dirname(stress), "imgcache")
        subprocess.run([imgcache, "fetch", "-q", template_url], check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, IMGCACHE_DIR=directory))
    else:
        subprocess.run([stress, "populate", directory, "1", "1"], check=True, stdout=subprocess.DEVNULL)
    db = sqlite3.connect(os.path.join(directory, "index.sqlite"), isolation_level=None)
    columns = [row[1] for row in db.execute("PRAGMA table_info(entry)")]
    template = dict(zip(columns, db.execute(f"SELECT {', '.join(columns)} FROM entry").fetchone()))
    with open(os.path.join(directory, "data", file_name(template["key"])[1]), "rb") as source:
        body = source.read()
    start = template["last_access"]
    placeholders = ", ".join("?" for _ in columns)
    insert = f"INSERT INTO entry ({', '.join(columns)}) VALUES ({placeholders})"
    db.execute("PRAGMA cache_size = -262144")  # 256 MiB: the indexes' pages never spill mid-way
    db.execute("BEGIN IMMEDIATE")
    data = os.path.join(directory, "data")
    for shard in range(256):
        os.makedirs(os.path.join(data, f"{shard:02x}"), exist_ok=True)
    # The files are written by a second process while this one fills the index: two cores.
    writer = multiprocessing.Process(
        target=write_files, args=(data, keys(template_url, count), b"" if empty else body))
    writer.start()
    base = [template[column] for column in columns]
    if empty:
        for column, value in (("size", 0), ("allocated", 0), ("sha256", hashlib.sha256(b"").digest())):
            base[columns.index(column)] = value
    at = {column: columns.index(column) for column in ("key", "url", "file_ext", "digest", "digest_low")}
    times = [columns.index(column) for column in ("last_access", "created") if template[column] is not None]

    def rows():
        """Each copy's row: the template's, with its own key, digest and times."""
        for index, key in enumerate(keys(template_url, count), start=1):
            row = base.copy()
            row[at["key"]], row[at["url"]], row[at["file_ext"]] = key, None, file_name(key)[2]
            digest = hashlib.md5(key.encode()).digest()  # two big-endian integers (KeyDigest)
            row[at["digest"]] = int.from_bytes(digest[:8], "big", signed=True)
            row[at["digest_low"]] = int.from_bytes(digest[8:], "big", signed=True)
            for position in times:
                row[position] = start + index
            yield row

    db.executemany(insert, rows())
    writer.join()
    if writer.exitcode != 0:
        sys.exit(f"populate: writing the files failed ({writer.exitcode})")
    db.execute(
        "UPDATE totals SET entries = (SELECT COUNT(*) FROM entry), "
        "bytes = (SELECT COALESCE(SUM(size), 0) FROM entry), "
        "allocated = (SELECT COALESCE(SUM(allocated), 0) FROM entry) WHERE id = 1")
    db.execute("COMMIT")
    db.close()


if __name__ == "__main__":
    main()
