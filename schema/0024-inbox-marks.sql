-- mmci schema, migration 24: a list followed through its public-inbox v2
-- git history (`mmci ingest inbox`, daemon/inbox.c), every message once,
-- instead of only the Atom feed's last 25. Times are Unix seconds (REAL).
-- An inbox is named as in its URL (https://lore.kernel.org/linux-mm:
-- linux-mm), so a mirror of the same history under another URL keeps
-- the mark.

-- where reading stopped: the last commit read of the epoch being read
-- (git/N.git); NULL: none of this epoch yet, it is read from its start
CREATE TABLE inbox_marks (
	inbox TEXT PRIMARY KEY,
	url TEXT NOT NULL,               -- as last followed
	epoch INTEGER NOT NULL,
	commit_id TEXT,
	message_id TEXT,                 -- that commit's message, if it had one
	updated_at REAL NOT NULL
);

-- every message read, by Message-ID ('blob:' and its blob's id for one
-- without): a rewritten epoch (spam purged) is read again only after the
-- newest commit whose message is here, and a message read twice is
-- handled once
CREATE TABLE inbox_read (
	inbox TEXT NOT NULL,
	message_id TEXT NOT NULL,
	epoch INTEGER NOT NULL,
	commit_id TEXT NOT NULL,
	read_at REAL NOT NULL,
	PRIMARY KEY (inbox, message_id)
);

-- a series as its mails arrive: keyed by its thread's root, sender,
-- version, number of patches and RFC tag; 'waiting' until its cover
-- letter and all its patches are there, or MMCI_SERIES_WAIT_S after its
-- first mail; then 'queued' (a job, maybe with patches missing: see
-- missing), 'skipped' (no mm path), 'superseded' (a newer version came)
-- or 'failed' (why in decision)
CREATE TABLE inbox_series (
	id INTEGER PRIMARY KEY,
	inbox TEXT NOT NULL,
	root TEXT NOT NULL,              -- message id
	author_email TEXT NOT NULL,      -- lower case
	version INTEGER NOT NULL,
	total INTEGER NOT NULL,
	is_rfc INTEGER NOT NULL,
	title TEXT,                      -- of the cover letter, else patch 1
	norm_title TEXT,                 -- ingest_norm_title()
	head_id TEXT,                    -- the cover letter's id, else patch 1's
	status TEXT NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting',
		'queued', 'skipped', 'superseded', 'failed')),
	decision TEXT,
	missing TEXT,                    -- "7,9": patches that never arrived
	series_id INTEGER REFERENCES series(id),
	job_id INTEGER REFERENCES jobs(id),
	first_at REAL NOT NULL,          -- its first mail was read
	decided_at REAL,
	UNIQUE (inbox, root, author_email, version, total, is_rfc)
);
CREATE INDEX inbox_series_status ON inbox_series(inbox, status);
CREATE INDEX inbox_series_norm ON inbox_series(inbox, author_email,
					       norm_title);

-- the mails of a series: where each is in the history (the blob of its
-- epoch's mirror); idx 0 is the cover letter
CREATE TABLE inbox_mails (
	inbox_series_id INTEGER NOT NULL REFERENCES inbox_series(id),
	idx INTEGER NOT NULL,
	message_id TEXT NOT NULL,
	in_reply_to TEXT,
	epoch INTEGER NOT NULL,
	commit_id TEXT NOT NULL,
	blob_id TEXT NOT NULL,
	PRIMARY KEY (inbox_series_id, idx)
);

-- what was decided about a message that is no series mail to wait for
-- (no Message-ID, numbered 3/2, 0/0 or 1/1000, a patch of a series
-- decided before) and about the history (an epoch rewritten, gone)
CREATE TABLE inbox_events (
	id INTEGER PRIMARY KEY,
	inbox TEXT NOT NULL,
	epoch INTEGER,
	commit_id TEXT,
	message_id TEXT,
	subject TEXT,
	decision TEXT NOT NULL,
	at REAL NOT NULL
);
CREATE INDEX inbox_events_inbox ON inbox_events(inbox, id);
