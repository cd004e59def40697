-- mmci schema, migration 17: what a run's bundle (bundle.h) carries
-- that no other row holds, and where imported bundles went.
-- texts: files a build used, by the SHA-1 of their content: the config
-- fragment (builds.config_hash) and the final .config (dotconfig_hash).
-- Written when a build finishes (as root, which can read them), so that
-- a bundle is made from the database alone, by the service user too.
CREATE TABLE texts (
	sha1 TEXT PRIMARY KEY,
	body TEXT NOT NULL
);
-- bundle_imports: a bundle read by `mmci reproduce --bundle`, once: its
-- recorded run is stored as run_id (label "bundle: ..."), and a second
-- import of the same bytes finds it again instead of storing a copy.
CREATE TABLE bundle_imports (
	sha1 TEXT PRIMARY KEY,           -- of the bundle's JSON
	source TEXT NOT NULL,            -- the file or URL it was read from
	run_id INTEGER NOT NULL REFERENCES runs(id),
	origin_host TEXT,
	origin_run INTEGER,
	imported_at REAL NOT NULL
);
