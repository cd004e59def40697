# catcher.py - the SMTP server's handler for the mail tests (Debian's
# python3-aiosmtpd on loopback):
#
#   PYTHONPATH=tests python3 -m aiosmtpd -n -l 127.0.0.1:PORT \
#       -c catcher.Catcher BOX
#
# stores every message it accepts as BOX/msg-N.eml (its envelope in
# BOX/msg-N.env) and refuses while BOX/mode says so: "rcpt" (550 to every
# recipient), "data" (550 to the message), "defer" (451: try later).
#
# Every message is held to mmci's mail rules first (report.h): a subject
# of at most 100 characters and body lines of at most 80 columns (a line
# that is only a URL excepted). A message that breaks one is refused
# with 550 naming the line, kept as BOX/refused-N.eml, and noted in
# BOX/too-wide: the mail is "failed" in mmci's mails table and the test
# that expected it delivered fails.
import email
import email.policy
import os
import re

SUBJECT_MAX = 100
COLUMNS = 80


def mail_rules(raw):
    """None when @raw follows the rules, else why not."""
    m = email.message_from_bytes(raw, policy=email.policy.default)
    subject = str(m.get("Subject", ""))
    if len(subject) > SUBJECT_MAX:
        return "subject of %d characters (over %d)" % (len(subject),
                                                        SUBJECT_MAX)
    body = m.get_body(preferencelist=("plain",))
    text = body.get_content() if body else ""
    for i, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if len(line) > COLUMNS and not re.fullmatch(r"\s*\S*://\S*", line):
            return "body line %d of %d columns (over %d)" % (i, len(line),
                                                             COLUMNS)
    return None


class Catcher:
    def __init__(self, outdir):
        self.outdir = outdir
        self.n = 0

    @classmethod
    def from_cli(cls, parser, *args):
        return cls(*args)

    def mode(self):
        try:
            with open(os.path.join(self.outdir, "mode")) as f:
                return f.read().strip()
        except OSError:
            return ""

    async def handle_RCPT(self, server, session, envelope, address, options):
        if self.mode() == "rcpt":
            return "550 no"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.mode() == "data":
            return "550 no"
        if self.mode() == "defer":
            return "451 4.3.0 try again later"
        why = mail_rules(envelope.original_content)
        if why:
            self.n += 1
            with open(os.path.join(self.outdir, "refused-%d.eml" % self.n),
                      "wb") as f:
                f.write(envelope.original_content)
            with open(os.path.join(self.outdir, "too-wide"), "a") as f:
                f.write("msg %d: %s\n" % (self.n, why))
            return "550 5.6.0 mmci's mail rules: " + why
        self.n += 1
        base = os.path.join(self.outdir, "msg-%d" % self.n)
        with open(base + ".env", "w") as f:
            f.write("from %s\n" % envelope.mail_from)
            for r in envelope.rcpt_tos:
                f.write("rcpt %s\n" % r)
        with open(base + ".tmp", "wb") as f:
            f.write(envelope.original_content)
        os.rename(base + ".tmp", base + ".eml")
        return "250 Message accepted for delivery"
