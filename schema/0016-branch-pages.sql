-- mmci schema, migration 16: the branch pages (render.c). A branch that
-- nightly jobs measure has a page, key 'branch/REMOTE/BRANCH', showing
-- its nightly head runs by night, their change points and the bisect
-- jobs of its ranges. Its runs name it through their run's key
-- (render.c expands 'run/N' of a nightly's run); a nightly job that
-- changes names it here, and so does a bisect job whose range ends at a
-- head of the branch: GOOD..BAD in series_ref with BAD that head's commit
-- or an abbreviation of it (7 hex digits at least, lowercase), as
-- cmd-nightly.c queues it and as a person types it.
CREATE TRIGGER pages_branch_nightly_insert AFTER INSERT ON jobs
	WHEN NEW.kind = 'nightly' AND NEW.head_id IS NOT NULL
BEGIN
	INSERT INTO pages_dirty (key) SELECT 'branch/' || h.remote || '/' ||
		h.branch FROM heads h WHERE h.id = NEW.head_id
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pages_branch_nightly_update AFTER UPDATE ON jobs
	WHEN NEW.kind = 'nightly' AND NEW.head_id IS NOT NULL
BEGIN
	INSERT INTO pages_dirty (key) SELECT 'branch/' || h.remote || '/' ||
		h.branch FROM heads h WHERE h.id = NEW.head_id
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pages_branch_bisect_insert AFTER INSERT ON jobs
	WHEN NEW.kind = 'bisect' AND instr(NEW.series_ref, '..') > 0
BEGIN
	INSERT INTO pages_dirty (key) SELECT DISTINCT 'branch/' || h.remote ||
		'/' || h.branch FROM jobs n JOIN heads h ON h.id = n.head_id
		WHERE n.kind = 'nightly' AND length(substr(NEW.series_ref,
		instr(NEW.series_ref, '..') + 2)) >= 7 AND substr(NEW.series_ref,
		instr(NEW.series_ref, '..') + 2) NOT GLOB '*[^0-9a-f]*' AND
		h.commit_id GLOB substr(NEW.series_ref,
		instr(NEW.series_ref, '..') + 2) || '*'
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pages_branch_bisect_update AFTER UPDATE ON jobs
	WHEN NEW.kind = 'bisect' AND instr(NEW.series_ref, '..') > 0
BEGIN
	INSERT INTO pages_dirty (key) SELECT DISTINCT 'branch/' || h.remote ||
		'/' || h.branch FROM jobs n JOIN heads h ON h.id = n.head_id
		WHERE n.kind = 'nightly' AND length(substr(NEW.series_ref,
		instr(NEW.series_ref, '..') + 2)) >= 7 AND substr(NEW.series_ref,
		instr(NEW.series_ref, '..') + 2) NOT GLOB '*[^0-9a-f]*' AND
		h.commit_id GLOB substr(NEW.series_ref,
		instr(NEW.series_ref, '..') + 2) || '*'
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
