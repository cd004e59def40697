#!/usr/bin/env python3
# web-check.py - assertions on a DOM dumped by headless Chromium
# (chromium --headless --dump-dom URL > FILE), for tests/t0900-web.sh.
#
#   web-check.py FILE CHECK...     exit 0 when every check holds
#
# checks (the last field may contain ':'):
#   id:ID              an element with this id exists
#   text:ID:STRING     the text of element ID contains STRING
#   notext:ID:STRING   element ID exists and its text lacks STRING
#   h1:STRING          the text of the first <h1> contains STRING
#   notag:TAG          no <TAG> element anywhere; for script, none but
#                      the pages' own <script src="/filter.js"> (an
#                      external file of ours, empty), so that a hostile
#                      string that became a tag is still caught
#   tags:TAG:N         at least N <TAG> elements
#   rows:ID:N          table ID has exactly N rows in its <tbody>
#   minrows:ID:N       at least N rows
#   href:URL           an <a href="URL"> exists
#   cell:ID:STRING     a <td> of table ID has exactly the text STRING
#   plot:N:TITLE       a gnuplot SVG line titled TITLE with exactly N
#                      points (axes, grid and key do not count)
#   plotin:ID:N:TITLE  inside element ID, the lines titled TITLE have N
#                      points in all (0: no such line)
#   plots              list every plotted line and its points (debug)
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "source", "track", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children = []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text()
                       for c in self.children)

    def walk(self):
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.walk()


class Tree(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def rows(t, ident):
    table = by_id(t, ident)
    if table is None:
        return -1
    return sum(1 for n in table.walk() if n.tag == "tr" and
               n.parent is not None and n.parent.tag == "tbody")


def by_id(t, ident):
    for n in t.root.walk():
        if n.attrs.get("id") == ident:
            return n
    return None


def plot_lines(t, root=None, add=False):
    """{title: points} of the lines gnuplot drew: each line is a
    <g id="gnuplot_plot_K"> holding its key <text> and one <use> marker
    per point, plus one more for the key's sample; with add, the lines
    of one title (panels of a multiplot) are summed"""
    lines = {}
    for g in (root or t.root).walk():
        if g.tag != "g" or not g.attrs.get("id", "").startswith("gnuplot_plot_"):
            continue
        title = next((n.text() for n in g.walk() if n.tag == "text"), "")
        n = sum(1 for n in g.walk() if n.tag == "use") - 1
        lines[title] = lines.get(title, 0) + n if add else n
    return lines


def ours(n):
    """the index's script (web/filter.js), as render.c links it"""
    return n.tag == "script" and n.attrs.get("src") == "/filter.js" and \
        not n.text().strip() and set(n.attrs) <= {"src", "defer"}


def check(t, spec):
    kind, _, rest = spec.partition(":")
    nodes = list(t.root.walk())
    if kind == "id":
        return by_id(t, rest) is not None
    if kind == "text":
        ident, _, s = rest.partition(":")
        n = by_id(t, ident)
        return n is not None and s in n.text()
    if kind == "notext":
        ident, _, s = rest.partition(":")
        n = by_id(t, ident)
        return n is not None and s not in n.text()
    if kind == "h1":
        h1 = [n for n in nodes if n.tag == "h1"]
        return bool(h1) and rest in h1[0].text()
    if kind == "notag":
        return not any(n.tag == rest and not ours(n) for n in nodes)
    if kind == "tags":
        tag, _, num = rest.partition(":")
        return sum(1 for n in nodes if n.tag == tag) >= int(num)
    if kind in ("rows", "minrows"):
        ident, _, num = rest.partition(":")
        got = rows(t, ident)
        return got == int(num) if kind == "rows" else got >= int(num)
    if kind == "href":
        return any(n.tag == "a" and n.attrs.get("href") == rest
                   for n in nodes)
    if kind == "cell":
        ident, _, s = rest.partition(":")
        n = by_id(t, ident)
        return n is not None and any(c.tag == "td" and c.text() == s
                                     for c in n.walk())
    if kind == "plot":
        num, _, title = rest.partition(":")
        return plot_lines(t).get(title) == int(num)
    if kind == "plotin":
        ident, _, rest = rest.partition(":")
        num, _, title = rest.partition(":")
        n = by_id(t, ident)
        if n is None:
            return False
        return plot_lines(t, n, True).get(title, 0) == int(num)
    if kind == "plots":
        for title, n in sorted(plot_lines(t).items()):
            print("plot %d:%s" % (n, title))
        return True
    raise SystemExit("unknown check '%s'" % spec)


def main():
    if len(sys.argv) < 3:
        raise SystemExit("usage: web-check.py FILE CHECK...")
    t = Tree()
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        t.feed(f.read())
    failed = [c for c in sys.argv[2:] if not check(t, c)]
    for c in failed:
        print("check failed: %s" % c)
    if failed:
        # which page was checked: a 503 or error page fails every check
        title = next((n.text() for n in t.root.walk() if n.tag == "title"),
                     "(none)")
        print("the page's title: %s" % title.strip())
    sys.exit(1 if failed else 0)


main()
