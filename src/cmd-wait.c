// SPDX-License-Identifier: GPL-2.0-or-later
/* tsmctl wait: block until TSMs are registered and ready, woken by their uevents. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/explain.h"
#include "tsmctl/names.h"
#include "tsmctl/output.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/stopsig.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/uevent.h"
#include "tsmctl/util.h"

#define WAIT_DEFAULT_SECONDS	120	/* as udevadm settle: a boot script must not hang */
#define WAIT_MAX_SECONDS	86400

/* wait's own option, checked by parse_timeout() */
static struct wait_param {
	const char *timeout;
} param;

/* --timeout: decimal seconds (0 = only check), or "infinity" (-1). 0 or EXIT_USAGE. */
static int parse_timeout(struct cmd_ctx *ctx, double *seconds)
{
	*seconds = WAIT_DEFAULT_SECONDS;
	if (!param.timeout)
		return 0;
	if (streq(param.timeout, "infinity")) {
		*seconds = -1;
		return 0;
	}
	if (parse_seconds(param.timeout, WAIT_MAX_SECONDS, seconds))
		return usage_error(ctx->cmd, "invalid --timeout value '%s' (decimal seconds, 0-%d, "
				   "or 'infinity')", param.timeout, WAIT_MAX_SECONDS);
	return 0;
}

/* The TSMs that are ready, from a scan of them (JSON: name, id, mode, provider). */
static void print_ready(struct cmd_ctx *ctx, const struct tsm_ready *ready)
{
	struct tsm_snapshot snap;
	struct json_list w;

	if (!ctx->out.json) {
		for (size_t i = 0; i < ready->n; i++)
			puts(ready->names[i]);
		return;
	}
	snapshot_scan(&snap, SCAN_TSMS);
	json_list_begin(&w, stdout, "tsms");
	for (size_t i = 0; i < ready->n; i++) {
		const struct tsm *t = snapshot_find_tsm(&snap, ready->names[i]);
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name", js_str(ready->names[i]));
		json_object_object_add(o, "id", t ? js_num(t->id) : NULL);
		json_object_object_add(o, "mode", js_str(t ? t->mode : NULL));
		json_object_object_add(o, "provider", js_str(t ? t->provider : NULL));
		json_list_item(&w, o);
	}
	json_list_end(&w);
	snapshot_free(&snap);
}

/* "tsm0 and tsm1" / "a TSM" for messages. */
static char *wanted(char *const *names, size_t n)
{
	struct strbuf s = STRBUF_INIT;

	if (!n)
		return xstrdup("any TSM");
	for (size_t i = 0; i < n; i++)
		strbuf_join(&s, i + 1 == n ? " and " : ", ", "%s", names[i]);
	return strbuf_take(&s);
}

static int run_wait(struct cmd_ctx *ctx)
{
	struct tsm_ready ready;
	char **names = NULL, *what;
	double seconds;
	int rc = parse_timeout(ctx, &seconds), id;

	if (rc)
		return rc;
	names = xcalloc((size_t)ctx->nargs + 1, sizeof(*names));
	for (int i = 0; i < ctx->nargs; i++) {
		bool twice = false;

		for (int j = 0; j < i; j++)
			twice |= streq(names[j], ctx->args[i]);
		/* as connect's device list: a name given twice is a mistake, not a second wait */
		if (tsm_name_parse(ctx->args[i], &id) || twice) {
			strv_free(names, (size_t)i);
			if (twice)
				return usage_error(ctx->cmd, "%s is given twice", ctx->args[i]);
			return usage_error(ctx->cmd, "'%s' is not a TSM name (tsmN)", ctx->args[i]);
		}
		names[i] = xstrdup(ctx->args[i]);
	}
	stopsig_catch(0);
	rc = tsm_wait(names, (size_t)ctx->nargs, seconds, &stop_signal, "wait", &ready);
	what = wanted(names, (size_t)ctx->nargs);
	switch (-rc) {
	case 0:
		print_ready(ctx, &ready);
		tsm_ready_free(&ready);
		rc = EXIT_OK;
		break;
	case EINTR:
		cmd_error("wait", "interrupted while waiting for %s", what);
		rc = stopsig_exit_status();
		break;
	default:
		explain_not_ready("wait", what, seconds, rc);
		rc = EXIT_FAIL;
		break;
	}
	free(what);
	strv_free(names, (size_t)ctx->nargs);
	return rc;
}

static const struct opt_def wait_opts[] = {
	OPT_STRING(0, "timeout", &param.timeout, "SECONDS", "give up after SECONDS"),
	OPT_COMMON(COMMON_JSON), OPT_END()
};

const struct cmd_def cmd_wait = {
	.name = "wait",
	.args = "[TSM...]",
	.summary = "wait until TSMs are registered and ready for PCI operations",
	.description = "Wait until every named TSM (or, without names, any TSM) is registered\n"
		       "and its PCI side is there (pci_mode, or the devices' tsm/ groups), after\n"
		       "its KOBJ_CHANGE uevent. The current state is checked first; then tsmctl\n"
		       "listens on the kobject uevent netlink socket and re-checks sysfs at every\n"
		       "tsm event, 5 s after the last check whatever other events came, and at\n"
		       "the deadline. Prints the ready TSMs. Exit status 0 when ready, 1 on\n"
		       "timeout, 130/143 on SIGINT/SIGTERM",
	.opts = wait_opts,
	.json_name = "tsms",	/* not ready in time: none */
	.verbose_help = "say on stderr when it starts listening, and why it looked again",
	.run = run_wait,
};
