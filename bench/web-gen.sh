#!/bin/sh
# web-gen.sh - a database of the size issue 14 measured the pages at,
# written straight with sqlite3 (no guest): RUNS finished runs of 5 boots
# each in wall-clock mode, PER samples in each of the newest SAMPLED runs
# and 100 in every older one (5 metrics), SERIES series of one patch; the
# newest run is a series' build measured against the run before it (its
# base), both left `running` with their job: `web-gen.sh --finish DB`
# then ends them, as a job that finishes does.
#
#   web-gen.sh DB [RUNS [SAMPLED [PER [SERIES]]]]   (10000 500 2500 2000)
#   web-gen.sh --finish DB
# The database must exist at the current schema (mmci init).
# Used by bench/web.sh and tests/t0920-web-stress.sh.
set -eu
if [ "$1" = --finish ]; then
	sqlite3 -bail "$2" <<-EOF
	BEGIN;
	UPDATE runs SET status = 'ok', ended_at = started_at + 600
		WHERE status = 'running';
	UPDATE boots SET status = 'ok' WHERE status = 'running';
	UPDATE jobs SET status = 'done', ended_at = created_at + 600
		WHERE status = 'running';
	COMMIT;
	EOF
	exit 0
fi
DB=$1 RUNS=${2:-10000} SAMPLED=${3:-500} PER=${4:-2500} SERIES=${5:-2000}
# iterations per boot and metric: 5 metrics x 5 boots
ITERS=$((PER / 25)); [ "$ITERS" -ge 1 ] || ITERS=1
sqlite3 -bail "$DB" <<EOF
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $SERIES)
INSERT INTO series (id, title, total, message_id, author, source,
	source_sha1, ingested_at)
SELECT i, 'mm: series ' || i || ' <b>&</b>', 1, 'gen-' || i || '@example.org',
	'Gen <gen@example.org>', 'gen', 'sha-' || i, 1700000000 + i FROM n;
INSERT INTO patches (series_id, idx, title, author, message_id, diff_sha1)
SELECT id, 1, 'mm: patch of ' || id, author, message_id, 'd' || id FROM series;
INSERT INTO applies (series_id, base_ref, base_commit, upto, head_commit,
	status, created_at) VALUES ($SERIES, 'base', 'base0', 1, 'head1', 'ok', 0);
INSERT INTO builds (id, cache_key, tree_path, commit_id, tree_oid, series_id,
	upto, config_fragment, config_hash, status, started_at) VALUES
	(1, 'k1', '/t', 'base0', 't1', NULL, 0, 'f', 'h', 'ok', 0),
	(2, 'k2', '/t', 'head1', 't2', $SERIES, 1, 'f', 'h', 'ok', 0);
INSERT INTO jobs (id, kind, status, created_at, series_id)
	VALUES (1, 'series', 'running', 1800000000, $SERIES);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $RUNS)
INSERT INTO runs (id, label, build_id, kernel, kernel_release, modules_root,
	hz, workloads, params, accel, clock, vcpus, ram_mib, nvdimm_mib,
	backing, host, initrd, status, started_at, ended_at, job_id)
SELECT i, 'gen-' || i, CASE WHEN i = $RUNS THEN 2 WHEN i = $RUNS - 1 THEN 1
	ELSE NULL END, '/k', '6.12.' || (i % 50), '/m', 1000, 'fsdax',
	'{"iters":10}', 'kvm', 'wall', 1, 1280, 2048, 'tmpfs', 'gen', '/i',
	CASE WHEN i >= $RUNS - 1 THEN 'running' ELSE 'ok' END,
	1700000000 + i * 600, CASE WHEN i >= $RUNS - 1 THEN NULL
	ELSE 1700000000 + i * 600 + 500 END,
	CASE WHEN i >= $RUNS - 1 THEN 1 ELSE NULL END FROM n;
WITH RECURSIVE b(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM b WHERE k < 4)
INSERT INTO boots (id, run_id, idx, status, end_kind, started_at, duration_s)
SELECT r.id * 5 + k, r.id, k, CASE WHEN r.status = 'ok' THEN 'ok'
	ELSE 'running' END, 'poweroff', r.started_at + k * 100, 90
	FROM runs r, b;
WITH RECURSIVE m(j, name) AS (VALUES (0, 'rebind_memmap'), (1, 'rebind_wall'),
	(2, 'probe_ms'), (3, 'remove_ms'), (4, 'add_ms')),
it(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM it WHERE x < $ITERS),
small(x) AS (VALUES (1), (2), (3), (4))
INSERT INTO samples (run_id, boot_id, workload, variant, metric, unit,
	iteration, value)
SELECT bo.run_id, bo.id, 'fsdax', 'align=2M,map=dev', m.name, 'ms', it.x,
	100 + m.j * 10 + (bo.run_id % 7) + (abs(random()) % 1000) / 1000.0
	FROM boots bo, m, it WHERE bo.run_id > $RUNS - $SAMPLED
UNION ALL
SELECT bo.run_id, bo.id, 'fsdax', 'align=2M,map=dev', m.name, 'ms', small.x,
	100 + m.j * 10 + (abs(random()) % 1000) / 1000.0
	FROM boots bo, m, small WHERE bo.run_id <= $RUNS - $SAMPLED;
COMMIT;
EOF
