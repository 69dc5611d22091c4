#!/usr/bin/env python3
"""A fake Amazon CloudWatch and STS (test infrastructure only, not Attune):
HTTPS on 127.0.0.1 with the certificate it is given, answering on one port

  POST / with X-Amz-Target: GraniteServiceVersion20100801.GetMetricData
      CloudWatch's GetMetricData in the JSON protocol, as AWS documents it.
      The AWS Signature Version 4 of every call is verified here, with
      Python's hmac and hashlib (independently of the manager's C++), for
      the service "monitoring" and the region --region: an unknown access
      key gets 400 UnrecognizedClientException, a signature that does not
      match gets 403 SignatureDoesNotMatch, temporary credentials without
      their X-Amz-Security-Token get 400 UnrecognizedClientException.
  POST / with Action=AssumeRoleWithWebIdentity (form body, unsigned)
      STS: when WebIdentityToken is --web-identity-token, temporary
      credentials (valid one hour) that GetMetricData then accepts; else
      400 InvalidIdentityToken.

  fake_cloudwatch.py --cert C --key K --region R --keys ACCESS:SECRET
                     --web-identity-token T --series SPEC --log FILE [--throttle-file F]

  --series "web-1 app=250:104857600,web-1 sidecar=50:33554432,other-1 app=900:1"
      per pod and container: the constant value of container_cpu_usage_total
      (millicores) and of container_memory_working_set (bytes). A SEARCH
      whose Namespace and ClusterName match (--namespace, --cluster) finds
      every listed series; each answer page holds one series (so an answer
      of several series is paged through NextToken), 12 points 60 s apart
      ending at EndTime, labelled with the query's dynamic label
      "${PROP('Dim.PodName')} ${PROP('Dim.ContainerName')}" resolved.
  --throttle-file F
      once F exists, the next GetMetricData gets 400 ThrottlingException
      (and F is removed): a test decides when CloudWatch throttles.

Prints "port N" once listening. Appends one JSON line per request to FILE:
the time, the call, the access key id (never a secret or token), whether the
signature matched, the request's NextToken and expression, the role and
whether the web identity token matched, and the status answered."""
import argparse, datetime, hashlib, hmac, json, os, re, ssl, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote

p = argparse.ArgumentParser()
p.add_argument("--cert", required=True)
p.add_argument("--key", required=True)
p.add_argument("--region", required=True)
p.add_argument("--namespace", required=True)
p.add_argument("--cluster", required=True)
p.add_argument("--keys", required=True)
p.add_argument("--web-identity-token", required=True)
p.add_argument("--series", required=True)
p.add_argument("--log", required=True)
p.add_argument("--throttle-file", default="")
args = p.parse_args()

SERIES = []
for item in args.series.split(","):
    name, _, values = item.partition("=")
    pod, container = name.split(" ")
    cpu, _, memory = values.partition(":")
    SERIES.append((pod, container, {"container_cpu_usage_total": float(cpu),
                                    "container_memory_working_set": float(memory)}))
access, _, secret = args.keys.partition(":")
KEYS = {access: (secret, "")}  # access key id -> (secret, session token "" for long-term keys)
lock = threading.Lock()
count = 0
issued = 0


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def sign(key, msg):
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def canonical_value(v):
    return " ".join(v.split())


def verify(method, path, headers, body):
    """(access key id, "match" | "mismatch" | "unknown-key" | "missing-token" | "unsigned")."""
    auth = headers.get("authorization", "")
    m = re.match(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, "
                 r"SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$", auth)
    if not m:
        return "", "unsigned"
    key_id, date, region, service, signed, signature = m.groups()
    if key_id not in KEYS:
        return key_id, "unknown-key"
    secret, token = KEYS[key_id]
    if token and headers.get("x-amz-security-token") != token:
        return key_id, "missing-token"
    names = signed.split(";")
    if "host" not in names or "x-amz-date" not in names or region != args.region or service != "monitoring":
        return key_id, "mismatch"
    canonical_headers = "".join(f"{n}:{canonical_value(headers.get(n, ''))}\n" for n in names)
    creq = "\n".join([method, quote(path, safe="/~"), "", canonical_headers, signed, sha256(body)])
    amz_date = headers.get("x-amz-date", "")
    sts = "\n".join(["AWS4-HMAC-SHA256", amz_date, f"{date}/{region}/{service}/aws4_request", sha256(creq.encode())])
    k = sign(sign(sign(sign(("AWS4" + secret).encode(), date), region), service), "aws4_request")
    want = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
    return key_id, "match" if hmac.compare_digest(want, signature) else "mismatch"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def answer(self, status, body, ctype="application/x-amz-json-1.0"):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-amzn-RequestId", "e2e-%d" % time.time_ns())
        self.end_headers()
        self.wfile.write(data)

    def sts(self, body, entry):
        global issued
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        entry.update(call=form.get("Action", ""), role=form.get("RoleArn", ""),
                     session=form.get("RoleSessionName", ""),
                     token="match" if form.get("WebIdentityToken") == args.web_identity_token else "mismatch",
                     signed="authorization" in {k.lower() for k in self.headers.keys()})
        if form.get("Action") != "AssumeRoleWithWebIdentity" or entry["token"] != "match":
            return 400, ("<ErrorResponse><Error><Type>Sender</Type><Code>InvalidIdentityToken</Code>"
                         "<Message>Incorrect token audience</Message></Error></ErrorResponse>"), "text/xml"
        with lock:
            issued += 1
            key_id, key_secret, token = "ASIAE2E%04d" % issued, "temp-secret-%d-%d" % (issued, time.time_ns()), \
                "temp-token-%d-%d" % (issued, time.time_ns())
            KEYS[key_id] = (key_secret, token)
        entry["issued"] = key_id
        expires = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return 200, ("<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
                     "<AssumeRoleWithWebIdentityResult><Credentials>"
                     f"<AccessKeyId>{key_id}</AccessKeyId><SecretAccessKey>{key_secret}</SecretAccessKey>"
                     f"<SessionToken>{token}</SessionToken><Expiration>{expires}</Expiration>"
                     "</Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>"), "text/xml"

    def get_metric_data(self, body, entry):
        headers = {k.lower(): v for k, v in self.headers.items()}
        key_id, verdict = verify("POST", self.path, headers, body)
        entry.update(call="GetMetricData", access_key=key_id, signature=verdict,
                     session_token="x-amz-security-token" in headers)
        if verdict in ("unknown-key", "missing-token", "unsigned"):
            return 400, {"__type": "UnrecognizedClientException",
                         "message": "The security token included in the request is invalid."}, None
        if verdict != "match":
            return 403, {"__type": "SignatureDoesNotMatch",
                         "message": "The request signature we calculated does not match the signature you provided. "
                                    "Check your AWS Secret Access Key and signing method."}, None
        req = json.loads(body)
        q = req["MetricDataQueries"][0]
        entry.update(expression=q.get("Expression", ""), period=q.get("Period"), label=q.get("Label"),
                     start=req.get("StartTime"), end=req.get("EndTime"), next_token=req.get("NextToken", ""))
        if args.throttle_file and os.path.exists(args.throttle_file):
            os.remove(args.throttle_file)
            return 400, {"__type": "com.amazon.coral.availability#ThrottlingException", "message": "Rate exceeded"}, None
        m = re.search(r'MetricName="([^"]+)" ClusterName="([^"]+)" Namespace="([^"]+)"', q.get("Expression", ""))
        found = []
        if m and m.group(2) == args.cluster and m.group(3) == args.namespace:
            found = [(pod, c, v[m.group(1)]) for pod, c, v in SERIES if m.group(1) in v]
        index = int(req.get("NextToken", "page-0").split("-")[1])
        end = int(req["EndTime"])
        results = []
        if index < len(found):
            pod, container, value = found[index]
            label = q.get("Label", "").replace("${PROP('Dim.PodName')}", pod).replace("${PROP('Dim.ContainerName')}",
                                                                                     container)
            results.append({"Id": q["Id"], "Label": label, "StatusCode": "Complete",
                            "Timestamps": [end - 60 * (11 - i) for i in range(12)], "Values": [value] * 12})
        out = {"MetricDataResults": results, "Messages": []}
        if index + 1 < len(found):
            out["NextToken"] = "page-%d" % (index + 1)
        return 200, out, None

    def do_POST(self):
        global count
        with lock:
            count += 1
            n = count
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        entry = {"n": n, "t": time.time(), "path": self.path}
        if self.headers.get("X-Amz-Target") == "GraniteServiceVersion20100801.GetMetricData":
            status, out, ctype = self.get_metric_data(body, entry)
        elif b"Action=AssumeRoleWithWebIdentity" in body:
            status, out, ctype = self.sts(body, entry)
        else:
            entry["call"] = "unknown"
            status, out, ctype = 400, {"__type": "UnknownOperationException", "message": "unknown"}, None
        entry["status"] = status
        with lock, open(args.log, "a") as f:
            f.write(json.dumps(entry) + "\n")
        if ctype:
            self.answer(status, out, ctype)
        else:
            self.answer(status, out)


srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(args.cert, args.key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
print("port", srv.server_address[1], flush=True)
srv.serve_forever()
