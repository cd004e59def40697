-- mmci schema, migration 20: which run stands for each step of a series
-- job, and why (attribution.c reads only these). A step is 0 (the base)
-- or the number of patches applied. Its run may be one the job measured,
-- or one it reused from another job (an icount base measured before with
-- the same build and set-up: a nightly's, a bisection's, an earlier
-- series job's, or this job's own earlier attempt before it was killed);
-- a patch step without a kernel is 'folded': its effect is counted with
-- the next step's, and the note says why. Written once, when the job's
-- measurements end (job_set_steps()).
CREATE TABLE job_steps (
	job_id INTEGER NOT NULL REFERENCES jobs(id),
	upto INTEGER NOT NULL CHECK (upto >= 0),
	run_id INTEGER REFERENCES runs(id),
	source TEXT NOT NULL CHECK (source IN ('measured', 'reused', 'folded')),
	note TEXT NOT NULL,
	PRIMARY KEY (job_id, upto),
	CHECK ((source = 'folded') = (run_id IS NULL))
);
CREATE INDEX job_steps_run ON job_steps(run_id);

-- claims that name a patch ("Patch 2 reduces ...", "after patch 3/5"):
-- the step they are held against; NULL: the mail's own (patch, or the
-- series for the cover letter)
ALTER TABLE claims ADD COLUMN step INTEGER;

-- finished series jobs of before: their steps from their own runs (the
-- newest ok run of each step) and, when the base was reused, the base
-- run named in their result
INSERT OR IGNORE INTO job_steps (job_id, upto, run_id, source, note)
	SELECT j.id, b.upto, max(r.id), 'measured', 'measured in this job '
		|| '(recorded by migration 20)'
	FROM jobs j JOIN runs r ON r.job_id = j.id
	JOIN builds b ON b.id = r.build_id
	WHERE j.kind = 'series' AND j.status = 'done' AND r.status = 'ok'
	GROUP BY j.id, b.upto;
INSERT OR IGNORE INTO job_steps (job_id, upto, run_id, source, note)
	SELECT j.id, 0, CAST(json_extract(j.result, '$.base_run') AS INTEGER),
		'reused', 'reused run #' || json_extract(j.result, '$.base_run')
		|| ' (recorded by migration 20)'
	FROM jobs j WHERE j.kind = 'series' AND j.status = 'done'
	AND json_valid(j.result)
	AND json_extract(j.result, '$.base_run') IS NOT NULL
	AND EXISTS (SELECT 1 FROM runs r WHERE
		r.id = json_extract(j.result, '$.base_run'));
