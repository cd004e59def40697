#!/bin/sh
# t0200-apply: series from an mbox, applied with libgit2 on a small git
# repository made here; the result must equal what `git am` makes.
. "$(dirname "$0")/lib.sh"

export MMCI_TREE="$TRASH/repo"
export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL='author@example.org'
export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL='c@example.org'

test_expect 'set up a tree and a 3-patch series with git' '
	git init -q repo && cd repo &&
	printf "line %s\n" 1 2 3 4 5 6 7 8 9 10 > mm_init.c &&
	printf "#define X 1\n" > mm.h &&
	git add . && git commit -qm "base" && git tag base &&
	sed -i "s/line 3/line three/" mm_init.c && git commit -qam "mm: three" &&
	printf "new file\n" > vmalloc.c && git add vmalloc.c &&
	git commit -qm "mm: add vmalloc.c" &&
	git rm -q mm.h && sed -i "s/line 9/line nine/" mm_init.c &&
	git commit -qam "mm: drop mm.h" &&
	git format-patch -q --cover-letter -o ../patches base &&
	cat ../patches/*.patch > ../series.mbox &&
	git rev-parse HEAD^{tree} > ../expected-tree
'

test_expect 'mmci apply gives the tree git made, one commit per patch' '
	"$MMCI" apply series.mbox --base base > out &&
	head=$(sed -n "s/.*applied: //p" out) &&
	[ "$(git -C repo rev-parse "$head^{tree}")" = "$(cat expected-tree)" ] &&
	[ "$(git -C repo rev-list --count base.."$head")" = 3 ] &&
	git -C repo log -1 --format="%an <%ae>|%s" "$head" > who &&
	grep -q "^A U Thor <author@example.org>|mm: drop mm.h$" who
'

test_expect 'applying twice gives the same commit (deterministic ids)' '
	"$MMCI" apply series.mbox --base base > out2 &&
	cmp out out2 &&
	[ "$(sql "SELECT count(*) FROM series")" = 1 ] &&
	[ "$(sql "SELECT count(*) FROM applies WHERE status = \"ok\"")" = 2 ]
'

test_expect '--upto applies only the first patches' '
	"$MMCI" apply series.mbox --base base --upto 1 > out1 &&
	head=$(sed -n "s/.*applied: //p" out1) &&
	git -C repo show "$head:mm_init.c" | grep -q "line three" &&
	! git -C repo show "$head:vmalloc.c" 2>/dev/null
'

test_expect 'the series and its patches are stored' '
	[ "$(sql "SELECT total FROM series")" = 3 ] &&
	[ "$(sql "SELECT group_concat(title, \"|\") FROM
	     (SELECT title FROM patches ORDER BY idx)")" = \
	  "mm: three|mm: add vmalloc.c|mm: drop mm.h" ]
'

test_expect 'a patch that does not apply: clear error, failed row, exit 1' '
	git -C repo checkout -q -b other base &&
	printf "unrelated\n" > repo/mm_init.c &&
	git -C repo commit -qam "rewrite mm_init.c" && git -C repo tag other &&
	set +e; "$MMCI" apply series.mbox --base other 2> err; rc=$?; set -e &&
	[ $rc = 1 ] &&
	grep -q "error: patch 1/3 .mm: three. does not apply to [0-9a-f]*" err &&
	[ "$(sql "SELECT count(*) FROM applies WHERE status = \"failed\"
	     AND error LIKE \"%does not apply%\"")" = 1 ]
'

test_expect 'a later patch failing names the patch and what it sat on' '
	git -C repo checkout -q -b third base &&
	printf "other\n" > repo/vmalloc.c && git -C repo add vmalloc.c &&
	git -C repo commit -qm "add vmalloc.c first" && git -C repo tag third &&
	set +e; "$MMCI" apply series.mbox --base third 2> err; rc=$?; set -e &&
	[ $rc = 1 ] &&
	grep -q "patch 2/3 .mm: add vmalloc.c. does not apply to [0-9a-f]* + patches 1-1" err
'

test_expect 'a file that is not a series is refused' '
	printf "hello\nthis is not mail\n" > notmail.txt &&
	set +e; "$MMCI" apply notmail.txt --base base 2> err; rc=$?; set -e &&
	[ $rc = 1 ] && grep -q "is not a patch series" err
'

test_expect 'a directory or a FIFO is refused, saying which, without waiting' '
	mkdir adir && mkfifo afifo &&
	set +e; timeout 20 "$MMCI" apply adir --base base 2> err; rc=$?; set -e &&
	cat err && [ $rc = 1 ] &&
	grep -qx "error: .adir. is a directory, not an mbox file" err &&
	set +e; timeout 20 "$MMCI" apply afifo --base base 2> err; rc=$?; set -e &&
	cat err && [ $rc = 1 ] &&
	grep -qx "error: .afifo. is a FIFO, not a regular file (an mbox file expected)" err
'

test_expect 'a series with a missing patch is refused, naming it' '
	cat patches/0000-*.patch patches/0001-*.patch patches/0003-*.patch \
		> holes.mbox &&
	set +e; "$MMCI" apply holes.mbox --base base 2> err; rc=$?; set -e &&
	[ $rc = 1 ] && grep -q "missing patch(es) 2/3" err
'

test_expect 'an unknown base is a clear error' '
	set +e; "$MMCI" apply series.mbox --base nosuchref 2> err; rc=$?
	set -e
	[ $rc = 1 ] && grep -q "unknown revision .nosuchref." err
'

test_done
