#!/usr/bin/env python3
"""A fake Prometheus (test infrastructure only, not Attune): it listens on a
loopback address (127.0.0.1 unless given) and answers every request the same way.

  fake_prometheus.py garbage [ADDR]   a 200 whose body is HTML, not the API's JSON
  fake_prometheus.py hang [ADDR]      reads the request, then never answers (the
                                      connection stays open until the client gives up)
  fake_prometheus.py empty [ADDR]     a valid answer with no series
  fake_prometheus.py unauthorized [ADDR]  401, as a Prometheus behind auth does

Prints "port N" once listening, then per request "auth <Authorization value>"
or "auth none", so a test can see which credential reached it."""
import socket, sys, threading, time

mode = sys.argv[1] if len(sys.argv) > 1 else "garbage"
addr = sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1"
if mode not in ("garbage", "hang", "empty", "unauthorized") or not addr.startswith("127."):
    sys.exit("usage: fake_prometheus.py garbage|hang|empty|unauthorized [127.x.y.z]")
EMPTY = b'{"status":"success","data":{"resultType":"matrix","result":[]}}'
lock = threading.Lock()


def record(head):
    auth = "none"
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"authorization":
            auth = value.strip().decode(errors="replace")
    with lock:
        print("auth", auth, flush=True)


def answer(conn, status, ctype, body):
    conn.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Type: " + ctype + b"\r\nConnection: close\r\n"
                 b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)

GARBAGE = b"<html><body>502 Bad Gateway (I am not Prometheus)</body></html>"


def serve(conn):
    try:
        conn.settimeout(60)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        record(head)
        # Read the form body too: closing with unread bytes would reset the connection.
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip() or 0)
        while len(body) < length:
            chunk = conn.recv(65536)
            if not chunk:
                break
            body += chunk
        if mode == "empty":
            return answer(conn, b"200 OK", b"application/json", EMPTY)
        if mode == "unauthorized":
            return answer(conn, b"401 Unauthorized", b"text/plain", b"Unauthorized\n")
        if mode == "hang":
            # Hold the connection, answer nothing.
            while conn.recv(65536):
                pass
            return
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n"
                     b"Content-Length: " + str(len(GARBAGE)).encode() + b"\r\n\r\n" + GARBAGE)
    except OSError:
        pass
    finally:
        conn.close()


srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind((addr, 0))
srv.listen(64)
print("port", srv.getsockname()[1], flush=True)
while True:
    conn, _ = srv.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
