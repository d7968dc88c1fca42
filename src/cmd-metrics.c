// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tsmctl metrics: the state and the audit as node_exporter textfile metrics,
 * on stdout or written atomically into a file (outfile.h: temporary file in
 * the same directory, fsync, rename), so the collector never reads half a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tsmctl/audit.h"
#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/modhint.h"
#include "tsmctl/metrics.h"
#include "tsmctl/outfile.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/util.h"

#define METRICS_SCAN	(SCAN_TSMS | SCAN_STREAMS | SCAN_DEVICES | SCAN_IDE_PORTS)

/* metrics' own option */
static struct metrics_param {
	const char *output_file;
} param;

static int run_metrics(struct cmd_ctx *ctx)
{
	struct module_state mods[8];
	struct audit_opts opts = { 0 };
	struct audit_report rep;
	struct tsm_snapshot snap;
	struct outfile file = { .fd = -1 };
	struct timespec now;
	char *buf = NULL, *why;
	size_t len = 0;
	FILE *mem;
	int rc;

	if (ctx->nargs)
		return extra_operand(ctx->cmd, ctx->args[0]);
	if (param.output_file && !*param.output_file)
		return usage_error(ctx->cmd, "--output needs a file name ('-': stdout)");
	/* refused before anything is read: a device node or link is never replaced */
	rc = outfile_open(&file, param.output_file ? param.output_file : "-", 0644);
	if (rc) {
		why = outfile_error(&file, rc);
		cmd_error("metrics", "%s", why);
		free(why);
		return EXIT_FAIL;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	snapshot_scan(&snap, METRICS_SCAN);
	if (!snap.nr_tsms) {	/* as audit: the hints name the provider modules */
		opts.modules = mods;
		opts.nr_modules = provider_modules(mods, ARRAY_SIZE(mods));
	}
	audit_run(&snap, &opts, &rep);
	mem = open_memstream(&buf, &len);
	if (!mem) {
		cmd_error("metrics", "%s", strerror(errno));
		rc = EXIT_FAIL;
		goto out;
	}
	metrics_write(mem, &snap, &rep,
		      (double)now.tv_sec + (double)now.tv_nsec / 1e9);
	if (fclose(mem)) {
		cmd_error("metrics", "%s", strerror(errno));
		rc = EXIT_FAIL;
		goto out;
	}
	rc = outfile_write(&file, buf, len);
	if (!rc)
		rc = outfile_commit(&file);
	if (rc) {
		why = outfile_error(&file, rc);
		cmd_error("metrics", "%s", why);
		free(why);
	}
	rc = rc ? EXIT_FAIL : EXIT_OK;
out:
	outfile_discard(&file);
	free(buf);
	audit_report_free(&rep);
	snapshot_free(&snap);
	return rc;
}

static const struct opt_def metrics_opts[] = {
	OPT_STRING('o', "output", &param.output_file, "FILE",
		   "write to FILE atomically (temporary file, rename; '-': stdout)"),
	OPT_STRING(0, "output-file", &param.output_file, "FILE", "the same as --output (its older name)"),
	OPT_END()
};

const struct cmd_def cmd_metrics = {
	.name = "metrics",
	.summary = "write TSM, stream and audit state as Prometheus textfile metrics",
	.description = "Write gauges for TSMs, connected devices, IDE streams by state per host\n"
		       "bridge, available secure streams and every audit check's status in the\n"
		       "Prometheus text format, for node_exporter's textfile collector. With\n"
		       "-o FILE the file is replaced atomically (temporary file, fsync, rename)",
	.opts = metrics_opts,
	.run = run_metrics,
};
