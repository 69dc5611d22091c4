#!/usr/bin/env python3
"""A fake Git forge (test infrastructure only, not Attune): HTTPS on
127.0.0.1 with the certificate it is given, speaking the REST calls GitHub
and GitLab document for branches, file contents, commits, pull (merge)
requests and labels, over an in-memory repository per name.

  fake_forge.py --cert C --key K --token T --log FILE
                [--file REPO:PATH=LOCAL ...] [--fail REPO=STATUS ...]

  GitHub under /github (as apiUrl https://127.0.0.1:PORT/github):
    GET   /repos/O/R/pulls?state=open&head=O:BRANCH&base=BASE
    GET   /repos/O/R/git/ref/heads/BRANCH
    POST  /repos/O/R/git/refs                  {ref, sha}
    GET   /repos/O/R/contents/PATH?ref=BRANCH
    PUT   /repos/O/R/contents/PATH             {message, content (base64), branch, sha}
    POST  /repos/O/R/pulls                     {title, head, base, body}
    PATCH /repos/O/R/pulls/N                   {title, body}
    POST  /repos/O/R/issues/N/labels           {labels}
  GitLab under /gitlab/api/v4 (PROJECT url-encoded, "group%2Fname"):
    GET  /projects/P/merge_requests?state=opened&source_branch=&target_branch=
    GET  /projects/P/repository/branches/BRANCH
    POST /projects/P/repository/branches?branch=&ref=
    GET  /projects/P/repository/files/PATH?ref=BRANCH
    POST /projects/P/repository/commits       {branch, commit_message, actions[{action, file_path, content}]}
    POST /projects/P/merge_requests            {source_branch, target_branch, title, description, labels}
    PUT  /projects/P/merge_requests/IID        {title, description, labels}
  GET /_state: every repository (branches with their files, pull requests,
  commits) as JSON, for the test to read.

Every repository starts with a branch "main", empty but for the --file
entries. The token must come as GitHub's "Authorization: Bearer T" or
GitLab's "PRIVATE-TOKEN: T", else 401. --fail REPO=STATUS answers STATUS to
every call on REPO. Prints "port N" once listening. Appends one JSON line
per request to FILE: method, path, query, the JSON body, the headers (the
token header's value replaced by "match" or "mismatch") and the status."""
import argparse, base64, hashlib, json, ssl, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

p = argparse.ArgumentParser()
p.add_argument("--cert", required=True)
p.add_argument("--key", required=True)
p.add_argument("--token", required=True)
p.add_argument("--log", required=True)
p.add_argument("--file", action="append", default=[])
p.add_argument("--fail", action="append", default=[])
args = p.parse_args()

lock = threading.Lock()
repos = {}
FAIL = {r: int(s) for r, _, s in (f.rpartition("=") for f in args.fail)}
PORT = [0]


def repo(name):
    if name not in repos:
        repos[name] = {"branches": {"main": {}}, "pulls": [], "commits": []}
    return repos[name]


for spec in args.file:
    where, _, local = spec.partition("=")
    name, _, path = where.partition(":")
    with open(local) as f:
        repo(name)["branches"]["main"][path] = f.read()


def sha(text):
    return hashlib.sha1(text.encode()).hexdigest()


def branch_sha(files):
    return sha(json.dumps(files, sort_keys=True))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self, method):
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = {"unparsed": raw.decode(errors="replace")}
        headers = {}
        for k, v in self.headers.items():
            if k.lower() == "authorization":
                headers[k] = "match" if v == "Bearer " + args.token else "mismatch"
            elif k.lower() == "private-token":
                headers[k] = "match" if v == args.token else "mismatch"
            else:
                headers[k] = v
        # Split before decoding: a GitLab project or file path holds %2F.
        segs = [unquote(s) for s in url.path.split("/")[1:]]
        with lock:
            if url.path == "/_state":
                status, out = 200, repos
            else:
                status, out = self.route(method, segs, query, body or {})
            with open(args.log, "a") as f:
                f.write(json.dumps({"method": method, "path": url.path, "query": query, "body": body,
                                    "headers": headers, "status": status}) + "\n")
        self.reply(status, out)

    def route(self, method, segs, query, body):
        if segs[:1] == ["github"] and segs[1:2] == ["repos"] and len(segs) >= 5:
            name = segs[2] + "/" + segs[3]
            if self.headers.get("Authorization") != "Bearer " + args.token:
                return 401, {"message": "Bad credentials"}
            if name in FAIL:
                return FAIL[name], {"message": "the fake forge was told to fail"}
            return self.github(method, name, segs[4:], query, body)
        if segs[:3] == ["gitlab", "api", "v4"] and segs[3:4] == ["projects"] and len(segs) >= 6:
            name = segs[4]
            if self.headers.get("PRIVATE-TOKEN") != args.token:
                return 401, {"message": "401 Unauthorized"}
            if name in FAIL:
                return FAIL[name], {"message": "the fake forge was told to fail"}
            return self.gitlab(method, name, segs[5:], query, body)
        return 404, {"message": "Not Found"}

    def github(self, method, name, rest, query, body):
        r = repo(name)
        base = "https://127.0.0.1:%d/%s" % (PORT[0], name)
        if rest[:3] == ["git", "ref", "heads"] and method == "GET":
            b = "/".join(rest[3:])
            if b not in r["branches"]:
                return 404, {"message": "Not Found"}
            return 200, {"ref": "refs/heads/" + b, "object": {"type": "commit", "sha": branch_sha(r["branches"][b])}}
        if rest == ["git", "refs"] and method == "POST":
            ref = body.get("ref", "")
            if not ref.startswith("refs/heads/"):
                return 422, {"message": "Reference name must start with refs/heads/"}
            b = ref[len("refs/heads/"):]
            if b in r["branches"]:
                return 422, {"message": "Reference already exists"}
            src = next((f for f in r["branches"].values() if branch_sha(f) == body.get("sha")), None)
            if src is None:
                return 422, {"message": "Object does not exist"}
            r["branches"][b] = dict(src)
            return 201, {"ref": ref, "object": {"sha": body["sha"]}}
        if rest[:1] == ["contents"]:
            path = "/".join(rest[1:])
            if method == "GET":
                files = r["branches"].get(query.get("ref", "main"))
                if files is None or path not in files:
                    return 404, {"message": "Not Found"}
                text = files[path]
                return 200, {"type": "file", "path": path, "sha": sha(text), "encoding": "base64",
                             "content": base64.encodebytes(text.encode()).decode()}
            if method == "PUT":
                files = r["branches"].get(body.get("branch", "main"))
                if files is None:
                    return 404, {"message": "Branch not found"}
                if path in files and body.get("sha") != sha(files[path]):
                    return 409, {"message": "%s does not match" % body.get("sha")}
                if path not in files and body.get("sha"):
                    return 422, {"message": "sha given for a new file"}
                created = path not in files
                files[path] = base64.b64decode(body.get("content", "")).decode()
                r["commits"].append({"branch": body.get("branch"), "message": body.get("message"), "files": [path]})
                return (201 if created else 200), {"content": {"path": path, "sha": sha(files[path])},
                                                   "commit": {"sha": branch_sha(files)}}
        if rest == ["pulls"] and method == "GET":
            owner = name.split("/")[0]
            out = [pr for pr in r["pulls"] if pr["state"] == "open"
                   and ("head" not in query or owner + ":" + pr["head"]["ref"] == query["head"])
                   and ("base" not in query or pr["base"]["ref"] == query["base"])]
            return 200, out
        if rest == ["pulls"] and method == "POST":
            head, b = body.get("head", ""), body.get("base", "")
            if head not in r["branches"] or b not in r["branches"]:
                return 422, {"message": "Validation Failed", "errors": [{"field": "head"}]}
            if r["branches"][head] == r["branches"][b]:
                return 422, {"message": "No commits between %s and %s" % (b, head)}
            n = len(r["pulls"]) + 1
            pr = {"number": n, "html_url": "%s/pull/%d" % (base, n), "state": "open", "title": body.get("title"),
                  "body": body.get("body"), "head": {"ref": head}, "base": {"ref": b}, "labels": []}
            r["pulls"].append(pr)
            return 201, pr
        if rest[:1] == ["pulls"] and len(rest) == 2 and method == "PATCH":
            pr = next((x for x in r["pulls"] if str(x["number"]) == rest[1]), None)
            if pr is None:
                return 404, {"message": "Not Found"}
            pr.update({k: body[k] for k in ("title", "body") if k in body})
            return 200, pr
        if rest[:1] == ["issues"] and len(rest) == 3 and rest[2] == "labels" and method == "POST":
            pr = next((x for x in r["pulls"] if str(x["number"]) == rest[1]), None)
            if pr is None:
                return 404, {"message": "Not Found"}
            for l in body.get("labels", []):
                if l not in [x["name"] for x in pr["labels"]]:
                    pr["labels"].append({"name": l})
            return 200, pr["labels"]
        return 404, {"message": "Not Found"}

    def gitlab(self, method, name, rest, query, body):
        r = repo(name)
        base = "https://127.0.0.1:%d/%s" % (PORT[0], name)
        if rest[:2] == ["repository", "branches"] and len(rest) == 3 and method == "GET":
            if rest[2] not in r["branches"]:
                return 404, {"message": "404 Branch Not Found"}
            return 200, {"name": rest[2], "commit": {"id": branch_sha(r["branches"][rest[2]])}}
        if rest == ["repository", "branches"] and method == "POST":
            b, ref = query.get("branch", ""), query.get("ref", "")
            if ref not in r["branches"]:
                return 400, {"message": "Invalid reference name: " + ref}
            if b in r["branches"]:
                return 400, {"message": "Branch already exists"}
            r["branches"][b] = dict(r["branches"][ref])
            return 201, {"name": b}
        if rest[:2] == ["repository", "files"] and len(rest) == 3 and method == "GET":
            files = r["branches"].get(query.get("ref", ""))
            if files is None or rest[2] not in files:
                return 404, {"message": "404 File Not Found"}
            text = files[rest[2]]
            return 200, {"file_path": rest[2], "encoding": "base64", "blob_id": sha(text),
                         "content": base64.b64encode(text.encode()).decode()}
        if rest == ["repository", "commits"] and method == "POST":
            files = r["branches"].get(body.get("branch", ""))
            if files is None:
                return 400, {"message": "You can only create or edit files when you are on a branch"}
            for a in body.get("actions", []):
                exists = a.get("file_path") in files
                if a.get("action") == "create" and exists:
                    return 400, {"message": "A file with this name already exists"}
                if a.get("action") == "update" and not exists:
                    return 400, {"message": "A file with this name doesn't exist"}
            for a in body.get("actions", []):
                files[a["file_path"]] = a.get("content", "")
            r["commits"].append({"branch": body["branch"], "message": body.get("commit_message"),
                                 "files": [a.get("file_path") for a in body.get("actions", [])]})
            return 201, {"id": branch_sha(files)}
        if rest == ["merge_requests"] and method == "GET":
            out = [mr for mr in r["pulls"] if mr["state"] == "opened"
                   and mr["source_branch"] == query.get("source_branch", mr["source_branch"])
                   and mr["target_branch"] == query.get("target_branch", mr["target_branch"])]
            return 200, out
        if rest == ["merge_requests"] and method == "POST":
            src, tgt = body.get("source_branch", ""), body.get("target_branch", "")
            if src not in r["branches"] or tgt not in r["branches"]:
                return 404, {"message": "404 Branch Not Found"}
            n = len(r["pulls"]) + 1
            labels = [l for l in (body.get("labels") or "").split(",") if l]
            mr = {"iid": n, "web_url": "%s/-/merge_requests/%d" % (base, n), "state": "opened",
                  "title": body.get("title"), "description": body.get("description"), "source_branch": src,
                  "target_branch": tgt, "labels": labels}
            r["pulls"].append(mr)
            return 201, mr
        if rest[:1] == ["merge_requests"] and len(rest) == 2 and method == "PUT":
            mr = next((x for x in r["pulls"] if str(x["iid"]) == rest[1]), None)
            if mr is None:
                return 404, {"message": "404 Not found"}
            mr.update({k: body[k] for k in ("title", "description") if k in body})
            if "labels" in body:
                mr["labels"] = [l for l in body["labels"].split(",") if l]
            return 200, mr
        return 404, {"message": "404 Not Found"}

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_PATCH(self):
        self.handle_any("PATCH")


srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(args.cert, args.key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
PORT[0] = srv.server_address[1]
print("port", PORT[0], flush=True)
srv.serve_forever()
