#!/bin/sh
# t0530-history: `mmci history`, a metric's nightly values with steps and
# drift. Twelve nights of real runs take too long here, so the database is
# created by mmci and the nights are inserted with sqlite3: twelve wall-clock
# runs of tree builds (rebind_memmap steps up 10 % at night 7, rebind_wall
# climbs 0.5 % a night), twelve icount runs on the same nights (137 ms
# every time), a series build after them, a failed run and a failed boot
# that must not count.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 inserts the fixture"

# commit of night N: 40 hex digits that say which night they are
commit() { printf 'c0ffee%02d%032d' "$1" 0; }

# The nights, as SQL. Wall-clock values: a level per night (rebind_memmap
# 100 ms, 110 from night 7; rebind_wall 200 ms + 0.5 % a night) plus a
# night's own offset (+-0.6 ms, +-0.9 ms) and, inside each boot, +-0.8 ms
# of noise around it; icount: 137 ms and 200 ms every time.
fixture() {
	awk -v day0=1735689600 '
	function commit(n) { return sprintf("c0ffee%02d%032d", n, 0) }
	BEGIN {
		print "BEGIN;"
		print "INSERT INTO series (id, title, total, source, source_sha1, " \
		      "ingested_at) VALUES (1, \047mm: a series\047, 1, \047x\047, \047y\047, 0);"
		boot = 0
		for (n = 1; n <= 13; n++) {
			printf "INSERT INTO builds (id, cache_key, tree_path, " \
			       "commit_id, tree_oid, series_id, config_fragment, " \
			       "config_hash, kernel_release, hz, status, started_at) " \
			       "VALUES (%d, \047k%d\047, \047/t\047, \047%s\047, \047t%d\047, %s, " \
			       "\047f\047, \047h\047, \0476.12.0-mm%d\047, 250, \047ok\047, 0);\n",
			       n, n, commit(n), n, n == 13 ? "1" : "NULL", n
			for (m = 0; m < 2; m++) {
				mode = m ? "icount" : "wall"
				if (m && n == 13)
					continue
				id = m ? 100 + n : n
				at = day0 + n * 86400 + m * 3600
				printf "INSERT INTO runs (id, label, build_id, kernel, " \
				       "kernel_release, modules_root, hz, workloads, " \
				       "params, accel, clock, vcpus, ram_mib, nvdimm_mib, " \
				       "backing, host, initrd, status, started_at) VALUES " \
				       "(%d, \047nightly\047, %d, \047/k\047, \0476.12.0-mm%d\047, " \
				       "\047/\047, 250, \047fsdax\047, \047{}\047, \047tcg\047, \047%s\047, " \
				       "%d, 1024, 16384, \047tmpfs\047, \047h\047, \047/i\047, \047ok\047, " \
				       "%d);\n", id, n, n, mode, m ? 1 : 2, at
				for (b = 1; b <= 3; b++) {
					boot++
					printf "INSERT INTO boots (id, run_id, idx, status, " \
					       "started_at) VALUES (%d, %d, %d, \047ok\047, 0);\n",
					       boot, id, b
					for (i = 0; i < 5; i++) {
						noise = (n * 7 + b * 3 + i) % 5 - 2
						mem = (n >= 7 ? 110 : 100) + ((n * 5) % 7 - 3) * 0.2 + noise * 0.4
						wall = 200 * (1 + 0.005 * (n - 1)) + ((n * 3) % 7 - 3) * 0.3 + noise * 0.3
						if (m) { mem = 137; wall = 200 }
						printf "INSERT INTO samples (run_id, boot_id, " \
						       "workload, metric, unit, iteration, value) " \
						       "VALUES (%d, %d, \047fsdax\047, \047rebind_memmap\047, " \
						       "\047ms\047, %d, %.3f), (%d, %d, \047fsdax\047, " \
						       "\047rebind_wall\047, \047ms\047, %d, %.3f);\n",
						       id, boot, i, mem, id, boot, i, wall
					}
				}
			}
		}
		# a failed boot in run 3 and a failed run 60: never counted
		print "INSERT INTO boots (id, run_id, idx, status, started_at) " \
		      "VALUES (900, 3, 9, \047failed\047, 0);"
		for (i = 0; i < 3; i++)
			printf "INSERT INTO samples (run_id, boot_id, workload, " \
			       "metric, unit, iteration, value) VALUES (3, 900, " \
			       "\047fsdax\047, \047rebind_memmap\047, \047ms\047, %d, 9999);\n", i
		printf "INSERT INTO runs (id, label, build_id, kernel, " \
		       "kernel_release, modules_root, hz, workloads, params, accel, " \
		       "clock, vcpus, ram_mib, nvdimm_mib, backing, host, initrd, " \
		       "status, started_at) VALUES (60, \047nightly\047, 5, \047/k\047, " \
		       "\0476.12.0-mm5\047, \047/\047, 250, \047fsdax\047, \047{}\047, \047tcg\047, " \
		       "\047wall\047, 2, 1024, 16384, \047tmpfs\047, \047h\047, \047/i\047, " \
		       "\047failed\047, %d);\n", day0 + 5 * 86400 + 60
		print "INSERT INTO boots (id, run_id, idx, status, started_at) " \
		      "VALUES (901, 60, 1, \047ok\047, 0);"
		print "INSERT INTO samples (run_id, boot_id, workload, metric, " \
		      "unit, iteration, value) VALUES (60, 901, \047fsdax\047, " \
		      "\047rebind_memmap\047, \047ms\047, 0, 5000);"
		print "COMMIT;"
	}'
}

test_expect 'an empty database: insufficient data, exit 0' '
	"$MMCI" init --no-tree &&
	"$MMCI" history --metric rebind_memmap > out &&
	grep "history of rebind_memmap: insufficient data (no finished run" out
'

test_expect 'an unknown metric is an error' '
	set +e; "$MMCI" history --metric no_such_metric > out 2> err; rc=$?
	set -e &&
	[ $rc = 1 ] && grep "unknown metric .no_such_metric." err && ! test -s out
'

test_expect 'bad options: usage and 129' '
	set +e; "$MMCI" history > out 2> err; rc=$?; set -e &&
	[ $rc = 129 ] && grep "^usage: mmci history" err &&
	set +e; "$MMCI" history --metric x --bogus 2> err; rc=$?; set -e &&
	[ $rc = 129 ] && grep "^usage: mmci history" err &&
	set +e; "$MMCI" history --metric x --limit 0 2> err; rc=$?; set -e &&
	[ $rc != 0 ] && grep "limit" err &&
	"$MMCI" history --help | grep "^usage: mmci history"
'

test_expect 'twelve nights inserted' '
	fixture > fixture.sql && sqlite3 "$MMCI_DB" < fixture.sql &&
	[ "$(sql "SELECT count(*) FROM runs WHERE status = \"ok\"")" = 25 ]
'

test_expect 'icount and wall-clock runs are two series, never mixed' '
	"$MMCI" history --metric rebind_memmap --tree-only > out &&
	grep "^history of rebind_memmap: 2 series" out &&
	grep "^mode: tcg, clock wall" out && grep "^mode: tcg, clock icount" out &&
	sed -n "/^series 1 of 2/,/^series 2 of 2/p" out > wall &&
	sed -n "/^series 2 of 2/,\$p" out > icount &&
	[ $(grep -c "  nightly  " wall) = 12 ] &&
	[ $(grep -c "  nightly  " icount) = 12 ] &&
	! grep -q "137.0" wall && [ $(grep -c " 137.0" icount) = 12 ] &&
	grep "^change-points.*: none (all 12 values are equal)" icount &&
	grep "^drift.*: none (all 12 values are equal)" icount
'

test_expect 'the step is named at night 7, the first run after it' '
	"$MMCI" history --metric rebind_memmap --tree-only > out &&
	sed -n "/^series 1 of 2/,/^series 2 of 2/p" out > wall &&
	grep "^change-points.*: 1\$" wall &&
	grep "^  step at run #7 (2025-01-08): 10[0-9.]* -> 1[01][0-9.]* ms, +[0-9.]* % (worse), p 0.00" wall &&
	grep "^ *7  2025-01-08  6.12.0-mm7 .*<- step +" wall &&
	[ $(grep -c "<- step" wall) = 1 ] &&
	grep "between run #6 (6.12.0-mm6, commit c0ffee060000) and run #7 (6.12.0-mm7, commit c0ffee070000)" wall
'

test_expect 'the bisect line names the two runs'"'"' commits' '
	"$MMCI" history --metric rebind_memmap --tree-only > out &&
	grep "^    mmci bisect $(commit 6) $(commit 7) --metric rebind_memmap --workload fsdax --clock wall\$" out &&
	[ $(grep -c "mmci bisect" out) = 1 ]
'

test_expect 'a failed run and a failed boot are not points' '
	"$MMCI" history --metric rebind_memmap > out &&
	! grep -q "^ *60 " out && ! grep -q " 5000\| 9999" out &&
	grep "^ *3  2025-01-04 .* 99.6\$" out
'

test_expect 'a slow drift is flagged' '
	"$MMCI" history --metric rebind_wall --workload fsdax --tree-only > out &&
	sed -n "/^series 1 of 2/,/^series 2 of 2/p" out > wall &&
	grep "^drift (Mann-Kendall, Theil-Sen): DRIFTING: +0.[3-6][0-9]* %/run" wall &&
	grep "DRIFTING.* (worse)" wall
'

test_expect 'series builds show up, --tree-only leaves them out' '
	"$MMCI" history --metric rebind_memmap > all &&
	grep "^ *13  2025-01-14  6.12.0-mm13 .*series #1 " all &&
	"$MMCI" history --metric rebind_memmap --tree-only > tree &&
	! grep -q "^ *13 " tree && grep -q "^ *12 .* tree " tree
'

test_expect '--limit keeps the newest runs: too few is insufficient' '
	"$MMCI" history --metric rebind_memmap --tree-only --limit 5 > out &&
	[ $(grep -c "  nightly  " out) = 10 ] &&
	grep "^ *12 " out && ! grep -q "^ *7 " out &&
	grep "^change-points.*insufficient data (5 points, need at least 12" out &&
	grep "^drift.*insufficient data (5 points, need at least 8" out
'

test_expect '--variant and --workload filter; none left is insufficient' '
	"$MMCI" history --metric rebind_memmap --variant align=1G > out &&
	grep "insufficient data (no finished run has samples of it, variant align=1G)" out &&
	"$MMCI" history --metric rebind_memmap --workload devdax > out &&
	grep "insufficient data" out &&
	set +e; "$MMCI" history --metric rebind_memmap --workload nope 2> err
	rc=$?; set -e && [ $rc = 1 ] && grep "unknown workload" err
'

test_done
