-- the pages to render again (render.c): every write to a table that a
-- page shows names the page here, in the writer's own transaction, so no
-- writer needs to know about the pages. The renderer reads (key, gen),
-- writes the page, then deletes the row only if gen is unchanged: a
-- write during the rendering leaves the row for the next pass.
-- Keys: 'all', 'index', 'run/N', 'series/N' (render.c expands a run to
-- its compare, series and metric pages).
CREATE TABLE pages_dirty (
	key TEXT PRIMARY KEY,
	gen INTEGER NOT NULL DEFAULT 1
) WITHOUT ROWID;
INSERT INTO pages_dirty (key) VALUES ('all');

CREATE TRIGGER pages_runs_insert AFTER INSERT ON runs BEGIN
	INSERT INTO pages_dirty (key) VALUES ('run/' || NEW.id), ('index')
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pages_runs_update AFTER UPDATE ON runs BEGIN
	INSERT INTO pages_dirty (key) VALUES ('run/' || NEW.id), ('index')
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pages_boots_insert AFTER INSERT ON boots BEGIN
	INSERT INTO pages_dirty (key) VALUES ('run/' || NEW.run_id), ('index')
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pages_boots_update AFTER UPDATE ON boots BEGIN
	INSERT INTO pages_dirty (key) VALUES ('run/' || NEW.run_id), ('index')
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pages_events_insert AFTER INSERT ON events BEGIN
	INSERT INTO pages_dirty (key) VALUES ('run/' || NEW.run_id)
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pages_jobs_insert AFTER INSERT ON jobs BEGIN
	INSERT INTO pages_dirty (key) VALUES ('index')
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
	INSERT INTO pages_dirty (key) SELECT 'series/' || NEW.series_id
		WHERE NEW.series_id IS NOT NULL
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pages_jobs_update AFTER UPDATE ON jobs BEGIN
	INSERT INTO pages_dirty (key) VALUES ('index')
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
	INSERT INTO pages_dirty (key) SELECT 'series/' || NEW.series_id
		WHERE NEW.series_id IS NOT NULL
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pages_series_insert AFTER INSERT ON series BEGIN
	INSERT INTO pages_dirty (key) VALUES ('series/' || NEW.id), ('index')
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
	INSERT INTO pages_dirty (key) SELECT 'series/' || NEW.previous_id
		WHERE NEW.previous_id IS NOT NULL
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pages_series_update AFTER UPDATE ON series BEGIN
	INSERT INTO pages_dirty (key) VALUES ('series/' || NEW.id), ('index')
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
	INSERT INTO pages_dirty (key) SELECT 'series/' || NEW.previous_id
		WHERE NEW.previous_id IS NOT NULL
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pages_patches_insert AFTER INSERT ON patches BEGIN
	INSERT INTO pages_dirty (key) VALUES ('series/' || NEW.series_id)
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pages_applies_insert AFTER INSERT ON applies BEGIN
	INSERT INTO pages_dirty (key) VALUES ('series/' || NEW.series_id)
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
CREATE TRIGGER pages_builds_update AFTER UPDATE OF series_id ON builds BEGIN
	INSERT INTO pages_dirty (key) SELECT 'series/' || NEW.series_id
		WHERE NEW.series_id IS NOT NULL
		ON CONFLICT (key) DO UPDATE SET gen = gen + 1;
END;
