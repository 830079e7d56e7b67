#!/usr/bin/env python3
"""Hostile or broken remote stores for the remote-tier tests, on 127.0.0.1 only.

  --mode s3-listing    an "S3" answering every GET with a listing whose <Size>s overflow Int64
  --mode redis-dribble a "Redis" that answers setup commands at once, and every other command
                       with a long bulk reply, one byte every --interval seconds
  --mode redis-slow    a "Redis" that answers every command correctly (an empty store), each
                       after --delay seconds

Every command received is appended to --log (its name, one a line). Prints one JSON line
({"port": N}), then serves until its standard input closes or --lifetime seconds pass.
"""
import argparse, json, os, signal, socket, sys, threading, time


def serve(listener, handler):
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=handler, args=(conn,), daemon=True).start()


def s3_listing(conn):
    try:
        conn.settimeout(10)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
        body = (b'<?xml version="1.0" encoding="UTF-8"?><ListBucketResult>'
                b"<IsTruncated>false</IsTruncated>"
                b"<Contents><Key>a</Key><Size>9223372036854775807</Size></Contents>"
                b"<Contents><Key>b</Key><Size>9223372036854775807</Size></Contents>"
                b"<Contents><Key>c</Key><Size>99999999999999999999999</Size></Contents>"
                b"</ListBucketResult>")
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nConnection: close\r\n"
                     + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    finally:
        conn.close()


def read_command(stream):
    """One RESP array of bulk strings, or None at the end."""
    line = stream.readline()
    if not line:
        return None
    if not line.startswith(b"*"):
        return [line.strip()]
    items = []
    for _ in range(int(line[1:])):
        size = int(stream.readline()[1:])
        items.append(stream.read(size + 2)[:-2])
    return items


SETUP = {b"AUTH", b"SELECT", b"PING", b"CLIENT", b"HELLO"}


def redis(mode, args):
    def handle(conn):
        stream = conn.makefile("rb")
        try:
            while True:
                command = read_command(stream)
                if command is None:
                    return
                name = command[0].upper()
                with open(args.log, "a") as log:
                    log.write(name.decode(errors="replace") + "\n")
                if name in SETUP:
                    conn.sendall(b"+OK\r\n")
                    continue
                if mode == "redis-reply":
                    # Every command gets the raw reply given (hex), e.g. a hostile array.
                    conn.sendall(bytes.fromhex(args.reply))
                    continue
                if mode == "redis-dribble":
                    reply = b"$80\r\n" + b"x" * 80 + b"\r\n"
                    for byte in reply:
                        conn.sendall(bytes([byte]))
                        time.sleep(args.interval)
                    continue
                time.sleep(args.delay)
                if name in (b"HSTRLEN", b"HLEN", b"DBSIZE", b"HSET", b"EXISTS"):
                    conn.sendall(b":0\r\n")
                elif name in (b"HGET", b"GET"):
                    conn.sendall(b"$-1\r\n")
                elif name in (b"HGETALL", b"HMGET"):
                    conn.sendall(b"*0\r\n")
                else:
                    conn.sendall(b"+OK\r\n")
        except OSError:
            pass
        finally:
            conn.close()
    return handle


def main():
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True)
    parser.add_argument("--log", default=os.devnull)
    parser.add_argument("--interval", type=float, default=0.5)
    parser.add_argument("--delay", type=float, default=0.6)
    parser.add_argument("--lifetime", type=float, default=600)
    parser.add_argument("--reply", default="")
    args = parser.parse_args()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    handler = s3_listing if args.mode == "s3-listing" else redis(args.mode, args)
    threading.Thread(target=serve, args=(listener, handler), daemon=True).start()
    print(json.dumps({"port": listener.getsockname()[1], "pid": os.getpid()}), flush=True)
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    time.sleep(args.lifetime)
    os._exit(0)


if __name__ == "__main__":
    main()
