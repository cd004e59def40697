# lib-http.sh - a real nginx on a free loopback port for the ingest tests,
# serving files as a public-inbox does. Source it after lib.sh.
#
#   nginx_start [SERVER-DIRECTIVES]  start it (in a test_expect); the port
#                                    is in $TRASH/port afterwards
#   serve FILE INBOX MSGID           FILE as INBOX/MSGID/t.mbox.gz
#   requests URI, statuses URI       mmci's requests for URI in the log
# nginx is stopped when the test script exits, however it ends.

NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || skip_all "nginx is not installed (make setup installs nginx-light)"
command -v curl >/dev/null || skip_all "curl is not installed (make setup installs it)"
WWW="$TRASH/www"
LOG="$TRASH/nginx/access.log"

serve() {
	mkdir -p "$WWW/$2/$3" && gzip -9nc < "$1" > "$WWW/$2/$3/t.mbox.gz"
}

# requests nginx logged for a path (the raw, escaped request URI), mmci's
# only: the test's own curl checks are left out
requests() { grep " \"$1\" " "$LOG" | grep -c "\"mmci/" || true; }
statuses() {
	grep " \"$1\" " "$LOG" | grep "\"mmci/" | cut -d' ' -f2 | tr '\n' ' '
}

# stop_nginx: stop it and wait until it is gone (it runs from lib.sh's
# cleanup too, before the trash directory is removed)
stop_nginx() { stop_pidfile "$TRASH/nginx/nginx.pid"; }
test_atexit stop_nginx

nginx_start() {
	port=$(python3 -c "import socket; s = socket.socket();
s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])") &&
	echo "$port" > "$TRASH/port" &&
	mkdir -p "$TRASH/nginx/tmp" "$WWW" &&
	cat > "$TRASH/nginx/nginx.conf" <<-EOC &&
	daemon on;
	worker_processes 1;
	pid $TRASH/nginx/nginx.pid;
	error_log $TRASH/nginx/error.log;
	events { worker_connections 64; }
	http {
		log_format t "\$msec \$status \"\$request_uri\" \"\$http_if_none_match\" \"\$http_user_agent\"";
		access_log $LOG t;
		client_body_temp_path $TRASH/nginx/tmp/body;
		proxy_temp_path $TRASH/nginx/tmp/proxy;
		fastcgi_temp_path $TRASH/nginx/tmp/fastcgi;
		uwsgi_temp_path $TRASH/nginx/tmp/uwsgi;
		scgi_temp_path $TRASH/nginx/tmp/scgi;
		types { application/gzip gz; application/atom+xml atom; }
		default_type application/octet-stream;
		etag on;
		gzip off;
		limit_req_zone \$binary_remote_addr zone=busy:1m rate=30r/m;
		server {
			listen 127.0.0.1:$port;
			root $WWW;
			${1:-}
		}
	}
	EOC
	"$NGINX" -e "$TRASH/nginx/error.log" -p "$TRASH/nginx" \
		-c "$TRASH/nginx/nginx.conf" &&
	i=0 && until curl -s -o /dev/null "http://127.0.0.1:$port/"; do
		i=$((i + 1)); [ $i -lt 50 ] || return 1; sleep 0.1; done
}
