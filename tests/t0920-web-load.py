#!/usr/bin/env python3
# t0920-web-load.py - loopback load on a web server, Python's standard
# library only, for tests/t0920-web-stress.sh and bench/web.sh. Prints
# one JSON object; the caller asserts on it.
#
#   t0920-web-load.py PORT probe [--slow N] [--idle N] [--interval S]
#                     [--requests N] [--path P]...
#       N slow clients (each from its own 127.1.x.y address) send a
#       request line, then one header byte every S seconds; or N idle
#       clients connect and send nothing. Meanwhile normal requests from
#       127.0.0.1, one after the other, over the paths: their status,
#       latency (p50, p99, max) and whether each HTML body is whole.
#   t0920-web-load.py PORT concurrent [--clients N] [--requests N]
#                     [--path P]...
#       N clients (each from its own 127.2.x.y address) start together
#       and make N requests each: how many were answered 200.
import argparse
import json
import socket
import sys
import threading
import time


def addr(net, i):
    return "127.%d.%d.%d" % (net, 1 + i // 250, 1 + i % 250)


def request(port, path, src="127.0.0.1", timeout=5.0):
    """(status, seconds, body whole); status 0 when no answer"""
    t0 = time.monotonic()
    status, whole = 0, False
    try:
        s = socket.socket()
        s.settimeout(timeout)
        s.bind((src, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET " + path.encode() +
                  b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = bytearray()
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
        s.close()
        if data.startswith(b"HTTP/"):
            status = int(data.split(b" ", 2)[1])
            body = data.partition(b"\r\n\r\n")[2]
            whole = not body.startswith(b"<!DOCTYPE") or \
                body.rstrip().endswith(b"</html>")
    except (OSError, ValueError, IndexError):
        pass
    return status, time.monotonic() - t0, whole


class Holders(threading.Thread):
    """n connections from their own addresses, slow or idle"""

    def __init__(self, port, n, slow, interval):
        super().__init__(daemon=True)
        self.socks, self.refused = [], 0
        self.slow, self.interval = slow, interval
        self.stop = threading.Event()
        for i in range(n):
            try:
                s = socket.socket()
                s.settimeout(5)
                s.bind((addr(1, i), 0))
                s.connect(("127.0.0.1", port))
                if slow:
                    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                self.socks.append(s)
            except OSError:
                self.refused += 1

    def run(self):
        while not self.stop.wait(self.interval):
            if not self.slow:
                continue
            for s in self.socks:
                try:
                    s.sendall(b"a")
                except OSError:
                    pass

    def open_count(self):
        """connections the server has not closed"""
        n = 0
        for s in self.socks:
            try:
                s.setblocking(False)
                b = s.recv(1, socket.MSG_PEEK)
                if b:
                    n += 1      # it answered (an error page): still open
            except BlockingIOError:
                n += 1
            except OSError:
                pass
        return n

    def close(self):
        self.stop.set()
        for s in self.socks:
            s.close()


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p / 100))] if xs else None


def probe(a):
    holders = None
    n = a.slow or a.idle
    if n:
        holders = Holders(a.port, n, bool(a.slow), a.interval)
        holders.start()
        time.sleep(1)
    out = {"holders": n, "holders_refused": holders.refused if holders else 0,
           "holders_open_before": holders.open_count() if holders else 0}
    lat, statuses, broken = [], {}, 0
    for i in range(a.requests):
        st, sec, whole = request(a.port, a.path[i % len(a.path)],
                                 timeout=a.timeout)
        statuses[st] = statuses.get(st, 0) + 1
        broken += not whole
        if st:
            lat.append(sec)
        time.sleep(a.pause)
    out.update({"requests": a.requests, "statuses": statuses,
                "broken_bodies": broken,
                "p50_ms": round(pct(lat, 50) * 1000, 2) if lat else None,
                "p99_ms": round(pct(lat, 99) * 1000, 2) if lat else None,
                "max_ms": round(max(lat) * 1000, 2) if lat else None})
    if holders:
        out["holders_open_after"] = holders.open_count()
        if a.hold_after:
            time.sleep(a.hold_after)
            out["holders_open_later"] = holders.open_count()
        holders.close()
    return out


def concurrent(a):
    results, lock = [], threading.Lock()
    start = threading.Barrier(a.clients)

    def client(i):
        start.wait()
        for k in range(a.requests):
            r = request(a.port, a.path[(i + k) % len(a.path)],
                        src=addr(2, i), timeout=a.timeout)
            with lock:
                results.append(r)

    threads = [threading.Thread(target=client, args=(i,))
               for i in range(a.clients)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lat = [r[1] for r in results if r[0]]
    statuses = {}
    for r in results:
        statuses[r[0]] = statuses.get(r[0], 0) + 1
    return {"clients": a.clients, "requests": len(results),
            "answered_200": statuses.get(200, 0), "statuses": statuses,
            "broken_bodies": sum(1 for r in results if not r[2]),
            "p50_ms": round(pct(lat, 50) * 1000, 2) if lat else None,
            "p99_ms": round(pct(lat, 99) * 1000, 2) if lat else None,
            "seconds": round(time.monotonic() - t0, 2)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("port", type=int)
    p.add_argument("mode", choices=["probe", "concurrent"])
    p.add_argument("--slow", type=int, default=0)
    p.add_argument("--idle", type=int, default=0)
    p.add_argument("--interval", type=float, default=3)
    p.add_argument("--requests", type=int, default=20)
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--pause", type=float, default=0.02)
    p.add_argument("--timeout", type=float, default=5)
    p.add_argument("--hold-after", type=float, default=0)
    p.add_argument("--path", action="append")
    a = p.parse_args()
    a.path = a.path or ["/"]
    out = probe(a) if a.mode == "probe" else concurrent(a)
    json.dump(out, sys.stdout, sort_keys=True)
    print()


main()
