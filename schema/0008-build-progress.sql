-- what a build compiled, for the next build's progress estimate
-- (build.c): the .o files make wrote, and whether the object directory
-- started empty (a cold build) or from an earlier build (incremental)
ALTER TABLE builds ADD COLUMN objects INTEGER;
ALTER TABLE builds ADD COLUMN cold INTEGER;
