// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The log level and the debug switches (log.h): one home for what -v and
 * the environment turn on, so the low files need not include cli.h.
 */
#include <stdlib.h>
#include <string.h>

#include "tsmctl/log.h"
#include "tsmctl/util.h"

static enum log_level level = LOG_LEVEL_NORMAL;

static const struct {
	const char *name;	/* in TSMCTL_DEBUG */
	const char *env;	/* its own variable, kept for the scripts that set it: 1 on, 0 off; or NULL */
} switches[DEBUG_NR_SWITCHES] = {
	[DEBUG_CONFIG_STATS] = { "config-stats", "TSMCTL_CONFIG_STATS" },
	[DEBUG_NO_OPENAT2] = { "no-openat2", "TSMCTL_NO_OPENAT2" },
	[DEBUG_EVIDENCE_STATS] = { "evidence-stats", NULL },
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

/* A value the switches do not take is said once a run, not at every scan. */
static void check_environment(void)
{
	static bool checked;
	const char *list = getenv("TSMCTL_DEBUG"), *p;

	if (checked)
		return;
	checked = true;
	for (size_t s = 0; s < DEBUG_NR_SWITCHES; s++) {
		const char *v = switches[s].env ? getenv(switches[s].env) : NULL;

		if (v && *v && !streq(v, "0") && !streq(v, "1"))
			cmd_note(NULL, "%s='%s' is ignored: it takes 1 (on) or 0 (off)",
				 switches[s].env, v);
	}
	for (p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		size_t len = strcspn(p, ","), s = 0;

		while (s < DEBUG_NR_SWITCHES && (strlen(switches[s].name) != len ||
						 strncmp(p, switches[s].name, len)))
			s++;
		if (len && s == DEBUG_NR_SWITCHES)
			cmd_note(NULL, "TSMCTL_DEBUG: unknown switch '%.*s' is ignored (config-stats, "
				 "no-openat2, evidence-stats)", (int)len, p);
	}
}

bool debug_on(enum debug_switch s)
{
	const char *own;

	if (s >= DEBUG_NR_SWITCHES)
		return false;
	check_environment();
	own = switches[s].env ? getenv(switches[s].env) : NULL;
	return list_names(getenv("TSMCTL_DEBUG"), switches[s].name) || (own && streq(own, "1"));
}
