-- mmci schema, migration 22: what a run's numbers depend on outside the
-- guest (hostfacts.h). host_facts: JSON of the host that started the run,
-- at its start (CPU model, microcode, governor, turbo, SMT, host kernel,
-- 1-min load, QEMU processes running); load_end: the 1-min load at its
-- end; guests_beside: the QEMU processes already running when a boot
-- started, of any job or controller. NULL: made before this migration.
ALTER TABLE runs ADD COLUMN host_facts TEXT;
ALTER TABLE runs ADD COLUMN load_end REAL;
ALTER TABLE boots ADD COLUMN guests_beside INTEGER;
