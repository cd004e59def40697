/* SPDX-License-Identifier: GPL-2.0 */
/*
 * interrupt.h - SIGTERM and SIGINT in the commands that make runs
 * (run, test-series, bisect, nightly, reproduce).
 *
 * Before, such a command died at once: its runs, boots and job stayed
 * 'running' on the pages for ever, unless a daemon happened to recover
 * the job (job_recover(), which only knows jobs). Now the handler only
 * sets a flag (docs/STYLE.md); the places that wait for long look at it:
 * finish_command() stops the child (SIGTERM to its process group,
 * SIGKILL 5 s later) and start_command() starts none, vm_wait() returns
 * and vm_run() destroys the guest (VM_INTERRUPTED), run_boot() starts no
 * other boot and run_create() no other run. The command then leaves by
 * its ordinary error path, which records the boot, the run and the job
 * as failed with interrupt_reason(), and main() dies of the signal
 * (interrupt_exit()), so the caller sees it as before.
 *
 * Why not instead mark, at the start of every command, the runs whose
 * owner is dead: a runs row records no owner (only jobs do), the rows
 * would stay 'running' until some later command, and the guest and the
 * build of the killed command would be left to PDEATHSIG and libvirt's
 * autodestroy. With the flag the rows are right the moment the command
 * exits, and the cleanup is the one every other failure already takes.
 * A kill -9 still leaves rows behind: the daemon recovers those of jobs.
 *
 * A job taken from the daemon's queue (--job N) is left 'running' for
 * the daemon's job_recover(), which queues it again (what `systemctl
 * stop mmci` and a daemon killed with -9 rely on); its runs and boots are
 * failed all the same.
 */
#ifndef MMCI_INTERRUPT_H
#define MMCI_INTERRUPT_H

/* catch SIGTERM and SIGINT from now on (no SA_RESTART: waits see EINTR) */
void interrupt_catch(void);

/* the signal that arrived (SIGTERM, SIGINT), or 0 */
int interrupted(void);

/* has interrupt_catch() been called: then waits must poll the flag */
int interrupt_armed(void);

/*
 * "interrupted: mmci received SIGTERM" once a signal arrived, else NULL:
 * the error of the rows the interruption failed (static storage)
 */
const char *interrupt_reason(void);

/* interrupt_reason() if interrupted, else last_error() */
const char *interrupt_or_last_error(void);

/* when interrupted: die of that signal now (exit status 128 + signal) */
void interrupt_exit(void);

#endif
