-- mmci schema, migration 15: the base of a series job and why (base.c),
-- and a queued job that waits for its base-commit to be fetched: the
-- daemon starts no job before its not_before (Unix seconds).
ALTER TABLE jobs ADD COLUMN base_note TEXT;
ALTER TABLE jobs ADD COLUMN not_before REAL;
