-- Does KVM run Linux guests on this host? kvm-probe.c's real-mode probe
-- cannot tell (a /dev/kvm that hangs every guest after the switch out of
-- real mode passes it), so the first KVM boot on a host is a trial with a
-- short deadline for the guest's first console line; its verdict is kept
-- per host set-up and read by later runs (daemon/accel.c). `mmci hosts
-- --forget` deletes it after the host changed.
CREATE TABLE kvm_verdicts (
	host_release TEXT NOT NULL,      -- uname -r of the host
	qemu_version TEXT NOT NULL,      -- "7.2.22", from libvirt
	cpu_model TEXT NOT NULL,         -- /proc/cpuinfo "model name"
	hostname TEXT,
	usable INTEGER NOT NULL CHECK (usable IN (0, 1)),
	reason TEXT NOT NULL,
	first_line_s REAL,               -- s to the guest's first line, if any
	deadline_s REAL NOT NULL,        -- s the trial allowed
	kernel TEXT,                     -- the kernel the trial booted
	decided_at REAL NOT NULL,
	PRIMARY KEY (host_release, qemu_version, cpu_model)
);

-- why the run has its accelerator: "trial boot: first line after 0.8 s",
-- "stored verdict of ...", "forced by MMCI_ACCEL=tcg", "no /dev/kvm"
ALTER TABLE runs ADD COLUMN accel_reason TEXT;
