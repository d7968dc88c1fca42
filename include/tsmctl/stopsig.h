/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The signals that stop a command: caught into one flag that waits and
 * loops look at, never a death in the middle of a store or a cleanup.
 */
#ifndef TSMCTL_STOPSIG_H
#define TSMCTL_STOPSIG_H

#include <signal.h>

/* The signal number of a stop signal that arrived since stopsig_catch(), or 0. */
extern volatile sig_atomic_t stop_signal;

enum stopsig_flags {
	/*
	 * For a command that cleans up before it exits (report's entry,
	 * evidence's temporary files): SIGHUP stops it too, and SIGPIPE is
	 * ignored (a closed stdout is an EPIPE to handle, not a death with
	 * something left behind).
	 */
	STOPSIG_CLEANUP = 1 << 0,
};

/*
 * SIGINT and SIGTERM (and with STOPSIG_CLEANUP, SIGHUP) set stop_signal,
 * without SA_RESTART: a wait ends, and an interrupted store is never issued
 * a second time.
 */
void stopsig_catch(unsigned int flags);

/* "SIGINT", "SIGTERM", "SIGHUP", else "a signal". */
const char *stopsig_name(int sig);

/*
 * The exit status of a command a stop signal ended: 128 + its number, or
 * 128 + SIGINT for an interruption seen before the flag (an EINTR).
 */
int stopsig_exit_status(void);

#endif
