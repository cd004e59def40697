#!/bin/sh
# t0965-daemon-settings: `mmci daemon` refuses to start on a bad setting,
# from the environment or the settings file (MMCI_CONFIG), with one error
# naming the setting and the value and exit status 78 (EX_CONFIG, which
# mmci.service does not restart on), before it opens the database. A bad
# settings file sent with SIGHUP is not used and the daemon goes on. A
# settings file that holds the SMTP password is refused, exit 78, unless
# only its owner can read it. The commands read the same settings as
# strictly. No guest, no server: part
# of `make check`.
. "$(dirname "$0")/lib.sh"

unset MMCI_CONFIG MMCI_SOURCES MMCI_POLL_S MMCI_PER_PATCH MMCI_MAIL_SEND \
	MMCI_SMTP_TLS MMCI_SMTP_TIMEOUT MMCI_FETCH_ATTEMPTS \
	MMCI_FETCH_BACKOFF_MS MMCI_FETCH_MAX_BACKOFF_MS MMCI_FETCH_INTERVAL_MS \
	MMCI_FETCH_TIMEOUT MMCI_FETCH_MAX_SIZE MMCI_KVM_DEADLINE_S \
	MMCI_VERBOSE MMCI_ACCEL MMCI_WEB_LISTEN MMCI_POLL_TIMEOUT_S \
	MMCI_SMTP_PASSWORD

stop_daemon() {
	[ -s "$TRASH/daemon.pid" ] && kill "$(cat "$TRASH/daemon.pid")" 2>/dev/null
	return 0
}
test_atexit stop_daemon

# refused NAME=VALUE REGEX: the daemon does not start with that setting;
# its error line matches "error: REGEX" exactly
refused() {
	rc=0
	env "$1" "$MMCI" daemon --once --no-web > out 2> err || rc=$?
	sed "s/^/  $1: /" err
	[ $rc = 78 ] || { echo "exit $rc, not 78"; return 1; }
	grep -qx "error: $2" err || { echo "no line 'error: $2'"; return 1; }
	grep -qx "error: mmci daemon does not start with a bad setting .*" err &&
	[ "$(wc -l < err)" = 2 ] &&
	! grep -q "mmci daemon: pid" out
}

test_expect 'a bad number or word in the environment: refused, named' '
	refused MMCI_POLL_S=3OO \
		"MMCI_POLL_S=.3OO. is not a whole number in 1\.\.[0-9]*" &&
	refused MMCI_POLL_S=0 \
		"MMCI_POLL_S=.0. is not a whole number in 1\.\.[0-9]*" &&
	refused MMCI_POLL_S=-300 \
		"MMCI_POLL_S=.-300. is not a whole number in 1\.\.[0-9]*" &&
	refused MMCI_POLL_TIMEOUT_S=30m \
		"MMCI_POLL_TIMEOUT_S=.30m. is not a whole number in 1\.\.86400" &&
	refused MMCI_MAIL_SEND=yes "MMCI_MAIL_SEND=.yes. is not 0 or 1" &&
	refused MMCI_PER_PATCH=2 "MMCI_PER_PATCH=.2. is not 0 or 1" &&
	refused MMCI_SMTP_TLS=on "MMCI_SMTP_TLS=.on. is not 0 or 1" &&
	refused MMCI_SMTP_TIMEOUT=60s \
		"MMCI_SMTP_TIMEOUT=.60s. is not a whole number in 1\.\.[0-9]*" &&
	refused MMCI_FETCH_ATTEMPTS=x \
		"MMCI_FETCH_ATTEMPTS=.x. is not a whole number in 1\.\.[0-9]*" &&
	refused MMCI_FETCH_INTERVAL_MS=1.5 \
		"MMCI_FETCH_INTERVAL_MS=.1\.5. is not a whole number in 0\.\.[0-9]*" &&
	refused MMCI_FETCH_MAX_SIZE=12Q \
		"MMCI_FETCH_MAX_SIZE=.12Q. is not a size .*" &&
	refused MMCI_KVM_DEADLINE_S=601 \
		"MMCI_KVM_DEADLINE_S=.601. is not a whole number in 1\.\.600" &&
	refused MMCI_SOURCES=discover,trees \
		"MMCI_SOURCES=.discover,trees. is not a list of .discover., .tree., .commits. or .inbox." &&
	refused MMCI_ACCEL=kmv "MMCI_ACCEL=.kmv. is not .kvm. or .tcg. (or empty)" &&
	[ ! -e "$MMCI_DB" ]
'

test_expect 'a bad value in the settings file: refused, naming file and line' '
	printf "%s\n" "# the daemon" "MMCI_SOURCES=" "MMCI_POLL_S=3OO" \
		> "$TRASH/bad.conf" &&
	rc=0 && MMCI_CONFIG="$TRASH/bad.conf" "$MMCI" daemon --once --no-web \
		> out 2> err || rc=$?
	cat err && [ $rc = 78 ] &&
	grep -qx "error: $TRASH/bad.conf:3: MMCI_POLL_S=.3OO. is not a whole number in 1\.\.[0-9]*" err &&
	grep -q "settings file .$TRASH/bad.conf. not used" err &&
	! grep -q "mmci daemon: pid" out && [ ! -e "$MMCI_DB" ]
'

test_expect 'a settings file with a password that others can read: refused' '
	printf "%s\n" "MMCI_SOURCES=" "MMCI_SMTP_PASSWORD=hunter2" \
		> "$TRASH/secret.conf" &&
	chmod 644 "$TRASH/secret.conf" &&
	rc=0 && MMCI_CONFIG="$TRASH/secret.conf" "$MMCI" daemon --once --no-web \
		> out 2> err || rc=$?
	cat err && [ $rc = 78 ] &&
	grep -qx "error: the settings file .$TRASH/secret.conf. holds a password and is mode 0644: readable by everyone; chmod 600 it" err &&
	! grep -q "mmci daemon: pid" out && [ ! -e "$MMCI_DB" ] &&
	chmod 600 "$TRASH/secret.conf" &&
	MMCI_CONFIG="$TRASH/secret.conf" "$MMCI" daemon --once --no-web \
		> out 2> err &&
	cat err && grep -q "settings: 2 from .$TRASH/secret.conf." err
'

test_expect 'the web address is checked too: exit 1, naming where it came from' '
	rc=0 && MMCI_SOURCES= MMCI_WEB_LISTEN=127.0.0.1:http \
		"$MMCI" daemon --once > out 2> err || rc=$?
	cat err && [ $rc = 1 ] &&
	grep -qx "error: the web pages cannot be served on 127.0.0.1:http (MMCI_WEB_LISTEN)" err
'

test_expect 'good values, empty ones and the defaults start it' '
	printf "%s\n" "MMCI_SOURCES=" "MMCI_POLL_S=\"5\"" "MMCI_MAIL_SEND=0" \
		"MMCI_FETCH_MAX_SIZE=64M" > "$TRASH/good.conf" &&
	MMCI_CONFIG="$TRASH/good.conf" MMCI_ACCEL= MMCI_VERBOSE=1 \
		"$MMCI" daemon --once --no-web > out 2> err &&
	cat out err &&
	grep -q "^mmci daemon: pid [0-9]*, no web pages$" out &&
	grep -q "settings: 4 from .$TRASH/good.conf." err
'

test_expect 'SIGHUP with a bad settings file: not used, the daemon goes on' '
	printf "%s\n" "MMCI_SOURCES=" "MMCI_POLL_S=2" > "$TRASH/live.conf" &&
	{ MMCI_CONFIG="$TRASH/live.conf" "$MMCI" daemon --no-web \
		> daemon.out 2> "$TRASH/daemon.log" &
	  echo $! > "$TRASH/daemon.pid"; } &&
	pid=$(cat "$TRASH/daemon.pid") &&
	i=0 && until grep -q "^mmci daemon: pid" daemon.out; do
		i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done &&
	printf "%s\n" "MMCI_MAIL_SEND=0" "MMCI_POLL_S=1x" > "$TRASH/live.conf" &&
	kill -HUP "$pid" &&
	i=0 && until grep -q "settings file .* not used" "$TRASH/daemon.log"; do
		i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done &&
	cat "$TRASH/daemon.log" &&
	grep -q "live.conf:2: MMCI_POLL_S=.1x. is not a whole number" \
		"$TRASH/daemon.log" &&
	sleep 1 && kill -0 "$pid" &&
	printf "%s\n" "MMCI_SOURCES=" "MMCI_POLL_S=3" "MMCI_MAIL_SEND=0" \
		> "$TRASH/live.conf" &&
	kill -HUP "$pid" &&
	i=0 && until grep -q "settings: 3 from" "$TRASH/daemon.log"; do
		i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done &&
	kill -TERM "$pid" &&
	i=0 && while kill -0 "$pid" 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done
'

test_expect 'the commands read the same settings as strictly' '
	rc=0 && MMCI_VERBOSE=debug "$MMCI" show runs > out 2> err || rc=$?
	cat err && [ $rc = 128 ] &&
	grep -qx "error: MMCI_VERBOSE=.debug. is not a whole number in 0\.\.2" err &&
	rc=0 && MMCI_FETCH_TIMEOUT=2m "$MMCI" ingest series x@example.org \
		> out 2> err || rc=$?
	cat err && [ $rc = 128 ] &&
	grep -qx "error: MMCI_FETCH_TIMEOUT=.2m. is not a whole number in 1\.\.[0-9]*" err &&
	! grep -q "fetch" err
'

test_done
