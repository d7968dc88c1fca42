// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The log level and the debug switches (log.h): one home for what -v and
 * the environment turn on, so the low files need not include cli.h.
 */
#include <stdlib.h>
#include <string.h>

#include "tsmctl/log.h"

static enum log_level level = LOG_LEVEL_NORMAL;

static const struct {
	const char *name;	/* in TSMCTL_DEBUG */
	const char *env;	/* its own variable, kept for the scripts that set it; or NULL */
	bool empty_counts;	/* the own variable set to "" turns it on too */
} switches[DEBUG_NR_SWITCHES] = {
	[DEBUG_CONFIG_STATS] = { "config-stats", "TSMCTL_CONFIG_STATS", true },
	[DEBUG_NO_OPENAT2] = { "no-openat2", "TSMCTL_NO_OPENAT2", false },
	[DEBUG_EVIDENCE_STATS] = { "evidence-stats", NULL, false },
};

void log_set_level(enum log_level l)
{
	level = l;
}

bool log_verbose(void)
{
	return level >= LOG_LEVEL_VERBOSE;
}

/* Whether the comma-separated LIST names NAME. */
static bool list_names(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

bool debug_on(enum debug_switch s)
{
	const char *own;

	if (s >= DEBUG_NR_SWITCHES)
		return false;
	own = switches[s].env ? getenv(switches[s].env) : NULL;
	return list_names(getenv("TSMCTL_DEBUG"), switches[s].name) ||
	       (own && (*own || switches[s].empty_counts));
}
