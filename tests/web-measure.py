#!/usr/bin/env python3
# web-measure.py - the layout of the pages as a browser makes it, for the
# page tests (t0916): headless Chromium driven over the DevTools protocol
# on a pipe (--remote-debugging-pipe: no port, no WebSocket), its viewport
# that of a phone or of a desktop. A window of headless Chromium is at
# least 500 px wide, so a phone's 390 px can only be had by emulation
# (Emulation.setDeviceMetricsOverride), which --dump-dom cannot do.
#
#   web-measure.py [OPTIONS] PAGE [CHECK...] [PAGE [CHECK...]]...
#
# options:
#   --www DIR     serve DIR (the www/ the renderer wrote) on a loopback
#                 port, each URL mapped onto its file as `mmci web` and
#                 nginx map them (daemon/render.h), with their headers and
#                 a Content-Security-Policy that allows scripts from the
#                 site only ('self'); the pages are measured there
#   --url BASE    measure the pages of a running server instead
#   --size WxH    the viewport in CSS pixels (default 390x844)
#   --mobile      a phone: the page's <meta name="viewport"> applies
#   --no-js       no script of the site is loaded: what a reader
#                 without scripts sees (scripts switched off altogether
#                 would switch off the measuring too)
#   --shots DIR   a PNG of each page's first screen, DIR/NAME-W.png (NAME
#                 from the path: index, series-3); its path is printed
#   --chromium P  the browser (default $CHROMIUM, chromium, chromium-browser)
#
# PAGE is a URL path, with a #fragment if need be ("/#verdict=mixed");
# each page is loaded afresh. Its CHECKs (the last field may hold ':'):
#   scroll<=N      document.documentElement.scrollWidth <= N: the page
#                  never scrolls sideways (its wide tables scroll in
#                  their own box)
#   top:ID<N       element ID starts less than N px below the top of the
#                  page (it is on the first screen of N px)
#   shown:ID:N     table ID has exactly N rows in its body not hidden
#   text:ID:S      the text of element ID, as shown, contains S
# Every page must also load without a script error or a
# Content-Security-Policy violation. One line per page says what was
# measured ("/series/2 390x844: scrollWidth 390, top summary 301"); the
# exit status is 1 when a check failed, 2 when the browser could not.
import base64
import fcntl
import http.server
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

CSP = ("default-src 'none'; style-src 'self' 'unsafe-inline'; img-src "
       "'self' data:; form-action 'none'; frame-ancestors 'none'; "
       "script-src 'self'")
NAME = r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}"
ID = r"[1-9][0-9]{0,14}"
ROUTES = [
    (re.compile(r"^/$"), lambda m: "index.html"),
    (re.compile(r"^/(style\.css|filter\.js)$"), lambda m: m.group(1)),
    (re.compile(r"^/(run|series)/(%s)$" % ID),
     lambda m: "%s/%s.html" % (m.group(1), m.group(2))),
    (re.compile(r"^/compare/(%s)/(%s)$" % (ID, ID)),
     lambda m: "compare/%s-%s.html" % (m.group(1), m.group(2))),
    (re.compile(r"^/branch/(%s)/(%s)$" % (NAME, NAME)),
     lambda m: "branch/%s/%s.html" % (m.group(1), m.group(2))),
]
TYPES = {".css": "text/css; charset=utf-8",
         ".js": "text/javascript; charset=utf-8"}


def serve(www):
    """a loopback server of the files under www; returns its base URL"""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            path = self.path.split("?")[0].split("#")[0]
            rel = next((f(m) for r, f in ROUTES for m in [r.match(path)]
                        if m), None)
            status = 200
            if rel is None or not os.path.isfile(os.path.join(www, rel)):
                status, rel = 404, "404.html"
            try:
                with open(os.path.join(www, rel), "rb") as f:
                    body = f.read()
            except OSError:
                body = b"404"
            self.send_response(status)
            self.send_header("Content-Type", TYPES.get(
                os.path.splitext(rel)[1], "text/html; charset=utf-8"))
            self.send_header("Content-Security-Policy", CSP)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return "http://127.0.0.1:%d" % srv.server_address[1]


class Browser:
    """headless Chromium, its DevTools protocol on fds 3 and 4"""

    def __init__(self, exe, profile):
        cmd_r, self.cmd_w = os.pipe()
        self.ev_r, ev_w = os.pipe()
        # the child's ends at fds >= 10 first, so that dup2() to 3 and 4
        # never closes one of them
        a = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10)
        b = fcntl.fcntl(ev_w, fcntl.F_DUPFD, 10)

        def child():
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu",
             "--hide-scrollbars", "--no-first-run",
             "--user-data-dir=" + profile, "--remote-debugging-pipe"],
            preexec_fn=child, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(profile, "stderr"), "w"))
        for fd in (cmd_r, ev_w, a, b):
            os.close(fd)
        self.buf, self.next_id, self.events = b"", 0, []

    def read(self):
        while b"\0" not in self.buf:
            d = os.read(self.ev_r, 1 << 16)
            if not d:
                raise RuntimeError("chromium ended")
            self.buf += d
        msg, _, self.buf = self.buf.partition(b"\0")
        return json.loads(msg)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        while True:
            r = self.read()
            if r.get("id") == self.next_id:
                if "error" in r:
                    raise RuntimeError("%s: %s" % (method, r["error"]))
                return r["result"]
            self.events.append(r)

    def wait(self, name, session):
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == name and e.get("sessionId") == session:
                    return self.events.pop(i)
            self.events.append(self.read())

    def close(self):
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


MEASURE = """new Promise(function (done) {
  requestAnimationFrame(function () { requestAnimationFrame(function () {
    var ids = %s, out = { scroll: document.documentElement.scrollWidth,
                          top: {}, shown: {}, text: {} }, i, e;
    for (i = 0; i < ids.length; i++) {
      e = document.getElementById(ids[i]);
      if (!e) continue;
      out.top[ids[i]] = e.getBoundingClientRect().top + window.scrollY;
      out.text[ids[i]] = e.innerText;
      if (e.tBodies && e.tBodies[0])
        out.shown[ids[i]] = Array.prototype.filter.call(e.tBodies[0].rows,
          function (r) { return !r.hidden && r.offsetParent !== null; }).length;
    }
    done(JSON.stringify(out));
  }); });
})"""


def check(m, spec):
    """(ok, what was measured) of one check"""
    if spec.startswith("scroll<="):
        return m["scroll"] <= int(spec[8:]), "scrollWidth %d" % m["scroll"]
    kind, _, rest = spec.partition(":")
    if kind == "top":
        ident, _, limit = rest.partition("<")
        top = m["top"].get(ident)
        if top is None:
            return False, "no #%s" % ident
        return top < float(limit), "top %s %d" % (ident, top)
    if kind == "shown":
        ident, _, num = rest.partition(":")
        got = m["shown"].get(ident)
        return got == int(num), "shown %s %s" % (ident, got)
    if kind == "text":
        ident, _, s = rest.partition(":")
        got = m["text"].get(ident)
        return got is not None and s in got, "text %s %r" % (
            ident, (got or "")[:60])
    raise SystemExit("web-measure.py: unknown check '%s'" % spec)


def shot_name(path):
    page, _, frag = path.partition("#")
    name = page.strip("/").replace("/", "-") or "index"
    return name + ("-filtered" if frag else "")


def ids_of(checks):
    out = []
    for c in checks:
        kind, _, rest = c.partition(":")
        if kind in ("top", "shown", "text"):
            out.append(re.split(r"[<:]", rest, 1)[0])
    return out


def main():
    args = sys.argv[1:]
    www = url = shots = None
    exe = os.environ.get("CHROMIUM") or shutil.which("chromium") or \
        shutil.which("chromium-browser")
    width, height, mobile, nojs = 390, 844, False, False
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--mobile":
            mobile = True
        elif opt == "--no-js":
            nojs = True
        elif opt in ("--www", "--url", "--size", "--shots", "--chromium"):
            if not args:
                raise SystemExit("web-measure.py: %s needs a value" % opt)
            val = args.pop(0)
            if opt == "--www":
                www = val
            elif opt == "--url":
                url = val.rstrip("/")
            elif opt == "--shots":
                shots = val
            elif opt == "--chromium":
                exe = val
            else:
                width, height = (int(x) for x in val.split("x"))
        else:
            raise SystemExit("web-measure.py: unknown option %s" % opt)
    pages = []
    for a in args:
        if a.startswith("/"):
            pages.append((a, []))
        elif pages:
            pages[-1][1].append(a)
        else:
            raise SystemExit("web-measure.py: a check before any page")
    if not pages or bool(www) == bool(url) or not exe:
        raise SystemExit("usage: web-measure.py (--www DIR | --url BASE) "
                         "[--size WxH] [--mobile] [--no-js] [--shots DIR] "
                         "PAGE [CHECK...]...")
    if www:
        url = serve(www)
    signal.alarm(int(os.environ.get("WEB_MEASURE_TIMEOUT", "180")))
    profile = tempfile.mkdtemp(prefix="web-measure.")
    failed = 0
    b = Browser(exe, profile)
    try:
        target = b.call("Target.createTarget", {"url": "about:blank"})
        s = b.call("Target.attachToTarget", {
            "targetId": target["targetId"], "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            b.call(domain + ".enable", session=s)
        b.call("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1,
            "mobile": mobile}, s)
        if nojs:
            b.call("Network.enable", session=s)
            b.call("Network.setBlockedURLs", {"urls": ["*.js"]}, s)
        for path, checks in pages:
            b.events = []
            b.call("Page.navigate", {"url": "about:blank"}, s)
            b.wait("Page.loadEventFired", s)
            b.call("Page.navigate", {"url": url + path}, s)
            b.wait("Page.loadEventFired", s)
            r = b.call("Runtime.evaluate", {
                "expression": MEASURE % json.dumps(ids_of(checks)),
                "awaitPromise": True, "returnByValue": True}, s)
            m = json.loads(r["result"]["value"])
            said = []
            for c in checks:
                ok, what = check(m, c)
                said.append(what)
                if not ok:
                    failed += 1
                    print("check failed: %s %s (%s)" % (path, c, what))
            # what the page did wrong: a script error, a refused load
            for e in b.events:
                p = e.get("params", {})
                if e.get("method") == "Runtime.exceptionThrown":
                    failed += 1
                    print("check failed: %s: script error: %s" % (
                        path, p["exceptionDetails"].get("text")))
                elif e.get("method") == "Log.entryAdded" and \
                        p["entry"].get("level") == "error" and \
                        not p["entry"].get("url", "").endswith(
                            "/favicon.ico") and \
                        "ERR_BLOCKED_BY_CLIENT" not in p["entry"].get(
                            "text", ""):
                    failed += 1
                    print("check failed: %s: %s" % (
                        path, p["entry"].get("text")))
            print("%s %dx%d: %s" % (path, width, height,
                                    ", ".join(said) or "loaded"))
            if shots:
                png = b.call("Page.captureScreenshot", {"format": "png"}, s)
                f = os.path.join(shots, "%s-%d.png" % (shot_name(path),
                                                       width))
                with open(f, "wb") as out:
                    out.write(base64.b64decode(png["data"]))
                print("screenshot %s" % f)
    except RuntimeError as e:
        print("web-measure.py: %s (see %s/stderr)" % (e, profile))
        b.close()
        sys.exit(2)
    b.close()
    shutil.rmtree(profile, ignore_errors=True)
    sys.exit(1 if failed else 0)


main()
