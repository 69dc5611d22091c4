#!/usr/bin/env python3
"""A tiny mutating admission webhook for the e2e suite (test infrastructure only,
until Attune's own webhook lands): it answers AdmissionReview v1 for pod CREATE
with a JSONPatch that adds the label attune-e2e/webhook=called, and logs each call."""
import base64, json, ssl, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        try:
            review = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            req = review["request"]
        except (ValueError, KeyError) as e:
            self.send_error(400, f"bad AdmissionReview: {e}")
            return
        labels = (req.get("object") or {}).get("metadata", {}).get("labels")
        patch = [{"op": "add", "path": "/metadata/labels", "value": {}}] if labels is None else []
        patch.append({"op": "add", "path": "/metadata/labels/attune-e2e~1webhook", "value": "called"})
        body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {
            "uid": req["uid"], "allowed": True, "patchType": "JSONPatch",
            "patch": base64.b64encode(json.dumps(patch).encode()).decode()}}).encode()
        print(f"admit {req.get('operation')} {req.get('namespace')}/{req.get('name') or req.get('object', {}).get('metadata', {}).get('generateName')}", flush=True)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

if __name__ == "__main__":
    port, cert, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.serve_forever()
