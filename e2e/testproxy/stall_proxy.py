#!/usr/bin/env python3
"""A TCP proxy that can stall (test infrastructure only): it relays bytes
between 127.0.0.1:<port> and a target until SIGUSR1, then holds every
connection open without relaying a byte (new ones too) until SIGUSR2. That is
an apiserver connection that hangs without failing, as a stuck network or a
wedged load balancer leaves it. TLS passes through untouched.

  stall_proxy.py TARGET_HOST TARGET_PORT   (prints "port N" once listening)"""
import signal, socket, sys, threading, time

stalled = threading.Event()

def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            while stalled.is_set():
                time.sleep(0.05)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

def serve(client, host, port):
    while stalled.is_set():
        time.sleep(0.05)
    try:
        upstream = socket.create_connection((host, port), timeout=10)
        upstream.settimeout(None)
    except OSError:
        client.close()
        return
    threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
    threading.Thread(target=pump, args=(upstream, client), daemon=True).start()

def main():
    host, port = sys.argv[1], int(sys.argv[2])
    signal.signal(signal.SIGUSR1, lambda *_: (stalled.set(), print("stalled", flush=True)))
    signal.signal(signal.SIGUSR2, lambda *_: (stalled.clear(), print("resumed", flush=True)))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    ln = socket.socket()
    ln.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ln.bind(("127.0.0.1", 0))
    ln.listen(64)
    print(f"port {ln.getsockname()[1]}", flush=True)
    while True:
        client, _ = ln.accept()
        threading.Thread(target=serve, args=(client, host, port), daemon=True).start()

if __name__ == "__main__":
    main()
