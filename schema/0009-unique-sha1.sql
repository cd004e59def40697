-- mmci schema, migration 9: one thread and one series per mbox content.
-- ingest.c asked "stored before?" outside its write transaction, so the
-- same file ingested by several processes at once was stored several
-- times (7 to 10 copies of 10). It now asks inside the transaction, and
-- the content hash is a unique key. The copies stored before are merged
-- first: the lowest id stays, every row that named a copy names it, and
-- the copies' own duplicate rows (patches, trailers, mails of the thread)
-- go.

-- series: every copy of a content hash, and the row that stays
CREATE TEMP TABLE series_map (
	old INTEGER PRIMARY KEY,
	keep INTEGER NOT NULL
);
INSERT INTO series_map (old, keep)
	SELECT s.id, k.keep FROM series s JOIN
		(SELECT source_sha1, min(id) AS keep FROM series
		 GROUP BY source_sha1 HAVING count(*) > 1) k
		ON k.source_sha1 = s.source_sha1
	WHERE s.id != k.keep;

-- a patch the kept series lacks (none, for copies of one content) moves
-- to it; every other patch of a copy has its twin there, by index
UPDATE patches SET series_id =
	(SELECT keep FROM series_map WHERE old = patches.series_id)
WHERE id IN (SELECT min(p.id) FROM patches p
	     JOIN series_map m ON m.old = p.series_id
	     WHERE NOT EXISTS (SELECT 1 FROM patches q
			       WHERE q.series_id = m.keep AND q.idx = p.idx)
	     GROUP BY m.keep, p.idx);
CREATE TEMP TABLE patch_map (
	old INTEGER PRIMARY KEY,
	keep INTEGER NOT NULL
);
INSERT INTO patch_map (old, keep)
	SELECT p.id, q.id FROM patches p
	JOIN series_map m ON m.old = p.series_id
	JOIN patches q ON q.series_id = m.keep AND q.idx = p.idx;
UPDATE notices SET patch_id =
	(SELECT keep FROM patch_map WHERE old = notices.patch_id)
WHERE patch_id IN (SELECT old FROM patch_map);
DELETE FROM patch_trailers WHERE patch_id IN (SELECT old FROM patch_map);
DELETE FROM patches WHERE id IN (SELECT old FROM patch_map);

-- every other reference to a series (schema/0001 to 0008)
UPDATE applies SET series_id =
	(SELECT keep FROM series_map WHERE old = applies.series_id)
WHERE series_id IN (SELECT old FROM series_map);
UPDATE builds SET series_id =
	(SELECT keep FROM series_map WHERE old = builds.series_id)
WHERE series_id IN (SELECT old FROM series_map);
UPDATE threads SET series_id =
	(SELECT keep FROM series_map WHERE old = threads.series_id)
WHERE series_id IN (SELECT old FROM series_map);
UPDATE messages SET series_id =
	(SELECT keep FROM series_map WHERE old = messages.series_id)
WHERE series_id IN (SELECT old FROM series_map);
UPDATE discovered SET series_id =
	(SELECT keep FROM series_map WHERE old = discovered.series_id)
WHERE series_id IN (SELECT old FROM series_map);
UPDATE jobs SET series_id =
	(SELECT keep FROM series_map WHERE old = jobs.series_id)
WHERE series_id IN (SELECT old FROM series_map);
UPDATE notices SET series_id =
	(SELECT keep FROM series_map WHERE old = notices.series_id)
WHERE series_id IN (SELECT old FROM series_map);
UPDATE mails SET series_id =
	(SELECT keep FROM series_map WHERE old = mails.series_id)
WHERE series_id IN (SELECT old FROM series_map);

-- links of the cover letter: once per message id
UPDATE series_links SET series_id =
	(SELECT keep FROM series_map WHERE old = series_links.series_id)
WHERE series_id IN (SELECT old FROM series_map);
DELETE FROM series_links
WHERE series_id IN (SELECT keep FROM series_map)
  AND rowid NOT IN (SELECT min(rowid) FROM series_links
		    GROUP BY series_id, message_id);

-- claims are one set per series (claims_store() replaces them): the kept
-- series keeps its set, or takes the set of its lowest copy that has one
DELETE FROM claims WHERE series_id IN
	(SELECT m.old FROM series_map m
	 WHERE EXISTS (SELECT 1 FROM claims c WHERE c.series_id = m.keep)
	    OR m.old > (SELECT min(c.series_id) FROM claims c
			JOIN series_map m2 ON m2.old = c.series_id
			WHERE m2.keep = m.keep));
UPDATE claims SET series_id =
	(SELECT keep FROM series_map WHERE old = claims.series_id)
WHERE series_id IN (SELECT old FROM series_map);

-- versions: a link to a copy is a link to the kept row; what a copy knew
-- and the kept row did not (the thread's columns, when the kept row came
-- from `mmci test-series FILE`) is kept
UPDATE series SET previous_id =
	(SELECT keep FROM series_map WHERE old = series.previous_id)
WHERE previous_id IN (SELECT old FROM series_map);
UPDATE series SET (previous_id, previous_how) =
	(SELECT d.previous_id, d.previous_how FROM series_map m
	 JOIN series d ON d.id = m.old
	 WHERE m.keep = series.id AND d.previous_id IS NOT NULL
	   AND d.previous_id != series.id
	 ORDER BY d.id LIMIT 1)
WHERE previous_id IS NULL AND id IN (SELECT keep FROM series_map);
UPDATE series SET previous_id = NULL, previous_how = NULL
WHERE previous_id = id;
UPDATE series SET
	source_url = coalesce(source_url, (SELECT d.source_url
		FROM series_map m JOIN series d ON d.id = m.old
		WHERE m.keep = series.id AND d.source_url IS NOT NULL
		ORDER BY d.id LIMIT 1)),
	fetched_at = coalesce(fetched_at, (SELECT d.fetched_at
		FROM series_map m JOIN series d ON d.id = m.old
		WHERE m.keep = series.id AND d.fetched_at IS NOT NULL
		ORDER BY d.id LIMIT 1)),
	nr_found = coalesce(nr_found, (SELECT d.nr_found
		FROM series_map m JOIN series d ON d.id = m.old
		WHERE m.keep = series.id AND d.nr_found IS NOT NULL
		ORDER BY d.id LIMIT 1)),
	is_rfc = max(is_rfc, coalesce((SELECT max(d.is_rfc)
		FROM series_map m JOIN series d ON d.id = m.old
		WHERE m.keep = series.id), 0))
WHERE id IN (SELECT keep FROM series_map);

-- with foreign keys on, this fails if a reference was missed above
DELETE FROM series WHERE id IN (SELECT old FROM series_map);

-- threads: the copies' mails are the kept thread's mails again
CREATE TEMP TABLE thread_map (
	old INTEGER PRIMARY KEY,
	keep INTEGER NOT NULL
);
INSERT INTO thread_map (old, keep)
	SELECT t.id, k.keep FROM threads t JOIN
		(SELECT source_sha1, min(id) AS keep FROM threads
		 GROUP BY source_sha1 HAVING count(*) > 1) k
		ON k.source_sha1 = t.source_sha1
	WHERE t.id != k.keep;
UPDATE notices SET thread_id =
	(SELECT keep FROM thread_map WHERE old = notices.thread_id)
WHERE thread_id IN (SELECT old FROM thread_map);
UPDATE threads SET series_id = (SELECT d.series_id FROM thread_map m
	JOIN threads d ON d.id = m.old
	WHERE m.keep = threads.id AND d.series_id IS NOT NULL
	ORDER BY d.id LIMIT 1)
WHERE series_id IS NULL AND id IN (SELECT keep FROM thread_map);
DELETE FROM messages WHERE thread_id IN (SELECT old FROM thread_map);
DELETE FROM threads WHERE id IN (SELECT old FROM thread_map);

DROP TABLE temp.series_map;
DROP TABLE temp.patch_map;
DROP TABLE temp.thread_map;

DROP INDEX threads_sha1;
CREATE UNIQUE INDEX threads_sha1 ON threads(source_sha1);
CREATE UNIQUE INDEX series_sha1 ON series(source_sha1);
