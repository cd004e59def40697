-- mmci schema, migration 5: versions of a series, discovery of new series
-- from the list's Atom feed, and mm-commits notices. Times are Unix
-- seconds (REAL).

-- vN points at vN-1 (the nearest lower version stored): 'changelog link'
-- when the cover letter (or patch 1) links to a mail of the older version,
-- 'subject+author' when the normalised titles and the author's address
-- match. norm_title and author_email are filled at ingest (older rows
-- lazily, by the first ingest that needs them).
ALTER TABLE series ADD COLUMN previous_id INTEGER REFERENCES series(id);
ALTER TABLE series ADD COLUMN previous_how TEXT
	CHECK (previous_how IN ('changelog link', 'subject+author'));
ALTER TABLE series ADD COLUMN norm_title TEXT;
ALTER TABLE series ADD COLUMN author_email TEXT;
CREATE INDEX series_norm ON series(norm_title, author_email);

-- message ids the cover letter (or patch 1) links to on lore: candidates
-- for an earlier version, kept so an older version ingested later finds
-- the newer one that names it
CREATE TABLE series_links (
	series_id INTEGER NOT NULL REFERENCES series(id),
	message_id TEXT NOT NULL,
	url TEXT NOT NULL
);
CREATE INDEX series_links_msgid ON series_links(message_id);
CREATE INDEX patches_msgid ON patches(message_id);

-- every feed entry that opened a new series ([PATCH 0/N], 1/N or a single
-- patch, not a reply), once: a re-poll does not fetch its thread again
CREATE TABLE discovered (
	id INTEGER PRIMARY KEY,
	message_id TEXT NOT NULL UNIQUE,
	feed_url TEXT NOT NULL,
	entry_id TEXT,                   -- <id>, urn:uuid:...
	title TEXT NOT NULL,
	link TEXT NOT NULL,              -- the message's URL
	author TEXT,                     -- "Name <email>"
	updated TEXT,                    -- as the feed says (RFC 3339)
	-- 'kept', 'skipped: no mm path', 'error: <why>'
	decision TEXT NOT NULL,
	paths TEXT,                      -- the mm paths that kept it
	series_id INTEGER REFERENCES series(id),
	job_id INTEGER REFERENCES jobs(id),
	attempts INTEGER NOT NULL DEFAULT 1,   -- errors are retried, 3 times
	seen_at REAL NOT NULL
);

-- a 'series' job tests a discovered series
ALTER TABLE jobs ADD COLUMN series_id INTEGER REFERENCES series(id);

-- mm-commits mails: a patch added to, removed from or merged into a branch
-- of akpm's tree
CREATE TABLE notices (
	id INTEGER PRIMARY KEY,
	message_id TEXT,                 -- of the notice mail
	thread_id INTEGER REFERENCES threads(id),
	action TEXT NOT NULL CHECK (action IN ('added', 'removed', 'merged')),
	branch TEXT,                     -- mm-new, mm-stable, ...; NULL: "-mm tree"
	title TEXT NOT NULL,             -- the patch's subject
	filename TEXT NOT NULL,          -- foo.patch in akpm's quilt series
	reason TEXT,                     -- removed: "This patch was dropped because ..."
	author TEXT,                     -- the commit's From:
	signed_off_by TEXT,              -- one per line, in order
	links TEXT,                      -- Link: message ids, one per line
	patch_id INTEGER REFERENCES patches(id),
	series_id INTEGER REFERENCES series(id),
	link_how TEXT CHECK (link_how IN ('message-id', 'subject')),
	problem TEXT,                    -- what the parser missed
	date REAL,
	created_at REAL NOT NULL
);
CREATE INDEX notices_patch ON notices(patch_id);

CREATE TABLE notice_links (
	notice_id INTEGER NOT NULL REFERENCES notices(id),
	message_id TEXT NOT NULL
);
CREATE INDEX notice_links_msgid ON notice_links(message_id);
