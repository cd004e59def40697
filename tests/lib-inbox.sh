# lib-inbox.sh - a real public-inbox v2 inbox on loopback, as lore serves
# linux-mm: made with public-inbox-init -V2, mails put in through
# PublicInbox::InboxWritable, served by public-inbox-httpd on a port the
# kernel chose. Source it after lib.sh; it sets HOME and PI_CONFIG to the
# trash directory's (public-inbox keeps its settings there).
#
#   inbox_init NAME DIR        a v2 inbox NAME in DIR, no spam check
#   inbox_deliver NAME FILE... the mails into inbox NAME in one importer
#                              (what public-inbox-mda calls; mda itself
#                              takes 0.8 s a mail here); --roll before a
#                              file starts a new epoch with it
#   inbox_serve                public-inbox-httpd for every inbox, its
#                              port in $TRASH/httpd.port, stopped at exit;
#                              INBOX_PORT is set
#   wait_port FILE             the port a server of ours wrote, once it
#                              answers
#   stop PIDFILE               stop_pidfile (lib.sh), the name t0630 uses
# Needs public-inbox-init, public-inbox-httpd, perl, python3 and curl.

export HOME="$TRASH/home" PI_CONFIG="$TRASH/pi/config"
mkdir -p "$HOME" "$TRASH/pi"

# public-inbox rolls an epoch at about 1 GB (rotate_bytes, V2Writable.pm),
# which no setting changes: --roll sets it to 1 byte for the next mail
cat > "$TRASH/deliver.pl" <<'PLEOF'
use strict; use warnings;
use PublicInbox::Config; use PublicInbox::InboxWritable; use PublicInbox::Eml;
my $name = shift;
my $ibx = PublicInbox::Config->new->lookup_name($name) or die "no inbox $name\n";
my $im = PublicInbox::InboxWritable->new($ibx)->importer(0);
my $def = $im->{rotate_bytes};
for my $f (@ARGV) {
	if ($f eq '--roll') { $im->{rotate_bytes} = 1; next; }
	open my $fh, '<', $f or die "$f: $!";
	my $raw = do { local $/; <$fh> };
	$im->add(PublicInbox::Eml->new(\$raw)) or die "$f: not added\n";
	$im->{rotate_bytes} = $def;
}
$im->done;
PLEOF

# httpd.py PORTFILE ARGS...: public-inbox-httpd on a socket bound here to
# a port the kernel chose, inherited as systemd passes one (LISTEN_FDS)
cat > "$TRASH/httpd.py" <<'PYEOF'
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
port = s.getsockname()[1]
if s.fileno() != 3:
    os.dup2(s.fileno(), 3)
    s.close()
os.set_inheritable(3, True)
os.environ["LISTEN_FDS"] = "1"
os.environ["LISTEN_PID"] = str(os.getpid())
open(sys.argv[1], "w").write("%d\n" % port)
os.execvp("public-inbox-httpd", ["public-inbox-httpd", "-W0"] + sys.argv[2:])
PYEOF

inbox_init() {
	public-inbox-init -V2 -L basic "$1" "$2" "http://127.0.0.1/$1" \
		"$1@kvack.org" &&
	git config -f "$PI_CONFIG" publicinboxmda.spamcheck none
}

inbox_deliver() {
	perl "$TRASH/deliver.pl" "$@"
}

stop() { stop_pidfile "$1"; }
test_atexit 'stop "$TRASH/httpd.pid"'

wait_port() {
	i=0
	until [ -s "$1" ] && curl -s -o /dev/null "http://127.0.0.1:$(cat "$1")/"; do
		i=$((i + 1)); [ $i -lt 100 ] || return 1; sleep 0.1
	done
}

inbox_serve() {
	{ python3 "$TRASH/httpd.py" "$TRASH/httpd.port" -1 "$TRASH/httpd.out" \
		-2 "$TRASH/httpd.err" & echo $! > "$TRASH/httpd.pid"; } &&
	wait_port "$TRASH/httpd.port" &&
	INBOX_PORT=$(cat "$TRASH/httpd.port")
}
