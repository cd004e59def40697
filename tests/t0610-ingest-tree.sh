#!/bin/sh
# t0610-ingest-tree: `mmci ingest tree` fetches a fake mm tree made here,
# over file:// and through a real `git daemon` on loopback, into a small
# tree (MMCI_TREE, created by the ingest): heads, their commits, rewrites,
# fetch errors and queued jobs in SQLite. No network, no `mmci init`.
. "$(dirname "$0")/lib.sh"

export MMCI_TREE="$TRASH/tree"
unset MMCI_REMOTES
export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL='author@example.org'
export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL='c@example.org'

git daemon -h 2>&1 | grep -q -- --base-path ||
	skip_all "git daemon is not installed"

# a TCP port nothing listens on (python asks the kernel; ss as fallback)
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null && return
	while :; do
		p=$(( $(od -An -N2 -tu2 /dev/urandom) % 30000 + 20000 ))
		ss -ltnH "sport = :$p" | grep -q . || { echo $p; return; }
	done
}
PORT=$(free_port)
DEAD_PORT=$(free_port)
while [ "$DEAD_PORT" = "$PORT" ]; do DEAD_PORT=$(free_port); done
GIT_URL="git://127.0.0.1:$PORT/mm.git"
FILE_URL="file://$TRASH/srv/mm.git"
PIDFILE="$TRASH/git-daemon.pid"
DAEMON_PID=

stop_daemon() {
	[ -n "$DAEMON_PID" ] || { [ -f "$PIDFILE" ] && DAEMON_PID=$(cat "$PIDFILE"); }
	[ -n "$DAEMON_PID" ] && kill "$DAEMON_PID" 2>/dev/null
	DAEMON_PID=
	return 0
}
test_atexit stop_daemon

# count QUERY: sql with the usual quoting spared
heads() { sql "SELECT count(*) FROM heads"; }
jobs() { sql "SELECT count(*) FROM jobs"; }
subjects() {
	sql "SELECT group_concat(subject, '|') FROM (SELECT subject FROM
	     head_commits WHERE head_id = $1 ORDER BY position)"
}

test_expect 'set up a fake mm tree and serve it with git daemon' '
	git init -q -b mm-new work && cd work &&
	for n in one two three; do
		echo $n > $n.c && git add $n.c && git commit -qm "mm: $n"
	done &&
	git tag v1 HEAD~1 && cd .. &&
	mkdir srv && git clone -q --bare work srv/mm.git &&
	git -C work remote add origin "$TRASH/srv/mm.git" &&
	git daemon --export-all --base-path="$TRASH/srv" --port=$PORT \
		--reuseaddr --listen=127.0.0.1 --detach --pid-file="$PIDFILE" &&
	for i in $(seq 100); do
		git ls-remote "$GIT_URL" > ls 2>/dev/null && break
		sleep 0.1
	done &&
	grep -q "refs/heads/mm-new" ls
'

test_expect '--list shows the default remote, akpm mm.git mm-new' '
	"$MMCI" ingest tree --list > out &&
	grep -q "^mm	https://git.kernel.org/pub/scm/linux/kernel/git/akpm/mm.git	(database)" out &&
	grep -q "^  mm-new .*never fetched" out &&
	[ ! -e tree ]
'

test_expect 'first ingest over file:// creates the tree, records head and commits' '
	"$MMCI" ingest tree --remote mm="$FILE_URL" > out &&
	cat out &&
	grep -q "^mm/mm-new: new head [0-9a-f]\{12\} (first fetch), 3 commits, head #1, job #1 queued" out &&
	[ "$(heads)" = 1 ] &&
	[ "$(sql "SELECT kind || \" \" || nr_commits || \" \" || capped ||
	     \" \" || ifnull(prev_commit, \"-\") FROM heads")" = "initial 3 0 -" ] &&
	[ "$(sql "SELECT commit_id FROM heads")" = \
	  "$(git -C work rev-parse mm-new)" ] &&
	[ "$(subjects 1)" = "mm: three|mm: two|mm: one" ] &&
	[ "$(sql "SELECT DISTINCT author FROM head_commits")" = \
	  "A U Thor <author@example.org>" ] &&
	[ "$(git -C tree rev-parse refs/remotes/mm/mm-new)" = \
	  "$(git -C work rev-parse mm-new)" ] &&
	[ "$(sql "SELECT kind, head_id, status FROM jobs")" = "nightly|1|queued" ]
'

# libgit2 1.5 truncates FETCH_HEAD on every fetch: it may exist, empty
test_expect 'the fetch touches only refs/remotes: no tags, no config, no FETCH_HEAD' '
	[ -z "$(git -C tree tag)" ] &&
	! git -C tree config --get-regexp "^remote\." &&
	[ ! -s tree/.git/FETCH_HEAD ] &&
	git -C tree for-each-ref --format="%(refname)" > refs &&
	[ "$(cat refs)" = "refs/remotes/mm/mm-new" ] &&
	git -C tree tag debian-6.12 mm/mm-new~2 &&
	git -C tree branch build mm/mm-new~1 &&
	git -C tree rev-parse debian-6.12 build > local-refs
'

test_expect 'a second ingest with no change records nothing and says up to date' '
	"$MMCI" ingest tree --remote mm="$FILE_URL" > out &&
	cat out &&
	grep -q "^mm/mm-new: up to date at [0-9a-f]\{12\}$" out &&
	grep -q "^up to date$" out &&
	[ "$(heads)" = 1 ] && [ "$(jobs)" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM head_commits")" = 3 ]
'

test_expect 'new commits through git daemon: a new head with exactly those' '
	old=$(git -C work rev-parse mm-new) &&
	cd work && for n in four five; do
		echo $n > $n.c && git add $n.c && git commit -qm "mm: $n"
	done && git push -q origin mm-new && cd .. &&
	"$MMCI" ingest tree --remote mm="$GIT_URL" > out &&
	cat out &&
	grep -q "^mm/mm-new: [0-9a-f]\{12\}\.\.[0-9a-f]\{12\} fast-forward, 2 new commits, head #2, job #2 queued" out &&
	[ "$(heads)" = 2 ] && [ "$(jobs)" = 2 ] &&
	[ "$(sql "SELECT kind || \" \" || nr_commits || \" \" || prev_commit
	     || \" \" || url FROM heads WHERE id = 2")" = \
	  "fast-forward 2 $old $GIT_URL" ] &&
	[ "$(subjects 2)" = "mm: five|mm: four" ] &&
	[ "$(sql "SELECT commit_id FROM head_commits WHERE head_id = 2
	     AND position = 2")" = "$(git -C work rev-parse mm-new~1)" ] &&
	"$MMCI" ingest tree --remote mm="$GIT_URL" > out2 &&
	grep -q "^up to date$" out2 && [ "$(heads)" = 2 ]
'

test_expect 'a forced push is recorded as a rewrite with its merge base' '
	old=$(git -C work rev-parse mm-new) &&
	base=$(git -C work rev-parse mm-new~3) &&
	cd work && git reset -q --hard HEAD~3 &&
	echo "three v2" > three.c && git add three.c &&
	git commit -qm "mm: three v2" && git push -qf origin mm-new && cd .. &&
	"$MMCI" ingest tree --remote mm="$GIT_URL" > out &&
	cat out &&
	grep -q "forced update (rewrite, merge base [0-9a-f]\{12\}), 1 new commit, 3 dropped, head #3" out &&
	[ "$(sql "SELECT kind || \" \" || merge_base || \" \" || prev_commit ||
	     \" \" || nr_commits || \" \" || nr_dropped FROM heads WHERE id = 3")" = \
	  "rewrite $base $old 1 3" ] &&
	[ "$(subjects 3)" = "mm: three v2" ] &&
	[ "$(git -C tree rev-parse mm/mm-new)" = "$(git -C work rev-parse mm-new)" ] &&
	[ "$(jobs)" = 3 ]
'

test_expect 'unreachable remotes and a missing branch: errors recorded, the rest fetched' '
	git -C work branch mm-stable HEAD~1 && git -C work push -q origin mm-stable &&
	export MMCI_REMOTES="mm=$GIT_URL#mm-new,nosuch,mm-stable;
		dead=git://127.0.0.1:$DEAD_PORT/mm.git  gone=file://$TRASH/nowhere.git" &&
	set +e; "$MMCI" ingest tree > out 2> err; rc=$?; set -e &&
	cat out err &&
	[ $rc = 1 ] &&
	grep -q "^error: remote .mm. (git://127.0.0.1:$PORT/mm.git) has no branch .nosuch.$" err &&
	grep -q "^error: cannot fetch branch .mm-new. of remote .dead. (git://127.0.0.1:$DEAD_PORT/mm.git): ." err &&
	grep -q "^error: cannot fetch branch .mm-new. of remote .gone. (file://$TRASH/nowhere.git): ." err &&
	grep -q "^mm/mm-new: up to date" out &&
	grep -q "^mm/mm-stable: new head [0-9a-f]\{12\} (first fetch), 2 commits, head #4, job #4 queued" out &&
	grep -q "^1 new head, 1 up to date, 3 errors$" out &&
	[ "$(sql "SELECT group_concat(remote || \"/\" || branch, \" \") FROM
	     (SELECT * FROM fetch_errors ORDER BY remote, branch)")" = \
	  "dead/mm-new gone/mm-new mm/nosuch" ] &&
	[ "$(sql "SELECT count(*) FROM fetch_errors WHERE error LIKE
	     \"%remote %\" AND url <> \"\" AND at > 0")" = 3 ] &&
	[ "$(git -C tree rev-parse mm/mm-stable)" = "$(git -C work rev-parse mm-stable)" ] &&
	[ "$(heads)" = 4 ] && [ "$(jobs)" = 4 ]
'

test_expect '--list with MMCI_REMOTES shows each branch and its last head' '
	export MMCI_REMOTES="mm=$GIT_URL#mm-new,mm-stable dead=git://127.0.0.1:$DEAD_PORT/x" &&
	"$MMCI" ingest tree --list > out &&
	cat out &&
	grep -q "^mm	$GIT_URL	(MMCI_REMOTES)" out &&
	grep -q "^  mm-new  *head #3 [0-9a-f]\{12\} rewrite, 1 commits" out &&
	grep -q "^  mm-stable  *head #4 [0-9a-f]\{12\} initial, 2 commits" out &&
	grep -q "^dead	" out && grep -q "^  mm-new  *never fetched" out
'

test_expect '--save stores a remote, --forget drops one, a plain ingest uses the table' '
	"$MMCI" ingest tree --remote up="$FILE_URL" --branch mm-stable --save > out &&
	grep -q "^up/mm-stable: new head" out &&
	"$MMCI" ingest tree --forget mm > out && grep -q "forgot remote .mm." out &&
	"$MMCI" ingest tree --list > out &&
	[ "$(grep -c "^[^ ]" out)" = 1 ] && grep -q "^up	$FILE_URL	(database)" out &&
	"$MMCI" ingest tree > out && grep -q "^up/mm-stable: up to date" out &&
	"$MMCI" ingest tree --remote up --branch mm-new > out &&
	grep -q "^up/mm-new: new head" out &&
	[ "$(sql "SELECT branches FROM remotes WHERE name = \"up\"")" = mm-stable ] &&
	set +e; "$MMCI" ingest tree --forget mm 2> err; rc=$?; set -e &&
	[ $rc = 1 ] && grep -q "no remote .mm. in the remotes table" err
'

test_expect '--max-commits caps the commits recorded and says so' '
	"$MMCI" ingest tree --remote capped="$GIT_URL" --max-commits 2 > out &&
	cat out &&
	grep -q "^capped/mm-new: new head [0-9a-f]\{12\} (first fetch), 2 commits (capped: only the newest 2 recorded)" out &&
	id=$(sql "SELECT max(id) FROM heads") &&
	[ "$(sql "SELECT nr_commits || \" \" || capped FROM heads WHERE id = $id")" = "2 1" ] &&
	[ "$(subjects $id)" = "mm: three v2|mm: two" ]
'

test_expect 'every new head queued exactly one nightly job' '
	[ "$(sql "SELECT count(*) FROM heads")" = 7 ] &&
	[ "$(sql "SELECT count(DISTINCT head_id) FROM jobs WHERE kind =
	     \"nightly\" AND status = \"queued\"")" = 7 ] &&
	[ "$(jobs)" = 7 ]
'

test_expect 'the tree'"'"'s own tags and branches were never touched' '
	git -C tree rev-parse debian-6.12 build > now-refs &&
	cmp local-refs now-refs && [ "$(git -C tree tag)" = debian-6.12 ] &&
	[ "$(git -C tree for-each-ref --format="%(refname)" refs/heads)" = refs/heads/build ]
'

test_expect 'a re-created tree: same head is up to date, a lost one is unknown' '
	rm -rf tree &&
	"$MMCI" ingest tree --remote mm="$GIT_URL" > out &&
	grep -q "^mm/mm-new: up to date" out && [ "$(heads)" = 7 ] &&
	rm -rf tree &&
	old=$(git -C work rev-parse mm-new) &&
	cd work && git checkout -q --orphan fresh && git commit -qm "mm: fresh" &&
	git push -qf origin fresh:mm-new && cd .. &&
	"$MMCI" ingest tree --remote mm="$GIT_URL" > out &&
	cat out &&
	grep -q "^mm/mm-new: [0-9a-f]\{12\} -> [0-9a-f]\{12\}, the previous head is not in the tree: 1 commit from the new head, head #8" out &&
	[ "$(sql "SELECT kind || \" \" || prev_commit || \" \" || nr_commits ||
	     \" \" || ifnull(merge_base, \"-\") FROM heads WHERE id = 8")" = \
	  "unknown $old 1 -" ] &&
	[ "$(subjects 8)" = "mm: fresh" ] && [ "$(jobs)" = 8 ]
'

test_expect 'a history replaced by an unrelated one: rewrite without merge base' '
	cd work && git checkout -q --orphan other && git commit -qm "mm: other" &&
	git push -qf origin other:mm-new && cd .. &&
	"$MMCI" ingest tree --remote mm="$GIT_URL" > out &&
	cat out &&
	grep -q "forced update (rewrite, merge base none), 1 new commit, 1 dropped, head #9" out &&
	[ "$(sql "SELECT kind || \" \" || ifnull(merge_base, \"-\") || \" \" ||
	     nr_dropped FROM heads WHERE id = 9")" = "rewrite - 1" ]
'

test_expect 'bad names are refused before anything is fetched' '
	set +e
	"$MMCI" ingest tree --remote "bad name=$FILE_URL" 2> err1; rc1=$?
	"$MMCI" ingest tree --remote x="$FILE_URL" --branch "a..b" 2> err2; rc2=$?
	"$MMCI" ingest tree --remote nosuch 2> err3; rc3=$?
	"$MMCI" ingest tree --save 2> /dev/null; rc4=$?
	set -e
	[ $rc1 = 1 ] && grep -q "is not a valid remote name" err1 &&
	[ $rc2 = 1 ] && grep -q "a..b. is not a valid branch name" err2 &&
	[ $rc3 = 1 ] && grep -q "no remote .nosuch. is configured" err3 &&
	[ $rc4 = 129 ] && [ "$(heads)" = 9 ]
'

test_expect 'an existing directory that is not a repository is refused' '
	mkdir notrepo && echo x > notrepo/file &&
	set +e; MMCI_TREE="$TRASH/notrepo" "$MMCI" ingest tree \
		--remote mm="$FILE_URL" 2> err; rc=$?; set -e &&
	[ $rc = 1 ] && grep -q "is not a git repository" err
'

stop_daemon
test_done
