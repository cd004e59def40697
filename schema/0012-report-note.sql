-- mmci schema, migration 12: why a finished job was mailed or not. The
-- mail policy (report.c, docs/MAIL.md) mails only a significant change;
-- a job it does not mail is still marked reported (reported_at), so the
-- daemon does not try it again, and the reason stays here for `mmci
-- report --job`, the logs and the pages: "regression: fsdax
-- rebind_memmap +66.4 %", "no significant change", "not sent: ...".
ALTER TABLE jobs ADD COLUMN report_note TEXT;
