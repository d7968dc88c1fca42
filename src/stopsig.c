// SPDX-License-Identifier: GPL-2.0-or-later
/* The stop signals: one flag, how it is set, and what a command makes of it. */
#include <signal.h>

#include "tsmctl/stopsig.h"

volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

void stopsig_catch(unsigned int flags)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!(flags & STOPSIG_CLEANUP))
		return;
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

const char *stopsig_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	default: return "a signal";
	}
}

int stopsig_exit_status(void)
{
	return 128 + (stop_signal ? stop_signal : SIGINT);
}
