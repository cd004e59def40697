// SPDX-License-Identifier: GPL-2.0
/*
 * interrupt.c - the SIGTERM/SIGINT flag of the commands that make runs;
 * interrupt.h says who looks at it and why.
 */
#include <signal.h>
#include <stdio.h>

#include "interrupt.h"
#include "util.h"

static volatile sig_atomic_t caught;
static int armed;

static void on_signal(int sig)
{
	if (!caught)
		caught = sig;
}

void interrupt_catch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	armed = 1;
}

int interrupted(void)
{
	return caught;
}

int interrupt_armed(void)
{
	return armed;
}

const char *interrupt_reason(void)
{
	switch (caught) {
	case 0:
		return NULL;
	case SIGTERM:
		return "interrupted: mmci received SIGTERM";
	case SIGINT:
		return "interrupted: mmci received SIGINT";
	default:
		return "interrupted: mmci received a signal";
	}
}

const char *interrupt_or_last_error(void)
{
	return caught ? interrupt_reason() : last_error();
}

void interrupt_exit(void)
{
	int sig = caught;

	if (!sig)
		return;
	fflush(NULL);
	signal(sig, SIG_DFL);
	raise(sig);
}
