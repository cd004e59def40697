#!/bin/sh
# t0966-daemon-replay: four nights of linux-mm replayed through one
# unattended `mmci daemon`, and the mails it must send, no more.
#
# The world, all on loopback: a git server (git daemon) whose mm-new is
# rebased on three of the four nights onto a moving mm-unstable; the
# list archive (nginx, public-inbox layout) where three series arrive;
# the mm-commits feed, where akpm's notices say which patches went into
# mm-new; an SMTP server (aiosmtpd) that keeps what it is sent.
#
#   night 1  mm-unstable = B (debian-6.12), mm-new = B + a doc commit.
#            Series 1 (2 patches, base-commit B): patch 2 slows the
#            fsdax rebind (a second pass over the memmap).
#   night 2  akpm takes series 1 into mm-new, rebased onto a new
#            upstream commit (mm-unstable moves): the nightly regression
#            is bisected across the rebase, from the merge-base, to his
#            commit of patch 2, found on the list through its Link:
#            trailer and the mm-commits notice. Series 2 arrives: it
#            claims to make patch 2's check cheap, and its base-commit
#            (mm-unstable with series 1) is not on the server yet.
#   night 3  rebased again; series 1 now in mm-unstable, so series 2's
#            base arrives with this fetch and it is measured. Series 3,
#            a comment fix, arrives on the same base.
#   night 4  rebased a third time; nothing changed that a guest sees.
#
# The outbox then holds exactly three mails: series 1's regression
# (under its cover letter), the nightly regression named by its
# bisection (one mail, in patch 2's thread), series 2's claimed
# improvement (under its patch); none for series 3 (no change) or for
# the nights without a change. Every link is the configured public URL.
# Series 1's bundle, taken from its mail's link, is reproduced by
# `mmci reproduce --bundle` on a second data directory that shares no
# tree, build cache or database with the first: the same medians.
# About 10 min alone here (620 s, ccache warm): 8 kernels built
# incrementally, 22 icount boots of 1 GiB (kernels measured before are
# reused, not booted again; the heads of nights 1 and 3 add only a page
# of Documentation/ and take their parents' kernels and runs), and the
# second side's fetch and cold build.
# mmci-test-needs: vm kernel-build
. "$(dirname "$0")/lib.sh"
export MMCI_ACCEL=tcg
. "$SRC/tests/lib-http.sh"

export MMCI_DATA="$SRC/var" MMCI_TREE="$SRC/var/linux"
need_libvirt
[ -f /usr/src/linux-source-6.12.tar.xz ] ||
	skip_all "no /usr/src/linux-source-6.12.tar.xz (run make setup)"
PY=/usr/bin/python3
. "$SRC/tests/lib-smtp.sh"
git daemon -h 2>&1 | grep -q -- --base-path ||
	skip_all "git daemon is not installed"
unset MMCI_SMTP_URL MMCI_MAIL_FROM MMCI_WEB_URL MMCI_MAIL_SEND MMCI_CONFIG \
	MMCI_DISCOVER_PATHS MMCI_SOURCES MMCI_RUN_ARGS MMCI_PER_PATCH \
	MMCI_REMOTES MMCI_BASE_BRANCHES MMCI_NIGHTLY_BRANCHES \
	MMCI_COMMITS_FEED MMCI_DISCOVER_FEED MMCI_MAIL_LOCAL_LINKS
export MMCI_FETCH_BACKOFF_MS=50 MMCI_FETCH_INTERVAL_MS=0 MMCI_FETCH_ATTEMPTS=2

EXAMPLE="$SRC/kernel-patches/examples/memmap-slow.mbox"
COVER1='20250303100000.0.mmci-demo@example.org'
PATCH1='20250303100000.1.mmci-demo@example.org'
PATCH2='20250303100000.2.mmci-demo@example.org'
S2='20250320100000.1.mmci-cheap@example.org'
S3='20250327100000.1.mmci-typo@example.org'
PUBLIC=https://mmci.example.org
BOX="$TRASH/box"
SRV="$TRASH/srv/mm.git"
SIDE_B="$TRASH/b"
B=$(git -C "$MMCI_TREE" rev-parse "debian-6.12^{commit}")

cleanup() {
	[ -s "$TRASH/daemon.pid" ] && kill -9 "$(cat "$TRASH/daemon.pid")" 2>/dev/null
	[ -s "$TRASH/git-daemon.pid" ] &&
		kill "$(cat "$TRASH/git-daemon.pid")" 2>/dev/null
	# the shared tree keeps the objects, not this test's branches
	for b in mm-new mm-unstable; do
		git -C "$MMCI_TREE" update-ref -d "refs/remotes/replay/$b" 2>/dev/null
	done
	return 0
}
test_atexit cleanup

# g: git on the server's bare repository, with its own index (no work
# tree: commits are made with read-tree, apply --cached and commit-tree)
g() {
	GIT_DIR="$SRV" GIT_INDEX_FILE="$TRASH/srv.index" git \
		-c user.name="Andrew Morton" -c user.email=akpm@example.org "$@"
}

# commit PARENT DAY CHANGE SUBJECT [BODY]: a commit on PARENT, dated
# March DAY; CHANGE is sed:SCRIPT (on mm/mm_init.c), doc:TEXT
# (Documentation/mm/mmci-replay.rst) or a patch file; prints its id
commit() {
	g read-tree "$1" || return 1
	case $3 in
	sed:*)
		blob=$(g cat-file blob "$1:mm/mm_init.c" | sed "${3#sed:}" |
		       g hash-object -w --stdin) &&
		g update-index --cacheinfo "100644,$blob,mm/mm_init.c" ;;
	doc:*)
		blob=$(printf '%s\n' "${3#doc:}" | g hash-object -w --stdin) &&
		g update-index --add --cacheinfo \
			"100644,$blob,Documentation/mm/mmci-replay.rst" ;;
	*)
		g apply --cached "$3" ;;
	esac || return 1
	tree=$(g write-tree) &&
	GIT_AUTHOR_DATE="2025-03-$2T12:00:00Z" \
	GIT_COMMITTER_DATE="2025-03-$2T12:00:00Z" \
		g commit-tree "$tree" -p "$1" -m "$4" ${5:+-m "$5"}
}

# akpm PARENT DAY: series 1's two patches as akpm commits them (the
# author's name and date, a Link: to the list, his sign-off); prints the
# id of the second
akpm() {
	c=$1
	for n in 1 2; do
		c=$(GIT_AUTHOR_NAME="mmci demo" \
		    GIT_AUTHOR_EMAIL=mmci-demo@example.org \
		    commit "$c" "$2" "$TRASH/split/p$n" \
			"$(cat "$TRASH/split/s$n")" \
			"$(cat "$TRASH/split/m$n")
Link: https://lore.kernel.org/r/20250303100000.$n.mmci-demo@example.org
Signed-off-by: Andrew Morton <akpm@example.org>") || return 1
	done
	echo "$c"
}

# (the shared tree keeps the objects of every run: a new upstream commit
# each run, so that series 2's base is new to it, as the test needs)
NONCE=$(date +%s%N)
upstream() { commit "$1" "$2" "sed:1a /* upstream change of night $3 */" \
	"mm: upstream change of night $3" "run $NONCE"; }
doc() { commit "$1" "$2" "doc:mm-new's own page, night $3" \
	"Documentation/mm: mm-new's own page"; }

# push NIGHT UNSTABLE NEW: the server's branches for that night
push() {
	g update-ref refs/heads/mm-unstable "$2" &&
	g update-ref refs/heads/mm-new "$3" &&
	echo "$3" > "night$1.new" && echo "$2" > "night$1.unstable"
}

# the linux-mm feed: one entry per series that has arrived
feed() {
	port=$(cat "$TRASH/port")
	{
		cat <<-EOF
		<?xml version="1.0" encoding="us-ascii"?>
		<feed xmlns="http://www.w3.org/2005/Atom"><title>linux-mm</title>
		<link rel="self" href="http://127.0.0.1:$port/linux-mm/new.atom"/>
		<id>mailto:linux-mm@kvack.org</id><updated>2026-11-30T10:00:00Z</updated>
		EOF
		while read -r id title; do
			cat <<-EOF
			<entry><author><name>mmci demo</name><email>mmci-demo@example.org</email></author>
			<title>$title</title><updated>2026-11-30T09:00:00Z</updated>
			<link href="http://127.0.0.1:$port/linux-mm/$id/"/>
			<id>urn:uuid:$(printf %s "$id" | md5sum | cut -c1-8)-0000-0000-0000-000000000000</id></entry>
			EOF
		done < "$TRASH/entries"
		echo "</feed>"
	} > "$WWW/linux-mm/new.atom"
}

# arrive FILE MSGID TITLE: a thread on the list and in the feed
arrive() {
	serve "$1" linux-mm "$2" && echo "$2 $3" >> "$TRASH/entries" && feed
}

# mail_to SUBJECT-PATTERN NAME: the one mail in the outbox whose subject
# matches, its headers in NAME.h and its body in NAME.body
mail_to() {
	found=
	for m in "$BOX"/msg-*.eml; do
		headers "$m" > h
		grep -q "^Subject: $1" h || continue
		[ -z "$found" ] || { echo "two mails match $1"; return 1; }
		found=$m
		cp h "$2.h" && tr -d "\r" < "$m" > "$2.body"
	done
	[ -n "$found" ] || { echo "no mail matches $1"; ls "$BOX"; return 1; }
	cat "$2.h"
}

# same_kernel RUN RUN: one run stands for both commits, the second
# reused: a commit that changes only Documentation/ has the build cache
# key of its parent (build.c), a builds row of its own (each commit
# named) and that kernel, built at most once
same_kernel() {
	[ -n "$1" ] && [ "$1" = "$2" ] &&
	k=$(sql "SELECT b.cache_key FROM runs r JOIN builds b ON b.id = r.build_id
		WHERE r.id = $1") &&
	sql "SELECT id, commit_id, duration_s FROM builds WHERE cache_key = \"$k\"" &&
	[ "$(sql "SELECT count(DISTINCT commit_id) FROM builds
	     WHERE cache_key = \"$k\"")" = 2 ] &&
	[ "$(sql "SELECT count(*) FROM builds WHERE cache_key = \"$k\" AND
	     duration_s > 0")" -le 1 ]
}

test_expect 'the git server, the list archive, mm-commits, the SMTP server, the settings' '
	mkdir -p "$(dirname "$SRV")" && git init -q --bare "$SRV" &&
	git -C "$MMCI_TREE" rev-parse --absolute-git-dir > gitdir &&
	echo "$(cat gitdir)/objects" > "$SRV/objects/info/alternates" &&
	touch "$SRV/git-daemon-export-ok" &&
	mkdir split && git mailsplit -o"$TRASH/split" "$EXAMPLE" > /dev/null &&
	for n in 1 2; do
		git mailinfo "split/m$n" "split/p$n" \
			< "split/000$((n + 1))" > "split/info$n" &&
		sed -n "s/^Subject: //p" "split/info$n" > "split/s$n" || exit 1
	done &&
	grep -q "verify ZONE_DEVICE struct pages after memmap init" split/s2 &&
	gport=$(free_port) && echo "$gport" > gport &&
	git daemon --reuseaddr --listen=127.0.0.1 --port=$gport \
		--base-path="$TRASH/srv" --pid-file="$TRASH/git-daemon.pid" \
		--detach "$TRASH/srv" &&
	nginx_start && mkdir -p "$WWW/linux-mm" "$WWW/mm-commits" &&
	: > entries && feed &&
	printf "%s\n" "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>mm-commits</title></feed>" \
		> "$WWW/mm-commits/new.atom" &&
	smtpd_start "$BOX" sport && sport=$(cat sport) &&
	free_port > wport && port=$(cat port) &&
	# --workloads fsdax after the aim (MMCI_RUN_ARGS comes last): the
	# replay is about fsdax; t0967 and t0960 test the aim itself. 1 GiB:
	# the replay is about which job runs and what it mails, not the
	# size; under icount patch 2 costs the same share of a rebind at 1
	# GiB as at 4 (+66 %, t0545); the 100 GiB case is in t0335
	cat > mmci.conf <<-EOF
	# the daemon of the replay: the local list, tree and mm-commits
	MMCI_SOURCES=discover,tree,commits
	MMCI_DISCOVER_FEED=http://127.0.0.1:$port/linux-mm/new.atom
	MMCI_COMMITS_FEED=http://127.0.0.1:$port/mm-commits/new.atom
	MMCI_REMOTES=replay=git://127.0.0.1:$gport/mm.git#mm-new,mm-unstable
	MMCI_NIGHTLY_BRANCHES=mm-new
	MMCI_BASE_BRANCHES=mm-unstable
	MMCI_BASE=debian-6.12
	MMCI_POLL_S=3
	MMCI_PER_PATCH=1
	MMCI_RUN_ARGS=--nvdimm 1G --iters 8 --workloads fsdax
	MMCI_MAIL_SEND=1
	MMCI_SMTP_URL=smtp://127.0.0.1:$sport
	MMCI_MAIL_FROM=mmci <mmci@example.org>
	MMCI_WEB_URL=$PUBLIC
	EOF
'

test_expect 'night 1: the first head measured, series 1 mailed as a regression' '
	H1=$(doc "$B" 01 1) && push 1 "$B" "$H1" &&
	sed "s/^Based on Linux 6.12.117.$/base-commit: $B/" "$EXAMPLE" > s1.mbox &&
	grep -q "^base-commit: $B$" s1.mbox &&
	arrive s1.mbox "$COVER1" "[PATCH 0/2] mm/mm_init: verify ZONE_DEVICE struct pages after init" &&
	"$MMCI" init > /dev/null &&
	date +%s > t0 &&
	{ MMCI_CONFIG="$TRASH/mmci.conf" "$MMCI" daemon \
		--listen "127.0.0.1:$(cat wport)" >> daemon.log 2>&1 &
	  echo $! > daemon.pid; } &&
	wait_for 1500 "night 1 and series 1" \
		"SELECT count(*) = 2 FROM jobs WHERE status = \"done\" AND
		 reported_at IS NOT NULL" &&
	sql "SELECT id, kind, status, report_note FROM jobs" &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE kind = \"series\"")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE kind = \"nightly\"")" = 1 ] &&
	sql "SELECT base_note FROM jobs WHERE kind = \"series\"" |
		grep -q "base-commit $(echo $B | cut -c1-12)" &&
	# mm-unstable is fetched as a base, with no nightly of its own
	[ "$(sql "SELECT count(*) FROM heads WHERE branch = \"mm-unstable\"")" = 1 ] &&
	[ "$(ls "$BOX"/msg-*.eml | wc -l)" = 1 ] &&
	# mm-new is B and a page of Documentation/: the kernel of B
	same_kernel "$(sql "SELECT json_extract(result, \"$.new_run\") FROM jobs
		WHERE kind = \"nightly\"")" \
		"$(sql "SELECT json_extract(result, \"$.base_run\") FROM jobs
		WHERE kind = \"series\"")"
'

test_expect 'series 2 arrives on an mm-unstable not fetched yet: it waits' '
	# nights 2 and 3 are made now; the server shows them night by night
	U2=$(upstream "$B" 02 2) && X2=$(doc "$U2" 02 2) &&
	P2B=$(akpm "$X2" 02) && echo "$U2 $P2B" > night2 &&
	U3=$(upstream "$U2" 03 3) && M3=$(akpm "$U3" 03) && echo "$M3" > m3 &&
	c=$(GIT_AUTHOR_NAME="mmci cheap" GIT_AUTHOR_EMAIL=mmci-cheap@example.org \
	    commit "$M3" 20 "sed:/^static void memmap_verify_zone_device/,/^}/ s/pfn += pfns_per_compound) {/pfn += PAGES_PER_SECTION) {/" \
		"mm/mm_init: check one struct page per section after memmap init" \
		"memmap_verify_zone_device() re-reads every struct page that
memmap_init_zone_device() has just written, which makes binding a
namespace about two thirds slower.  A stale or misplaced memmap shows in
the first page of its section as well: check that one only, which makes
the check almost free:

  memmap_init_zone_device() for a 100 GiB fsdax namespace: 2500 ms -> 1500 ms

Signed-off-by: mmci cheap <mmci-cheap@example.org>") &&
	[ "$(g diff "$M3" "$c" | grep -c "^+.*PAGES_PER_SECTION) {")" = 1 ] &&
	g format-patch -1 --stdout --base="$M3" --to="Andrew Morton <akpm@example.org>" \
		--cc=linux-mm@example.org "$c" | sed "1a Message-ID: <$S2>" > s2.mbox &&
	grep -q "^base-commit: $M3$" s2.mbox &&
	arrive s2.mbox "$S2" "[PATCH] mm/mm_init: check one struct page per section after memmap init" &&
	wait_for 120 "series 2 to wait for its base" \
		"SELECT count(*) = 1 FROM jobs WHERE kind = \"series\" AND
		 status = \"queued\" AND base_note LIKE \"%waiting for base-commit%\"" &&
	sql "SELECT base_note FROM jobs WHERE status = \"queued\""
'

test_expect 'night 2: mm-new rebased with series 1; bisected across the rebase; one mail' '
	port=$(cat port) && push 2 $(cat night2) &&
	for n in 1 2; do
		f=$(tr "A-Z" "a-z" < "split/s$n" | sed "s/[^a-z0-9]\{1,\}/-/g; s/-$//").patch &&
		id="2025030$n.notice$n@smtp.example.org" &&
		cat > "notice$n.eml" <<-EOF &&
		From: Andrew Morton <akpm@example.org>
		To: mm-commits@vger.kernel.org, mmci-demo@example.org
		Subject: + $f added to mm-new branch
		Message-Id: <$id>
		Date: Sun, 2 Mar 2025 0$n:00:00 -0800

		The patch titled
		     Subject: $(cat "split/s$n")
		has been added to the -mm mm-new branch.  Its filename is
		     $f

		------------------------------------------------------
		From: mmci demo <mmci-demo@example.org>
		Subject: $(cat "split/s$n")
		Date: Mon, 3 Mar 2025 10:00:0$n +0000

		$(sed -n "1,3p" "split/m$n")

		Link: https://lore.kernel.org/20250303100000.$n.mmci-demo@example.org
		Signed-off-by: mmci demo <mmci-demo@example.org>
		Signed-off-by: Andrew Morton <akpm@example.org>
		---

		$(cat "split/p$n")
		EOF
		serve "notice$n.eml" mm-commits "$id" &&
		echo "$id + $f added to mm-new branch" >> commits || exit 1
	done &&
	{
		echo "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>mm-commits</title>"
		while read -r id title; do
			echo "<entry><author><name>Andrew Morton</name><email>akpm@example.org</email></author><title>$title</title><updated>2026-11-30T09:00:00Z</updated><link href=\"http://127.0.0.1:$port/mm-commits/$id/\"/><id>urn:uuid:$(printf %s "$id" | md5sum | cut -c1-8)-0000-0000-0000-000000000000</id></entry>"
		done < commits
		echo "</feed>"
	} > "$WWW/mm-commits/new.atom" &&
	wait_for 1800 "night 2 and its bisection" \
		"SELECT count(*) = 3 FROM jobs WHERE kind IN (\"bisect\",
		 \"nightly\") AND status = \"done\" AND reported_at IS NOT NULL" &&
	sql "SELECT id, kind, status, series_ref, result, report_note FROM jobs" &&
	[ "$(sql "SELECT count(*) FROM notices WHERE patch_id IS NOT NULL")" = 2 ] &&
	P2B=$(cat night2.new) &&
	[ "$(sql "SELECT kind FROM heads WHERE branch = \"mm-new\" ORDER BY id DESC LIMIT 1")" = rewrite ] &&
	sql "SELECT result FROM jobs WHERE kind = \"bisect\"" > bisect.json &&
	grep -q "\"first_bad\":\"$P2B\"" bisect.json &&
	grep "merge-base" "$MMCI_DATA/jobs/$(sql "SELECT id FROM jobs WHERE kind = \"bisect\"").log" |
		grep -q "BAD does not descend from GOOD" &&
	# the nightly itself is not mailed: its bisection says it all
	sql "SELECT report_note FROM jobs WHERE kind = \"nightly\" ORDER BY id DESC LIMIT 1" |
		grep -q "not mailed: its bisection (job #[0-9]*) mails this regression" &&
	[ "$(ls "$BOX"/msg-*.eml | wc -l)" = 2 ]
'

test_expect 'nights 3 and 4: series 2 measured on the fetched base, series 3 on it too' '
	M3=$(cat m3) && H3=$(doc "$M3" 03 3) && push 3 "$M3" "$H3" &&
	wait_for 1500 "series 2" \
		"SELECT count(*) = 1 FROM jobs j JOIN series s ON s.id = j.series_id
		 WHERE s.message_id = \"$S2\" AND j.status = \"done\" AND
		 j.reported_at IS NOT NULL" &&
	sql "SELECT base_note FROM jobs j JOIN series s ON s.id = j.series_id
	     WHERE s.message_id = \"$S2\"" | grep -q "$(echo "$M3" | cut -c1-12)" &&
	c=$(GIT_AUTHOR_NAME="mmci typo" GIT_AUTHOR_EMAIL=mmci-typo@example.org \
	    commit "$M3" 27 "sed:s/initialize is a lot smaller than the total/initialise is a lot smaller than the total/" \
		"mm/mm_init: spell initialise as the rest of the file does" \
		"Signed-off-by: mmci typo <mmci-typo@example.org>") &&
	[ "$(g diff "$M3" "$c" | grep -c "^+")" = 2 ] &&
	g format-patch -1 --stdout --base="$M3" --to="Andrew Morton <akpm@example.org>" \
		--cc=linux-mm@example.org "$c" | sed "1a Message-ID: <$S3>" > s3.mbox &&
	arrive s3.mbox "$S3" "[PATCH] mm/mm_init: spell initialise as the rest of the file does" &&
	U4=$(upstream "$(g rev-parse "$M3~2")" 04 4) &&
	M4=$(akpm "$U4" 04) && H4=$(doc "$M4" 04 4) &&
	wait_for 900 "series 3" \
		"SELECT count(*) = 1 FROM jobs j JOIN series s ON s.id = j.series_id
		 WHERE s.message_id = \"$S3\" AND j.status = \"done\" AND
		 j.reported_at IS NOT NULL" &&
	push 4 "$M4" "$H4" &&
	wait_for 900 "night 4" \
		"SELECT count(*) = 4 FROM jobs WHERE kind = \"nightly\" AND
		 status = \"done\" AND reported_at IS NOT NULL" &&
	date +%s > t1 &&
	sql "SELECT id, kind, status, report_note FROM jobs" &&
	[ "$(sql "SELECT count(*) FROM jobs WHERE status != \"done\"")" = 0 ] &&
	# night 3 is M3 and a page: the base kernel of series 2
	same_kernel "$(sql "SELECT json_extract(result, \"$.new_run\") FROM jobs
		WHERE kind = \"nightly\" ORDER BY id LIMIT 1 OFFSET 2")" \
		"$(sql "SELECT json_extract(j.result, \"$.base_run\") FROM jobs j
		JOIN series s ON s.id = j.series_id WHERE s.message_id = \"$S2\"")" &&
	[ "$(sql "SELECT group_concat(kind, \" \") FROM (SELECT kind FROM heads
	     WHERE branch = \"mm-new\" ORDER BY id)")" = "initial rewrite rewrite rewrite" ]
'

test_expect 'the outbox: exactly the three mails item 1 asks for' '
	ls "$BOX" && [ "$(ls "$BOX"/msg-*.eml | wc -l)" = 3 ] &&
	sql "SELECT id, kind, report_note FROM jobs ORDER BY id" > notes && cat notes &&
	# series 3 changed nothing: on its page only
	sql "SELECT report_note FROM jobs j JOIN series s ON s.id = j.series_id
	     WHERE s.message_id = \"$S3\"" | grep -q "^not mailed: no significant change" &&
	# night 1 had nothing to compare with, nights 3 and 4 moved nothing
	[ "$(sql "SELECT count(*) FROM jobs WHERE kind = \"nightly\" AND
	     report_note = \"not mailed: nothing got worse\"")" = 3 ]
'

test_expect 'series 1: its regression, under the cover letter, to its author and the list' '
	mail_to "\[mmci\] \[PATCH 0/2\] mm/mm_init: " s1 &&
	grep -qx "In-Reply-To: <$COVER1>" s1.h &&
	grep -qx "References: <$COVER1>" s1.h &&
	grep -q "^Subject: .*memmap\(_ns\)\{0,1\} +[0-9.]*% regression$" s1.h &&
	grep -qx "To: mmci demo <mmci-demo@example.org>" s1.h &&
	grep -q "^Cc: .*linux-mm@example.org" s1.h &&
	grep -q "^patch 2/2 mm/mm_init: verify ZONE_DEVICE" s1.body &&
	grep -q "^    [0-9.]* -> [0-9.]*  +6[0-9.]*% \[.*\]  worse$" s1.body
'

test_expect 'the nightly regression: one mail, in patch 2'"'"'s thread, naming akpm'"'"'s commit' '
	mail_to "\[mmci\] \[PATCH 2/2\]" bisect &&
	grep -qx "In-Reply-To: <$PATCH2>" bisect.h &&
	grep -qx "References: <$COVER1> <$PATCH2>" bisect.h &&
	grep -q "^Subject: .*: fsdax\..* +[0-9.]*% regression$" bisect.h &&
	grep -q "^commit: $(cat night2.new)" bisect.body
'

test_expect 'series 2: the claimed improvement, claimed and measured side by side' '
	mail_to "\[mmci\] \[PATCH\] mm/mm_init: " s2 &&
	grep -qx "In-Reply-To: <$S2>" s2.h &&
	grep -qx "To: mmci cheap <mmci-cheap@example.org>" s2.h &&
	grep -q "improvement" s2.h &&
	grep -q "claimed -40.0%, measured -" s2.body
'

test_expect 'every link is the public URL; nothing of this host in a mail' '
	# (the git server stands for a public one: its URL may be named)
	for m in s1 bisect s2; do
		grep -q "$PUBLIC/series/[0-9]*\|$PUBLIC/run/[0-9]*" "$m.body" &&
		grep -q "^        mmci reproduce --bundle $PUBLIC/bundle/[0-9]*$" "$m.body" &&
		! sed "s|git://127.0.0.1:$(cat gport)/mm.git||g" "$m.body" |
			grep -n "127\.0\.0\.1\|localhost\|$TRASH\|$SRC\|/var/lib/mmci" ||
			{ echo "in $m"; exit 1; }
	done
'

test_expect 'series 1'"'"'s bundle, reproduced on a second data directory: the same medians' '
	url=$(grep "^        mmci reproduce --bundle $PUBLIC/bundle/" s1.body | head -1 |
	      sed "s/.* //") && echo "$url" &&
	run=${url##*/} &&
	mkdir -p "$SIDE_B" &&
	# the public URL is this daemon: its web server, on loopback here
	i=0 && until curl -sf -o /dev/null "http://127.0.0.1:$(cat wport)/bundle/$run"; do
		i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.2; done &&
	( export MMCI_DATA="$SIDE_B" MMCI_TREE="$SIDE_B/linux" \
		MMCI_DB="$SIDE_B/mmci.db" &&
	  "$MMCI" reproduce --bundle "http://127.0.0.1:$(cat wport)/bundle/$run" \
		> repro.out 2> repro.err & echo $! >> "$TRASH/pids"; wait $! ) ||
		{ cat repro.out; tail -30 repro.err; exit 1; }
	cat repro.out &&
	grep -q "^bundle: run #$run of .* stored here as run #1$" repro.out &&
	grep -q "^  base  *$B, fetched from branch .mm-[a-z]*. of git://127.0.0.1:$(cat gport)/mm.git$" repro.out &&
	grep -q "^reproduced: run 1 -> run 2: no significant change" repro.out &&
	[ "$(sqlite3 "$SIDE_B/mmci.db" "SELECT tree_path FROM builds ORDER BY id DESC LIMIT 1")" = "$SIDE_B/linux" ] &&
	"$PY" - "$MMCI_DB" "$run" "$SIDE_B/mmci.db" <<-\EOF
	import sqlite3, statistics, sys
	def medians(path, run):
	    rows = sqlite3.connect(path).execute(
	        "SELECT workload, variant, metric, value FROM samples "
	        "WHERE run_id = ?", (run,)).fetchall()
	    out = {}
	    for w, v, m, x in rows:
	        out.setdefault((w, v, m), []).append(x)
	    return {k: statistics.median(x) for k, x in out.items()}
	a, b = medians(sys.argv[1], int(sys.argv[2])), medians(sys.argv[3], 2)
	assert a and a.keys() == b.keys(), (a.keys(), b.keys())
	for k in a:
	    print(k, a[k], b[k])
	    assert abs(a[k] - b[k]) <= 0.001 * abs(a[k]), (k, a[k], b[k])
	EOF
'

# page PATH FILE: a page the daemon wrote, as its web server serves it
page() {
	i=0 && until curl -sf -o "$2" "http://127.0.0.1:$(cat wport)$1"; do
		i=$((i + 1)); [ $i -lt 100 ] || return 1; sleep 0.2; done
}

test_expect 'the pages: mm-new'"'"'s four nights with the bisection, series 2'"'"'s verdict' '
	bj=$(sql "SELECT id FROM jobs WHERE kind = \"bisect\"") &&
	r2=$(sql "SELECT json_extract(result, \"$.new_run\") FROM jobs
	     WHERE kind = \"nightly\" AND result LIKE \"%bisect_job%\"") &&
	sid=$(sql "SELECT id FROM series WHERE message_id = \"$S2\"") &&
	# the render worker writes each page a moment after its job ends
	i=0 && until page /branch/replay/mm-new branch.html &&
		grep -q "trend-0-run-[0-9]*" branch.html &&
		[ "$(grep -o "id=\"trend-0-run-[0-9]*\"" branch.html | wc -l)" = 4 ]; do
		i=$((i + 1)); [ $i -lt 50 ] || exit 1; sleep 1; done &&
	$PY "$SRC/tests/web-check.py" branch.html "h1:replay/mm-new: nightly" \
		rows:trend-0:4 rows:bisects:1 \
		"text:bisect-$bj:first bad commit $(cut -c1-12 night2.new)" &&
	# night 2 marked in the table of the metric bisected (rebind_memmap)
	grep "<tr id=\"trend-[0-9]*-run-$r2\">" branch.html > night2.rows &&
	grep -q "bisect job #$bj: first bad commit $(cut -c1-12 night2.new)" night2.rows &&
	page "/series/$sid" series2.html &&
	$PY "$SRC/tests/web-check.py" series2.html \
		"text:series-verdict:verdict: BETTER" id:per-boot \
		"text:attribution:claimed -40.0%, measured -" &&
	if [ -n "${MMCI_TEST_SCREENSHOTS:-}" ]; then
		for p in "branch /branch/replay/mm-new" "series /series/$sid"; do
			timeout 90 chromium --headless --no-sandbox --disable-gpu \
				--user-data-dir="$TRASH/chromium" --window-size=1200,1600 \
				--screenshot="$MMCI_TEST_SCREENSHOTS/replay-${p%% *}.png" \
				"http://127.0.0.1:$(cat wport)${p#* }" 2> /dev/null || exit 1
		done
	fi
'

test_expect 'SIGTERM: the daemon stops; nothing is left behind' '
	kill -TERM "$(cat daemon.pid)" &&
	i=0 && while kill -0 "$(cat daemon.pid)" 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 60 ] || exit 1; sleep 1; done &&
	: > daemon.pid &&
	[ "$(sql "SELECT count(*) FROM runs WHERE status = \"running\"")" = 0 ] &&
	nothing_left_behind
'

if [ -s "$TRASH/t0" ] && [ -s "$TRASH/t1" ]; then
	say "replay: $(( $(cat "$TRASH/t1") - $(cat "$TRASH/t0") )) s of" \
		"daemon time for four nights and three series"
fi
test_done
