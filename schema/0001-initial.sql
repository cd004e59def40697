-- mmci schema, migration 1: the pipeline's tables.
-- Times are Unix seconds (REAL), durations seconds, sizes MiB unless the
-- column says otherwise. Every run row holds what is needed to reproduce it.

CREATE TABLE series (
	id INTEGER PRIMARY KEY,
	title TEXT NOT NULL,
	version INTEGER NOT NULL DEFAULT 1,
	total INTEGER NOT NULL,
	message_id TEXT,                 -- of the cover letter, or of patch 1
	author TEXT,
	source TEXT NOT NULL,            -- file path or URL it came from
	source_sha1 TEXT NOT NULL,       -- hash of the mbox as read
	base_commit TEXT,                -- from "base-commit:", if any
	problems TEXT,                   -- parse problems, one per line
	ingested_at REAL NOT NULL
);

CREATE TABLE patches (
	id INTEGER PRIMARY KEY,
	series_id INTEGER NOT NULL REFERENCES series(id),
	idx INTEGER NOT NULL,            -- 1..N
	title TEXT NOT NULL,
	author TEXT,
	message_id TEXT,
	diff_sha1 TEXT NOT NULL,
	UNIQUE (series_id, idx)
);

-- one row per attempt to apply a series (or its first k patches) on a base
CREATE TABLE applies (
	id INTEGER PRIMARY KEY,
	series_id INTEGER NOT NULL REFERENCES series(id),
	base_ref TEXT NOT NULL,
	base_commit TEXT NOT NULL,
	upto INTEGER NOT NULL,           -- patches 1..upto applied
	head_commit TEXT,                -- NULL when it failed
	status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
	error TEXT,
	created_at REAL NOT NULL
);

CREATE TABLE builds (
	id INTEGER PRIMARY KEY,
	cache_key TEXT NOT NULL,         -- sha1(tree, config, toolchain)
	tree_path TEXT NOT NULL,
	commit_id TEXT NOT NULL,
	tree_oid TEXT NOT NULL,
	series_id INTEGER REFERENCES series(id),
	upto INTEGER NOT NULL DEFAULT 0,
	config_fragment TEXT NOT NULL,   -- path of the fragment
	config_hash TEXT NOT NULL,       -- sha1 of the fragment's content
	dotconfig_hash TEXT,             -- sha1 of the final .config
	compiler TEXT,
	kernel_release TEXT,
	hz INTEGER,                      -- CONFIG_HZ, the memmap clock's tick
	status TEXT NOT NULL CHECK (status IN ('building', 'ok', 'failed')),
	artifacts TEXT,                  -- directory with bzImage, modules, log
	log_path TEXT,
	error TEXT,
	started_at REAL NOT NULL,
	duration_s REAL
);
CREATE INDEX builds_key ON builds(cache_key, status);

CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	label TEXT,                      -- "base", "series", free text
	build_id INTEGER REFERENCES builds(id),   -- NULL for a prebuilt kernel
	kernel TEXT NOT NULL,            -- path of the kernel image booted
	kernel_release TEXT NOT NULL,
	modules_root TEXT NOT NULL,
	hz INTEGER,
	workloads TEXT NOT NULL,         -- comma list
	params TEXT NOT NULL,            -- JSON object: iters, align, map, ...
	accel TEXT NOT NULL CHECK (accel IN ('kvm', 'tcg')),
	clock TEXT NOT NULL CHECK (clock IN ('icount', 'wall')),
	vcpus INTEGER NOT NULL,
	ram_mib INTEGER NOT NULL,
	nvdimm_mib INTEGER NOT NULL,
	backing TEXT NOT NULL CHECK (backing IN ('tmpfs', 'disk')),
	qemu_version TEXT,
	libvirt_version TEXT,
	host TEXT NOT NULL,
	runner_sha1 TEXT,
	initrd TEXT NOT NULL,             -- initramfs booted
	initrd_sha1 TEXT,
	status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed')),
	error TEXT,
	started_at REAL NOT NULL,
	ended_at REAL
);

-- one row per VM boot: the unit of replication
CREATE TABLE boots (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES runs(id),
	idx INTEGER NOT NULL,
	status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed')),
	end_kind TEXT,                   -- poweroff, timeout, crashed, start-failed
	console_log TEXT,
	results_log TEXT,
	domain_xml TEXT,
	error TEXT,
	started_at REAL NOT NULL,
	duration_s REAL,
	UNIQUE (run_id, idx)
);

CREATE TABLE samples (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES runs(id),
	boot_id INTEGER NOT NULL REFERENCES boots(id),
	workload TEXT NOT NULL,
	metric TEXT NOT NULL,
	unit TEXT NOT NULL,
	iteration INTEGER NOT NULL,
	value REAL NOT NULL
);
CREATE INDEX samples_run ON samples(run_id, workload, metric);

-- what the guest said besides samples: info and error records
CREATE TABLE events (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES runs(id),
	boot_id INTEGER REFERENCES boots(id),
	workload TEXT,
	kind TEXT NOT NULL,              -- info, error, rejected
	iteration INTEGER,
	key TEXT,
	message TEXT NOT NULL
);
