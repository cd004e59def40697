-- mmci schema, migration 14: what a job needs of each patch, stored as
-- typed columns when the series is ingested, so that a job (which runs as
-- root) applies the series from these rows and never parses the mails
-- again: mail is parsed only by the ingest, as the service user
-- (daemon/service-user.h). NULL in rows stored before this migration:
-- those series are read from their thread once more, as before.
ALTER TABLE patches ADD COLUMN author_name TEXT;
ALTER TABLE patches ADD COLUMN author_email TEXT;
ALTER TABLE patches ADD COLUMN date INTEGER;       -- Unix seconds
ALTER TABLE patches ADD COLUMN commit_message TEXT; -- with the trailers
ALTER TABLE patches ADD COLUMN diff TEXT;
