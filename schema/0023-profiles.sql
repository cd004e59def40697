-- mmci schema, migration 23: instruction profiles (profile.h). A profile
-- is one more boot of a measured run's set-up, under TCG and icount, with
-- QEMU's counting plugin loaded (runner/qemu-profile.c); its samples are
-- not kept (the run's own boots measured). profile_windows: per window
-- kind (a workload and variant), how many timed writes were counted and
-- the guest instructions executed in them; profile_funcs: the same,
-- split by the function each instruction belongs to (exclusive counts;
-- inlined code counts for the function it was inlined into).
CREATE TABLE profiles (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES runs(id),
	status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed')),
	error TEXT,
	method TEXT NOT NULL,
	symbols INTEGER,
	console_log TEXT,
	started_at REAL NOT NULL,
	duration_s REAL
);
CREATE INDEX profiles_run ON profiles(run_id);
CREATE TABLE profile_windows (
	profile_id INTEGER NOT NULL REFERENCES profiles(id),
	workload TEXT NOT NULL,
	variant TEXT NOT NULL,
	windows INTEGER NOT NULL,
	insns INTEGER NOT NULL,
	PRIMARY KEY (profile_id, workload, variant)
);
CREATE TABLE profile_funcs (
	profile_id INTEGER NOT NULL REFERENCES profiles(id),
	workload TEXT NOT NULL,
	variant TEXT NOT NULL,
	func TEXT NOT NULL,
	insns INTEGER NOT NULL,
	PRIMARY KEY (profile_id, workload, variant, func)
);
CREATE TRIGGER pages_profiles_insert AFTER INSERT ON profiles BEGIN
	INSERT INTO pages_dirty (key) VALUES ('run/' || NEW.run_id)
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
	INSERT INTO pages_dirty (key) SELECT 'series/' || j.series_id
		FROM runs r JOIN jobs j ON j.id = r.job_id
		WHERE r.id = NEW.run_id AND j.series_id IS NOT NULL
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pages_profiles_update AFTER UPDATE ON profiles BEGIN
	INSERT INTO pages_dirty (key) VALUES ('run/' || NEW.run_id)
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
	INSERT INTO pages_dirty (key) SELECT 'series/' || j.series_id
		FROM runs r JOIN jobs j ON j.id = r.job_id
		WHERE r.id = NEW.run_id AND j.series_id IS NOT NULL
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
