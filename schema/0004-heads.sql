-- mmci schema, migration 4: the tree ingest (`mmci ingest tree`,
-- daemon/remote.c) and the jobs it queues. Times are Unix seconds (REAL).

-- The remotes a plain `mmci ingest tree` fetches. MMCI_REMOTES or
-- --remote replace this list for one run; `--remote NAME=URL --save`
-- writes here, `--forget NAME` deletes. Seeded with akpm's mm tree.
CREATE TABLE remotes (
	name TEXT PRIMARY KEY,           -- fetched into refs/remotes/<name>/
	url TEXT NOT NULL,
	branches TEXT NOT NULL,          -- comma list, e.g. 'mm-new,mm-stable'
	added_at REAL NOT NULL
);
INSERT INTO remotes (name, url, branches, added_at) VALUES
	('mm', 'https://git.kernel.org/pub/scm/linux/kernel/git/akpm/mm.git',
	 'mm-new', CAST(strftime('%s', 'now') AS REAL));

-- one row each time a branch is seen at a new commit
CREATE TABLE heads (
	id INTEGER PRIMARY KEY,
	remote TEXT NOT NULL,
	url TEXT NOT NULL,               -- as fetched that time
	branch TEXT NOT NULL,
	ref TEXT NOT NULL,               -- refs/remotes/<remote>/<branch> in the tree
	commit_id TEXT NOT NULL,
	prev_commit TEXT,                -- the branch's previous head, NULL the first time
	-- initial: first fetch; fast-forward: prev_commit is an ancestor;
	-- rewrite: forced update (rebase), see merge_base and nr_dropped;
	-- unknown: prev_commit is no longer in the tree (tree re-created)
	kind TEXT NOT NULL CHECK (kind IN ('initial', 'fast-forward',
					  'rewrite', 'unknown')),
	merge_base TEXT,                 -- rewrite: of old and new head, NULL if none
	nr_commits INTEGER NOT NULL,     -- rows in head_commits
	capped INTEGER NOT NULL DEFAULT 0,   -- 1: the range held more commits
	nr_dropped INTEGER,              -- rewrite: old commits not in the new head (capped too)
	fetched_at REAL NOT NULL
);
CREATE INDEX heads_branch ON heads(remote, branch, id);

-- the commits a new head brought: prev_commit..commit_id (initial and
-- unknown: everything reachable), newest first, at most --max-commits
CREATE TABLE head_commits (
	head_id INTEGER NOT NULL REFERENCES heads(id),
	position INTEGER NOT NULL,       -- 1 is the head itself, then git log order
	commit_id TEXT NOT NULL,
	subject TEXT NOT NULL,
	author TEXT NOT NULL,            -- "Name <email>"
	authored_at REAL NOT NULL,
	PRIMARY KEY (head_id, position)
);

-- a branch that could not be fetched (remote unreachable, no such
-- branch) or recorded; the other branches and remotes still are
CREATE TABLE fetch_errors (
	id INTEGER PRIMARY KEY,
	remote TEXT NOT NULL,
	url TEXT NOT NULL,
	branch TEXT NOT NULL,
	error TEXT NOT NULL,
	at REAL NOT NULL
);

-- work for the daemon: one 'nightly' job per new head
CREATE TABLE jobs (
	id INTEGER PRIMARY KEY,
	kind TEXT NOT NULL,              -- 'nightly': build and run a new head
	head_id INTEGER REFERENCES heads(id),
	status TEXT NOT NULL DEFAULT 'queued'
		CHECK (status IN ('queued', 'running', 'done', 'failed')),
	created_at REAL NOT NULL,
	started_at REAL,
	ended_at REAL,
	error TEXT
);
CREATE INDEX jobs_status ON jobs(status, id);
