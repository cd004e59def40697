#!/bin/sh
# t0620-ingest-discover: `mmci ingest discover` polls a public-inbox Atom
# feed written here (lore's new.atom layout) from a real nginx on
# loopback, fetches the threads of new series and keeps those touching mm;
# versions of a series are linked (subject+author, changelog link, in both
# orders); mm-commits notices are linked to the stored patch they name.
# The threads are our own (tests/fixtures/mbox) or made here with git.
. "$(dirname "$0")/lib.sh"

. "$SRC/tests/lib-http.sh"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

OWN="$SRC/tests/fixtures/mbox"
NOTICE="$OWN/mm-commits-added-vmap-contig-runs.eml"
# two series that touch no mm path: drivers/leds/ and drivers/hid/
LEDS='cover.1776676262.git.ines.carvalho@example.pt'
HIDP='20260422120312.8812-1-tomas.ferrante@example.it'
export MMCI_FETCH_BACKOFF_MS=50 MMCI_FETCH_INTERVAL_MS=0
export MMCI_FETCH_ATTEMPTS=2 MMCI_FETCH_TIMEOUT=20
unset MMCI_DISCOVER_FEED MMCI_DISCOVER_PATHS
export GIT_AUTHOR_NAME='Dev Eloper' GIT_AUTHOR_EMAIL='dev@example.org'
export GIT_COMMITTER_NAME='Dev Eloper' GIT_COMMITTER_EMAIL='dev@example.org'

# the Message-ID of the first mail of an mbox whose Subject: holds TEXT
msgid_of() {
	awk -v s="$2" '/^From / { id = ""; f = 0 }
		/^Message-I[Dd]:/ { id = $0; gsub(/.*<|>.*/, "", id) }
		/^Subject:/ && index($0, s) { f = 1 }
		f && id != "" { print id; exit }' "$1"
}

# feed header; entries follow; feed_end closes it
feed_start() {
	cat <<-EOF
	<?xml version="1.0" encoding="us-ascii"?>
	<feed xmlns="http://www.w3.org/2005/Atom" xmlns:thr="http://purl.org/syndication/thread/1.0">
	<title>linux-mm.kvack.org archive mirror</title>
	<link rel="alternate" type="text/html" href="$BASE/linux-mm/"/>
	<link rel="self" href="$BASE/linux-mm/new.atom"/>
	<id>mailto:linux-mm@kvack.org</id>
	<updated>2026-11-30T10:00:00Z</updated>
	EOF
}
# entry TITLE MSGID NAME EMAIL (titles here need no XML escaping but '&')
entry() {
	t=$(printf %s "$1" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')
	cat <<-EOF
	<entry><author><name>$3</name><email>$4</email></author><title>$t</title><updated>2026-11-30T09:00:00Z</updated><link
	href="$BASE/linux-mm/$2/"/><id>urn:uuid:$(printf %s "$2" | md5sum | cut -c1-8)-0000-0000-0000-000000000000</id><content
	type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><pre style="white-space:pre-wrap">text &amp; more</pre></div></content></entry>
	EOF
}


test_expect 'start nginx on a free loopback port' '
	nginx_start
'
PORT=$(cat "$TRASH/port" 2>/dev/null || echo 1)
BASE="http://127.0.0.1:$PORT"
FEED="$BASE/linux-mm/new.atom"

test_expect 'a small mm series made with git format-patch (v1, v2, v3)' '
	git init -q repo && cd repo &&
	mkdir mm && printf "int a;\n" > mm/vmalloc.c && git add . &&
	git commit -qm base && git tag base &&
	printf "int a;\nint b;\n" > mm/vmalloc.c &&
	git commit -qam "mm/vmalloc: add b" &&
	printf "int a;\nint b;\nint c;\n" > mm/vmalloc.c &&
	git commit -qam "mm/vmalloc: add c" &&
	for v in 1 2 3; do
		git format-patch -q --stdout --cover-letter --thread=shallow \
			-v$v base.. |
		sed -e "s/\.git\.dev@example\.org>/.git.v$v@example.org>/g" \
		    -e "s/\*\*\* SUBJECT HERE \*\*\*/mm\/vmalloc: Tidy up  the vmap path/" \
		    > ../mm-v$v.mbox || exit 1
	done &&
	cd .. &&
	V2=$(msgid_of mm-v2.mbox "0/2") && echo "$V2" > v2.id &&
	V1=$(msgid_of mm-v1.mbox "0/2") && echo "$V1" > v1.id &&
	# v3: another title, and its change log links to v2 on lore
	sed -i -e "s/mm\/vmalloc: Tidy up  the vmap path/mm\/vmalloc: rework vmap/" \
	    -e "s|\*\*\* BLURB HERE \*\*\*|Changes since v2:\n- renamed\n\nv2: https://lore.kernel.org/linux-mm/$V2/|" mm-v3.mbox &&
	V3=$(msgid_of mm-v3.mbox "0/2") && echo "$V3" > v3.id &&
	grep -q "^Subject: \[PATCH v2 0/2\] mm/vmalloc: Tidy up  the vmap path" mm-v2.mbox &&
	grep -q "^v2: https://lore.kernel.org/linux-mm/$V2/" mm-v3.mbox &&
	[ "$V1" != "$V2" ] && [ "$V2" != "$V3" ] &&
	serve mm-v2.mbox linux-mm "$V2" &&
	serve "$OWN/leds-exa3310-V3-folded-ids.mbox" linux-mm "$LEDS" &&
	serve "$OWN/hid-exampad-single-patch-flowed.mboxrd" linux-mm "$HIDP"
'
V1=$(cat "$TRASH/v1.id" 2>/dev/null)
V2=$(cat "$TRASH/v2.id" 2>/dev/null)
V3=$(cat "$TRASH/v3.id" 2>/dev/null)

test_expect 'the feed: an mm series, leds and HID series, a reply, a patch 2/2, a non-patch' '
	mkdir -p "$WWW/linux-mm" &&
	{
		feed_start
		entry "Re: [PATCH v2 1/2] mm/vmalloc: add b" "reply-1@example.org" "R Eviewer" "r@example.org"
		entry "[PATCH v2 2/2] mm/vmalloc: add c" "two-of-two@example.org" "Dev Eloper" "dev@example.org"
		entry "[PATCH v2 0/2] mm/vmalloc: Tidy up the vmap path" "$V2" "Dev Eloper" "dev@example.org"
		entry "[PATCH V3 0/3] leds: exa3310: blink & brightness fixes" "$LEDS" "Ines Carvalho" "ines.carvalho@example.pt"
		entry "[PATCH -next] HID: exampad: report the battery capacity in percent" "$HIDP" "Tomas Ferrante" "tomas.ferrante@example.it"
		entry "[ANNOUNCE] mm: a meeting" "announce@example.org" "Some One" "s@example.org"
		echo "</feed>"
	} > "$WWW/linux-mm/new.atom" &&
	{ ! command -v xmllint >/dev/null || xmllint --noout "$WWW/linux-mm/new.atom"; }
'

test_expect 'first poll: the mm series kept with a job, leds and HID skipped' '
	rc=0 && { "$MMCI" ingest discover --feed "$FEED" > out 2> err || rc=$?; } &&
	cat out err && [ $rc = 0 ] &&
	grep -q "^feed $FEED: 6 entries$" out &&
	grep -q "kept: series #1, job #1 (1 mm path(s): mm/vmalloc.c)" out &&
	grep -q "skipped: no mm path" out &&
	grep -q "discovered: 1 kept, 2 skipped, 0 error(s), 0 seen before; ignored: 1 reply, 1 later patch(es), 1 not patches" out &&
	[ "$(sql "SELECT decision FROM discovered WHERE message_id = \"$HIDP\"")" = "skipped: no mm path" ] &&
	[ "$(sql "SELECT decision || \"|\" || series_id || \"|\" || job_id FROM discovered WHERE message_id = \"$V2\"")" = "kept|1|1" ] &&
	[ "$(sql "SELECT decision || \"|\" || ifnull(series_id, \"-\") FROM discovered WHERE message_id = \"$LEDS\"")" = "skipped: no mm path|-" ] &&
	[ "$(sql "SELECT title || \"|\" || author || \"|\" || updated || \"|\" || (entry_id LIKE \"urn:uuid:%\") FROM discovered WHERE message_id = \"$LEDS\"")" = \
	  "[PATCH V3 0/3] leds: exa3310: blink & brightness fixes|Ines Carvalho <ines.carvalho@example.pt>|2026-11-30T09:00:00Z|1" ] &&
	[ "$(sql "SELECT count(*) FROM discovered")" = 3 ] &&
	[ "$(sql "SELECT kind || \" \" || series_id || \" \" || status FROM jobs")" = "series 1 queued" ] &&
	[ "$(sql "SELECT count(*) FROM series")" = 1 ] &&
	[ "$(sql "SELECT version || \" \" || nr_found FROM series")" = "2 2" ] &&
	[ "$(requests "/linux-mm/$V2/t.mbox.gz")" = 1 ] &&
	[ "$(requests "/linux-mm/$LEDS/t.mbox.gz")" = 1 ] &&
	[ "$(requests "/linux-mm/$HIDP/t.mbox.gz")" = 1 ] &&
	[ "$(requests "/linux-mm/reply-1@example.org/t.mbox.gz")" = 0 ] &&
	[ "$(requests "/linux-mm/two-of-two@example.org/t.mbox.gz")" = 0 ]
'

test_expect 'second poll: conditional request, 304, no thread fetched again' '
	rc=0 && { "$MMCI" ingest discover --feed "$FEED" > out 2> err || rc=$?; } &&
	cat out err && [ $rc = 0 ] &&
	[ "$(statuses /linux-mm/new.atom)" = "200 304 " ] &&
	grep " \"/linux-mm/new.atom\" " "$LOG" | tail -1 | grep -q " \"[\\\\]x22[0-9a-f]*-[0-9a-f]*[\\\\]x22\" " &&
	grep -q "not modified (HTTP 304)" out &&
	grep -q "discovered: 0 kept, 0 skipped, 0 error(s), 3 seen before" out &&
	[ "$(requests "/linux-mm/$V2/t.mbox.gz")" = 1 ] &&
	[ "$(requests "/linux-mm/$LEDS/t.mbox.gz")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM jobs")" = 1 ]
'

test_expect 'a changed feed (200): only the new entry is fetched; MMCI_DISCOVER_FEED' '
	sleep 1 &&
	sed -i "s|</feed>||" "$WWW/linux-mm/new.atom" &&
	{ entry "[PATCH] mm: a thread that is gone" "gone@example.org" "X" "x@example.org"
	  echo "</feed>"; } >> "$WWW/linux-mm/new.atom" &&
	rc=0 && { MMCI_DISCOVER_FEED="$FEED" "$MMCI" ingest discover > out 2> err || rc=$?; } &&
	cat out err && [ $rc = 1 ] &&
	[ "$(statuses /linux-mm/new.atom)" = "200 304 200 " ] &&
	grep -q "error: cannot fetch .*gone@example.org/t.mbox.gz.: HTTP 404" out &&
	[ "$(sql "SELECT decision FROM discovered WHERE message_id = \"gone@example.org\"")" = \
	  "error: cannot fetch '\''$BASE/linux-mm/gone@example.org/t.mbox.gz'\'': HTTP 404" ] &&
	[ "$(requests "/linux-mm/$V2/t.mbox.gz")" = 1 ] &&
	# an error is tried again, 3 times in all, then left alone
	for i in 1 2 3; do
		"$MMCI" ingest discover --feed "$FEED" > out 2>&1 || :
	done &&
	cat out && grep -q "4 seen before" out &&
	[ "$(requests "/linux-mm/gone@example.org/t.mbox.gz")" = 3 ] &&
	[ "$(sql "SELECT attempts FROM discovered WHERE message_id = \"gone@example.org\"")" = 3 ]
'

test_expect 'patch 1/2 of a kept series: no fetch, no second job; a foreign link refused' '
	P1=$(msgid_of mm-v2.mbox "1/2") && [ -n "$P1" ] && [ "$P1" != "$V2" ] &&
	{
		feed_start
		entry "[PATCH v2 1/2] mm/vmalloc: add b" "$P1" "Dev Eloper" "dev@example.org"
		BASE=http://127.0.0.2:$PORT entry "[PATCH] mm: elsewhere" "far@example.org" "X" "x@example.org"
		echo "</feed>"
	} > "$WWW/linux-mm/sib.atom" &&
	rc=0 && { "$MMCI" ingest discover --feed "$BASE/linux-mm/sib.atom" > out 2>&1 || rc=$?; } &&
	cat out && [ $rc = 1 ] &&
	grep -q "kept: series #1, job #1 (a mail of a series discovered before)" out &&
	grep -q "error: the link .http://127.0.0.2:$PORT/linux-mm/far@example.org/. is not on the feed.s server" out &&
	[ "$(requests "/linux-mm/$P1/t.mbox.gz")" = 0 ] &&
	[ "$(requests "/linux-mm/far@example.org/t.mbox.gz")" = 0 ] &&
	[ "$(sql "SELECT count(*) FROM jobs")" = 1 ] &&
	[ "$(sql "SELECT decision || \" \" || series_id FROM discovered WHERE message_id = \"$P1\"")" = "kept 1" ]
'

test_expect 'the leds series is kept with --filter drivers/leds/ (HID with MMCI_DISCOVER_PATHS)' '
	{ MMCI_DB="$TRASH/filter.db" "$MMCI" ingest discover --feed "$FEED" \
		--filter "drivers/leds/" > out 2>&1 || :; } && cat out &&
	grep -q "kept: series #2, job #2 (1 mm path(s): drivers/leds/leds-exa3310.c)" out &&
	[ "$(sqlite3 "$TRASH/filter.db" "SELECT decision FROM discovered WHERE message_id = \"$LEDS\"")" = kept ] &&
	[ "$(sqlite3 "$TRASH/filter.db" "SELECT decision FROM discovered WHERE message_id = \"$HIDP\"")" = "skipped: no mm path" ] &&
	[ "$(sqlite3 "$TRASH/filter.db" "SELECT group_concat(series_id) FROM jobs")" = "1,2" ] &&
	[ "$(requests "/linux-mm/$LEDS/t.mbox.gz")" = 1 ] &&
	{ MMCI_DISCOVER_PATHS="^drivers/hid/ nothing" MMCI_DB="$TRASH/env.db" \
		"$MMCI" ingest discover --feed "$FEED" > out 2>&1 || :; } && cat out &&
	grep -q "kept: series #2, job #2 (1 mm path(s): drivers/hid/hid-exampad.c)" out &&
	[ "$(sqlite3 "$TRASH/env.db" "SELECT decision FROM discovered WHERE message_id = \"$HIDP\"")" = kept ] &&
	[ "$(sqlite3 "$TRASH/env.db" "SELECT decision FROM discovered WHERE message_id = \"$LEDS\"")" = "skipped: no mm path" ] &&
	set +e; "$MMCI" ingest discover --feed "$FEED" --filter "(" 2> err; rc=$?; set -e &&
	cat err && [ $rc = 129 ] && grep -q "invalid path regex" err
'

test_expect 'a malformed feed: clear error, nothing stored' '
	before=$(sql "SELECT count(*) FROM discovered") &&
	head -c 700 "$WWW/linux-mm/new.atom" > "$WWW/linux-mm/bad.atom" &&
	set +e; "$MMCI" ingest discover --feed "$BASE/linux-mm/bad.atom" > out 2> err; rc=$?; set -e &&
	cat out err && [ $rc = 1 ] &&
	grep -q "error: malformed feed .*bad.atom.: line [0-9]*: .*; nothing stored" err &&
	printf "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel/></rss>\n" > "$WWW/linux-mm/rss.atom" &&
	set +e; "$MMCI" ingest discover --feed "$BASE/linux-mm/rss.atom" 2> err; rc=$?; set -e &&
	cat err && [ $rc = 1 ] &&
	grep -q "not an Atom feed: the root element is <rss> outside the Atom namespace" err &&
	printf "<!DOCTYPE f [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\"><!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">]>\n<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><title>[PATCH] &c;</title><link href=\"$BASE/linux-mm/ent@x/\"/></entry></feed>\n" > "$WWW/linux-mm/ent.atom" &&
	set +e; "$MMCI" ingest discover --feed "$BASE/linux-mm/ent.atom" > out 2> err; rc=$?; set -e &&
	cat out err && [ $rc = 1 ] &&
	grep -q "error: malformed feed .*ent.atom.: line 1: .*entity" err &&
	: > "$WWW/linux-mm/empty.atom" &&
	set +e; "$MMCI" ingest discover --feed "$BASE/linux-mm/empty.atom" 2> err; rc=$?; set -e &&
	cat err && [ $rc = 1 ] && grep -q "malformed feed .*: the feed is empty" err &&
	[ "$(sql "SELECT count(*) FROM discovered")" = "$before" ]
'

test_expect 'versions: v1 ingested after v2 links both ways (subject+author)' '
	"$MMCI" ingest mm-v1.mbox > out && cat out &&
	id1=$(sql "SELECT id FROM series WHERE message_id = \"$V1\"") &&
	grep -q "next version: series #1 (v2) now links here, by subject+author" out &&
	[ "$(sql "SELECT previous_id || \" \" || previous_how FROM series WHERE id = 1")" = "$id1 subject+author" ] &&
	[ "$(sql "SELECT previous_id IS NULL FROM series WHERE id = $id1")" = 1 ]
'

test_expect 'versions: v3 with another title links to v2 by its change log' '
	"$MMCI" ingest mm-v3.mbox > out && cat out &&
	grep -q "previous version: series #1 (v2), linked by changelog link" out &&
	id3=$(sql "SELECT id FROM series WHERE message_id = \"$V3\"") &&
	[ "$(sql "SELECT previous_id || \" \" || previous_how FROM series WHERE id = $id3")" = "1 changelog link" ] &&
	[ "$(sql "SELECT message_id FROM series_links WHERE series_id = $id3")" = "$V2" ] &&
	"$MMCI" ingest mm-v3.mbox > out2 && cat out2 &&
	grep -q "already ingested" out2 &&
	grep -q "previous version: series #1 (v2), linked by changelog link" out2
'

test_expect 'versions: v2 ingested after v3 (other db): v3 links to it by change log' '
	MMCI_DB="$TRASH/rev.db" "$MMCI" ingest mm-v3.mbox > out && cat out &&
	! grep -q "previous version" out &&
	MMCI_DB="$TRASH/rev.db" "$MMCI" ingest mm-v2.mbox > out && cat out &&
	grep -q "next version: series #1 (v3) now links here, by changelog link" out &&
	[ "$(sqlite3 "$TRASH/rev.db" "SELECT previous_id || \" \" || previous_how FROM series WHERE id = 1")" = "2 changelog link" ]
'

test_expect 'versions: our v2 links to v1 by its change log, titles differ (both orders)' '
	MMCI_DB="$TRASH/ours.db" "$MMCI" ingest "$OWN/vmalloc-huge-vmap-v1.mbox" > out && cat out &&
	MMCI_DB="$TRASH/ours.db" "$MMCI" ingest "$OWN/vmalloc-huge-vmap-v2.mboxrd" > out && cat out &&
	grep -q "previous version: series #1 (v1), linked by changelog link" out &&
	[ "$(sqlite3 "$TRASH/ours.db" "SELECT message_id FROM series_links WHERE series_id = 2")" = \
	  20260330151502.7712-1-kenji.hara@example.com ] &&
	MMCI_DB="$TRASH/ours-rev.db" "$MMCI" ingest "$OWN/vmalloc-huge-vmap-v2.mboxrd" > out && cat out &&
	! grep -q "previous version" out &&
	MMCI_DB="$TRASH/ours-rev.db" "$MMCI" ingest "$OWN/vmalloc-huge-vmap-v1.mbox" > out && cat out &&
	grep -q "next version: series #1 (v2) now links here, by changelog link" out &&
	[ "$(sqlite3 "$TRASH/ours-rev.db" "SELECT previous_id || \" \" || previous_how FROM series WHERE id = 1")" = "2 changelog link" ]
'

test_expect 'notice after its series: linked to the patch by message id' '
	"$MMCI" ingest "$OWN/vmalloc-huge-vmap-v2.mboxrd" > out && cat out &&
	sid=$(sql "SELECT series_id FROM patches WHERE message_id = \"20260414093012.51234-3-kenji.hara@example.com\"") &&
	pid=$(sql "SELECT id FROM patches WHERE message_id = \"20260414093012.51234-3-kenji.hara@example.com\"") &&
	"$MMCI" ingest "$NOTICE" > out && cat out &&
	grep -q "mm-commits notice: .mm-vmalloc-find-physically-contiguous-runs-in-vmap.patch. added to mm-new" out &&
	grep -q "linked: notice #1 -> patch #$pid (2/3 of series #$sid) by message-id" out &&
	[ "$(sql "SELECT action || \"|\" || branch || \"|\" || filename || \"|\" || title || \"|\" || author || \"|\" || patch_id || \"|\" || series_id || \"|\" || link_how FROM notices")" = \
	  "added|mm-new|mm-vmalloc-find-physically-contiguous-runs-in-vmap.patch|mm/vmalloc: find physically contiguous runs in vmap()|Kenji Hara <kenji.hara@example.com>|$pid|$sid|message-id" ] &&
	[ "$(sql "SELECT signed_off_by FROM notices" | grep -c "<")" = 2 ] &&
	"$MMCI" ingest "$NOTICE" > out && cat out &&
	grep -q "notice already stored" out && [ "$(sql "SELECT count(*) FROM notices")" = 1 ]
'

test_expect 'notice before its series: the series links it when it arrives' '
	MMCI_DB="$TRASH/n.db" "$MMCI" ingest "$NOTICE" > out && cat out &&
	grep -q "not linked: notice #1" out &&
	MMCI_DB="$TRASH/n.db" "$MMCI" ingest "$OWN/vmalloc-huge-vmap-v2.mboxrd" > out && cat out &&
	grep -q "mm-commits notices now linked: 1" out &&
	[ "$(sqlite3 "$TRASH/n.db" "SELECT patch_id || \" \" || series_id || \" \" || link_how FROM notices")" = "2 1 message-id" ]
'

test_expect 'removed and merged notices (hand-made): linked by subject' '
	for v in "- |removed from -mm tree|an updated version will be issued" \
		 "[merged mm-stable] |removed from -mm tree|it was merged into the mm-stable branch"; do
		pre=${v%%|*}; rest=${v#*|}; what=${rest%%|*}; why=${rest#*|}
		cat > n.eml <<-EOF
		From: Hugo Brandt <hugo.brandt@example.org>
		Subject: ${pre}mm-vmalloc-find-physically-contiguous-runs-in-vmap.patch $what
		Message-Id: <$(echo "$pre" | md5sum | cut -c1-8)@smtp.kernel.org>
		Date: Mon, 29 Jun 2026 04:49:21 +0000

		The quilt patch titled
		     Subject: mm/vmalloc: find physically contiguous runs in vmap()
		has been removed from the -mm tree.  Its filename was
		     mm-vmalloc-find-physically-contiguous-runs-in-vmap.patch

		This patch was dropped because $why

		------------------------------------------------------
		From: Kenji Hara <kenji.hara@example.com>
		Subject: mm/vmalloc: find physically contiguous runs in vmap()

		Signed-off-by: Kenji Hara <kenji.hara@example.com>
		---
		EOF
		"$MMCI" ingest n.eml > out || exit 1
		cat out
		grep -q "linked: notice #[0-9]* -> patch #[0-9]* (2/3 of series #[0-9]*) by subject" out || exit 1
	done &&
	[ "$(sql "SELECT group_concat(action || \":\" || ifnull(branch, \"-\"), \" \") FROM notices")" = "added:mm-new removed:- merged:mm-stable" ] &&
	[ "$(sql "SELECT reason FROM notices WHERE action = \"removed\"")" = "an updated version will be issued" ]
'

test_expect 'bad notices: no crash, the problem stored' '
	printf "From: a@b\nSubject: + x.patch added to mm-new branch\nMessage-Id: <bad1@x>\n\nnothing here\n" > bad.eml &&
	"$MMCI" ingest bad.eml > out && cat out &&
	grep -q "problem: no commit after the notice text; no \"Its filename is\" line; no patch title" out &&
	[ "$(sql "SELECT problem IS NOT NULL FROM notices WHERE message_id = \"bad1@x\"")" = 1 ]
'

test_expect 'the mm-commits feed: each new notice stored and linked, once' '
	export MMCI_DB="$TRASH/commits.db" &&
	"$MMCI" ingest "$OWN/vmalloc-huge-vmap-v2.mboxrd" > out &&
	nid=20260417235231.7C3A2C4CEF1@smtp.example.org &&
	serve "$NOTICE" mm-commits "$nid" &&
	{
		feed_start | sed "s|linux-mm|mm-commits|g"
		entry "+ mm-vmalloc-find-physically-contiguous-runs-in-vmap.patch added to mm-new branch" \
			"$nid" "Andrew Morton" akpm@example.org |
			sed "s|/linux-mm/|/mm-commits/|"
		echo "</feed>"
	} > "$WWW/mm-commits/new.atom" &&
	"$MMCI" ingest commits --feed "$BASE/mm-commits/new.atom" > out 2>&1 &&
	cat out &&
	grep -q "mm-commits notice: .mm-vmalloc-find-physically-contiguous-runs-in-vmap.patch. added to mm-new" out &&
	grep -q "linked: notice #1 -> patch #[0-9]* (2/3 of series #1) by message-id" out &&
	grep -q "^mm-commits: 1 entry stored, 0 seen before, 0 error(s)$" out &&
	[ "$(requests "/mm-commits/$nid/t.mbox.gz")" = 1 ] &&
	"$MMCI" ingest commits --feed "$BASE/mm-commits/new.atom" > out 2>&1 &&
	cat out && grep -q "^mm-commits: 0 entries stored, 1 seen before" out &&
	[ "$(requests "/mm-commits/$nid/t.mbox.gz")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM notices WHERE patch_id IS NOT NULL")" = 1 ]
'

stop_nginx
test_done
