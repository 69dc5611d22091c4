#!/usr/bin/env python3
"""A flood against attune-manager's admission webhook (bench/webhook_flood.sh).

Well-formed pod CREATE AdmissionReviews at --rate per second over keep-alive
TLS connections, as the apiserver sends them, mixed with hostile clients:
oversized bodies (declared and chunked), slow-loris headers, slow bodies,
malformed HTTP and JSON, the wrong Content-Type, plain TCP that never
handshakes, and connection churn. Prints one JSON object: per class the
requests and what they got, and the latency of the well-formed reviews.
Figures, not assertions.
"""
import argparse
import json
import socket
import ssl
import sys
import threading
import time

stop = threading.Event()
lock = threading.Lock()
stats = {}
latencies = []


def count(cls, outcome):
    with lock:
        stats.setdefault(cls, {}).setdefault(outcome, 0)
        stats[cls][outcome] += 1


def review(ns, rs, pod_hash, i):
    pod = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"generateName": rs + "-", "namespace": ns,
                     "labels": {"app": "web", "pod-template-hash": pod_hash},
                     "annotations": {"prometheus.io/scrape": "true"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs,
                                          "uid": "6a1f0c9e-3b1d-4c35-9d0e-2f8b7a6c5d4e", "controller": True,
                                          "blockOwnerDeletion": True}]},
        "spec": {"containers": [
            {"name": "app", "image": "attune.local/pause:1",
             "env": [{"name": "LOG_LEVEL", "value": "info"}],
             "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "2Gi"}}},
            {"name": "log-shipper", "image": "attune.local/pause:1",
             "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}}}],
            "restartPolicy": "Always", "serviceAccountName": "default"}}
    req = {"uid": "b3f6c0de-0000-4000-8000-%012d" % i,
           "kind": {"group": "", "version": "v1", "kind": "Pod"},
           "resource": {"group": "", "version": "v1", "resource": "pods"},
           "requestKind": {"group": "", "version": "v1", "kind": "Pod"},
           "namespace": ns, "operation": "CREATE",
           "userInfo": {"username": "system:serviceaccount:kube-system:replicaset-controller",
                        "groups": ["system:serviceaccounts", "system:authenticated"]},
           "object": pod, "oldObject": None, "dryRun": False,
           "options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"}}
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": req}).encode()


class Conn:
    def __init__(self, args, timeout):
        self.args = args
        raw = socket.create_connection((args.host, args.port), timeout=timeout)
        self.sock = args.ctx.wrap_socket(raw, server_hostname=args.host)
        self.buf = b""

    def send(self, data):
        self.sock.sendall(data)

    def response(self):
        """(status, headers, body) of one response; raises on EOF or timeout."""
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("closed")
            self.buf += chunk
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        n = int(headers.get("content-length", "0"))
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("closed in body")
            self.buf += chunk
        body, self.buf = self.buf[:n], self.buf[n:]
        return status, headers, body

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def post(body, ctype="application/json", extra=""):
    return (("POST /mutate-v1-pod HTTP/1.1\r\nHost: attune\r\nContent-Type: %s\r\nContent-Length: %d\r\n%s\r\n"
             % (ctype, len(body), extra)).encode() + body)


def good(args, rate, idx):
    """Keep-alive reviews at `rate` per second; 5 s each, the webhook's timeoutSeconds."""
    period = 1.0 / rate
    conn = None
    i = idx * 10_000_000
    nxt = time.monotonic()
    while not stop.is_set():
        nxt += period
        i += 1
        body = review(args.namespace, args.replicaset, args.hash, i)
        t0 = time.monotonic()
        try:
            if conn is None:
                conn = Conn(args, 5)
            conn.sock.settimeout(5)
            conn.send(post(body))
            status, headers, rbody = conn.response()
            dt = time.monotonic() - t0
            if status == 200:
                resp = json.loads(rbody)["response"]
                outcome = "200 patched" if "patch" in resp else "200 unpatched"
                with lock:
                    latencies.append(dt)
            else:
                outcome = str(status)
            count("well-formed", outcome)
            if headers.get("connection", "").lower() == "close":
                conn.close()
                conn = None
        except (OSError, EOFError, ValueError) as e:
            count("well-formed", "error " + type(e).__name__)
            if conn:
                conn.close()
            conn = None
        delay = nxt - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        else:
            nxt = time.monotonic()  # behind: no burst to catch up
    if conn:
        conn.close()


def hostile(args, cls, fn):
    while not stop.is_set():
        try:
            count(cls, fn(args))
        except (OSError, EOFError, ValueError) as e:
            count(cls, "closed " + type(e).__name__)
        time.sleep(0.01)


def oversized_declared(args):
    c = Conn(args, 5)
    try:
        c.send(b"POST /mutate-v1-pod HTTP/1.1\r\nHost: attune\r\nContent-Type: application/json\r\n"
               b"Content-Length: 104857600\r\n\r\n")
        c.send(b"{" * 65536)
        return str(c.response()[0])
    finally:
        c.close()


def oversized_chunked(args):
    c = Conn(args, 5)
    try:
        c.send(b"POST /mutate-v1-pod HTTP/1.1\r\nHost: attune\r\nContent-Type: application/json\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b"100000\r\n" + b"x" * 0x100000 + b"\r\n"  # 1 MiB
        for _ in range(8):
            c.send(chunk)
        return str(c.response()[0])
    except (OSError, EOFError):
        return "closed while sending"
    finally:
        c.close()


def slow_header(args):
    """Slow-loris: one header byte every 200 ms."""
    c = Conn(args, 30)
    head = b"POST /mutate-v1-pod HTTP/1.1\r\nHost: attune\r\nContent-Type: application/json\r\n" + b"X-Pad: " + b"p" * 200
    t0 = time.monotonic()
    try:
        for b in head:
            if stop.is_set():
                return "stopped"
            c.send(bytes([b]))
            time.sleep(0.2)
        return "never cut off"
    except OSError:
        return "cut off after %.0f s" % (time.monotonic() - t0)
    finally:
        c.close()


def slow_body(args):
    """A 6 MB declared body at 64 KiB per second: holds a large-body slot until read_timeout."""
    c = Conn(args, 30)
    t0 = time.monotonic()
    try:
        c.send(b"POST /mutate-v1-pod HTTP/1.1\r\nHost: attune\r\nContent-Type: application/json\r\n"
               b"Content-Length: 6000000\r\n\r\n")
        c.sock.settimeout(0.25)
        while not stop.is_set():
            c.send(b" " * 16384)
            try:
                status = c.response()[0]
                return str(status)
            except socket.timeout:
                pass
        return "stopped"
    except (OSError, EOFError):
        return "cut off after %.0f s" % (time.monotonic() - t0)
    finally:
        c.close()


def malformed(args):
    kinds = [post(b"{not json", "application/json"),
             post(b'{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview"}'),
             post(b"<xml/>", "text/xml"),
             post(b"a=1", "application/x-www-form-urlencoded"),
             b"HELLO WORLD\r\n\r\n",
             b"POST /mutate-v1-pod HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nX: " + b"h" * 20000 + b"\r\n\r\n"]
    malformed.i = getattr(malformed, "i", 0) + 1
    c = Conn(args, 5)
    try:
        c.send(kinds[malformed.i % len(kinds)])
        return str(c.response()[0])
    finally:
        c.close()


def no_handshake(args):
    s = socket.create_connection((args.host, args.port), timeout=10)
    t0 = time.monotonic()
    try:
        s.sendall(b"GET / HTTP/1.1\r\n\r\n")  # plain HTTP on the TLS port
        s.recv(100)
        return "closed after %.0f s" % (time.monotonic() - t0)
    except OSError:
        return "closed after %.0f s" % (time.monotonic() - t0)
    finally:
        s.close()


def churn(args):
    c = Conn(args, 5)
    c.close()
    return "handshake then close"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ca", required=True)
    p.add_argument("--namespace", required=True)
    p.add_argument("--replicaset", required=True)
    p.add_argument("--hash", required=True)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--rate", type=float, default=200, help="well-formed reviews per second")
    p.add_argument("--good-connections", type=int, default=8)
    p.add_argument("--slow-headers", type=int, default=16)
    p.add_argument("--slow-bodies", type=int, default=10)
    args = p.parse_args()
    args.ctx = ssl.create_default_context(cafile=args.ca)
    args.ctx.check_hostname = False  # the serving certificate names 127.0.0.1 as an IP SAN

    threads = [threading.Thread(target=good, args=(args, args.rate / args.good_connections, i), daemon=True)
               for i in range(args.good_connections)]
    plan = [("oversized (declared 100 MiB)", oversized_declared, 2), ("oversized (chunked 8 MiB)", oversized_chunked, 1),
            ("slow-loris header", slow_header, args.slow_headers), ("slow body", slow_body, args.slow_bodies),
            ("malformed", malformed, 2), ("plain TCP, no handshake", no_handshake, 2), ("connection churn", churn, 1)]
    for cls, fn, n in plan:
        threads += [threading.Thread(target=hostile, args=(args, cls, fn), daemon=True) for _ in range(n)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    time.sleep(args.seconds)
    stop.set()
    elapsed = time.monotonic() - t0
    time.sleep(1)
    lat = sorted(latencies)

    def q(f):
        return round(lat[min(len(lat) - 1, int(f * len(lat)))] * 1000, 1) if lat else None
    with lock:
        out = {"seconds": round(elapsed, 1), "well_formed_rate_target": args.rate,
               "well_formed_answered_per_s": round(len(lat) / elapsed, 1),
               "latency_ms": {"p50": q(0.50), "p99": q(0.99), "max": round(lat[-1] * 1000, 1) if lat else None},
               "classes": stats}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
