-- mmci schema, migration 11: git's patch-id of each patch from the list.
-- mm-new is rebased most days: a commit the nightly bisection names has
-- another id than the day before, and akpm's Link: trailer is not always
-- there. The patch-id (git patch-id --stable: a hash of the diff without
-- line numbers or whitespace) is the same across rebases, so the culprit
-- is found on the list by it (bisect.c). Patches stored before this
-- migration have none (NULL); they are still found by Link: or title.
ALTER TABLE patches ADD COLUMN patch_id TEXT;
CREATE INDEX patches_patch_id ON patches(patch_id);
