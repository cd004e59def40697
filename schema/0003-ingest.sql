-- mmci schema, migration 3: ingest of whole threads (`mmci ingest`).
-- A thread is one mbox as read: a lore t.mbox.gz or a local file. Every
-- mail of it gets a row, with the reason it was odd; the series found in
-- it (if any) points back at the thread.

CREATE TABLE threads (
	id INTEGER PRIMARY KEY,
	source TEXT NOT NULL,            -- the URL, or the file's path
	source_url TEXT,                 -- NULL for a local file
	cache_path TEXT,                 -- the body as fetched or read
	source_sha1 TEXT NOT NULL,       -- hash of the mbox after inflating
	fetched_at REAL,                 -- when the body was transferred
	nr_messages INTEGER NOT NULL,
	series_id INTEGER REFERENCES series(id),
	problem TEXT,                    -- thread-level: truncated gzip, no series
	ingested_at REAL NOT NULL
);
CREATE INDEX threads_sha1 ON threads(source_sha1);

CREATE TABLE messages (
	id INTEGER PRIMARY KEY,
	thread_id INTEGER NOT NULL REFERENCES threads(id),
	idx INTEGER NOT NULL,            -- 0-based position in the mbox
	message_id TEXT,                 -- without <>; NULL if absent or bad
	subject TEXT NOT NULL,
	from_addr TEXT NOT NULL,         -- "Name <email>" as decoded
	date REAL NOT NULL,              -- Unix time; 0 if unparsable
	series_id INTEGER REFERENCES series(id),   -- NULL: not of the series
	role TEXT NOT NULL CHECK (role IN ('cover', 'patch', 'reply',
	                                   'unused-patch', 'other')),
	problem TEXT,                    -- why the mail is odd; NULL if fine
	mbox_offset INTEGER NOT NULL,    -- bytes
	mbox_length INTEGER NOT NULL,    -- bytes
	UNIQUE (thread_id, idx)
);
CREATE INDEX messages_msgid ON messages(message_id);
CREATE INDEX messages_series ON messages(series_id);

-- trailers of a patch: from its own message ('patch'), from replies to it
-- ('reply') or from replies to the cover letter ('cover')
CREATE TABLE patch_trailers (
	id INTEGER PRIMARY KEY,
	patch_id INTEGER NOT NULL REFERENCES patches(id),
	idx INTEGER NOT NULL,            -- order within the patch
	origin TEXT NOT NULL CHECK (origin IN ('patch', 'reply', 'cover')),
	trailer TEXT NOT NULL            -- "Reviewed-by: A <a@b>"
);
CREATE INDEX patch_trailers_patch ON patch_trailers(patch_id);

ALTER TABLE series ADD COLUMN source_url TEXT;
ALTER TABLE series ADD COLUMN fetched_at REAL;
ALTER TABLE series ADD COLUMN is_rfc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE series ADD COLUMN nr_found INTEGER;  -- patches present of total
ALTER TABLE series ADD COLUMN missing TEXT;      -- "2,5": indices no mail has
ALTER TABLE patches ADD COLUMN version INTEGER;  -- as posted (older: borrowed)
ALTER TABLE patches ADD COLUMN has_diff INTEGER NOT NULL DEFAULT 1;
