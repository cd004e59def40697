-- mmci schema, migration 13: what a reused base and concurrent boots need.
-- setup_sha1: the SHA-1 of the set-up a run's guests had beyond the
-- columns of runs (the domain template, which fixes the machine type and
-- the guest CPU model, and the host's architecture); an icount base is
-- reused only by a run with the same one (run.h). NULL: made before.
-- concurrent: how many boots ran on the host at once, this one included
-- (1: alone, as every boot before this migration); a run's is its boots'
-- largest. icount values do not depend on it, wall-clock values would.
ALTER TABLE runs ADD COLUMN setup_sha1 TEXT;
ALTER TABLE runs ADD COLUMN concurrent INTEGER NOT NULL DEFAULT 1;
ALTER TABLE boots ADD COLUMN concurrent INTEGER NOT NULL DEFAULT 1;
CREATE INDEX runs_build ON runs(build_id);
