#!/bin/sh
# t0921-web-slowclients: `mmci web` against clients that trickle their
# request header (issue 30): 4,100 of them, one byte every 2 s from 513
# addresses (8 each, the limit per address) and back at once when
# closed, must not keep requests from 127.0.0.1 out (beyond 3,000
# connections waiting for their header the oldest is closed); a trickler
# is closed at the request deadline, 10 s after accept, however it
# trickles; 2,000 connections from one address that send half a header
# do not stop requests from another. Under a minute, on a small database
# made with sqlite3. Numbers go to the output (-v).
. "$(dirname "$0")/lib.sh"
MMCI=${MMCI_BIN:-$MMCI}

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
command -v curl >/dev/null || skip_all "curl is not installed"
command -v python3 >/dev/null || skip_all "python3 drives the clients"
# a descriptor per client in python3 (the server raises its own limit)
ulimit -n "$(ulimit -Hn)" 2>/dev/null
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge 4400 ] ||
	skip_all "4,100 clients need 4,400 open files (ulimit -Hn: $(ulimit -Hn))"
. "$SRC/tests/lib-web.sh"

# holds JSON-FILE CONDITION...: every condition on the clients' output
# (d) holds, or the first that does not is said (one python3 for all)
holds() {
	python3 - "$@" <<-\EOP
	import json, sys
	d = json.load(open(sys.argv[1]))
	for c in sys.argv[2:]:
	    if not eval(c):
	        sys.exit("does not hold: " + c)
	EOP
}

# the clients (python3 asyncio, one process): prints one JSON object
#   clients.py PORT trickle --clients N [--reconnect] [--probes P]
#		[--hold S]
#	N tricklers, --per-addr of them from each 127.NET.x.y address (with
#	--reconnect, again as soon as one is closed, until the requests are
#	done). Once all are connected, --requests normal requests from
#	127.0.0.1, one after the other; then P more tricklers (the probes,
#	from 127.NET+1.x.y), and up to S s for them all to be closed. How
#	long each (its last connection) was open.
#   clients.py PORT halfopen --clients N
#	N connections from 127.NET.1.1 that send a request line and stop;
#	then the normal requests.
cat > clients.py <<\EOP
import argparse, asyncio, json, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("port", type=int)
ap.add_argument("mode", choices=["trickle", "halfopen"])
ap.add_argument("--clients", type=int, default=0)
ap.add_argument("--per-addr", type=int, default=8)
ap.add_argument("--net", type=int, default=4)
ap.add_argument("--interval", type=float, default=2.0)
ap.add_argument("--requests", type=int, default=20)
ap.add_argument("--hold", type=float, default=0.0)
ap.add_argument("--path", default="/")
ap.add_argument("--reconnect", action="store_true")
ap.add_argument("--probes", type=int, default=0)
args = ap.parse_args()
PORT = args.port
t0 = time.monotonic()


def now():
    return time.monotonic() - t0


def addr(i, net=None):
    """the address of client i: args.per_addr clients an address"""
    a = i // args.per_addr
    return "127.%d.%d.%d" % (net or args.net, 1 + a // 250, 1 + a % 250)


async def connect(src):
    return await asyncio.wait_for(asyncio.open_connection(
        "127.0.0.1", PORT, local_addr=(src, 0)), 5)


async def response(r):
    """(status, body) of one response with a Content-Length"""
    head = await r.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    n = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":")[1])
    return status, await r.readexactly(n)


async def request(src="127.0.0.1"):
    """a normal request: (status, seconds); status 0 when no answer in 5 s"""
    t = time.monotonic()
    status = 0
    try:
        r, w = await connect(src)
        w.write(b"GET " + args.path.encode() +
                b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        status, _ = await asyncio.wait_for(response(r), 5)
        w.close()
    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError,
            ValueError, IndexError):
        pass
    return status, time.monotonic() - t


class Client:
    def __init__(self, src, again):
        self.src, self.up, self.start, self.end = src, False, None, None
        self.again, self.reconnect = 0, again


async def trickle(c, sem):
    """a trickler, again when closed until the requests are done"""
    while True:
        await trickle1(c, sem)
        if not c.reconnect or stop.is_set() or not c.up:
            return
        c.again += 1


async def trickle1(c, sem):
    """connect, then a request header one byte an interval"""
    async with sem:
        try:
            r, w = await connect(c.src)
        except (OSError, asyncio.TimeoutError):
            return
    c.up, c.start, c.end = True, now(), None
    try:
        w.write(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        while True:
            try:
                if not await asyncio.wait_for(r.read(4096), args.interval):
                    break
            except asyncio.TimeoutError:
                w.write(b"a")
                await w.drain()
    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError,
            ValueError, IndexError):
        pass
    c.end = now()
    w.close()


def summary(lat):
    lat = sorted(lat)
    return {"max_s": round(lat[-1], 3) if lat else None,
            "p50_s": round(lat[len(lat) // 2], 3) if lat else None}


async def normal_requests(out):
    res = []
    for _ in range(args.requests):
        res.append(await request())
    st = {}
    for s, _ in res:
        st[str(s)] = st.get(str(s), 0) + 1
    out["statuses"] = st
    out.update({"req_" + k: v for k, v in
                summary([t for _, t in res]).items()})


async def main_trickle():
    global stop
    stop = asyncio.Event()
    out = {}
    sem = asyncio.Semaphore(500)
    cs = [Client(addr(i), args.reconnect) for i in range(args.clients)]
    tasks = [asyncio.ensure_future(trickle(c, sem)) for c in cs]
    while any(not t.done() and cs[i].start is None
              for i, t in enumerate(tasks)) and now() < 30:
        await asyncio.sleep(0.1)
    out["connected"] = sum(c.up for c in cs)
    out["connect_s"] = round(now(), 3)
    await asyncio.sleep(1)
    out["open_before"] = sum(c.up and c.end is None for c in cs)
    await normal_requests(out)
    out["open_after"] = sum(c.up and c.end is None for c in cs)
    out["reconnected"] = sum(c.again for c in cs)
    stop.set()
    probes = [Client(addr(i, args.net + 1), False)
              for i in range(args.probes)]
    tasks += [asyncio.ensure_future(trickle(c, sem)) for c in probes]
    end = now() + args.hold
    while now() < end and not all(t.done() for t in tasks):
        await asyncio.sleep(0.1)
    out["open_at_end"] = sum(c.up and c.end is None for c in cs)
    out["end_s"] = round(now(), 3)
    life = [c.end - c.start for c in cs if c.up and c.end is not None]
    out["closed"] = len(life)
    out["life_min_s"] = round(min(life), 3) if life else None
    out["life_max_s"] = round(max(life), 3) if life else None
    life = [c.end - c.start for c in probes if c.up and c.end is not None]
    out["probes_closed"] = len(life)
    out["probe_min_s"] = round(min(life), 3) if life else None
    out["probe_max_s"] = round(max(life), 3) if life else None
    for t in tasks:
        t.cancel()
    print(json.dumps(out, sort_keys=True))


async def main_halfopen():
    """many connections from one address, a partial header, left open"""
    out = {}
    socks = []
    for i in range(args.clients):
        try:
            r, w = await connect(addr(0))
            w.write(b"GET / HTTP/1.1\r\n")
            socks.append((r, w))
        except (OSError, asyncio.TimeoutError):
            pass
    out["connected"] = len(socks)
    out["connect_s"] = round(now(), 3)
    await asyncio.sleep(0.5)
    await normal_requests(out)
    out["open_after"] = sum(not (r.at_eof() or r.exception() or
                                 w.is_closing()) for r, w in socks)
    for _, w in socks:
        w.close()
    print(json.dumps(out, sort_keys=True))


try:
    asyncio.run(main_trickle() if args.mode == "trickle" else main_halfopen())
except KeyboardInterrupt:
    sys.exit(1)
EOP

test_expect 'mmci web starts on a database of 20 runs' '
	"$MMCI" init --no-tree &&
	sh "$SRC/bench/web-gen.sh" "$MMCI_DB" 20 5 100 1 &&
	sh "$SRC/bench/web-gen.sh" --finish "$MMCI_DB" &&
	web_start && [ "$(code /run/20)" = 200 ]
'

test_expect '4,100 tricklers, back when closed: 20 requests answered in 3 s' '
	python3 clients.py "$(cat port)" trickle --clients 4100 --reconnect \
		--probes 8 --requests 20 --path /run/20 --hold 16 \
		> trickle.json &&
	cat trickle.json &&
	holds trickle.json "d[\"connected\"] >= 4000" \
		"d[\"statuses\"] == {\"200\": 20}" "d[\"req_max_s\"] < 3" &&
	grep "web: slow clients: closed" web.err
'

# the probes come after the flood: no newer connection pushes them out,
# the deadline closes them (the same run, so no 10 s more)
test_expect 'a trickler is closed 10 s after its accept, not before' '
	holds trickle.json "d[\"open_at_end\"] == 0" "d[\"life_max_s\"] < 20" \
		"d[\"probes_closed\"] == 8" "9 <= d[\"probe_min_s\"]" \
		"d[\"probe_max_s\"] < 20"
'

test_expect '2,000 half-open connections of one address: others served' '
	python3 clients.py "$(cat port)" halfopen --clients 2000 --net 6 \
		--requests 20 --path /run/20 > half.json &&
	cat half.json &&
	holds half.json "d[\"statuses\"] == {\"200\": 20}" \
		"d[\"req_max_s\"] < 3" "d[\"open_after\"] <= 8"
'

test_expect 'mmci web still answers, and stops on SIGTERM' '
	[ "$(code /run/20)" = 200 ] && web_stop
'

test_done
