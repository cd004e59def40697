-- mmci schema, migration 19: the guest architecture (daemon/arch.h) of
-- each build and run: x86_64, arm64 (4 KiB pages) or arm64-64k. It is
-- part of a run's set-up: runs of two arches are never compared, and a
-- base is reused only from a run of the same arch. Everything before
-- this migration was x86_64.
ALTER TABLE builds ADD COLUMN arch TEXT NOT NULL DEFAULT 'x86_64';
ALTER TABLE runs ADD COLUMN arch TEXT NOT NULL DEFAULT 'x86_64';
