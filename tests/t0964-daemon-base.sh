#!/bin/sh
# t0964-daemon-base: the daemon chooses a series job's base as MM CI does
# (daemon/base.h) and records it. A stand-in tree (one file, no kernel):
# a series whose base-commit the tree lacks waits, queued, with the reason
# on the job, and `mmci daemon --once` does not wait for it; when the wait
# is over the series goes on the first of MMCI_BASE_BRANCHES and MMCI_BASE
# it applies to, said on the job and on the first line of its log; a
# series that applies to none fails with each candidate's reason. The job
# children exit at once (a bad option from MMCI_RUN_ARGS): no build.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 > /dev/null || skip_all "sqlite3 is not installed"
unset MMCI_CONFIG MMCI_SOURCES MMCI_POLL_S MMCI_MAIL_SEND MMCI_WEB_LISTEN \
	MMCI_BASE_BRANCHES MMCI_BASE_WAIT_S MMCI_LIBVIRT_URIS
export MMCI_SOURCES= MMCI_RUN_ARGS=--no-such-option MMCI_BASE=v0
export MMCI_TREE="$TRASH/tree"
GIT="git -c user.name=T -c user.email=t@example.org -c init.defaultBranch=main"

queue() {
	sql "INSERT INTO jobs (kind, series_id, status, created_at) VALUES
	     (\"series\", $1, \"queued\", strftime(\"%s\", \"now\") - ${2:-0})"
}

test_expect 'a tree, mm-unstable with a conflicting change, three series' '
	mkdir tree && cd tree && $GIT init -q &&
	printf "a\nb\nc\nd\ne\nf\ng\nh\n" > mm.c && git add mm.c &&
	$GIT commit -qm base && git tag v0 &&
	$GIT checkout -q -b u && sed -i s/^d$/D/ mm.c &&
	$GIT commit -qam "mm: rename d" &&
	git update-ref refs/remotes/mm/mm-unstable HEAD &&
	$GIT checkout -q main && sed -i s/^d$/slow-d/ mm.c &&
	$GIT commit -qam "mm: make d slower" &&
	$GIT format-patch -q -1 --stdout --base=v0 > ../ok.mbox &&
	sed "s/^base-commit: .*/base-commit: 0123456789abcdef0123456789abcdef01234567/" \
		../ok.mbox > ../later.mbox &&
	sed "/^base-commit:/d; s/^-d$/-zz/; s/make d slower/never applies/" \
		../ok.mbox > ../bad.mbox &&
	cd .. && "$MMCI" init --no-tree &&
	"$MMCI" ingest later.mbox && "$MMCI" ingest bad.mbox &&
	[ "$(sql "SELECT count(*) FROM series")" = 2 ]
'

test_expect 'a base-commit not fetched yet: the job waits, --once does not' '
	queue 1 &&
	MMCI_VERBOSE=2 "$MMCI" daemon --once --no-web > out 2> err &&
	cat err &&
	[ "$(sql "SELECT status FROM jobs WHERE id = 1")" = queued ] &&
	[ "$(sql "SELECT not_before > strftime(\"%s\", \"now\") FROM jobs WHERE id = 1")" = 1 ] &&
	sql "SELECT base_note FROM jobs WHERE id = 1" |
		grep -q "waiting for base-commit 0123456789ab, not in the tree yet" &&
	grep -q "job #1: base: waiting for base-commit" err &&
	! grep -q "job #1 started" err
'

test_expect 'after MMCI_BASE_WAIT_S: mm-unstable conflicts, MMCI_BASE applies' '
	# an hour later: the job is due again, its wait (60 s) is over
	sql "UPDATE jobs SET created_at = created_at - 3600, not_before =
	     not_before - 3600 WHERE id = 1" &&
	MMCI_BASE_WAIT_S=60 MMCI_VERBOSE=2 "$MMCI" daemon --once --no-web \
		> out 2> err &&
	cat err &&
	grep -q "job #1 started" err &&
	note=$(sql "SELECT base_note FROM jobs WHERE id = 1") && echo "$note" &&
	echo "$note" | grep -q "base-commit 0123456789ab is not in the tree after 60 s of fetches" &&
	echo "$note" | grep -q "mm-unstable ([0-9a-f]*): patch 1/1 .* does not apply" &&
	echo "$note" | grep -q "mm-new: not in the tree" &&
	echo "$note" | grep -q "v0 ([0-9a-f]*) applies" &&
	head -n 1 "$MMCI_DATA/jobs/1.log" | grep -q "^base: .*v0 (" &&
	# the child had the chosen commit as its base (its bad option ends it)
	grep -q "job #1 started" err &&
	[ "$(sql "SELECT status FROM jobs WHERE id = 1")" = failed ]
'

test_expect 'the series page says which base and why' '
	"$MMCI" web --render --all > out &&
	grep "id=\"base\"" "$MMCI_DATA/www/series/1.html" > base.html &&
	cat base.html && grep -q "job #1 (failed): base: base-commit 0123456789ab is not" base.html &&
	grep -q "v0 ([0-9a-f]*) applies" base.html
'

test_expect 'a series that applies to no candidate: failed, each reason said' '
	queue 2 &&
	MMCI_VERBOSE=2 "$MMCI" daemon --once --no-web > out 2> err &&
	[ "$(sql "SELECT status FROM jobs WHERE id = 2")" = failed ] &&
	err=$(sql "SELECT error FROM jobs WHERE id = 2") && echo "$err" &&
	echo "$err" | grep -q "applies to none of mm-unstable, mm-new, v0" &&
	echo "$err" | grep -q "v0 ([0-9a-f]*): patch 1/1 .* does not apply" &&
	[ "$(sql "SELECT count(*) FROM applies WHERE series_id = 2 AND status = \"failed\"")" = 2 ]
'

test_done
