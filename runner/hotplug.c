// SPDX-License-Identifier: GPL-2.0
/*
 * hotplug.c - the virtio-mem and kmem workloads (being written).
 */
#include "runner.h"

int run_virtio_mem(const struct params *p)
{
	(void)p;
	emit_error("virtio-mem", -1, "not written yet");
	return -1;
}

int run_kmem(const struct params *p)
{
	(void)p;
	emit_error("kmem", -1, "not written yet");
	return -1;
}
