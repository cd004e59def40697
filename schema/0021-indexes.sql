-- mmci schema, migration 21: an index for every lookup of rows by the id
-- of what they belong to. Each was a full scan per call, found with
-- EXPLAIN QUERY PLAN on every query the check-tier tests and a render of
-- bench/web.sh's database prepare (issue 31). The one that hurt:
-- bundle.c reads a run's samples and events boot by boot, and without
-- samples_boot a first render of the bench database (10,000 runs, 2.2 M
-- samples) scanned the samples table 50,000 times, about 2.2 hours; with
-- it, a minute (docs/ARCHITECTURE.md, "The web pages").

-- bundle.c (boots_json): a boot's samples and events, in id order
CREATE INDEX samples_boot ON samples(boot_id);
CREATE INDEX events_boot ON events(boot_id);
-- render.c (run_events), cmd-show.c, cmd-export.c, cmd-recipe.c: a run's
-- events; run.c's "no rows yet" check
CREATE INDEX events_run ON events(run_id);
-- render.c, cmd-export.c, cmd-reproduce.c, bundle.c: the runs and builds
-- of a series, their bases
CREATE INDEX builds_series ON builds(series_id, upto);
CREATE INDEX applies_series ON applies(series_id);
-- job.c, render.c, cmd-ingest.c: the jobs of a series
CREATE INDEX jobs_series ON jobs(series_id);
-- ingest.c, report.c: the links and threads of a series; cmd-show.c's
-- newer versions of a series (a recursive walk over previous_id)
CREATE INDEX series_links_series ON series_links(series_id);
CREATE INDEX threads_series ON threads(series_id);
CREATE INDEX series_previous ON series(previous_id);
-- ingest.c: an older version of a series by the mail it answers
CREATE INDEX series_msgid ON series(message_id);
-- notice.c: a notice by its mail
CREATE INDEX notices_msgid ON notices(message_id);
CREATE INDEX notice_links_notice ON notice_links(notice_id);
-- bundle.c, cmd-export.c: the branch a commit was fetched as
CREATE INDEX heads_commit ON heads(commit_id);
CREATE INDEX head_commits_commit ON head_commits(commit_id);
