// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-workloads.c - `mmci workloads`: what can be measured.
 */
#include "builtin.h"
#include "util.h"
#include "workload.h"

int cmd_workloads(int argc, char **argv)
{
	const struct workload_def *w;
	const struct metric_def *m;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs("usage: mmci workloads\n\nList the workloads the guest "
		      "runner has, their parameters and metrics.\nSelect them "
		      "with 'mmci run --workloads a,b' or 'all'.\n", stdout);
		return 0;
	}
	for (w = workload_defs; w->name; w++) {
		printf("%s: %s\n  parameters: %s\n", w->name, w->what,
		       w->params);
		for (m = w->metrics; m->name; m++)
			printf("  %-20s %-3s %s  %s\n", m->name, m->unit,
			       m->lower_is_better ? "lower is better" :
						    "higher is better",
			       m->what);
	}
	return 0;
}
