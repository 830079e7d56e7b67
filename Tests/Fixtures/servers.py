#!/usr/bin/env python3
"""Test origins on 127.0.0.1: nginx (HTTP and HTTPS with a self-signed certificate made here)
serving a directory of real images, and a fault server with one path per misbehaviour.

Prints one JSON line with the ports, then runs until its standard input closes (the test
process exited) or --lifetime seconds pass, and stops nginx on the way out.
Usage: servers.py --root DIR --work DIR [--lifetime SECONDS]
"""
import argparse, base64, gzip, json, os, signal, socket, struct, subprocess, sys, threading, time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STATS = {"requests": {}, "order": [], "active": 0, "max_active": 0, "connections": 0,
         "max_connections": 0, "groups": {}}
LOCK = threading.Lock()
FIRST = {}  # URLs with slowfirst=: how many requests each got
HEARD = {}  # /hostile ids: the request headers each request came with
RESUMABLE = {}  # /resumable ids: how many full and ranged requests were served
THROTTLED = {}  # /throttle ids: when each request came (time.time())
ROBOTS = {}  # host names: how many times each asked for /robots.txt
# /robots.txt by the first label of the Host name, `r-<kind>-…` (any other: 404).
ROBOTS_FILES = {
    "deny": "User-agent: *\nDisallow: /*private\n",
    "ours": "# us only\nUser-agent: otherbot\nAllow: /\n\nUser-agent: ImgCache/9\nDisallow: /\n",
    "other": "User-agent: otherbot\nDisallow: /\n",
    "slow": "User-agent: *\nDisallow: /*private\n",
    # 1.2 MB: its rules first, then comments; a client reads the start (RFC 9309 §2.5).
    "big": "User-agent: *\nDisallow: /*private\n" + "# padding\n" * 120_000,
}
DOWN = {}  # /origin ids that are down, with how they fail: an HTTP status or "reset"
ROOT = "."
BOMB = gzip.compress(b"\0" * (64 * 1024 * 1024), compresslevel=9)


def self_signed(work):
    """A certificate for 127.0.0.1 and localhost, and its key, made in `work`."""
    cert, key = os.path.join(work, "cert.pem"), os.path.join(work, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return cert, key


def nginx_preamble(work, connections):
    """The start of an nginx.conf that keeps every file in `work`, up to the open `http {`."""
    return f"""
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections {connections}; }}
http {{
  access_log off;
  client_body_temp_path {work}/body; proxy_temp_path {work}/proxy;
  fastcgi_temp_path {work}/fastcgi; uwsgi_temp_path {work}/uwsgi; scgi_temp_path {work}/scgi;"""


def query_of(path):
    return path.partition("?")[2]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port



class FaultServer(ThreadingHTTPServer):
    """The fault server, with a listen backlog of 256 instead of socketserver's 5: the test
    suites share it, and under load a full backlog dropped connections, which the clients got
    through only at TCP's SYN retries (1 s, 3 s, 7 s), so a quick request could land after
    slow ones and fail a timing test."""
    request_queue_size = 256

class Fault(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        with LOCK:
            STATS["connections"] += 1
            STATS["max_connections"] = max(STATS["max_connections"], STATS["connections"])

    def finish(self):
        with LOCK:
            STATS["connections"] -= 1
            if getattr(self, "conn_group", None) is not None:
                self.conn_group["connections"] -= 1
        try:
            super().finish()
        except OSError:
            pass

    def send(self, code, body=b"", ctype="image/png", headers=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def image(self, name="base.png"):
        with open(os.path.join(ROOT, name), "rb") as f:
            return f.read()

    def do_GET(self):
        path, _, query = self.path.partition("?")
        params = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
        if path.startswith("/_"):
            return self.control(path, params)
        with LOCK:
            group = STATS["groups"].setdefault(
                params.get("g", ""),
                {"active": 0, "max_active": 0, "connections": 0, "max_connections": 0})
            if getattr(self, "conn_group", None) is None:  # a connection counts in its first group
                self.conn_group = group
                group["connections"] += 1
                group["max_connections"] = max(group["max_connections"], group["connections"])
            STATS["requests"][self.path] = STATS["requests"].get(self.path, 0) + 1
            STATS["order"].append(self.path)
            STATS["active"] += 1
            STATS["max_active"] = max(STATS["max_active"], STATS["active"])
            group["active"] += 1
            group["max_active"] = max(group["max_active"], group["active"])
        try:
            self.route(path, params)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            with LOCK:
                STATS["active"] -= 1
                group["active"] -= 1

    def control(self, path, params):
        with LOCK:
            if path == "/_down":
                DOWN[params.get("id", "")] = params.get("how", "503")
            elif path == "/_up":
                DOWN.pop(params.get("id", ""), None)
            if path == "/_heard":
                body = json.dumps(HEARD.get(params.get("id", ""), [])).encode()
            elif path == "/_throttled":
                body = json.dumps(THROTTLED.get(params.get("id", ""), [])).encode()
            elif path == "/_robots":
                body = json.dumps(ROBOTS).encode()
            else:
                body = json.dumps(STATS).encode()
        self.send(200, body, "application/json")

    def route(self, path, params):
        if params.get("slowfirst"):  # only the first request of this exact URL is slow
            with LOCK:
                seen = FIRST.get(self.path, 0)
                FIRST[self.path] = seen + 1
            if not seen:
                time.sleep(min(float(params["slowfirst"]), 30))
        delay = float(params.get("delay", "0"))
        if delay:
            time.sleep(min(delay, 30))
        if path == "/robots.txt":
            return self.robots()
        if path == "/optout":
            return self.optout(params)
        if path.startswith("/image/"):
            # `pad` zero bytes after the image (still sniffed as one): a body of any size.
            pad = b"\0" * min(int(params.get("pad", "0")), 1 << 24)
            return self.send(200, self.image(path[len("/image/"):].split("/")[0]) + pad,
                             params.get("type", "image/png"))
        if path == "/slow-headers":
            time.sleep(min(float(params.get("s", "5")), 30))
            return self.send(200, self.image())
        if path == "/drip":
            # `pad` bytes more make a body too large to be kept in memory: it is in tmp/.
            body = self.image() + b"\0" * int(params.get("pad", "0"))
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(body) + 1000))
            self.end_headers()
            self.wfile.write(body)
            for _ in range(10):
                self.wfile.flush()
                time.sleep(3)
                self.wfile.write(b"\0")
            return
        if path == "/throttle":
            # Throttles the first `times` requests of `id` (default 1) with `status` (429) and
            # `Retry-After: ra` (raw; `date+N`: an HTTP date N seconds ahead; none without
            # `ra`), then serves an image. /_throttled?id=… lists when each request came.
            key = params.get("id", "")
            with LOCK:
                seen = THROTTLED.setdefault(key, [])
                seen.append(time.time())
                count = len(seen)
            if count <= int(params.get("times", "1")):
                ra = urllib.parse.unquote(params.get("ra", ""))
                if ra.startswith("date+"):
                    ra = time.strftime("%a, %d %b %Y %H:%M:%S GMT",
                                       time.gmtime(time.time() + float(ra[5:])))
                headers = [("Retry-After", ra)] if ra else []
                return self.send(int(params.get("status", "429")), b"slow down", "text/plain", headers)
            return self.send(200, self.image())
        if path == "/origin":
            # An origin that can go down (/_down?id=…&how=503|reset) and come back (/_up?id=…),
            # with a strong ETag (304 to a matching If-None-Match) and Cache-Control from `cc`.
            with LOCK:
                how = DOWN.get(params.get("id", ""))
            if how == "reset":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if how:
                return self.send(int(how), b"down", "text/plain")
            cc = urllib.parse.unquote(params.get("cc", ""))
            headers = [("ETag", '"origin-1"')] + ([("Cache-Control", cc)] if cc else [])
            if self.headers.get("If-None-Match") == '"origin-1"':
                self.send_response(304)
                for k, v in headers:
                    self.send_header(k, v)
                self.end_headers()
                return
            return self.send(200, self.image(), headers=headers)
        if path == "/weak":
            # A long body with a weak ETag only, sent slowly: nothing to resume it with.
            size = int(params.get("size", "3000000"))
            body = self.image() + b"\0" * max(0, size - len(self.image()))
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("ETag", 'W/"weak-1"')
            self.end_headers()
            for start in range(0, len(body), 65536):
                self.wfile.write(body[start:start + 65536])
                self.wfile.flush()
                time.sleep(0.05)
            return
        if path == "/hang":
            time.sleep(min(float(params.get("s", "20")), 30))
            self.close_connection = True
            return
        if path == "/reset":
            body = self.image()
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(body) * 10))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            return
        if path == "/truncated":
            body = self.image()
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(body) + 5000))
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True
            return
        if path == "/trickle":
            # A valid image, then one byte every `every` seconds: slow but never idle for long.
            body, count, every = self.image(), int(params.get("n", "6")), float(params.get("every", "1.5"))
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(body) + min(count, 20)))
            self.end_headers()
            self.wfile.write(body)
            for _ in range(min(count, 20)):
                self.wfile.flush()
                time.sleep(min(every, 5))
                self.wfile.write(b"\0")
            return
        if path == "/huge-headers":
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            for i in range(2000):
                self.send_header(f"X-Filler-{i}", "x" * 1000)
            self.end_headers()
            self.wfile.write(self.image())
            return
        if path == "/huge-header-line":
            self.send_response(200)
            self.send_header("X-Long", "x" * 2_000_000)
            self.end_headers()
            self.wfile.write(self.image())
            return
        if path == "/bad-chunked":
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"10\r\n0123456789abcdef\r\nzz-not-a-size\r\n")
            self.close_connection = True
            return
        if path == "/html":
            return self.send(200, b"<!DOCTYPE html><html><body>Hello</body></html>", "text/html")
        if path == "/empty":
            return self.send(200, b"", "image/png")
        if path.startswith("/status/"):
            code = int(path.split("/")[2])
            headers = [("Retry-After", "1")] if code in (429, 503) else []
            return self.send(code, b"<html>error</html>", "text/html", headers)
        if path == "/redirect-loop":
            return self.send(302, b"", "text/plain", [("Location", "/redirect-loop")])
        if path == "/redirect-file":
            return self.send(302, b"", "text/plain", [("Location", "file:///etc/passwd")])
        if path == "/redirect-ftp":
            return self.send(302, b"", "text/plain", [("Location", "ftp://127.0.0.1/a.png")])
        if path.startswith("/redirect/"):
            n = int(path.split("/")[2])
            target = "/image/base.png" if n <= 1 else "/redirect/%d" % (n - 1)
            return self.send(302, b"", "text/plain", [("Location", target)])
        if path == "/endless":
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()
            self.close_connection = True
            self.wfile.write(self.image())
            chunk = b"\0" * 65536
            deadline = time.time() + 30
            for _ in range(16 * 1024):  # at most 1 GiB, at most 30 s
                if time.time() > deadline:
                    break
                self.wfile.write(chunk)
            return
        if path == "/huge-length":
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(10**12))
            self.end_headers()
            self.wfile.write(self.image())
            self.close_connection = True
            return
        if path == "/gzip-bomb":
            return self.send(200, BOMB, "image/png", [("Content-Encoding", "gzip")])
        if path == "/wrong-type":
            return self.send(200, self.image(), "text/plain")
        if path == "/auth":
            expected = "Basic " + base64.b64encode(b"user:secret").decode()
            if self.headers.get("Authorization") == expected:
                return self.send(200, self.image())
            return self.send(401, b"denied", "text/plain",
                             [("WWW-Authenticate", 'Basic realm="imgcache"')])
        if path == "/cookie/set":
            return self.send(302, b"", "text/plain",
                             [("Set-Cookie", "session=abc; Path=/"), ("Location", "/cookie/check")])
        if path == "/cookie/check":
            if "session=abc" in (self.headers.get("Cookie") or ""):
                return self.send(200, self.image())
            return self.send(403, b"no cookie", "text/plain")
        if path == "/headers":
            body = json.dumps(dict(self.headers.items())).encode()
            return self.send(200, body, "application/json")
        if path == "/etag":
            etag = '"%s"' % params.get("v", "1")
            if self.headers.get("If-None-Match") == etag:
                return self.send(304, b"", "image/png", [("ETag", etag)])
            return self.send(200, self.image(params.get("name", "base.png")), "image/png",
                             [("ETag", etag)])
        if path == "/hostile":
            # A response with the raw header lines given as h=… (URL-encoded, repeatable), the
            # status `status`, an image body; the request headers are logged for the test.
            lines = [v for k, v in urllib.parse.parse_qsl(query_of(self.path)) if k == "h"]
            with LOCK:
                HEARD.setdefault(params.get("id", ""), []).append(dict(self.headers.items()))
            body = self.image(params.get("name", "base.png"))
            self.wfile.write(("HTTP/1.1 %s X\r\n" % params.get("status", "200")).encode())
            self.wfile.write(b"Content-Type: image/png\r\nContent-Length: %d\r\n" % len(body))
            for line in lines:
                self.wfile.write(line.encode("utf-8", "surrogateescape") + b"\r\n")
            self.wfile.write(b"\r\n")
            if self.command != "HEAD":
                self.wfile.write(body)
            return
        if path == "/resumable":
            return self.resumable(params)
        self.send(404, b"not found", "text/plain")

    def robots(self):
        # r-deny: disallows *private for everyone; r-ours: everything for imgcache only;
        # r-other: everything for another agent; r-404, r-503: that status; r-slow: as deny,
        # after a second (the URLs of its host wait for one fetch).
        host = self.headers.get("Host", "").split(":")[0]
        with LOCK:
            ROBOTS[host] = ROBOTS.get(host, 0) + 1
        kind = host.split("-")[1] if host.startswith("r-") and "-" in host[2:] else ""
        if kind == "slow":
            time.sleep(1)
        if kind in ROBOTS_FILES:
            return self.send(200, ROBOTS_FILES[kind].encode(), "text/plain")
        if kind.isdigit():
            return self.send(int(kind), b"no robots here", "text/plain")
        return self.send(404, b"no robots.txt", "text/plain")

    def optout(self, params):
        # An image with `X-Robots-Tag: tag` (`tag2`: a second line; `filler` lines before): its headers and the first
        # half of its body at once, the rest after `stall` seconds (20) — a client that honours
        # the tag has gone by then, one that does not waits or times out.
        body = self.image()
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(body)))
        # `filler`: that many `X-Robots-Tag: all` lines first (at most 200).
        for _ in range(min(int(params.get("filler", "0")), 200)):
            self.send_header("X-Robots-Tag", "all")
        for name in ("tag", "tag2"):
            if name in params:
                self.send_header("X-Robots-Tag", urllib.parse.unquote(params[name]))
        self.end_headers()
        self.wfile.write(body[: len(body) // 2])
        self.wfile.flush()
        time.sleep(min(float(params.get("stall", "20")), 30))
        self.wfile.write(body[len(body) // 2:])

    def resumable(self, params):
        # A body of `size` bytes with a strong ETag; the first full response of an `id` is cut
        # after `cut` bytes. A Range request gets a 206 shaped by `bad`: `length` (another
        # complete length: the file changed, same ETag), `end` (ends early), `clen` (a
        # Content-Length that is not the range's), `empty` (no byte at all), or a correct one. A full response after a
        # `length` 206 is the new, longer version.
        ident, size = params.get("id", ""), int(params.get("size", "3000000"))
        with LOCK:
            state = RESUMABLE.setdefault(ident, {"full": 0, "ranged": 0})
        version = 2 if state["ranged"] and params.get("bad") == "length" else 1
        length = size + (1000 if version == 2 else 0)
        body = (bytes(range(version, 256)) * (length // 250 + 1))[:length]
        coded = params.get("gz") == "1"
        if coded:  # incompressible bytes, gzip-coded: offsets of the coded body differ
            import random
            body = gzip.compress(random.Random(ident).randbytes(length), compresslevel=1)
        ask = self.headers.get("Range", "")
        if ask.startswith("bytes=") and self.headers.get("If-Range") == '"v1"':
            with LOCK:
                state["ranged"] += 1
            start, bad = int(ask[6:].rstrip("-")), params.get("bad", "")
            other = (bytes(range(2, 256)) * (size // 250 + 5))[:size + 1000]
            end, complete, tail = size - 1, size, body[start:]
            if bad == "length":
                complete, tail = size + 1000, other[start:size]
            elif bad == "end":
                end, tail = size - 2, body[start:size - 1]
            elif bad == "clen":
                tail = body[start:size - 10]
            elif bad == "empty":
                tail = b""
            self.send_response(206)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, complete))
            self.send_header("Content-Length", str(len(tail)))
            self.send_header("ETag", '"v1"')
            self.end_headers()
            self.wfile.write(tail)
            return
        with LOCK:
            state["full"] += 1
            first = state["full"] == 1
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", '"v1"')
        if coded:
            self.send_header("Content-Encoding", "gzip")
        for k, v in urllib.parse.parse_qsl(query_of(self.path)):
            if k == "h":
                name, _, value = v.partition(":")
                self.send_header(name, value.strip())
        self.end_headers()
        cut = int(params.get("cut", "0"))
        if first and cut:
            self.wfile.write(body[:cut])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(body)

    do_HEAD = do_GET


def main():
    global ROOT
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--lifetime", type=float, default=3600)
    args = parser.parse_args()
    ROOT = os.path.abspath(args.root)
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    cert, key = self_signed(work)
    http_port, https_port = free_port(), free_port()
    conf = os.path.join(work, "nginx.conf")
    with open(conf, "w") as f:
        f.write(nginx_preamble(work, 512) + f"""
  types {{ image/jpeg jpg; image/png png; image/gif gif; image/webp webp; image/avif avif;
          image/svg+xml svg; text/html html; }}
  default_type application/octet-stream;
  keepalive_requests 100000;
  sendfile on;
  log_format bytes '$uri $status $body_bytes_sent';
  server {{ listen 127.0.0.1:{http_port}; root {ROOT}; etag on;
           location /slow/ {{ limit_rate 12m; access_log {work}/slow.log bytes; }}
           location /fresh/ {{ access_log {work}/fresh.log bytes;
             location /fresh/hour/ {{ alias {ROOT}/; expires 1h; }}
             location /fresh/zero/ {{ alias {ROOT}/; add_header Cache-Control "max-age=0"; }}
             location /fresh/nocache/ {{ alias {ROOT}/; add_header Cache-Control "no-cache"; }}
             location /fresh/nostore/ {{ alias {ROOT}/; add_header Cache-Control "no-store"; }}
           }} }}
  server {{ listen 127.0.0.1:{https_port} ssl http2; root {ROOT}; etag on;
           ssl_certificate {cert}; ssl_certificate_key {key}; }}
}}
""")
    nginx = subprocess.Popen(["nginx", "-p", work, "-c", conf, "-g", "daemon off;"],
                             stderr=subprocess.DEVNULL)
    fault = FaultServer(("127.0.0.1", 0), Fault)
    fault.daemon_threads = True
    threading.Thread(target=fault.serve_forever, daemon=True).start()
    for port in (http_port, https_port):  # wait until nginx listens, bounded
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
    print(json.dumps({"http": http_port, "https": https_port,
                      "fault": fault.server_address[1], "cert": cert}), flush=True)

    def stop(*_):
        nginx.terminate()
        try:
            nginx.wait(timeout=5)
        except subprocess.TimeoutExpired:
            nginx.kill()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    threading.Timer(args.lifetime, stop).start()
    sys.stdin.read()  # returns when the parent's end of the pipe closes
    stop()


if __name__ == "__main__":
    main()
