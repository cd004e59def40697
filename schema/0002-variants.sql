-- Variants: one workload measured with other settings inside one boot
-- (devdax alignments, memmap on the device or in RAM, kmem online
-- policies, virtio-mem step sizes). '' is the workload's only variant.
ALTER TABLE samples ADD COLUMN variant TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN variant TEXT;
DROP INDEX samples_run;
CREATE INDEX samples_run ON samples(run_id, workload, variant, metric);
