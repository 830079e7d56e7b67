"""A latency-bound origin for make bench: every response delayed by a fixed time (20 ms, as a
CDN far away), over HTTP/1.1 (an asyncio server with keep-alive) and over HTTP/2 with TLS (nginx
in front of it, keeping its upstream connections). There, concurrency and connection reuse
decide, not the per-file cost on loopback.

Run as a script it is the origin itself: delayed.py ROOT DELAY PORTFILE.
"""
import asyncio, os, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../Tests/Fixtures"))
import servers  # noqa: E402  (the test origins' certificate and nginx preamble)

TYPES = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".gif": "image/gif",
         ".webp": "image/webp"}


REQUESTS = [0]  # requests answered, read at /_count (not delayed, not counted)


async def serve(reader, writer, root, delay):
    try:
        while True:  # keep-alive: one request after another, each answered after `delay`
            head = await reader.readuntil(b"\r\n\r\n")
            line = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
            if line[1] == "/_count":
                body = str(REQUESTS[0]).encode()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
                await writer.drain()
                continue
            REQUESTS[0] += 1
            path = os.path.normpath(os.path.join(root, line[1].split("?")[0].lstrip("/")))
            await asyncio.sleep(delay)
            if not path.startswith(root) or not os.path.isfile(path):
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            else:
                with open(path, "rb") as f:
                    body = f.read()
                kind = TYPES.get(os.path.splitext(path)[1].lower(), "application/octet-stream")
                writer.write(f"HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\n"
                             f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def origin(root, delay, portfile):
    server = await asyncio.start_server(lambda r, w: serve(r, w, root, delay), "127.0.0.1", 0,
                                        backlog=1024)
    with open(portfile, "w") as f:
        f.write(str(server.sockets[0].getsockname()[1]))
    async with server:
        await server.serve_forever()


class LatencyOrigin:
    """The delayed origin and nginx (TLS, HTTP/2) in front of it, stopped with `stop()`."""

    def __init__(self, root, work, delay=0.02):
        os.makedirs(work, exist_ok=True)
        portfile = os.path.join(work, "origin.port")
        self.origin = subprocess.Popen([sys.executable, os.path.abspath(__file__), root, str(delay),
                                        portfile])
        for _ in range(100):  # bounded: 10 s
            if os.path.exists(portfile) and open(portfile).read():
                break
            time.sleep(0.1)
        self.http_port = int(open(portfile).read())
        self.cert, key = servers.self_signed(work)
        self.https_port = servers.free_port()
        conf = os.path.join(work, "nginx.conf")
        with open(conf, "w") as f:
            f.write(servers.nginx_preamble(work, 1024) + f"""
  keepalive_requests 100000;
  http2_max_concurrent_streams 128;
  upstream origin {{ server 127.0.0.1:{self.http_port}; keepalive 64; }}
  server {{ listen 127.0.0.1:{self.https_port} ssl http2;
           ssl_certificate {self.cert}; ssl_certificate_key {key};
           location / {{ proxy_pass http://origin; proxy_http_version 1.1;
                        proxy_set_header Connection ""; proxy_buffering off; }} }}
}}
""")
        self.nginx = subprocess.Popen(["nginx", "-p", work, "-c", conf, "-g", "daemon off;"],
                                      stderr=subprocess.DEVNULL)
        time.sleep(0.5)

    def stop(self):
        for process in (self.nginx, self.origin):
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()


if __name__ == "__main__":
    asyncio.run(origin(os.path.abspath(sys.argv[1]), float(sys.argv[2]), sys.argv[3]))
