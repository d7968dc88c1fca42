/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How much tsmctl says on stderr beyond results and errors: a level (-v
 * raises it) and the debug switches of one environment variable,
 * TSMCTL_DEBUG (a comma-separated list of switch names).
 */
#ifndef TSMCTL_LOG_H
#define TSMCTL_LOG_H

#include <stdbool.h>

enum log_level {
	LOG_LEVEL_NORMAL,
	LOG_LEVEL_VERBOSE,	/* -v: what is read, written and waited for */
};

/* What TSMCTL_DEBUG can switch on; the older ones also have a variable of their own. */
enum debug_switch {
	DEBUG_CONFIG_STATS,	/* "config-stats" (TSMCTL_CONFIG_STATS): config space's cost, per scan */
	DEBUG_NO_OPENAT2,	/* "no-openat2" (TSMCTL_NO_OPENAT2): the fallback walk, for its tests */
	DEBUG_EVIDENCE_STATS,	/* "evidence-stats": certificate verifications done and reused, per run */
	DEBUG_NR_SWITCHES
};

void log_set_level(enum log_level level);
bool log_verbose(void);
/* Whether switch S is on: named in TSMCTL_DEBUG, or its own variable set. */
bool debug_on(enum debug_switch s);

#endif
