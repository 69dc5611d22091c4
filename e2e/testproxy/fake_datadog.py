#!/usr/bin/env python3
"""A fake Datadog metrics query API (test infrastructure only, not Attune):
HTTPS on 127.0.0.1 with the certificate it is given, answering
GET /api/v1/query?from=&to=&query= as Datadog's v1 query endpoint documents.

  fake_datadog.py --cert C --key K --api-key A --app-key B --series SPEC --log FILE
                  [--rate-limit-file F --reset S]

  --series app=200000000:104857600,sidecar=50000000:33554432
      per container (its kube_container_name tag): the constant value of
      kubernetes.cpu.usage.total (nanocores) and of
      kubernetes.memory.working_set (bytes). Each answer has 12 points, 60 s
      apart, ending at `to`, one series per container.
  --rate-limit-file F --reset S
      once F exists, the next request gets 429 with X-RateLimit-Reset: S
      (and F is removed): a test decides when Datadog rate-limits.

A request whose DD-API-KEY or DD-APPLICATION-KEY is not the expected one gets
403 {"errors":["Forbidden"]}. Prints "port N" once listening. Appends one JSON
line per request to FILE: the time, path, query parameters, every header but
the two keys' values, whether each key matched, and the status answered."""
import argparse, json, os, ssl, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

p = argparse.ArgumentParser()
p.add_argument("--cert", required=True)
p.add_argument("--key", required=True)
p.add_argument("--api-key", required=True)
p.add_argument("--app-key", required=True)
p.add_argument("--series", required=True)
p.add_argument("--log", required=True)
p.add_argument("--rate-limit-file", default="")
p.add_argument("--reset", type=int, default=30)
args = p.parse_args()

SERIES = {}
for item in args.series.split(","):
    name, _, values = item.partition("=")
    cpu, _, memory = values.partition(":")
    SERIES[name] = {"kubernetes.cpu.usage.total": float(cpu), "kubernetes.memory.working_set": float(memory)}
KEY_HEADERS = {"dd-api-key": args.api_key, "dd-application-key": args.app_key}
lock = threading.Lock()
count = 0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def answer(self, status, body, extra=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        global count
        with lock:
            count += 1
            n = count
        url = urlsplit(self.path)
        params = {k: v[0] for k, v in parse_qs(url.query).items()}
        headers, keys = {}, {}
        for k, v in self.headers.items():
            if k.lower() in KEY_HEADERS:
                keys[k.lower()] = "match" if v == KEY_HEADERS[k.lower()] else "mismatch"
            else:
                headers[k] = v
        for k in KEY_HEADERS:
            keys.setdefault(k, "absent")
        status, body, extra = 200, None, []
        if url.path != "/api/v1/query":
            status, body = 404, {"errors": ["Not found"]}
        elif any(v != "match" for v in keys.values()):
            status, body = 403, {"errors": ["Forbidden"]}
        elif args.rate_limit_file and os.path.exists(args.rate_limit_file):
            os.remove(args.rate_limit_file)
            status, body = 429, {"errors": ["Rate limit exceeded"]}
            extra = [("X-RateLimit-Limit", "300"), ("X-RateLimit-Period", "3600"),
                     ("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", str(args.reset))]
        else:
            query = params.get("query", "")
            metric = next((m for m in ("kubernetes.cpu.usage.total", "kubernetes.memory.working_set") if m in query), None)
            to = int(params.get("to", "0"))
            series = []
            if metric:
                for name, values in SERIES.items():
                    points = [[(to - 60 * (11 - i)) * 1000.0, values[metric]] for i in range(12)]
                    series.append({"metric": metric, "display_name": metric, "aggr": "avg", "interval": 60,
                                   "length": len(points), "scope": "kube_container_name:" + name,
                                   "tag_set": ["kube_container_name:" + name], "expression": query,
                                   "pointlist": points, "start": points[0][0], "end": points[-1][0]})
            body = {"status": "ok", "res_type": "time_series", "resp_version": 1, "query": query,
                    "from_date": int(params.get("from", "0")) * 1000, "to_date": to * 1000,
                    "group_by": ["kube_container_name"], "message": "", "series": series}
        with lock, open(args.log, "a") as f:
            f.write(json.dumps({"n": n, "t": time.time(), "path": url.path, "params": params, "headers": headers,
                                "keys": keys, "status": status}) + "\n")
        self.answer(status, body, extra)


srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(args.cert, args.key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
print("port", srv.server_address[1], flush=True)
srv.serve_forever()
