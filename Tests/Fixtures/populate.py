"""A cache of COUNT entries made fast, for the tests of flat memory and the benchmark's scale rows.

Usage: populate.py IMGCACHE_STRESS DIR COUNT [--empty]

`imgcache-stress populate DIR 1` makes the cache and one real entry (the schema, every column as a
store writes it); this script copies that row COUNT - 1 times, one second of last access apart,
each with its own key, URL and file (named as imgcache names them: the MD5 of the key, the
extension of the URL's path), writes each file (the template's 1-8 KiB body) and sets the
running totals, in one transaction: 100,000 entries in about 15 s. With `--empty` the copies'
files are empty (and their rows say so, SHA-256 included): the index at full size, the disk
spared.
"""
import hashlib
import os
import sqlite3
import subprocess
import sys


def main():
    stress, directory, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    empty = "--empty" in sys.argv[4:]
    subprocess.run([stress, "populate", directory, "1", "1"], check=True, stdout=subprocess.DEVNULL)
    db = sqlite3.connect(os.path.join(directory, "index.sqlite"), isolation_level=None)
    columns = [row[1] for row in db.execute("PRAGMA table_info(entry)")]
    template = dict(zip(columns, db.execute(f"SELECT {', '.join(columns)} FROM entry").fetchone()))
    with open(os.path.join(directory, "data", template["file"]), "rb") as source:
        body = source.read()
    start = template["last_access"]
    placeholders = ", ".join("?" for _ in columns)
    insert = f"INSERT INTO entry ({', '.join(columns)}) VALUES ({placeholders})"
    db.execute("BEGIN IMMEDIATE")
    shards = set()
    for index in range(1, count):
        url = f"https://bench.example/populated/{index}.png"
        name = hashlib.md5(url.encode()).hexdigest()
        row = dict(template, key=url, url=url, file=f"{name[:2]}/{name}.png")
        if empty:
            row.update(size=0, allocated=0, sha256=hashlib.sha256(b"").hexdigest())
        for column in ("last_access", "created"):
            if column in row and row[column] is not None:
                row[column] = start + index
        db.execute(insert, [row[column] for column in columns])
        shard = os.path.join(directory, "data", name[:2])
        if shard not in shards:
            os.makedirs(shard, exist_ok=True)
            shards.add(shard)
        with open(os.path.join(shard, name + ".png"), "wb") as output:
            output.write(b"" if empty else body)
    db.execute(
        "UPDATE totals SET entries = (SELECT COUNT(*) FROM entry), "
        "bytes = (SELECT COALESCE(SUM(size), 0) FROM entry), "
        "allocated = (SELECT COALESCE(SUM(allocated), 0) FROM entry) WHERE id = 1")
    db.execute("COMMIT")
    db.close()


if __name__ == "__main__":
    main()
