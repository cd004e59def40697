# lib-smtp.sh - what the mail and daemon tests share: a real SMTP server
# (Debian's python3-aiosmtpd with tests/catcher.py) on loopback, and the
# helpers to read what it kept. Source it after lib.sh.
#
#   free_port              a free TCP port on 127.0.0.1
#   smtpd_start BOX PORTF  start the server on a free port (written to
#                          PORTF), each message it accepts kept as
#                          BOX/msg-N.eml; it is stopped when the test
#                          script exits, however it ends
#   headers FILE           the unfolded header block of a message, CRs
#                          removed
#   wait_for SECONDS WHAT SQL
#                          until the query prints 1; on a timeout, the
#                          jobs table and the daemon's log (daemon.log)

SMTP_PY=/usr/bin/python3
"$SMTP_PY" -c 'import aiosmtpd' 2>/dev/null ||
	skip_all "python3-aiosmtpd is not installed (make setup installs it)"

free_port() {
	"$SMTP_PY" -c 'import socket; s = socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

stop_smtpd() {
	[ -s "$TRASH/smtpd.pid" ] && kill "$(cat "$TRASH/smtpd.pid")" 2>/dev/null
	return 0
}
test_atexit stop_smtpd

smtpd_start() {
	mkdir -p "$1" && sport=$(free_port) && echo "$sport" > "$2" &&
	{ PYTHONPATH="$SRC/tests" "$SMTP_PY" -m aiosmtpd -n \
		-l "127.0.0.1:$sport" -c catcher.Catcher "$1" \
		> "$TRASH/smtpd.log" 2>&1 &
	  echo $! > "$TRASH/smtpd.pid"; } &&
	i=0 && until "$SMTP_PY" -c "import socket
socket.create_connection((\"127.0.0.1\", $sport), 1)" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || { cat "$TRASH/smtpd.log"; return 1; }
		sleep 0.1
	done
}

headers() {
	tr -d "\r" < "$1" | sed "/^$/q" |
		sed -e ":a" -e "\$!N;s/\n[ \t]/ /;ta" -e "P;D"
}

wait_for() {
	i=0
	until [ "$(sql "$3")" = 1 ]; do
		i=$((i + 5))
		if [ $i -gt "$1" ]; then
			echo "timed out after $1 s waiting for $2"
			sql "SELECT id, kind, status, base_note, report_note
			     FROM jobs"
			tail -30 "$TRASH/daemon.log" 2>/dev/null
			return 1
		fi
		sleep 5
	done
}
