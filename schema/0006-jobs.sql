-- mmci schema, migration 6: a job owns the runs it made. A job is one
-- unit of work: 'series' (test a series: base, +1 .. +N), 'bisect'
-- (GOOD..BAD for one metric), 'nightly' (a new head of a tree). Its
-- parameters and outcome are JSON, so `mmci show job`, the web pages and
-- the daemon's resume read one row. Times are Unix seconds (REAL).
ALTER TABLE runs ADD COLUMN job_id INTEGER REFERENCES jobs(id);
CREATE INDEX runs_job ON runs(job_id);
ALTER TABLE jobs ADD COLUMN series_ref TEXT;  -- base ref, GOOD..BAD, head
ALTER TABLE jobs ADD COLUMN params TEXT;      -- JSON: options of the job
ALTER TABLE jobs ADD COLUMN result TEXT;      -- JSON: verdicts, steps
ALTER TABLE jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN owner TEXT;       -- host:pid running it
ALTER TABLE jobs ADD COLUMN reported_at REAL; -- the daemon mailed it

-- performance claims of a series' mails (claims.c): patch 0 is the cover
-- letter; before/after in the unit (times in ms), NULL for a relative
-- claim; change_pct is the claimed change of the metric's value
CREATE TABLE claims (
	id INTEGER PRIMARY KEY,
	series_id INTEGER NOT NULL REFERENCES series(id),
	patch INTEGER NOT NULL,
	line INTEGER NOT NULL,
	kind TEXT NOT NULL CHECK (kind IN ('before-after', 'percent', 'factor')),
	subject TEXT NOT NULL,
	text TEXT NOT NULL,
	before REAL,
	after REAL,
	unit TEXT NOT NULL,
	change_pct REAL,
	higher_is_better INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX claims_series ON claims(series_id, patch);

-- every report mail: written (dry-run), sent, or failed (kept to retry)
CREATE TABLE mails (
	id INTEGER PRIMARY KEY,
	created TEXT,
	kind TEXT,                       -- 'series', 'nightly'
	series_id INTEGER,
	base_run INTEGER,
	new_run INTEGER,
	message_id TEXT,
	subject TEXT,
	recipients TEXT,
	path TEXT,                       -- the .eml file
	status TEXT,                     -- 'dry-run', 'sent', 'failed'
	error TEXT,
	sent_at TEXT
);
