#!/usr/bin/env python3
"""A broken Prometheus (test infrastructure only, not Attune): it listens on
127.0.0.1 and answers every request the same broken way.

  fake_prometheus.py garbage   a 200 whose body is HTML, not the API's JSON
  fake_prometheus.py hang      reads the request, then never answers (the
                               connection stays open until the client gives up)

Prints "port N" once listening."""
import socket, sys, threading, time

mode = sys.argv[1] if len(sys.argv) > 1 else "garbage"
if mode not in ("garbage", "hang"):
    sys.exit("usage: fake_prometheus.py garbage|hang")

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
srv.bind(("127.0.0.1", 0))
srv.listen(64)
print("port", srv.getsockname()[1], flush=True)
while True:
    conn, _ = srv.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
