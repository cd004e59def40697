# catcher.py - the SMTP server's handler for the mail tests (Debian's
# python3-aiosmtpd on loopback):
#
#   PYTHONPATH=tests python3 -m aiosmtpd -n -l 127.0.0.1:PORT \
#       -c catcher.Catcher BOX
#
# stores every message it accepts as BOX/msg-N.eml (its envelope in
# BOX/msg-N.env) and refuses while BOX/mode says so: "rcpt" (550 to every
# recipient), "data" (550 to the message), "defer" (451: try later).
import os


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
