#!/usr/bin/env python3
"""Remote stores for the remote-tier tests, on 127.0.0.1 only: redis-server instances (optionally
with a password and a unix socket), nginx as a WebDAV store, and moto's S3 server with
signature checking on (an IAM user with an S3 policy is made first, then a bucket).

Prints one JSON line (ports, pids, socket paths, S3 keys), then runs until its standard input
closes or --lifetime seconds pass, and stops everything on the way out.
Usage: remotes.py --work DIR [--redis N] [--password P] [--dav] [--s3] [--lifetime S]
"""
import argparse, json, os, re, signal, socket, subprocess, sys, threading, time

children = []


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_port(port, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"remotes.py: nothing listens on {port}")


def redis(work, index, password):
    port = free_port()
    sock = os.path.join(work, f"redis-{index}.sock")
    args = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--unixsocket", sock, "--unixsocketperm", "700",
            "--dir", work, "--daemonize", "no", "--loglevel", "warning"]
    if password:
        args += ["--requirepass", password]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    children.append(proc)
    wait_port(port)
    return {"port": port, "pid": proc.pid, "socket": sock}


def dav(work):
    port = free_port()
    root, tmp = os.path.join(work, "dav"), os.path.join(work, "dav-tmp")
    for d in (root, tmp, os.path.join(root, "cache")):
        os.makedirs(d, exist_ok=True)
        os.chmod(d, 0o777)  # nginx's workers are not root
    conf = os.path.join(work, "dav.conf")
    with open(conf, "w") as f:
        f.write(f"""worker_processes 1; pid {work}/dav.pid; error_log {work}/dav-error.log warn;
events {{ worker_connections 256; }}
http {{ access_log {work}/dav-access.log; client_body_temp_path {tmp}; client_max_body_size 0;
  server {{ listen 127.0.0.1:{port}; root {root};
    dav_methods PUT DELETE; create_full_put_path on; dav_access user:rw group:rw all:r; }} }}
""")
    proc = subprocess.Popen(["nginx", "-p", work, "-c", conf, "-g", "daemon off;"],
                            stderr=subprocess.DEVNULL)
    children.append(proc)
    wait_port(port)
    return {"port": port, "pid": proc.pid, "root": root, "log": f"{work}/dav-access.log"}


def curl_sig(service, user, url, data=None, method=None):
    args = ["curl", "-s", "--aws-sigv4", f"aws:amz:us-east-1:{service}", "--user", user,
            "-H", "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"]
    if method:
        args += ["-X", method]
    for item in data or []:
        args += ["--data-urlencode", item]
    return subprocess.run(args + [url], capture_output=True, text=True, timeout=30).stdout


def s3(work):
    port = free_port()
    env = dict(os.environ, INITIAL_NO_AUTH_ACTION_COUNT="3")
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    children.append(proc)
    wait_port(port, 60)
    url = f"http://127.0.0.1:{port}/"
    iam = lambda *items: curl_sig("iam", "setup:setup", url, ["Version=2010-05-08", *items])
    iam("Action=CreateUser", "UserName=imgcache")
    keys = iam("Action=CreateAccessKey", "UserName=imgcache")
    policy = '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}'
    iam("Action=PutUserPolicy", "UserName=imgcache", "PolicyName=s3", f"PolicyDocument={policy}")
    key = re.search(r"<AccessKeyId>([^<]+)", keys).group(1)
    secret = re.search(r"<SecretAccessKey>([^<]+)", keys).group(1)
    curl_sig("s3", f"{key}:{secret}", url + "images", method="PUT")
    return {"port": port, "pid": proc.pid, "key": key, "secret": secret, "bucket": "images"}


def main():
    # Started from a thread that blocks signals (a dispatch worker), this process and its
    # children would inherit the mask: SIGTERM would never stop them.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", required=True)
    parser.add_argument("--redis", type=int, default=0)
    parser.add_argument("--password")
    parser.add_argument("--dav", action="store_true")
    parser.add_argument("--s3", action="store_true")
    parser.add_argument("--lifetime", type=float, default=900)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    out = {"redis": [redis(args.work, i, args.password) for i in range(args.redis)]}
    if args.dav:
        out["dav"] = dav(args.work)
    if args.s3:
        out["s3"] = s3(args.work)
    signal.signal(signal.SIGTERM, lambda *_: stop())
    print(json.dumps(out), flush=True)
    threading.Thread(target=lambda: (sys.stdin.read(), os.kill(os.getpid(), signal.SIGTERM)),
                     daemon=True).start()
    time.sleep(args.lifetime)
    stop()


def stop():
    for proc in children:
        if proc.poll() is None:
            proc.terminate()
    for proc in children:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
    os._exit(0)


if __name__ == "__main__":
    main()
